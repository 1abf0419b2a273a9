"""The cluster template family: clusters of identical records and one lone record next to them.

Learners that choose among the patterns the data's distinct points induce change their pattern
set, multiplicities and scores at once when a point alone in its gap leaves it for a new
extreme point with a surprising label (see `family_clusters`).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .base import NeighborPair, Relation, SubsamplingKind
from .building import change_pair, round_robin
from .sizes import size_jumps
from .space import F64, Space, fmt_record, fmt_value

__all__ = ["family_clusters"]


def _diagonal_point(space: Space, t: float) -> F64:
    """The point lo + t·(hi − lo) of the box diagonal (rounded to the grid, clipped to the box)."""
    v = space.at(min(max(t, 0.0), 1.0))
    if space.domain.integer_valued:
        v = np.floor(v + 0.5)
    return np.asarray(np.clip(v, space.lo, space.hi), dtype=float)


_CLUSTER_LAYOUTS = ((0.25, 0.5), (0.25, 0.75), (0.5, 0.75))


def family_clusters(space: Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """Structured data: clusters of identical records and one lone record next to them.

    Layouts (positions along the box diagonal lo → hi): one cluster near one end of the box and
    the lone record at the other corner with the cluster's label; two clusters (labelled: one
    label each, in either order) with the lone record below the first, between them or above
    the second, labelled like its nearer cluster. The change moves the lone record outside the
    data's support (to the far corner of the box, with each label) or relabels it; for
    add/remove a record is added at a far corner, or the lone record is added / removed.
    Sizes: a base size and, when the domain declares subsampling, the largest allowed n and the
    last jump of `Subsampling.size` (where a rounded subsample size such as ⌈εn⌉ is largest
    relative to n), interleaved so a capped prefix sees every size.

    Why: learners that choose among the patterns the data's *distinct* points induce (the
    relabel-and-learn family, exponential mechanisms over a finite class, learners on a
    subsample T) change their pattern set, the multiplicities and their scores at once when a
    point that is alone in its gap leaves it for a new extreme point with a surprising label;
    constant or clean fillers never show this.
    """
    n0 = space.clamp_size(max(base_size, 8), relation)
    if n0 is None:
        return
    sizes = [n0]
    sub = space.domain.subsampling
    if sub.kind is not SubsamplingKind.NONE:
        a, b = space.sizes_for(relation)
        jumps = size_jumps(sub.size, a, b, limit=64) if sub.size is not None else ()
        sizes += [b, *jumps[-1:]]
    sizes = [n for n in dict.fromkeys(sizes) if n >= 3]
    yield from round_robin([_cluster_layouts(space, relation, n, extra=k > 0) for k, n in enumerate(sizes)])


_Layout = tuple[str, tuple[float, ...], float, int | None, list[F64], bool]
"""(name, cluster positions on the diagonal, lone record's position, index of its nearer cluster
(None: between two), far corners it may move to, lone record in the middle of the stream)."""


def _cluster_layouts(
    space: Space, relation: Relation, n: int, *, extra: bool
) -> Iterator[NeighborPair | None]:
    span = space.span
    integer = space.domain.integer_valued
    unit = 1.0 / float(np.max(span)) if integer and np.max(span) > 0 else 1.0 / 16
    lo_corner, hi_corner = space.lo.copy(), space.hi.copy()
    centre = _diagonal_point(space, 0.5)
    adjacent = centre.copy()  # one grid step from the central cluster, along the last coordinate
    adjacent[-1] = min(adjacent[-1] + unit * float(span[-1]), float(space.hi[-1]))
    if space.domain.integer_valued:
        adjacent = np.floor(adjacent + 0.5)
    layouts: list[_Layout] = [
        ("one cluster near the top, lone record at the low corner", (1 - unit,), 0.0, 0, [hi_corner], False),
        ("one cluster near the bottom, lone record at the high corner", (unit,), 1.0, 0, [lo_corner], False),
        (
            "one cluster at the centre, lone record at the low corner",
            (0.5,),
            0.0,
            0,
            [adjacent, hi_corner],
            False,
        ),
    ]
    for k, (ta, tb) in enumerate(_CLUSTER_LAYOUTS[: 1 if extra else None]):
        tag = f"clusters at t={ta:g},{tb:g}"
        mid = k > 0  # the later placements put the lone record in the middle of the stream
        layouts += [
            (f"{tag}, lone record below", (ta, tb), ta - unit, 0, [hi_corner], mid),
            (f"{tag}, lone record between", (ta, tb), (ta + tb) / 2, None, [hi_corner, lo_corner], mid),
            (f"{tag}, lone record above", (ta, tb), tb + unit, 1, [lo_corner], mid),
        ]
    yield from round_robin([_cluster_layout(space, relation, n, layout) for layout in layouts])


def _cluster_layout(
    space: Space, relation: Relation, n: int, layout: _Layout
) -> Iterator[NeighborPair | None]:
    """One layout's pairs: each label order, then each target (the far corner with the lone
    record's label flipped first: a new extreme point with a surprising label)."""
    name, ts, tl, nearer, corners, middle = layout
    labels = space.labels
    orders: list[tuple[float | None, float | None]]
    if labels is None:
        orders = [(None, None)]
    elif len(labels) > 1:
        orders = [(labels[-1], labels[0]), (labels[0], labels[-1])]
    else:
        orders = [(labels[0], labels[0])]

    def record(v: F64, y: float | None) -> F64:
        return np.append(v, y) if y is not None else v.copy()

    points = [_diagonal_point(space, t) for t in ts]
    pl = _diagonal_point(space, tl)
    for ya, yb in orders:
        cl_labels = (ya, yb)[: len(ts)]
        lone_labels = [cl_labels[nearer]] if nearer is not None else list(dict.fromkeys([yb, ya]))
        if len(ts) == 1 and abs(ts[0] - 0.5) < 1e-9 and yb is not None:
            lone_labels = [yb]  # the central cluster's other label: an outlier on the covered side
        for yl in lone_labels:
            counts = [(n - 1) // len(ts)] * len(ts)
            counts[-1] = n - 1 - sum(counts[:-1])
            blocks = [
                np.tile(record(p, y), (c, 1)) for p, y, c in zip(points, cl_labels, counts, strict=True)
            ]
            rows = np.vstack([record(pl, yl)[None, :], *blocks]).reshape(n, space.width)
            lone = rows[0].copy()
            i = 0
            if middle:
                rows = np.vstack([rows[1 : n // 2 + 1], rows[:1], rows[n // 2 + 1 :]])
                i = n // 2
            lab = "|".join(fmt_value(y) for y in cl_labels if y is not None)
            what = name + (f" (labels {lab})" if lab else "")
            if labels is None:
                targets = [c.copy() for c in corners]
            else:
                ys = dict.fromkeys([*(y for y in labels if y != yl), labels[-1], labels[0]])
                targets = [
                    record(c, y)
                    for c in corners
                    for y in (
                        [yl]
                        if any(np.array_equal(c, p) or np.abs(c - p).max() <= 1.0 for p in points)
                        else ys
                    )
                ]
            tags = ("cluster",)
            if relation is Relation.RELABEL_ONE:
                yield change_pair(space, rows, relation, i, None, f"{what}: relabel it", tags)
            elif relation is Relation.ADD_REMOVE_ONE:
                for t in targets:
                    desc = f"{what}: a new point outside the support {fmt_record(t, space.labelled)}"
                    yield change_pair(space, rows, relation, i, t, desc, tags)
                if n - 1 >= space.sizes_for(relation)[0]:
                    rest = np.delete(rows, i, axis=0)
                    yield change_pair(space, rest, relation, i, lone, f"{what}: add / remove it", tags)
            else:
                for t in targets:
                    desc = f"{what} → outside the support {fmt_record(t, space.labelled)}"
                    yield change_pair(space, rows, relation, i, t, desc, tags)
                for alt in space.relabelled(lone):
                    yield change_pair(space, rows, relation, i, alt, f"{what}: relabel it", tags)
