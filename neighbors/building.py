"""Template pair building: one change applied to a base dataset, fillers and far records.

`change_pair` applies one replace / add / relabel change at a named or explicit position (moved
into the private rows when the domain declares them) and describes it; `emit_pair` turns two row
arrays into a `NeighborPair` (None when nothing changed or the change cannot be placed);
`make_filler` builds constant / mixed base datasets; `farthest_records` orders the extreme
records by box-normalised distance; `round_robin` merges families so a capped prefix sees
every one. Admissibility is checked later (`neighbors.admissible.admitted_pairs`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from .base import NeighborPair, Relation
from .space import F64, Space, fmt_record, fmt_value

__all__ = [
    "POSITIONS",
    "change_pair",
    "emit_pair",
    "farthest_records",
    "make_filler",
    "relation_label",
    "round_robin",
]

POSITIONS = ("first", "middle", "last")


def emit_pair(
    space: Space,
    a_rows: F64,
    b_rows: F64,
    relation: Relation,
    description: str,
    tags: Iterable[str],
) -> NeighborPair | None:
    a_rows = np.asarray(a_rows, dtype=float).reshape(-1, space.width)
    b_rows = np.asarray(b_rows, dtype=float).reshape(-1, space.width)
    if a_rows.shape == b_rows.shape and np.array_equal(a_rows, b_rows):
        return None  # not a pair: nothing changed
    placed = space.privatise(a_rows, b_rows)
    if placed is None:
        return None
    a_rows, b_rows = placed
    return NeighborPair(
        dataset=space.dataset(a_rows),
        neighbor=space.dataset(b_rows),
        relation=relation,
        description=description,
        tags=tuple(dict.fromkeys(tags)),
    )


def relation_label(relation: Relation) -> str:
    return {
        Relation.REPLACE_ONE: "replace",
        Relation.ADD_REMOVE_ONE: "add",
        Relation.RELABEL_ONE: "relabel",
    }[relation]


def change_pair(
    space: Space,
    rows: F64,
    relation: Relation,
    where: str | int,
    new: F64 | None,
    what: str,
    tags: Iterable[str],
) -> NeighborPair | None:
    """Apply one change to `rows` at a position: replace/relabel row i by `new`, or insert it.

    For relabel, `new` is ignored and the label of row i goes to the first other label.
    """
    n = rows.shape[0]
    slots = n + 1 if relation is Relation.ADD_REMOVE_ONE else n
    if slots == 0:
        return None
    i = space.position(slots, where, relation)
    if i < 0:
        return None
    if isinstance(where, int) and i != where and 0 <= where < n:
        rows = rows.copy()  # the intended record moves with the change into the private rows
        rows[[i, where]] = rows[[where, i]]
    pos = where if isinstance(where, str) else f"position {i}"
    if relation is Relation.ADD_REMOVE_ONE:
        assert new is not None
        other = np.insert(rows, i, new, axis=0)
        desc = f"add {fmt_record(new, space.labelled)} at {pos} of n={n} ({what})"
    elif relation is Relation.RELABEL_ONE:
        if not space.labelled:
            return None
        alts = space.relabelled(rows[i])
        if new is not None:
            alts = [r for r in alts if r[-1] == new[-1]] or alts
        if not alts:
            return None
        other = rows.copy()
        other[i] = alts[0]
        y_old, y_new = fmt_value(rows[i, -1]), fmt_value(alts[0][-1])
        desc = f"relabel row {i} ({pos}) of n={n}: y={y_old} → {y_new} ({what})"
    else:
        assert new is not None
        if np.array_equal(rows[i], new):
            return None
        other = rows.copy()
        other[i] = new
        desc = (
            f"replace row {i} ({pos}) of n={n}: {fmt_record(rows[i], space.labelled)} → "
            f"{fmt_record(new, space.labelled)} ({what})"
        )
    return emit_pair(space, rows, other, relation, desc, ("template", f"position:{pos}", *tags))


def make_filler(space: Space, kind: str, n: int) -> F64:
    recs = space.extreme_records()
    low = recs[0][1]
    high = next((r for name, r in recs if name.startswith("high corner")), recs[-1][1])
    if kind == "high":
        # pair the high corner with the last label (the opposite of the low filler)
        high = high.copy()
        if space.labels is not None:
            high[-1] = space.labels[-1]
        base = high
    elif kind == "centre":
        base = np.append(space.centre(), space.labels[0]) if space.labels is not None else space.centre()
    else:
        base = low
    rows = np.tile(base, (n, 1)).reshape(n, space.width)
    if kind == "mixed" and n:
        alt = high.copy()
        if space.labels is not None:
            alt[-1] = space.labels[-1]
        rows[1::2] = alt
    return rows


def farthest_records(space: Space, record: F64, limit: int | None = None) -> list[tuple[str, F64]]:
    """Extreme records ≠ record, farthest (box-normalised, labels count 1) first."""
    span = np.where(space.hi > space.lo, space.span, 1.0)

    def dist(r: F64) -> float:
        with np.errstate(over="ignore"):
            gap = np.abs((r[: space.d] - record[: space.d]) / span)
        if not np.all(np.isfinite(gap)):  # a box over the whole double range
            gap = np.abs(r[: space.d] / span - record[: space.d] / span)
        dx = float(gap.sum())
        return dx + (1.0 if space.labelled and r[-1] != record[-1] else 0.0)

    recs = [(name, r) for name, r in space.extreme_records() if not np.array_equal(r, record)]
    recs.sort(key=lambda t: -dist(t[1]))
    return recs[:limit] if limit is not None else recs


def round_robin(
    iterators: list[Iterator[NeighborPair | None]], weights: list[int] | None = None
) -> Iterator[NeighborPair | None]:
    """One item of each iterator in turn (`weights`: that many items of each per round)."""
    if weights is not None:
        yield from _weighted(iterators, weights)
        return
    active = list(iterators)
    while active:
        nxt = []
        for it in active:
            item = next(it, StopIteration)
            if item is StopIteration:
                continue
            nxt.append(it)
            yield item  # type: ignore[misc]
        active = nxt


def _weighted(
    iterators: list[Iterator[NeighborPair | None]], weights: list[int]
) -> Iterator[NeighborPair | None]:
    active = list(zip(iterators, weights, strict=True))
    while active:
        nxt = []
        for it, w in active:
            alive = True
            for _ in range(max(w, 1)):
                item = next(it, StopIteration)
                if item is StopIteration:
                    alive = False
                    break
                yield item  # type: ignore[misc]
            if alive:
                nxt.append((it, w))
        active = nxt
