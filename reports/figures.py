"""Figures of the HTML report: the verdict bars (inline SVG, no dependency) and the shared
pieces of the matplotlib figures (`figures_region`, `figures_curves`).

`verdict_bars_svg` draws the three numbers a reviewer compares first, on one ε axis: the claim
that decides the verdict, the white-box ε of the worst audited pair (the mechanism's oracle, a
reference that never enters the verdict) and the certified lower bound. A certified bar past
the claim line is a violation; a certified bar far below the white-box bar is an audit short of
power, not a mechanism far inside its claim.

The matplotlib figures are all FIGURE_WIDTH_IN × FIGURE_DPI = 1000 px wide and drawn with the
Agg canvas; `encode` writes one as PNG bytes or as an SVG string for inline use. The only
arithmetic is for drawing: the claim's own curve (`PrivacyClaim.delta_at` / `epsilon_at`).
"""

from __future__ import annotations

import dataclasses
import html
import io
import math
import re
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from dpaudit.engine.types import AuditResult, ClaimKind, CurveKind, PrivacyClaim, ProfilePoint

from .markdown import fmt
from .relations import relation_words

FIGURE_WIDTH_IN = 10.0  # every figure is 1000 px wide at FIGURE_DPI: one width on the page
FIGURE_DPI = 100
VIOLATION_COLOUR = "#cf222e"
OK_COLOUR = "#0969da"
OTHER_COLOUR = "#afb8c1"
PALETTE = (
    "#0969da",
    "#bf8700",
    "#1a7f37",
    "#8250df",
    "#57606a",
    "#bc4c00",
    "#6e7781",
    "#4d2d00",
    "#bf3989",
    "#116329",
)

_WIDTH, _LABEL, _BAR, _GAP = 460, 190, 16, 8


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.3g}"


def verdict_bars_svg(r: AuditResult, *, exact: float | None, exact_label: str = "white-box ε") -> str:
    """Claim, white-box ε (when `exact` is not None) and certified ε as horizontal bars.

    Infinite or negative values are drawn at the axis ends and labelled with their value."""
    relation = relation_words(r.claim.relation)
    rows: list[tuple[str, float, str]] = [(f"claim ε ({relation})", r.claim.epsilon, "#0969da")]
    if exact is not None:
        rows.append((exact_label, exact, "#8250df"))
    rows.append(
        (f"certified ε ≥ ({relation})", r.epsilon_lower_bound, "#cf222e" if r.violation else "#2da44e")
    )
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


# ---------------------------------------------------------------------------------------------
# matplotlib


def matplotlib_parts() -> Any:
    """(Figure, FigureCanvasAgg, Rectangle, Line2D), or None when the `plots` extra is missing."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import Rectangle
    except ImportError:
        return None
    return Figure, FigureCanvasAgg, Rectangle, Line2D


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power_label(x: float) -> str:
    """10ᵏ, or m×10ᵏ off the decades, in plain Unicode (no mathtext)."""
    k = math.floor(math.log10(x) + 1e-9)
    m = round(x / 10.0**k, 6)
    power = f"10{str(k).translate(_SUPERSCRIPT)}"
    return power if m == 1 else f"{m:g}×{power}"


def log_axis(ax: Any, which: str) -> None:
    """Log scale on `ax`'s "x" or "y" axis with tick labels as matplotlib's defaults place them but
    written in Unicode (10⁻³) instead of mathtext: the same figure, for a fraction of the cost
    (mathtext parsing was a quarter of the HTML reports' time)."""
    from matplotlib.ticker import LogFormatter

    class _Unicode(LogFormatter):
        def _num_to_string(self, x: float, vmin: float, vmax: float) -> str:
            return _power_label(x)

    getattr(ax, f"set_{which}scale")("log")
    axis = getattr(ax, f"{which}axis")
    axis.set_major_formatter(_Unicode())
    axis.set_minor_formatter(_Unicode(labelOnlyBase=False))


def new_figure(height_in: float) -> Any:
    """A FIGURE_WIDTH_IN × `height_in` figure on an Agg canvas (matplotlib must be importable)."""
    Figure, FigureCanvasAgg, _, _ = matplotlib_parts()
    fig = Figure(figsize=(FIGURE_WIDTH_IN, height_in), dpi=FIGURE_DPI)
    FigureCanvasAgg(fig)
    return fig


Kind = Literal["png", "svg"]
_SVG_DROP = re.compile(r"^.*?(?=<svg)|<metadata>.*?</metadata>|<style[^>]*>.*?</style>", re.S)
_SVG_SIZE = re.compile(r'(width|height)="([\d.]+)pt"')
_SVG_REF = re.compile(r'(url\(#|href="#)([^)"]+)')


def encode(
    fig: Any, rect: tuple[float, float, float, float] | None = None, kind: Kind = "png"
) -> bytes | str:
    """`fig` at its own size, never `bbox_inches="tight"` (which would change the width): PNG bytes,
    or an SVG string for inline use (`inline_svg`): sized in px, text as text, deterministic ids,
    no prolog, metadata or page-wide `<style>`. `rect` reserves figure space (e.g. for a legend)."""
    fig.tight_layout(rect=rect)
    if kind == "png":
        buf = io.BytesIO()
        fig.savefig(buf, format="png", metadata={"Software": None})
        return buf.getvalue()
    import matplotlib

    out = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "dpaudit"}):
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None, "Format": None})
    svg = _SVG_DROP.sub("", out.getvalue())
    return _SVG_SIZE.sub(lambda m: f'{m[1]}="{round(float(m[2]) * FIGURE_DPI / 72)}"', svg, count=2)


def inline_svg(svg: str, prefix: str, label: str) -> str:
    """`svg` (from `encode`) ready to inline in a page: the ids that are referenced prefixed with
    `prefix` (unique per figure on the page), the others dropped, and `label` (escaped) as its
    accessible name."""
    refs = {m[2] for m in _SVG_REF.finditer(svg)}
    svg = re.sub(r' id="([^"]+)"', lambda m: f' id="{prefix}-{m[1]}"' if m[1] in refs else "", svg)
    svg = _SVG_REF.sub(lambda m: f"{m[1]}{prefix}-{m[2]}", svg)
    return svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(label)}" ', 1)


# ---------------------------------------------------------------------------------------------
# shared drawing helpers


def profile_points(r: AuditResult) -> tuple[ProfilePoint, ...]:
    """The run-level profile (best over pairs) if recorded, else every pair's points."""
    return r.profile or tuple(pt for p in r.pairs for pt in p.profile)


def _claim_key(c: PrivacyClaim) -> tuple[float, float, object]:
    curve = None if c.curve is None else (c.curve.kind, c.curve.parameter, c.curve.points)
    return (c.epsilon, c.delta, curve)


def short_claim(c: PrivacyClaim) -> str:
    curve = f", {c.curve.label()}" if c.curve is not None else ""
    return f"(ε={fmt(c.epsilon)}, δ={fmt(c.delta)}{curve})"


def claims_to_draw(r: AuditResult) -> list[tuple[PrivacyClaim, str, str]]:
    """(claim, line style, label naming its relation): the verdict claim (solid), differing stated
    claims (dashed), other pair claims (dash-dot); at most four."""
    out = [
        (
            r.claim,
            "-",
            f"{r.claim.kind.value} claim, {relation_words(r.claim.relation)} {short_claim(r.claim)}",
        )
    ]
    seen = {_claim_key(r.claim)}
    others = [cc.claim for cc in r.claims if cc.claim.kind is ClaimKind.STATED] + [p.claim for p in r.pairs]
    for c in others:
        if _claim_key(c) not in seen:
            seen.add(_claim_key(c))
            style = "--" if c.kind is ClaimKind.STATED else "-."
            out.append((c, style, f"{c.kind.value} claim, {relation_words(c.relation)} {short_claim(c)}"))
    return out[:4]


ACCOUNTANT_DRAWING = (
    "Accountant curves are drawn by linear interpolation of ε in log δ between the accountant's "
    "tabulated points (three per decade, and the headline δ); every comparison uses the tabulated "
    "values, at tabulated δ only."
)


def drawn_epsilon_at(claim: PrivacyClaim, delta: float) -> float:
    """The claim's ε(δ) as the figures draw it: `PrivacyClaim.epsilon_at`, except that an
    accountant's table (answered as a staircase by `epsilon_at`, the conservative value between
    tabulated δ) is drawn smooth, by linear interpolation of ε in log δ between its tabulated
    points (`ACCOUNTANT_DRAWING`), and bounded by the headline point's privacy region. Drawing
    only: verdicts and tables never read it."""
    curve = claim.curve
    if curve is None or curve.kind is not CurveKind.ACCOUNTANT or delta <= 0:
        return claim.epsilon_at(delta)
    point = dataclasses.replace(claim, curve=None).epsilon_at(delta)
    pts = curve.points
    if delta < pts[0][0]:
        return point
    if delta >= pts[-1][0]:
        return min(point, pts[-1][1])
    logs = [math.log(d) for d, _ in pts]
    value = float(np.interp(math.log(delta), logs, [e for _, e in pts]))
    return min(point, value)


def safe(fn: Any, x: float) -> float:
    """fn(x) as a float, nan where it raises."""
    try:
        return float(fn(x))
    except (ValueError, ArithmeticError):
        return math.nan


def claim_p_max(claim: PrivacyClaim, qs: Sequence[float]) -> list[float]:
    """The largest P(S) the claim allows at Q(S) = q (its privacy region, both inequalities),
    from the claim's own δ(ε) (`PrivacyClaim.delta_at`) over a grid of ε."""
    hi = claim.epsilon if claim.curve is None else max(claim.epsilon, 24.0)
    grid = sorted({claim.epsilon, *(hi * i / 240 for i in range(241))})
    pts = [(math.exp(x), safe(claim.delta_at, x)) for x in grid]
    pts = [(ee, dd) for ee, dd in pts if not math.isnan(dd)]
    if not pts:
        return [1.0 for _ in qs]
    ee = np.array([p[0] for p in pts])[:, None]
    dd = np.array([p[1] for p in pts])[:, None]
    q = np.asarray(qs, dtype=float)[None, :]
    best = np.minimum(ee * q + dd, 1.0 - (1.0 - dd - q) / ee).min(axis=0)
    return [float(v) for v in np.clip(np.maximum(best, q[0]), 0.0, 1.0)]


def ranges(numbers: Sequence[int]) -> str:
    """[1, 2, 3, 5, 9, 10] → "1–3, 5, 9–10"."""
    out: list[str] = []
    nums = sorted(set(numbers))
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}–{nums[j]}")
        i = j + 1
    return ", ".join(out)


def clip_label(text: str, limit: int = 60) -> str:
    """One line of at most `limit` characters, `$` escaped (matplotlib would read mathtext)."""
    text = " ".join(text.split()).replace("$", r"\$")
    return text if len(text) <= limit else text[: limit - 1] + "…"
