"""The empirical privacy region figure: one point per pair, against the claims' trade-off curves.

The left (or only) panel is the (FPR, FNR) trade-off plane on linear axes; when an event is rare
(`region_has_tail`) a second panel shows the (Q, P) plane on log axes, where the verdict's line
P = e^ε Q + δ lives. Pair numbers label the markers, one label per cluster of nearby markers
("6–8"), placed on the free side (`label_pairs`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from markupsafe import Markup

from dpaudit.engine.types import AuditResult, PairResult

from .figures import (
    OK_COLOUR,
    VIOLATION_COLOUR,
    Kind,
    claim_p_max,
    claims_to_draw,
    encode,
    log_axis,
    matplotlib_parts,
    new_figure,
    ranges,
)
from .markdown import fmt
from .relations import relation_words

LABEL_RADIUS = 0.035  # markers closer than this (axes fraction) share one label
REGION_PLANE = (
    "the test ‘the output falls in the certified event S’ as a hypothesis test of the likelier side (P) "
    "against the other (Q), one point per pair: FPR = Q(S) and FNR = 1 − P(S). The marker is the "
    "certified corner (Q upper, 1 − P lower), the box reaches to the point estimate of the counts. The "
    "claim allows only the region above its trade-off curve (Kairouz, Oh &amp; Viswanath 2015, both "
    "inequalities of (ε, δ)-DP); a certified corner in the shaded region refutes it."
)
REGION_TAIL = (
    "Right (drawn because an event is rare): the same points in the (Q, P) plane on log axes, where "
    "the claim allows only the region below P = e<sup>ε</sup> Q + δ; the verdict tests this line. Zero "
    "coordinates are drawn at the axis floor."
)
REGION_LABELS = "Numbers are pair numbers; markers closer than the label size share one label (e.g. “6–8”)."

Point = tuple[float, float]


def region_caption(two_panels: bool) -> Markup:
    """The region figure's caption (HTML), describing exactly the panels drawn."""
    if two_panels:
        return Markup(f"Left: {REGION_PLANE} {REGION_TAIL} {REGION_LABELS}")
    return Markup(f"The {REGION_PLANE[4:]} {REGION_LABELS}")


def _estimate_point(p: PairResult) -> Point:
    e = p.estimate
    return (e.q_count / e.q_total if e.q_total else 0.0, e.p_count / e.p_total if e.p_total else 0.0)


def _region_points(r: AuditResult) -> tuple[list[Point], list[Point]]:
    """(certified corners (Q upper, P lower), point estimates (Q, P)) of every pair."""
    corners = [(p.estimate.q_upper, p.estimate.p_lower) for p in r.pairs]
    return corners, [_estimate_point(p) for p in r.pairs]


def _smallest_coordinate(r: AuditResult) -> float:
    corners, estimates = _region_points(r)
    coords = [v for xy in corners + estimates for v in xy if v > 0 and math.isfinite(v)]
    return min(coords, default=1.0)


def region_has_tail(r: AuditResult) -> bool:
    """Whether the region figure has its second (log-axes) panel: an event is rare."""
    return bool(r.pairs) and _smallest_coordinate(r) < 0.02


def clusters(points: Sequence[Point], radius: float) -> list[list[int]]:
    """Indices of `points` (in axes-fraction coordinates) grouped by single linkage at `radius`."""
    parent = list(range(len(points)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, (xi, yi) in enumerate(points):
        for j in range(i):
            xj, yj = points[j]
            if math.hypot(xi - xj, yi - yj) <= radius:
                parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(points)):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


_SIDES = ((1, 1), (-1, 1), (1, -1), (-1, -1))  # label sides (x, y), in order of preference


def _label_centre(at: Point, side: tuple[int, int], width: float) -> Point:
    return at[0] + side[0] * (0.012 + width / 2), at[1] + side[1] * 0.03


def _label_fit(at: Point, side: tuple[int, int], width: float, others: Sequence[Point]) -> float:
    """Higher is better: far (up to 0.1 axes fraction) from other markers and labels, inside the axes."""
    cx, cy = _label_centre(at, side, width)
    inside = width / 2 <= cx <= 1 - width / 2 and 0.02 <= cy <= 0.98
    near = min((math.hypot(cx - ox, cy - oy) for ox, oy in others), default=1.0)
    return min(near, 0.1) - (0.0 if inside else 1.0)


def label_pairs(
    ax: Any, pairs: Sequence[PairResult], xy: Sequence[Point], frac: Callable[[float, float], Point]
) -> None:
    """Pair numbers next to their markers: one label per cluster of nearby markers ("6–8"), on the
    side of the marker (of four) farthest from the other markers and labels while inside the axes,
    and clipped to them. `frac` maps data (x, y) to axes fractions."""
    fracs = [frac(x, y) for x, y in xy]
    placed: list[Point] = []
    for group in clusters(fracs, LABEL_RADIUS):
        fx = sum(fracs[i][0] for i in group) / len(group)
        fy = sum(fracs[i][1] for i in group) / len(group)
        anchor = min(group, key=lambda i: math.hypot(fracs[i][0] - fx, fracs[i][1] - fy))
        text = ranges([pairs[i].index + 1 for i in group])
        width = 0.012 * len(text) + 0.01  # label extent in axes fraction, roughly
        others = [f for i, f in enumerate(fracs) if i not in group] + placed
        dx, dy = max(_SIDES, key=lambda d: _label_fit(fracs[anchor], d, width, others))
        placed.append(_label_centre(fracs[anchor], (dx, dy), width))
        ax.annotate(
            text,
            xy[anchor],
            textcoords="offset points",
            xytext=(5 * dx, 4 if dy > 0 else -5),
            ha="left" if dx > 0 else "right",
            va="bottom" if dy > 0 else "top",
            fontsize=9,
            color=VIOLATION_COLOUR if any(pairs[i].violation for i in group) else OK_COLOUR,
            clip_on=True,
            annotation_clip=True,
        )


def _boxes(ax: Any, r: AuditResult, boxes: Sequence[tuple[Point, Point]]) -> list[Point]:
    """Per pair: a box from its certified corner (x0, y0) to its estimate (x1, y1), and a marker
    at the corner (a triangle for an infinite witness). Returns the corners."""
    _, _, Rectangle, _ = matplotlib_parts()
    for p, ((x0, y0), (x1, y1)) in zip(r.pairs, boxes, strict=True):
        colour = VIOLATION_COLOUR if p.violation else OK_COLOUR
        ax.add_patch(
            Rectangle(
                (min(x0, x1), min(y0, y1)),
                abs(x0 - x1),
                abs(y0 - y1),
                facecolor=colour,
                alpha=0.25,
                edgecolor=colour,
                linewidth=1.2,
            )
        )
        marker = "^" if p.estimate.infinite_witness else "o"
        ax.plot([x0], [y0], marker=marker, color=colour, markersize=6, clip_on=False)
    return [corner for corner, _ in boxes]


def _plane_panel(ax: Any, r: AuditResult) -> None:
    """The (FPR, FNR) trade-off plane: claims' curves, the excluded region shaded, the pairs."""
    qs = [i / 400 for i in range(401)]
    for k, (claim, style, label) in enumerate(claims_to_draw(r)):
        fnr_min = [1.0 - pm for pm in claim_p_max(claim, qs)]
        ax.plot(qs, fnr_min, linestyle=style, color="black", linewidth=1.3, label=label)
        if k == 0:
            ax.fill_between(qs, 0.0, fnr_min, color=VIOLATION_COLOUR, alpha=0.08, linewidth=0)
    ax.plot(qs, [1 - q for q in qs], color="#8c959f", linewidth=0.8, label="no information (P = Q)")
    corners, estimates = _region_points(r)
    boxes = [
        ((cq, 1.0 - cp), (min(eq, cq), 1.0 - max(ep, cp)))
        for (cq, cp), (eq, ep) in zip(corners, estimates, strict=True)
    ]
    label_pairs(ax, r.pairs, _boxes(ax, r, boxes), lambda x, y: (x, y))
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_aspect("equal")
    ax.set_xlabel("FPR = Q(S), upper bound")
    ax.set_ylabel("FNR = 1 − P(S), upper bound")
    ax.set_title("Trade-off plane", fontsize=10)
    ax.grid(True, linewidth=0.4, alpha=0.6)


def _tail_panel(ax: Any, r: AuditResult) -> None:
    """The (Q, P) plane on log axes down to a floor below the smallest coordinate."""
    floor = 10 ** math.floor(math.log10(_smallest_coordinate(r)) - 0.5)
    log_axis(ax, "x")
    log_axis(ax, "y")
    xs = [floor * (1.0 / floor) ** (i / 300) for i in range(301)]
    for k, (claim, style, label) in enumerate(claims_to_draw(r)):
        pmax = claim_p_max(claim, xs)
        ax.plot(xs, pmax, linestyle=style, color="black", linewidth=1.3, label=label)
        if k == 0:
            ax.fill_between(xs, pmax, 1.0, color=VIOLATION_COLOUR, alpha=0.08, linewidth=0)
    ax.plot(xs, xs, color="#8c959f", linewidth=0.8, label="no information (P = Q)")
    if math.isfinite(r.epsilon_lower_bound) and r.epsilon_lower_bound > 0:
        ys = [min(1.0, math.exp(r.epsilon_lower_bound) * x + r.claim.delta) for x in xs]
        label = f"certified ε = {fmt(r.epsilon_lower_bound)}: P = e^ε Q + δ"
        ax.plot(xs, ys, linestyle=":", color="#57606a", linewidth=1.2, label=label)
    corners, estimates = _region_points(r)
    boxes = [
        ((max(cq, floor), max(cp, floor)), (max(min(eq, cq), floor), max(ep, cp, floor)))
        for (cq, cp), (eq, ep) in zip(corners, estimates, strict=True)
    ]
    span = -math.log10(floor)
    marks = _boxes(ax, r, boxes)
    label_pairs(ax, r.pairs, marks, lambda x, y: (1 + math.log10(x) / span, 1 + math.log10(y) / span))
    ax.set_xlim(floor, 1.0)
    ax.set_ylim(floor, 1.0)
    ax.set_aspect("equal")
    ax.set_xlabel("Q(S), upper bound")
    ax.set_ylabel("P(S), lower bound")
    ax.set_title("Tail view (log axes)", fontsize=10)
    ax.grid(True, which="major", linewidth=0.4, alpha=0.6)


def _marker_handles(r: AuditResult) -> list[Any]:
    """The shaded region and each kind of marker drawn."""
    _, _, Rectangle, Line2D = matplotlib_parts()
    pairs = r.pairs
    relation = relation_words(r.claim.relation)
    handles = [
        Rectangle(
            (0, 0),
            1,
            1,
            facecolor=VIOLATION_COLOUR,
            alpha=0.08,
            label=f"excluded by the {relation_words(r.claim.relation)} claim",
        )
    ]
    kinds = [
        (any(not p.violation for p in pairs), "o", OK_COLOUR, f"certified corner, {relation} pair (#)"),
        (any(p.violation for p in pairs), "o", VIOLATION_COLOUR, f"violating {relation} pair"),
        (any(p.estimate.infinite_witness for p in pairs), "^", "#57606a", "one-sided witness (Q count 0)"),
    ]
    handles += [
        Line2D([], [], marker=m, color=c, linestyle="none", label=label)
        for drawn, m, c, label in kinds
        if drawn
    ]
    return handles


def _merged_handles(*axes: Any) -> list[Any]:
    """Legend handles of `axes`, each label once."""
    out, seen = [], set()
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in seen:
                seen.add(label)
                out.append(handle)
    return out


def privacy_region(r: AuditResult, kind: Kind = "png") -> bytes | str | None:
    """The empirical privacy region (PNG bytes or SVG text, see `figures.encode`), or None when
    matplotlib is unavailable or there are no pairs. One panel (the trade-off plane), plus a
    log-axes panel of the (Q, P) plane when an event is rare; the legend sits outside the axes."""
    if matplotlib_parts() is None or not r.pairs:
        return None
    tail = region_has_tail(r)
    fig = new_figure(6.0 if tail else 5.6)
    axes = [fig.add_subplot(1, 2 if tail else 1, 1)]
    _plane_panel(axes[0], r)
    if tail:
        axes.append(fig.add_subplot(1, 2, 2))
        _tail_panel(axes[1], r)
    handles = [*_merged_handles(*axes), *_marker_handles(r)]
    if tail:
        fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=8, framealpha=0.92)
        rows = math.ceil(len(handles) / 3)
        return encode(fig, (0.0, (0.15 + 0.17 * rows) / 6.0, 1.0, 1.0), kind)
    axes[0].set_anchor("W")  # the square plane at the left, the legend next to it
    axes[0].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.04, 1.0), fontsize=9, framealpha=0.92)
    return encode(fig, None, kind)
