"""Small dependency-free figures (inline SVG) for the HTML report.

`verdict_bars_svg` draws the three numbers a reviewer compares first, on one ε axis: the claim
that decides the verdict, the white-box ε of the worst audited pair (the mechanism's oracle, a
reference that never enters the verdict) and the certified lower bound. A certified bar past
the claim line is a violation; a certified bar far below the white-box bar is an audit short of
power, not a mechanism far inside its claim.
"""

from __future__ import annotations

import html
import math

from dpaudit.engine.types import AuditResult

_WIDTH, _LABEL, _BAR, _GAP = 420, 150, 16, 8


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.3g}"


def verdict_bars_svg(r: AuditResult, *, exact: float | None, exact_label: str = "white-box ε") -> str:
    """Claim, white-box ε (when `exact` is not None) and certified ε as horizontal bars.

    Infinite or negative values are drawn at the axis ends and labelled with their value."""
    rows: list[tuple[str, float, str]] = [("claim ε (verdict)", r.claim.epsilon, "#0969da")]
    if exact is not None:
        rows.append((exact_label, exact, "#8250df"))
    rows.append(("certified ε ≥", r.epsilon_lower_bound, "#cf222e" if r.violation else "#2da44e"))
    finite = [v for _, v, _ in rows if math.isfinite(v) and v > 0]
    top = max(finite, default=1.0) * 1.15
    span = _WIDTH - _LABEL - 60
    height = len(rows) * (_BAR + _GAP) + _GAP
    parts = [
        f'<svg class="verdict-bars" xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height}" '
        f'viewBox="0 0 {_WIDTH} {height}" role="img" aria-label="claim, white-box and certified ε">'
    ]
    for k, (label, value, colour) in enumerate(rows):
        y = _GAP + k * (_BAR + _GAP)
        shown = top if math.isinf(value) and value > 0 else max(0.0, value if math.isfinite(value) else 0.0)
        w = span * min(shown, top) / top
        base = f'y="{y + _BAR - 4}" font-size="12"'
        parts += [
            f'<text x="{_LABEL - 6}" {base} text-anchor="end">{html.escape(label)}</text>',
            f'<rect x="{_LABEL}" y="{y}" width="{w:.1f}" height="{_BAR}" fill="{colour}"/>',
            f'<text x="{_LABEL + w + 4:.1f}" {base}>{html.escape(_fmt(value))}</text>',
        ]
    claim_x = _LABEL + span * min(r.claim.epsilon, top) / top
    parts.append(
        f'<line x1="{claim_x:.1f}" y1="2" x2="{claim_x:.1f}" y2="{height - 2}" stroke="#0969da" '
        'stroke-dasharray="3,2"/>'
    )
    return "".join(parts) + "</svg>"
