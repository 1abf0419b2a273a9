"""Local-search moves around a neighbour pair (the refinement step of `audit/search/procedure.py`).

`local_moves` proposes admissible pairs one move away (`MOVES`: perturb the changed record,
move it outside the data's support, move its position, add a duplicate of it, change n by ±1,
perturb / relabel another record, copy one record onto another); `changed_index` locates the
change of a pair and `describe_change` names it.
"""

from __future__ import annotations

import numpy as np

from .admissible import admissible, pair_key
from .base import Domain, NeighborPair, Relation
from .building import emit_pair, relation_label
from .space import DEFAULT_MAX_ROWS, F64, Space, fmt_record

__all__ = ["MOVES", "changed_index", "describe_change", "local_moves", "retag"]


def changed_index(pair: NeighborPair) -> int:
    """Index of the changed row (replace/relabel) or of the extra row in the longer side."""
    a, b = pair.dataset.records(), pair.neighbor.records()
    if a.shape[0] == b.shape[0]:
        mism = np.flatnonzero(np.any(a != b, axis=1))
        return int(mism[0]) if mism.size else 0
    long_, short = (a, b) if a.shape[0] > b.shape[0] else (b, a)
    if short.shape[0] == 0:
        return 0
    diff = np.any(long_[:-1] != short, axis=1)
    return int(np.argmax(diff)) if diff.any() else short.shape[0]


def retag(pair: NeighborPair, tags: tuple[str, ...], description: str) -> NeighborPair:
    return NeighborPair(
        dataset=pair.dataset,
        neighbor=pair.neighbor,
        relation=pair.relation,
        description=description,
        tags=tags,
    )


def _oriented(pair: NeighborPair, width: int) -> tuple[F64, F64, int]:
    """(rows A, rows B, changed index) with A the shorter side for add/remove."""
    a = pair.dataset.records().reshape(-1, width)
    b = pair.neighbor.records().reshape(-1, width)
    if a.shape[0] > b.shape[0]:
        a, b = b, a
    return a.copy(), b.copy(), changed_index(pair)


MOVES = (
    "perturb",
    "support",
    "position",
    "duplicate",
    "grow",
    "shrink",
    "other",
    "relabel-other",
    "copy-other",
)
"""Local-search moves (see `local_moves`)."""


def local_moves(
    pair: NeighborPair,
    domain: Domain,
    rng: np.random.Generator,
    *,
    count: int = 8,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> list[NeighborPair]:
    """Up to `count` admissible pairs one local move away from `pair` (same relation).

    Moves: perturb the changed record (to a random point, a corner or a relabelling); move it
    outside the data's support (to the extreme record farthest from every record present,
    label flipped half the time: a new boundary point with a surprising label); move its
    position; add a duplicate of it; change n by ±1 (insert a copy of another record or delete
    one); perturb another record; relabel another record (label noise, conflicts); make
    another record a copy of a third (merges distinct points, grows a cluster). A domain with
    `private_rows` keeps the change in a private row.
    """
    space = Space.of(domain, max_rows)
    if space is None:
        return []
    relation = pair.relation
    if pair.dataset.num_features != space.d or pair.dataset.labelled != space.labelled:
        return []
    moves = MOVES
    out: list[NeighborPair] = []
    seen = {pair_key(pair)}
    for _ in range(4 * count):
        if len(out) >= count:
            break
        move = moves[int(rng.integers(len(moves)))]
        made = _apply_move(space, pair, move, rng)
        if made is None:
            continue
        a_rows, b_rows, what = made
        placed = space.privatise(a_rows, b_rows)
        if placed is None:
            continue
        a_rows, b_rows = placed
        desc = describe_change(space, a_rows, b_rows, relation)
        tag = space.dataset(a_rows).key()[:4] + space.dataset(b_rows).key()[:4]
        cand = emit_pair(
            space, a_rows, b_rows, relation, f"search ({what}): {desc} [#{tag}]", ("search", move)
        )
        if cand is None or not admissible(cand, domain):
            continue
        key = pair_key(cand)
        if key in seen:
            continue
        seen.add(key)
        out.append(cand)
    return out


def describe_change(space: Space, a: F64, b: F64, relation: Relation) -> str:
    if a.shape[0] != b.shape[0]:
        long_, short = (a, b) if a.shape[0] > b.shape[0] else (b, a)
        i = changed_index(
            NeighborPair(
                dataset=space.dataset(short),
                neighbor=space.dataset(long_),
                relation=relation,
                description="-",
            )
        )
        return f"add {fmt_record(long_[i], space.labelled)} at position {i} of n={short.shape[0]}"
    mism = np.flatnonzero(np.any(a != b, axis=1))
    i = int(mism[0]) if mism.size else 0
    return (
        f"{relation_label(relation)} row {i} of n={a.shape[0]}: {fmt_record(a[i], space.labelled)} → "
        f"{fmt_record(b[i], space.labelled)}"
    )


def _new_record(space: Space, old: F64, rng: np.random.Generator) -> F64:
    r = rng.random()
    if r < 0.4:
        recs = space.extreme_records()
        return recs[int(rng.integers(len(recs)))][1].copy()
    if r < 0.7 or space.domain.integer_valued:
        return space.random_record(rng)
    # small continuous step from the old record
    with np.errstate(over="ignore"):  # a step past the largest double is clipped back to the box
        v = np.clip(old[: space.d] + rng.normal(0, 0.1, space.d) * space.span, space.lo, space.hi)
    return np.append(v, old[-1]) if space.labelled else v


def _apply_move(
    space: Space, pair: NeighborPair, move: str, rng: np.random.Generator
) -> tuple[F64, F64, str] | None:
    relation = pair.relation
    a, b, i = _oriented(pair, space.width)
    add = relation is Relation.ADD_REMOVE_ONE
    n_a, n_b = a.shape[0], b.shape[0]
    lo_n, hi_n = space.min_n, space.max_n
    if move == "perturb":
        if add:
            b[i] = _new_record(space, b[i], rng)
            return a, b, "perturb the added record"
        if relation is Relation.RELABEL_ONE:
            if rng.random() < 0.5:  # move both versions to new features, keep the labels
                feat = _new_record(space, a[i], rng)[: space.d]
                a[i, : space.d] = feat
                b[i, : space.d] = feat
                return a, b, "move the relabelled record"
            alts = space.relabelled(a[i])
            if not alts:
                return None
            b[i] = alts[int(rng.integers(len(alts)))]
            return a, b, "relabel differently"
        side = b if rng.random() < 0.5 else a
        side[i] = _new_record(space, side[i], rng)
        return a, b, "perturb the changed record"
    if move == "support":
        side = b if (add or rng.random() < 0.5) else a
        new = _outside_support(space, np.vstack([a, b]), side[i], rng)
        if new is None:
            return None
        if relation is Relation.RELABEL_ONE:  # features move on both sides, labels stay
            a[i, : space.d] = new[: space.d]
            b[i, : space.d] = new[: space.d]
            return a, b, "move the relabelled record outside the support"
        side[i] = new
        return a, b, "move the changed record outside the support"
    if move == "relabel-other" or move == "copy-other":
        others = [k for k in range(n_b) if k != i]
        if not others:
            return None
        k = others[int(rng.integers(len(others)))]
        if move == "relabel-other":
            alts = space.relabelled(b[k])
            if not alts:
                return None
            r = alts[int(rng.integers(len(alts)))]
        else:
            r = b[others[int(rng.integers(len(others)))]].copy()
            if np.array_equal(r, b[k]):
                return None
        b[k] = r
        a[k if (not add or k < i) else k - 1] = r
        return a, b, f"{'relabel' if move == 'relabel-other' else 'copy another record into'} row {k}"
    if move == "position":
        slots = n_b
        if slots < 2:
            return None
        j = int(rng.integers(slots))
        if j == i:
            j = (i + 1) % slots
        if add:
            r = b[i]
            b = np.insert(np.delete(b, i, axis=0), j, r, axis=0)
            a = np.delete(b, j, axis=0)
            return a, b, f"move the added record to position {j}"
        ra, rb = a[i], b[i]
        a = np.insert(np.delete(a, i, axis=0), j, ra, axis=0)
        b = np.insert(np.delete(b, i, axis=0), j, rb, axis=0)
        return a, b, f"move the changed record to position {j}"
    if move == "duplicate":
        if max(n_a, n_b) + 1 > hi_n:
            return None
        src = b[i] if (add or rng.random() < 0.5) else a[i]
        j = int(rng.integers(n_a + 1))  # position in the shared part
        return (*_insert_shared(a, b, i, j, src, add), "add a duplicate of the changed record")
    if move == "grow":
        if max(n_a, n_b) + 1 > hi_n:
            return None
        others = [k for k in range(n_a) if add or k != i]
        src = a[others[int(rng.integers(len(others)))]] if others and rng.random() < 0.7 else None
        if src is None:
            src = _new_record(space, space.low_record(), rng)
        j = int(rng.integers(n_a + 1))
        return (*_insert_shared(a, b, i, j, src, add), "n + 1")
    if move == "shrink":
        if min(n_a, n_b) - 1 < lo_n:
            return None
        others = [k for k in range(n_b) if k != i]
        if not others:
            return None
        k = others[int(rng.integers(len(others)))]
        if add:
            b = np.delete(b, k, axis=0)
            a = np.delete(a, k if k < i else k - 1, axis=0)
        else:
            a, b = np.delete(a, k, axis=0), np.delete(b, k, axis=0)
        return a, b, "n − 1"
    if move == "other":
        others = [k for k in range(n_b) if k != i]
        if not others:
            return None
        k = others[int(rng.integers(len(others)))]
        r = _new_record(space, b[k], rng)
        b[k] = r
        a[k if (not add or k < i) else k - 1] = r
        return a, b, f"perturb row {k}"
    return None


def _outside_support(space: Space, rows: F64, old: F64, rng: np.random.Generator) -> F64 | None:
    """An extreme record whose features are farthest (box-normalised L1) from every record in
    `rows`, with `old`'s label flipped half the time (labelled domains)."""
    span = np.where(space.hi > space.lo, space.span, 1.0)
    feats = rows[:, : space.d]
    best: F64 | None = None
    best_d = 0.0
    for _, v in space.feature_vectors():
        dist = _box_distance(feats, v, span) if feats.size else 1.0
        if dist > best_d + 1e-12:
            best, best_d = v, dist
    if best is None:
        return None
    if not space.labelled:
        return best.copy()
    y = old[-1]
    alts = space.relabelled(old)
    if alts and rng.random() < 0.5:
        y = alts[int(rng.integers(len(alts)))][-1]
    return np.append(best, y)


def _insert_shared(a: F64, b: F64, i: int, j: int, row: F64, add: bool) -> tuple[F64, F64]:
    """Insert `row` into both sides at shared position j (a-coordinates); i is the change."""
    if add:
        # b = a with b[i] inserted; a position j in a maps to j (if j ≤ i) or j + 1 in b
        jb = j if j <= i else j + 1
        return np.insert(a, j, row, axis=0), np.insert(b, jb, row, axis=0)
    return np.insert(a, j, row, axis=0), np.insert(b, j, row, axis=0)


def _box_distance(feats: F64, v: F64, span: F64) -> float:
    """min over rows of the box-normalised L1 distance to v (finite on a whole-double-range box)."""
    with np.errstate(over="ignore"):
        gap = np.abs((feats - v) / span)
    if not np.all(np.isfinite(gap)):
        gap = np.abs(feats / span - v / span)
    return float(np.min(gap.sum(axis=1)))
