"""Count and mass sweeps: k records at one extreme, and the neighbour moves, adds or removes one.

A mechanism that branches on a data-dependent quantity it does not privatise (a noisy count
released only when the *true* count of records with x ≥ v reaches t, small-cell suppression,
partition selection on true counts) is infinitely unsafe on exactly one kind of pair: the one
whose change carries that quantity across the branch, e.g. t records at x = 1 against t − 1.
Templates built on a handful of records never reach t = 20. `CountSweeps` builds those pairs for
every k on a grid (`count_grid`: every k up to `DENSE_UP_TO`, then roughly geometric steps of
ratio ≥ 1.2 on round numbers and powers of two, up to `max_count`, 64 by default) within the
domain's sizes (`Domain.min_size` pads with the opposite record, `Domain.max_size` caps k):

- *targets*: the record r the k copies sit at, and the record o a change moves one of them to
  (the farthest extreme record from r): the high corner and the low corner first (counts of
  x ≥ v and of x ≤ v), then one coordinate at its top (per feature, up to three), then a record
  space's own extremes (a category / cell / counting-query unit record, `RecordSpace.named_records`);
  labelled domains carry labels on both;
- *changes*: replace-one moves one r to o ("5 records at x = 1 vs 4 at x = 1 and one at x = 0")
  and, when the space's centre differs from both, to the centre (the sum moves by half the range:
  a *mass* sweep); add/remove-one removes one r (the count and the sum k·r cross every value
  between k − 1 and k) or adds one o (the size changes, the count does not); relabel-one relabels
  one r.

For a box the k copies of r also carry the mass k·r, so the same pairs are the sums crossing each
value of the grid: no separate family is needed for "release only when Σx ≥ s". Pairs are
yielded in priority order (the counting changes of the first two targets for k ≤ `DENSE_UP_TO`,
each k ≤ `DESIGN_EARLY` followed, for a domain that declares its columns (`Domain.design`: a
`TabularSpace`), by those at every category, special value and label on a typical record for the
same k, k by k, tagged "anywhere" and "level" (`neighbors.sweep_locations.level_locations`; then
the same for the larger k ≤ `DENSE_UP_TO`), then the counting changes at the other locations of
`neighbors.sweep_locations` — mixed corners, the centre, categories, labels, interior quartiles of
each feature — for k ≤ `DENSE_UP_TO`, tagged "anywhere", then those at the points of a scrambled
Sobol design over the box (issue 44,
`neighbors.sweep_locations.design_locations`, when a design is passed) for k ≤ `DESIGN_EARLY`,
then the first two targets' counts above `DENSE_UP_TO`, then the design's counts up to
`DESIGN_MAX_COUNT`, tagged "anywhere" and "design", then the first two targets' mass and size
changes, then the other targets), each admissible (`neighbors.admissible.admitted_pairs`), so a
caller with a small budget takes a prefix (the search races it: `audit.search.sweeps`).
Depends on numpy only.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from .admissible import admitted_pairs
from .base import Domain, NeighborPair, Relation
from .building import emit_pair, farthest_records
from .space import F64, Space, fmt_value
from .sweep_locations import (
    LOCATIONS,
    Unit,
    design_locations,
    level_locations,
    sweep_locations,
)

__all__ = ["DEFAULT_MAX_COUNT", "DENSE_UP_TO", "DESIGN_MAX_COUNT", "CountSweeps", "count_grid"]

DEFAULT_MAX_COUNT = 64
"""The largest k of the default grid (records at one extreme)."""
DENSE_UP_TO = 10
"""Every k up to this is on the grid."""
DESIGN_MAX_COUNT = 20
"""The largest k swept at the space-filling design's points (every k from 1, within the
domain's size limit and `max_count`)."""
DESIGN_EARLY = 5
"""The design's counts k ≤ this come right after the issue-35 locations, before the extremes'
counts above `DENSE_UP_TO` (a small budget's race takes a prefix: the design's first counts
are the cheapest, one to five rows, and cover the whole box)."""
_NICE = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)
_RELATION_WORDS = {
    Relation.REPLACE_ONE: "replace-one",
    Relation.ADD_REMOVE_ONE: "add/remove-one",
    Relation.RELABEL_ONE: "relabel-one",
}


def _next_nice(x: float) -> int:
    """The smallest round number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^j, or a power of two)
    at or above x."""
    scale = 10.0 ** math.floor(math.log10(x))
    nice = min(round(m * s) for s in (scale, 10 * scale) for m in _NICE if m * s >= x - 1e-9)
    return min(nice, 1 << math.ceil(math.log2(x)))


def count_grid(
    max_count: int = DEFAULT_MAX_COUNT, *, dense: int = DENSE_UP_TO, ratio: float = 1.2
) -> tuple[int, ...]:
    """k = 1 … `dense`, then round numbers at least `ratio` apart, the powers of two and
    `max_count` itself (1…10, 12, 15, 16, 20, 25, 30, 32, 40, 50, 60, 64 for 64)."""
    if max_count < 1:
        return ()
    ks = set(range(1, min(dense, max_count) + 1))
    k = dense
    while k < max_count:
        k = _next_nice(k * ratio)
        ks.add(min(k, max_count))
    ks.update(1 << j for j in range(max_count.bit_length()) if 1 << j <= max_count)
    ks.add(max_count)
    return tuple(sorted(ks))


@dataclass(frozen=True, slots=True)
class CountSweeps:
    """The sweep pairs of a domain under a relation (see the module docstring); `max_count` is the
    largest k, `targets` the most extreme records the copies sit at over the whole grid,
    `locations` the most other places they sit at for k ≤ `DENSE_UP_TO`
    (`neighbors.sweep_locations`)."""

    max_count: int = DEFAULT_MAX_COUNT
    targets: int = 4
    locations: int = LOCATIONS
    design: Unit = ()
    """A space-filling design of the unit cube (`neighbors.sweep_locations.design_locations`
    maps it to the box); empty: no design points."""

    def pairs(self, domain: Domain, relation: Relation) -> Iterator[NeighborPair]:
        space = Space.of(domain, self.max_count + 1)
        if space is None:
            return
        yield from admitted_pairs(self._raw(space, relation), domain, strict=False, limit=None)

    def _raw(self, space: Space, relation: Relation) -> Iterator[NeighborPair | None]:
        targets = sweep_targets(space)[: self.targets]
        grid = count_grid(self.max_count)
        # the counting changes of the first two targets for k ≤ DENSE_UP_TO, then those of every
        # other location for k ≤ DENSE_UP_TO (location by location), the design's for small k,
        # the first two targets' larger k, the design's larger k, then the first two targets'
        # other changes (mass, size), then every change of the other targets
        dense = tuple(k for k in grid if k <= DENSE_UP_TO)
        skip = [t[1] for t in targets[:2]]
        for ks in ((k for k in dense if k <= DESIGN_EARLY), (k for k in dense if k > DESIGN_EARLY)):
            counts = tuple(ks)
            yield from self._counting(space, relation, counts, targets[:2])
            yield from self._levels(space, relation, skip, counts)
        yield from self._anywhere(space, relation, [t[1] for t in targets[:2]])
        places = design_locations(space, self.design)
        yield from self._counting(space, relation, tuple(k for k in grid if k > DENSE_UP_TO), targets[:2])
        yield from self._design(space, relation, places, range(1, DESIGN_EARLY + 1))
        late = range(DESIGN_EARLY + 1, min(DESIGN_MAX_COUNT, self.max_count) + 1)
        yield from self._design(space, relation, places, late)
        for group, counting in ((targets[:2], False), (targets[2:], None)):
            for k in grid:
                for name_r, r, name_o, o in group:
                    for pair in _changes(space, relation, k, (name_r, r), (name_o, o)):
                        if pair is not None and (counting is None or ("count" in pair.tags) == counting):
                            yield pair

    def _counting(
        self,
        space: Space,
        relation: Relation,
        grid: tuple[int, ...],
        targets: list[tuple[str, F64, str, F64]],
    ) -> Iterator[NeighborPair | None]:
        for k in grid:
            for name_r, r, name_o, o in targets:
                for pair in _changes(space, relation, k, (name_r, r), (name_o, o)):
                    if pair is not None and "count" in pair.tags:
                        yield pair

    def _anywhere(self, space: Space, relation: Relation, skip: list[F64]) -> Iterator[NeighborPair | None]:
        """The counting changes at `sweep_locations` for k ≤ `DENSE_UP_TO`, tagged "anywhere"."""
        if self.locations <= 0:
            return
        grid = tuple(k for k in count_grid(self.max_count) if k <= DENSE_UP_TO)
        for _, r, o in sweep_locations(space, skip)[: self.locations]:
            for pair in self._counting(space, relation, grid, [(words(space, r), r, words(space, o), o)]):
                yield replace(pair, tags=(*pair.tags, "anywhere")) if pair is not None else None

    def _levels(
        self, space: Space, relation: Relation, skip: list[F64], grid: tuple[int, ...]
    ) -> Iterator[NeighborPair | None]:
        """The counting changes at every declared level and label (`level_locations`) for k in
        `grid`, k by k (a small budget's prefix covers every category at the small counts first),
        tagged "anywhere" and "level"."""
        places = level_locations(space, skip)
        for k in grid:
            for _, r, o in places:
                for pair in self._counting(space, relation, (k,), [(words(space, r), r, words(space, o), o)]):
                    yield replace(pair, tags=(*pair.tags, "anywhere", "level")) if pair is not None else None

    def _design(
        self, space: Space, relation: Relation, places: list[tuple[str, F64, F64]], counts: range
    ) -> Iterator[NeighborPair | None]:
        """The counting changes at every point of the space-filling design (`places`) for k in
        `counts`, k by k (a budget taking a prefix covers every point at the small counts
        first), tagged "anywhere" and "design"."""
        for k in counts:
            if k > self.max_count:
                return
            for _, r, o in places:
                for pair in self._counting(space, relation, (k,), [(words(space, r), r, words(space, o), o)]):
                    yield replace(pair, tags=(*pair.tags, "anywhere", "design")) if pair is not None else None


def sweep_targets(space: Space) -> list[tuple[str, F64, str, F64]]:
    """(r in words, r, o in words, o): where the k copies sit and where a change moves one."""
    recs = space.extreme_records()
    by_name = dict(recs)
    order = [n for n in recs_by_priority([n for n, _ in recs])]
    out = []
    for name in order:
        r = by_name[name]
        far = farthest_records(space, r, limit=1)
        if far:
            out.append((words(space, r), r, words(space, far[0][1]), far[0][1]))
    return out


def recs_by_priority(names: list[str]) -> list[str]:
    """High corner first, low corner second, the rest in the space's order."""
    high = [n for n in names if n.startswith("high corner")]
    low = [n for n in names if n.startswith("low corner")]
    return list(dict.fromkeys([*high[:1], *low[:1], *names]))


def words(space: Space, record: F64) -> str:
    """A record in words: "x = 1", "x = (1, 0)", with ", y = 0" when labelled."""
    feats = record[: space.d]
    x = (
        fmt_value(float(feats[0]))
        if space.d == 1
        else "(" + ", ".join(fmt_value(float(v)) for v in feats) + ")"
    )
    return f"x = {x}" + (f", y = {fmt_value(float(record[-1]))}" if space.labelled else "")


def _some(k: int, name: str) -> str:
    """k records at `name`, in words ("1 record at x = 1", "none at x = 1")."""
    return "none" if k == 0 else f"1 record at {name}" if k == 1 else f"{k} records at {name}"


def _rows(record: F64, k: int, filler: F64, f: int, width: int) -> F64:
    return np.vstack([np.tile(record, (k, 1)), np.tile(filler, (f, 1))]).reshape(k + f, width)


def _changes(
    space: Space, relation: Relation, k: int, target: tuple[str, F64], opposite: tuple[str, F64]
) -> Iterator[NeighborPair | None]:
    """The pairs of one target at count k under `relation` (see the module docstring)."""
    (name_r, r), (name_o, o) = target, opposite
    a, b = space.sizes_for(relation)
    rel = _RELATION_WORDS[relation]
    tags = ("sweep", f"count:{k}", f"at:{name_r}")
    if relation is Relation.ADD_REMOVE_ONE:
        f = max(0, a + 1 - k)  # remove one r: the smaller side has k − 1 + f ≥ a rows
        pad = f" (and {f} at {name_o} on both sides)" if f else ""
        if a <= k - 1 + f <= b:
            big = _rows(r, k, o, f, space.width)
            yield emit_pair(
                space,
                big,
                np.delete(big, k - 1, axis=0),
                relation,
                f"{_some(k, name_r)} vs {_some(k - 1, name_r)}{pad}, {rel}",
                (*tags, "count"),
            )
        f = max(0, a - k)  # add one o: the smaller side has k + f ≥ a rows
        pad = f" (and {f} more at {name_o} on both sides)" if f else ""
        if a <= k + f <= b:
            small = _rows(r, k, o, f, space.width)
            yield emit_pair(
                space,
                small,
                np.vstack([small, o[None, :]]),
                relation,
                f"{_some(k, name_r)} vs {_some(k, name_r)} and one at {name_o}{pad}, {rel}",
                (*tags, "size"),
            )
        return
    f = max(0, a - k)
    if not a <= k + f <= b:
        return
    rows = _rows(r, k, o, f, space.width)
    pad = f" (and {f} at {name_o} on both sides)" if f else ""
    if relation is Relation.RELABEL_ONE:
        for alt in space.relabelled(r)[:1]:
            other = rows.copy()
            other[k - 1] = alt
            what = f"one relabelled to y = {fmt_value(float(alt[-1]))}"
            yield emit_pair(
                space,
                rows,
                other,
                relation,
                f"{_some(k, name_r)} vs {_some(k - 1, name_r)} and {what}{pad}, {rel}",
                (*tags, "count"),
            )
        return
    for to, name_to, kind in ((o, name_o, "count"), (_centre(space, r), None, "mass")):
        if to is None or (
            kind == "mass" and (not _massive(space) or any(np.array_equal(to, x) for x in (o, r)))
        ):
            continue
        other = rows.copy()
        other[k - 1] = to
        name = name_to or words(space, to)
        yield emit_pair(
            space,
            rows,
            other,
            relation,
            f"{_some(k, name_r)} vs {_some(k - 1, name_r)} and one at {name}{pad}, {rel}",
            (*tags, kind),
        )


def _massive(space: Space) -> bool:
    """Records carry a mass (a box, integers, bounded norm), not a count (cells, queries)."""
    records = space.domain.records
    return records is None or not records.counting


def _centre(space: Space, r: F64) -> F64 | None:
    """The space's centre record (r's label when labelled), or None."""
    c = np.asarray(space.centre(), dtype=float)
    return np.append(c, r[-1]) if space.labelled else c
