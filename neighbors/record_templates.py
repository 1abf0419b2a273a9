"""Template families for declared record spaces (`neighbors.records`) and hypothesis grids.

- **counting** (categorical, one-hot, histogram, binary records: each record adds 0 or 1 to each
  counting query): the neighbour patterns of Ding, Wang, Wang, Zhang & Kifer, "Detecting
  Violations of Differential Privacy" (CCS 2018, Table 2), which expose the broken sparse-vector
  variants of Lyu, Su & Li, "Understanding the Sparse Vector Technique for Differential Privacy"
  (VLDB 2017, Algs. 3–6): the change Δ = (answers on D') − (answers on D) is *one above*
  (+1 on one query), *one above, rest below* (+1 on one, −1 on the others), *half-half* (+1 on
  half, −1 on the other half), *all above* (+1 on every query; swapped: all below), and the
  *x-shape* (half-half on a base where the decreasing queries are at 1 and the increasing ones
  at 0, so the answer vectors cross). Every certification tests both directions, so "below"
  patterns are the swapped "above" ones. Binary records realise every Δ; one-hot, categorical
  and histogram records move one record between two cells (first ↔ last, adjacent bins, the
  middle pair), on flat, half-loaded (x-shape) and one-above base profiles. Each pattern comes
  on base datasets at several answer levels (the changed record alone, and with 1 or
  `base_size` filler records), since a threshold mechanism is most sensitive near its threshold.
- **flanked**: a cluster of identical records (the space's centre) flanked by one record at each
  extreme; the change moves a flank into the cluster or across to the other flank, or adds /
  removes a flank (the data's range, its median and a cluster's share change together).
- **grid** (`Domain.hypothesis_grid`): records at the boundary points of a declared finite grid
  (each grid point and the points half a grid step on either side), the change moving the
  record across a grid point, on fillers on either side of it (a mechanism choosing among the
  grid's hypotheses changes its scores exactly there).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np

from .base import NeighborPair, Relation
from .building import change_pair, round_robin
from .records import RecordKind, RecordSpace
from .space import F64, Space

__all__ = [
    "COUNTING_PATTERNS",
    "RECORD_FAMILY_WEIGHT",
    "family_counting",
    "family_flanked",
    "family_grid",
    "record_families",
]

COUNTING_PATTERNS = ("one above", "one above, rest below", "half-half", "all above", "x-shape")
RECORD_FAMILY_WEIGHT = 3
"""Turns per round of the counting family in `WorstCasePairs` (the other families get one): a
declared counting structure is the strongest hint the domain gives, and a capped prefix (the
search screens a few dozen templates) should hold most of its patterns."""


def record_families(
    space: Space, relation: Relation, base_size: int
) -> dict[str, Iterator[NeighborPair | None]]:
    """The families that apply to the space's domain (none for a plain box without a grid)."""
    fams: dict[str, Iterator[NeighborPair | None]] = {}
    records = space.domain.records
    if records is not None and records.counting:
        fams["counting"] = family_counting(space, relation, base_size)
    if records is not None:
        fams["flanked"] = family_flanked(space, relation, base_size)
    if space.domain.hypothesis_grid:
        fams["grid"] = family_grid(space, relation, base_size)
    return fams


def _labelled(space: Space, v: F64, which: int = 0) -> F64:
    if space.labels is None:
        return np.asarray(v, dtype=float)
    return np.append(v, space.labels[which if which >= 0 else len(space.labels) + which])


def _binary_changes(m: int, relation: Relation) -> list[tuple[str, F64, F64]]:
    """(pattern, r, r'): replacing r by r' (add/remove: adding r') changes the answers by the
    pattern's Δ."""
    zero, ones = np.zeros(m), np.ones(m)
    e0 = zero.copy()
    e0[0] = 1.0
    half = zero.copy()
    half[: max(m // 2, 1)] = 1.0
    if relation is Relation.ADD_REMOVE_ONE:
        return [("all above", zero, ones), ("half above", zero, half), ("one above", zero, e0)]
    return [  # the changes of most queries first: they move a threshold mechanism's output most
        ("half-half", 1.0 - half, half),
        ("one above, rest below", ones - e0, e0),
        ("all above", zero, ones),
        ("one above", zero, e0),
    ]


def _cell_changes(records: RecordSpace, relation: Relation) -> list[tuple[str, F64, F64]]:
    """(pattern, r, r') for records that count in one cell: one record moves between two cells
    (add/remove: one record is added to a cell)."""
    k = records.size
    moves = list(dict.fromkeys([(0, k - 1), (0, 1 % k), (k // 2, (k // 2 + 1) % k)]))
    if relation is Relation.ADD_REMOVE_ONE:
        return [(f"one above (cell {j})", records.unit(i), records.unit(j)) for i, j in moves]
    pattern = "one above, one below"
    return [(f"{pattern} (cell {i} → {j})", records.unit(i), records.unit(j)) for i, j in moves if i != j]


def _profiles(records: RecordSpace, r: F64, r_new: F64, base_size: int) -> list[tuple[str, F64]]:
    """Filler rows (without the changed record) giving the base answer levels."""
    empty = np.zeros((0, records.num_features))
    out: list[tuple[str, F64]] = [("alone", empty)]
    if records.kind is RecordKind.BINARY:
        ones = np.ones(records.size)
        out.append(("x-shape", empty))  # r alone is the x-shape base when r and r' are complementary
        for level in dict.fromkeys((1, base_size)):
            out.append((f"answers at {level}", np.tile(ones, (level, 1))))
            out.append((f"{level} empty records", np.zeros((level, records.size))))
        return out
    k = records.size
    flat = np.array([records.unit(j) for j in range(k)])
    loaded = np.array([records.unit(j) for j in range(max(k // 2, 1))])
    out.append(("flat at 1", flat))
    out.append(("x-shape (first half loaded)", loaded))
    out.append(("one above (cell of r loaded)", np.vstack([flat, r.reshape(1, -1)])))
    if base_size > 1:
        out.append((f"flat at {base_size}", np.tile(flat, (base_size, 1))))
    return out


def family_counting(space: Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """Counting-query patterns (module docstring), each on every base profile, interleaved so a
    capped prefix sees every pattern at the low answer levels first."""
    records = space.domain.records
    if records is None or not records.counting or relation is Relation.RELABEL_ONE:
        return
    changes = (
        _binary_changes(records.size, relation)
        if records.kind is RecordKind.BINARY
        else _cell_changes(records, relation)
    )

    def one(pattern: str, r: F64, r_new: F64) -> Iterator[NeighborPair | None]:
        for profile, filler in _profiles(records, r, r_new, base_size):
            if profile == "x-shape" and not np.array_equal(r + r_new, np.ones_like(r)):
                continue
            rows = np.array([_labelled(space, f) for f in filler]).reshape(-1, space.width)
            what = f"counting: {pattern}, {profile}"
            if relation is Relation.ADD_REMOVE_ONE:
                yield change_pair(space, rows, relation, "last", _labelled(space, r_new), what, ("counting",))
                continue
            rows = np.vstack([rows, _labelled(space, r)])
            yield change_pair(space, rows, relation, "last", _labelled(space, r_new), what, ("counting",))

    yield from round_robin([one(*c) for c in changes])


def family_flanked(space: Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """A cluster of `base_size` (at least 3) copies of the centre record flanked by the low and the
    high extreme record; the low flank moves into the cluster or across to the high side, or
    (add/remove) a flank is added next to the cluster."""
    records = space.domain.records
    named = space.extreme_records()
    if records is None or len(named) < 2:
        return
    low = named[0][1]
    high = next((r for name, r in named if name.startswith("high corner")), named[-1][1])
    centre = _labelled(space, records.centre())
    size = space.clamp_size(max(base_size, 3) + 2, relation)
    if size is None or size < 3:
        return
    cluster = np.tile(centre, (size - 2, 1))
    rows = np.vstack([low.reshape(1, -1), cluster, high.reshape(1, -1)])
    tags = ("flanked",)
    if relation is Relation.ADD_REMOVE_ONE:
        yield change_pair(space, rows[1:-1], relation, "first", low, "flanked: add a low flank", tags)
        yield change_pair(space, rows[:-1], relation, "last", high, "flanked: add the high flank", tags)
        return
    if relation is Relation.RELABEL_ONE:
        yield change_pair(space, rows, relation, 0, None, "flanked: relabel the low flank", tags)
        return
    yield change_pair(space, rows, relation, 0, centre, "flanked: the low flank joins the cluster", tags)
    yield change_pair(space, rows, relation, 0, high, "flanked: the low flank crosses to the high side", tags)
    yield change_pair(space, rows, relation, size // 2, high, "flanked: a cluster record leaves", tags)


def _grid_values(space: Space) -> list[tuple[float, float, float]]:
    """(below, at, above) around each grid point inside the box (first, last, then the rest),
    half a grid step away (integer spaces: the neighbouring integers)."""
    grid = [t for t in space.domain.hypothesis_grid or () if space.lo[0] <= t <= space.hi[0]]
    if not grid:
        return []
    steps = np.diff(grid)
    span = float(space.span[0])
    h = float(np.min(steps)) / 2 if steps.size and np.min(steps) > 0 else (span / 4 or 0.5)
    order = list(dict.fromkeys([grid[0], grid[-1], grid[len(grid) // 2], *grid]))
    out: list[tuple[float, float, float]] = []
    for t in order:
        lo_v, hi_v = t - h, t + h
        if space.domain.integer_valued:
            lo_v, hi_v = float(np.ceil(t) - 1), float(np.floor(t) + 1)
            t = float(np.round(t))
        a, b, c = (float(np.clip(v, space.lo[0], space.hi[0])) for v in (lo_v, t, hi_v))
        out.append((a, b, c))
    return out


def family_grid(space: Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """The changed record crosses a grid point (feature 0; the other features at the low
    record's values), on fillers of `base_size` records all below or all above it."""
    low = space.extreme_records()[0][1]
    n = space.clamp_size(base_size, relation)
    if n is None:
        return
    tags = ("grid",)
    for below, at, above in _grid_values(space):

        def rec(v: float, which: int = 0) -> F64:
            r = low.copy()
            r[0] = v
            if space.labels is not None:
                r[-1] = space.labels[which]
            return r

        records = space.domain.records
        if records is not None and any(
            records.check(rec(v)[: space.d].reshape(1, -1)) is not None for v in (below, at, above)
        ):
            continue  # the record space does not allow moving feature 0 alone

        for side, fill in (("below", below), ("above", above)):
            rows = np.tile(rec(fill), (n, 1)).reshape(n, space.width)
            what = f"grid point {at:g}, filler {side}"
            if relation is Relation.ADD_REMOVE_ONE:
                for v in (below, at, above):
                    yield change_pair(space, rows, relation, "last", rec(v, -1), f"{what}: add {v:g}", tags)
                continue
            if relation is Relation.RELABEL_ONE:
                rows[-1] = rec(at)
                yield change_pair(space, rows, relation, n - 1, None, f"{what}: relabel at the point", tags)
                continue
            for a, b in itertools.permutations((below, at, above), 2):
                if a == fill or b == fill:
                    r = rows.copy()
                    r[-1] = rec(a)
                    yield change_pair(space, r, relation, n - 1, rec(b, -1), f"{what}: {a:g} → {b:g}", tags)
