"""The privacy profile figure and the certified-bound-vs-samples (trajectory) figure.

`privacy_profile` draws the certified profile points against the proved claim's ε(δ) on a log δ
axis; `trajectory` draws each pair's certified ε on growing prefixes of its certification
samples, with the claims as lines, or as arrows at the top when far above the curves
(`trajectory_layout`).
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

from dpaudit.engine.types import AuditResult, PairResult, PrivacyClaim

from .figures import (
    ACCOUNTANT_DRAWING,
    OK_COLOUR,
    OTHER_COLOUR,
    PALETTE,
    VIOLATION_COLOUR,
    Kind,
    claims_to_draw,
    clip_label,
    drawn_epsilon_at,
    encode,
    log_axis,
    matplotlib_parts,
    new_figure,
    profile_points,
    ranges,
    safe,
)
from .markdown import fmt
from .relations import relation_words

MAX_LABELLED_PAIRS = 5  # the trajectory legend names at most this many pairs; the rest are grey
MAX_TRAJECTORY_PAIRS = 60  # curves drawn at all (labelled + grey)
CLAIM_LINE_RANGE = 2.5  # draw a claim as a line only within this many data ranges of the curves' bottom
PROFILE_CAPTION = (
    "One figure per relation: the certified ε lower bounds at each δ (circles) and δ lower bounds at "
    "each ε (diamonds) of the pairs under that relation, against that relation's claimed privacy "
    "profile ε(δ) (its curve, or the privacy region of its point claim), the region above it shaded; "
    "a point is never drawn against another relation's curve. Points above the claimed curve refute "
    "the claim there and are drawn in red. The star is the headline bound at the claim's δ. Points at "
    "δ = 0 and bounds ≤ 0 (no evidence) are in the table only, or drawn on the axis floor as hollow "
    "markers. " + ACCOUNTANT_DRAWING
)
TRAJECTORY_CAPTION = (
    "The certified ε lower bound of each pair on growing prefixes of its certification samples, "
    "against the claimed ε (horizontal lines; a claim far above the curves is named at the top with "
    "an ↑ instead, so the curves keep the height of the plot). With many pairs only the violating "
    "ones and those with the highest final bounds are named; the others are drawn in grey. "
    "Descriptive: each point is valid on its own at the per-test failure probability, not jointly; it "
    "shows how the bound grows with the budget."
)
_MARKERS = {"eps": "o", "delta": "D", "headline": "*"}
_MARKER_WORDS = {"eps": "certified ε at δ", "delta": "certified δ at ε", "headline": "headline bound"}

ProfileXY = tuple[float, float, bool, str]


def _profile_xy(r: AuditResult) -> list[ProfileXY]:
    """(δ, ε, exceeds, kind) of every drawable profile point; kind "eps", "delta" or "headline"."""
    out: list[ProfileXY] = []
    for pt in profile_points(r):
        if pt.parameter is None:
            continue
        if pt.objective == "epsilon" and pt.parameter > 0:
            out.append((pt.parameter, pt.value, pt.exceeds_claim, "eps"))
        elif pt.objective == "delta" and pt.value > 0 and math.isfinite(pt.parameter):
            out.append((pt.value, pt.parameter, pt.exceeds_claim, "delta"))
    if out and r.claim.delta > 0:
        out.append(
            (r.claim.delta, r.epsilon_lower_bound, r.epsilon_lower_bound > r.claim.epsilon, "headline")
        )
    return out


def _profile_claims(ax: Any, r: AuditResult, lo: float, top: float) -> None:
    """Each claim's ε(δ) on [lo, 0.9], the region above the proved one's shaded."""
    grid = [lo * (0.9 / lo) ** (i / 300) for i in range(301)]
    for k, (claim, style, label) in enumerate(claims_to_draw(r)):
        eps = [safe(functools.partial(drawn_epsilon_at, claim), d) for d in grid]
        shown = [e if math.isfinite(e) else math.nan for e in eps]
        ax.plot(grid, shown, linestyle=style, color="black", linewidth=1.4, label=f"{label}: ε(δ)")
        if k == 0:
            floor = [min(e, top) if math.isfinite(e) else top for e in eps]
            ax.fill_between(grid, floor, top, color=VIOLATION_COLOUR, alpha=0.08, linewidth=0)
            if claim.curve is None and claim.delta > lo:
                ax.axvline(claim.delta, color="#8c959f", linewidth=0.8, linestyle=":")


def _profile_marks(ax: Any, pts: list[ProfileXY], relation: str) -> list[Any]:
    """The points (hollow on the floor when no evidence), annotated; returns the legend handles,
    each naming the points' relation."""
    for d, e, exceeds, kind in pts:
        colour = VIOLATION_COLOUR if exceeds else OK_COLOUR
        evidence = math.isfinite(e) and e > 0
        y = e if evidence else 0.0
        ax.plot(
            [d],
            [y],
            marker=_MARKERS[kind],
            markersize=13 if kind == "headline" else 8,
            linestyle="none",
            markerfacecolor=colour if evidence else "none",
            markeredgecolor=colour,
        )
        if evidence:
            text = f"δ ≥ {fmt(d)}" if kind == "delta" else f"ε ≥ {fmt(e)}"
            ax.annotate(text, (d, y), textcoords="offset points", xytext=(6, 5), fontsize=9, color=colour)
    Line2D = matplotlib_parts()[3]
    kinds = {kind for *_, kind in pts}
    handles = [
        Line2D(
            [],
            [],
            marker=_MARKERS[k],
            color=OK_COLOUR,
            linestyle="none",
            label=f"{words} ({relation} pairs)",
            markersize=12 if k == "headline" else 7,
        )
        for k, words in _MARKER_WORDS.items()
        if k in kinds
    ]
    if any(exceeds for *_, exceeds, _k in pts):
        handles.append(
            Line2D(
                [],
                [],
                marker="o",
                color=VIOLATION_COLOUR,
                linestyle="none",
                label=f"exceeds the {relation} claim",
            )
        )
    return handles


def _profile_title(r: AuditResult) -> str:
    relation = relation_words(r.claim.relation)
    title = f"Privacy profile, {relation}: its pairs' certified points against its claimed ε(δ)"
    mu = [pt for pt in profile_points(r) if pt.objective == "gdp_mu"]
    if mu:
        best = max(mu, key=lambda pt: pt.value)
        claimed = "" if best.claimed is None else f" (claimed μ = {fmt(best.claimed)})"
        title += f"\ncertified Gaussian-DP μ ≥ {fmt(best.value)}{claimed}"
    return title


def privacy_profile(r: AuditResult, kind: Kind = "png") -> bytes | str | None:
    """Certified profile points vs the claimed ε(δ) on a log δ axis (PNG bytes or SVG text); None
    when matplotlib is missing or the result has no ε-at-δ / δ-at-ε points to draw."""
    pts = _profile_xy(r)
    if matplotlib_parts() is None or not pts:
        return None
    lo = 10 ** math.floor(math.log10(min(d for d, *_ in pts)) - 1.0)
    top = 1.3 * max([r.claim.epsilon, *(e for _, e, *_ in pts if math.isfinite(e)), 0.1])
    fig = new_figure(5.4)
    ax = fig.add_subplot(1, 1, 1)
    log_axis(ax, "x")
    _profile_claims(ax, r, lo, top)
    extra = _profile_marks(ax, pts, relation_words(r.claim.relation))
    handles = ax.get_legend_handles_labels()[0] + extra
    ax.set_xlim(lo, 1.0)
    ax.set_ylim(-0.02 * top, top)
    ax.set_xlabel("δ (log scale)")
    ax.set_ylabel("ε")
    ax.set_title(_profile_title(r), fontsize=11)
    ax.grid(True, which="major", linewidth=0.4, alpha=0.6)
    ax.legend(handles=handles, loc="upper right", fontsize=9, framealpha=0.92)
    return encode(fig, None, kind)


# ---------------------------------------------------------------------------------------------
# trajectory


class TrajectoryLayout(NamedTuple):
    """What the certified-bound-vs-samples figure draws (see `trajectory_layout`)."""

    named: list[PairResult]  # coloured, named in the legend
    others: list[PairResult]  # grey, one legend entry
    not_drawn: int  # pairs beyond MAX_TRAJECTORY_PAIRS
    lines: list[tuple[PrivacyClaim, str, str]]  # claims drawn as lines: (claim, style, label)
    above: list[tuple[PrivacyClaim, str]]  # claims far above the curves, marked at the top instead
    bottom: float  # the curves' range (with 0)
    top: float


def trajectory_layout(r: AuditResult) -> TrajectoryLayout | None:
    """The pairs and claims of the trajectory figure, or None when no pair records a trajectory:
    violating pairs first, then by certified bound; at most MAX_LABELLED_PAIRS named; a claim is a
    line only within CLAIM_LINE_RANGE times the curves' range (with 0) of their bottom."""
    pairs = [p for p in r.pairs if any(math.isfinite(e) for _, e in p.trajectory)]
    pairs.sort(key=lambda p: (not p.violation, -p.estimate.epsilon_lower_bound))
    if not pairs:
        return None
    drawn = pairs[:MAX_TRAJECTORY_PAIRS]
    ys = [e for p in drawn for n, e in p.trajectory if math.isfinite(e) and n > 0]
    bottom, top = min([0.0, *ys]), max([0.0, *ys])
    span = max(top - bottom, 0.05)
    lines: list[tuple[PrivacyClaim, str, str]] = []
    above: list[tuple[PrivacyClaim, str]] = []
    seen: list[float] = []
    for claim, linestyle, label in claims_to_draw(r):
        if claim.epsilon in seen:
            continue
        seen.append(claim.epsilon)
        if claim.epsilon - bottom <= CLAIM_LINE_RANGE * span:
            lines.append((claim, linestyle, label))
        else:
            above.append((claim, label))
    return TrajectoryLayout(
        named=drawn[:MAX_LABELLED_PAIRS],
        others=drawn[MAX_LABELLED_PAIRS:],
        not_drawn=len(pairs) - len(drawn),
        lines=lines,
        above=above,
        bottom=bottom,
        top=top,
    )


def _trajectory_curves(ax: Any, layout: TrajectoryLayout) -> list[Any]:
    """Each pair's curve, the named ones coloured and on top; returns the legend handles."""
    named, others = layout.named, layout.others
    drawn = named + others
    handles: list[Any] = []
    for k in reversed(range(len(drawn))):  # named pairs drawn last, on top of the grey ones
        p = drawn[k]
        xy = sorted((n, e) for n, e in p.trajectory if math.isfinite(e) and n > 0)
        if k < len(named):
            colour = VIOLATION_COLOUR if p.violation and k == 0 else PALETTE[k % len(PALETTE)]
            style: dict[str, Any] = {"marker": "o", "markersize": 4, "linewidth": 1.5, "zorder": 3}
        else:
            colour = OTHER_COLOUR
            style = {"marker": "o", "markersize": 2.5, "linewidth": 0.9, "zorder": 2}
        label = f"pair {p.index + 1} ({relation_words(p.relation)}): {clip_label(p.description)}"
        (line,) = ax.plot([n for n, _ in xy], [e for _, e in xy], color=colour, label=label, **style)
        if k < len(named):
            handles.insert(0, line)
    if others:
        Line2D = matplotlib_parts()[3]
        label = f"other pairs ({ranges([p.index + 1 for p in others])})"
        handles.append(
            Line2D([], [], color=OTHER_COLOUR, marker="o", markersize=2.5, linewidth=0.9, label=label)
        )
    return handles


def _trajectory_claims(ax: Any, layout: TrajectoryLayout) -> list[Any]:
    """The claims as lines (returned as handles) or, far above the curves, as a note at the top."""
    handles = []
    top = layout.top
    ax.axhline(0.0, color="#8c959f", linewidth=0.8)
    for claim, style, label in layout.lines:
        handles.append(
            ax.axhline(claim.epsilon, linestyle=style, color="black", linewidth=1.3, label=f"{label}: ε")
        )
        top = max(top, claim.epsilon)
    extent = max(top - layout.bottom, 0.05)
    ax.set_ylim(layout.bottom - 0.06 * extent, top + 0.14 * extent)
    if layout.above:
        text = "\n".join(
            f"{label.split(' (')[0]} ε = {fmt(c.epsilon)} ↑ (above the plot)" for c, label in layout.above
        )
        box = {"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "#8c959f", "alpha": 0.92}
        ax.text(0.01, 0.97, text, transform=ax.transAxes, ha="left", va="top", fontsize=9, bbox=box)
    return handles


def trajectory(r: AuditResult, kind: Kind = "png") -> bytes | str | None:
    """Certified ε lower bound vs certification samples per pair (PNG bytes or SVG text); None when
    matplotlib is missing or no pair records a trajectory. The violating pairs and those with the
    highest bounds (at most MAX_LABELLED_PAIRS) are coloured and named in a legend below the axes;
    the others are grey. The y-range is the curves'; a claim far above them is an arrow at the top
    rather than a line that would squash them (`trajectory_layout`)."""
    layout = trajectory_layout(r)
    if matplotlib_parts() is None or layout is None:
        return None
    entries = len(layout.named) + bool(layout.others) + len(layout.lines)
    rows = math.ceil(entries / 2)
    height = 4.6 + 0.2 * rows
    fig = new_figure(height)
    ax = fig.add_subplot(1, 1, 1)
    log_axis(ax, "x")
    handles = _trajectory_curves(ax, layout) + _trajectory_claims(ax, layout)
    ax.set_xlabel("certification samples per side (log scale)")
    ax.set_ylabel("certified ε lower bound")
    if layout.others or layout.not_drawn:
        total = len(layout.named) + len(layout.others) + layout.not_drawn
        title = f"{len(layout.named)} of {total} pairs named (violations first, then highest bounds)"
        if layout.not_drawn:
            title += f"; {layout.not_drawn} lowest not drawn"
        ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", linewidth=0.4, alpha=0.5)
    fig.legend(handles=handles, loc="lower center", ncol=2, fontsize=8, framealpha=0.92)
    return encode(fig, (0.0, (0.12 + 0.19 * rows) / height, 1.0, 1.0), kind)
