"""Domain-driven neighbour-pair generators: boundary templates and worst-case families.

Every generator here is driven by a mechanism's declared `Domain` only (never by its code or its
registered pairs), and every pair it yields satisfies `is_neighbor`, lies in the domain
(`Domain.check` returns None on both sides) and changes only rows the claim covers
(`Domain.check_pair`: with `private_rows`, public rows are identical on both sides and no
add/remove pair is generated, since a deletion shifts every later, public, position; a template
whose change would sit in a public row has the changed row swapped with the nearest private
row on both sides, which keeps its records). `WorstCasePairs(strict=True)` raises instead of
filtering when a family builds a pair that does not, which is how the property tests check the
families.

Families (`WorstCasePairs`, one list per family, merged round-robin so a capped prefix sees
every family):

- **extreme**: the changed record moves between the corners of the feature box (and the
  labels), on constant and mixed fillers, at the first / middle / last position;
- **corner**: the changed record moves between every two extreme records (n = 1 and n = 4);
- **tiny**: empty vs every extreme record (add/remove), singleton and two- or three-record
  datasets;
- **size**: datasets at the size boundaries where a mechanism's parameters round: the sizes
  where the declared `Subsampling.size(n)` jumps (n − 1 and n, so an add/remove pair
  straddles the jump), powers of two and their successors (⌈log₂ n⌉ jumps), the declared
  min_size / max_size and their inner neighbours;
- **duplicate**: the changed record has duplicates in the dataset (replace one copy; add one
  more copy), and conflicting duplicates (same features, different labels);
- **cluster**: clusters of identical records along the box diagonal plus one lone record in a
  gap next to them (below / between / above, labelled like its nearer cluster); the lone record
  leaves the data's support for the far corner, label flipped first (a new extreme point with a
  surprising label: the pattern set on the distinct points, its multiplicities and the
  learner's scores all change at once), or is relabelled / added / removed; at a base size and,
  for subsampling domains, at the largest n and the last jump of ⌈·⌉-rounded subsample sizes;
- **lone**: one extreme record on a constant filler (the box centre first), relabelled;
- **stream** (Domain.ordered): the change at positions 0, 1, middle, n − 2, n − 1 of an
  alternating stream, of one record repeated with alternating labels (non-realizable: an
  online learner updates every round), and at the switch point of a sorted stream;
- **subsampling** (also `SubsamplingPairs`, when the domain declares subsampling): the changed
  record certain (n equals the subsample size: no amplification), likely and unlikely to be
  drawn, and duplicates of the changed record that change its inclusion probability.

`check_amplification(domain, relation)` raises `AmplificationMismatchError` when a mechanism
whose claim relies on amplification by subsampling under one relation is audited under a
relation that guarantee does not cover; the generators call it before yielding anything.

`random_pair` and `local_moves` are the random and local-search proposals used by
`audit/search.py` (`MOVES`: perturb the changed record, move it outside the data's support,
move its position, add a duplicate of it, change n by ±1, perturb / relabel another record,
copy one record onto another).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from neighbors.base import (
    Dataset,
    Domain,
    NeighborPair,
    Relation,
    Subsampling,
    SubsamplingKind,
    is_neighbor,
)

F64 = NDArray[np.float64]

__all__ = [
    "AmplificationMismatchError",
    "BoundaryPairs",
    "InadmissiblePairError",
    "SubsamplingPairs",
    "WorstCasePairs",
    "admissible",
    "boundary_sizes",
    "changed_index",
    "check_amplification",
    "inclusion_probability",
    "local_moves",
    "pair_key",
    "random_pair",
    "size_jumps",
]

DEFAULT_MAX_ROWS = 64
"""Generated datasets have at most this many rows unless min_size forces more."""

_SIZE_SCAN_LIMIT = 4096
_POSITIONS = ("first", "middle", "last")


# =========================================================================== errors and checks
class AmplificationMismatchError(ValueError):
    """A claim relying on amplification under one relation audited under another."""


class InadmissiblePairError(ValueError):
    """A generator built a pair that is not a neighbour pair in the domain (strict mode)."""


def check_amplification(domain: Domain, relation: Relation) -> None:
    """Raise `AmplificationMismatchError` if the domain's amplification does not cover `relation`.

    Amplification by subsampling is relation-specific (e.g. sampling without replacement
    amplifies replace-one privacy, Poisson sampling add/remove privacy); a claim that relies
    on it under one relation says nothing under another, so auditing it there silently would
    compare the bound with a claim that was never made. Relabel-one is covered by replace-one.
    """
    amp = domain.subsampling.amplification_relation
    if amp is not None and not relation.is_covered_by(amp):
        raise AmplificationMismatchError(
            f"the claim relies on amplification by {domain.subsampling.kind.value} subsampling under "
            f"{amp.value}; it cannot be audited under {relation.value} (audit it under {amp.value})"
        )


def admissible(pair: NeighborPair, domain: Domain) -> bool:
    """True iff the pair satisfies its relation, both sides lie in the domain, and it changes only
    rows the claim covers (`Domain.private_rows`: public rows are identical on both sides)."""
    return (
        is_neighbor(pair)
        and domain.check(pair.dataset) is None
        and domain.check(pair.neighbor) is None
        and domain.check_pair(pair) is None
    )


def pair_key(pair: NeighborPair) -> tuple[str, str, str]:
    """A content key, symmetric in the two sides (an audit certifies either direction)."""
    a, b = sorted((pair.dataset.key(), pair.neighbor.key()))
    return (pair.relation.value, a, b)


# =========================================================================== domain geometry
@dataclass(frozen=True, slots=True)
class _Space:
    """The valid values of a domain: integer-rounded box, labels, allowed sizes."""

    domain: Domain
    lo: F64
    hi: F64
    labels: tuple[float, ...] | None
    min_n: int
    max_n: int

    @staticmethod
    def of(domain: Domain, max_rows: int) -> _Space | None:
        lo, hi = (np.array(b, dtype=float) for b in domain.bounds())
        if domain.integer_features:
            lo, hi = np.ceil(lo), np.floor(hi)
            if np.any(lo > hi):
                return None  # no integer record exists
        labels = tuple(dict.fromkeys(float(v) for v in domain.labels)) if domain.labels is not None else None
        if labels is not None and not labels:
            return None
        cap = max(max_rows, domain.min_size + 1)
        max_n = cap if domain.max_size is None else min(domain.max_size, cap)
        return _Space(domain, lo, hi, labels, domain.min_size, max_n)

    @property
    def d(self) -> int:
        return self.domain.num_features

    @property
    def labelled(self) -> bool:
        return self.labels is not None

    @property
    def width(self) -> int:
        return self.d + (1 if self.labelled else 0)

    def sizes_for(self, relation: Relation) -> tuple[int, int]:
        """Allowed base sizes [a, b] (for add/remove: the smaller side, so n + 1 fits too).

        With `private_rows` only replace/relabel pairs can be covered (an added or removed row
        shifts every later position, public ones included) and n must reach a private row."""
        private = self.domain.private_rows
        if relation is Relation.ADD_REMOVE_ONE:
            if private is not None:
                return 1, 0  # empty: no add/remove pair leaves the public rows unchanged
            return self.min_n, self.max_n - 1
        return max(self.min_n, 1, private[0] + 1 if private is not None else 1), self.max_n

    def change_range(self, n: int) -> tuple[int, int]:
        """Rows [start, stop) of an n-row dataset that a replace/relabel pair may change."""
        if self.domain.private_rows is None:
            return 0, n
        start, stop = self.domain.private_rows
        return start, min(stop, n)

    def position(self, slots: int, where: str | int, relation: Relation) -> int:
        """Index for 'first' / 'middle' / 'last' (or an explicit index) among `slots` change
        slots, moved into the private rows when the domain declares them."""
        lo, hi = (0, slots) if relation is Relation.ADD_REMOVE_ONE else self.change_range(slots)
        if hi <= lo:
            return -1
        if isinstance(where, int):
            return min(max(where, lo), hi - 1)
        return {"first": lo, "middle": (lo + hi) // 2, "last": hi - 1}[where]

    def privatise(self, a: F64, b: F64) -> tuple[F64, F64] | None:
        """Move a replace/relabel change into the private rows (swap the changed row with the
        nearest private row on both sides: the multiset of records is unchanged). None if the
        change cannot be placed there; unchanged arrays when the domain has no public part."""
        if self.domain.private_rows is None:
            return a, b
        if a.shape != b.shape:
            return None
        mism = np.flatnonzero(np.any(a != b, axis=1))
        if mism.size != 1:
            return a, b  # not a one-row change: left to the admissibility check
        i = int(mism[0])
        j = self.position(a.shape[0], i, Relation.REPLACE_ONE)
        if j < 0:
            return None
        if j != i:
            a, b = a.copy(), b.copy()
            a[[i, j]] = a[[j, i]]
            b[[i, j]] = b[[j, i]]
        return a, b

    def clamp_size(self, n: int, relation: Relation) -> int | None:
        a, b = self.sizes_for(relation)
        return None if a > b else min(max(n, a), b)

    def centre(self) -> F64:
        mid = (self.lo + self.hi) / 2
        return np.floor(mid) if self.domain.integer_features else mid

    def feature_vectors(self) -> list[tuple[str, F64]]:
        """Corners (all of them for d ≤ 3, else low/high and single-coordinate corners), centre."""
        lo, hi, d = self.lo, self.hi, self.d
        out: list[tuple[str, F64]] = [("low corner", lo.copy()), ("high corner", hi.copy())]
        if d <= 3:
            for bits in itertools.product((0, 1), repeat=d):
                if 0 < sum(bits) < d:
                    v = np.where(np.array(bits, bool), hi, lo)
                    out.append((f"corner {''.join(map(str, bits))}", v))
        else:
            for j in range(3):
                v = lo.copy()
                v[j] = hi[j]
                out.append((f"corner e{j}", v))
                w = hi.copy()
                w[j] = lo[j]
                out.append((f"corner ¬e{j}", w))
        out.append(("centre", self.centre()))
        return _dedupe_named(out)

    def extreme_records(self) -> list[tuple[str, F64]]:
        """Full records (features, then label if labelled) at the domain's extremes."""
        vecs = self.feature_vectors()
        if self.labels is None:
            return vecs
        ls = [self.labels[0], self.labels[-1]]
        if len(self.labels) > 2:
            ls.append(self.labels[len(self.labels) // 2])
        ls = list(dict.fromkeys(ls))
        out = [(f"{name}, y={_fmt(y)}", np.append(v, y)) for name, v in vecs for y in ls]
        return _dedupe_named(out)

    def low_record(self) -> F64:
        return self.extreme_records()[0][1]

    def random_record(self, rng: np.random.Generator) -> F64:
        """Uniform in the box (integer grid if integer features); each coordinate snaps to an
        endpoint with probability 1/4 (the extremes are where the worst cases live)."""
        if self.domain.integer_features:
            v = rng.integers(self.lo.astype(np.int64), self.hi.astype(np.int64) + 1).astype(float)
        else:
            v = rng.uniform(self.lo, self.hi)
        snap = rng.random(self.d) < 0.25
        v = np.where(snap, np.where(rng.random(self.d) < 0.5, self.lo, self.hi), v)
        v = np.clip(v, self.lo, self.hi)
        if self.labels is None:
            return np.asarray(v, dtype=float)
        return np.append(v, self.labels[int(rng.integers(len(self.labels)))])

    def relabelled(self, record: F64) -> list[F64]:
        """The record with each other label."""
        if self.labels is None:
            return []
        out = []
        for y in self.labels:
            if y != record[-1]:
                r = record.copy()
                r[-1] = y
                out.append(r)
        return out

    def dataset(self, rows: F64) -> Dataset:
        rows = np.asarray(rows, dtype=float).reshape(-1, self.width)
        if self.labelled:
            return Dataset(rows[:, : self.d].reshape(-1, self.d), rows[:, self.d])
        return Dataset(rows.reshape(-1, self.d))


def _dedupe_named(items: list[tuple[str, F64]]) -> list[tuple[str, F64]]:
    seen: set[bytes] = set()
    out = []
    for name, v in items:
        k = np.asarray(v, dtype=float).tobytes()
        if k not in seen:
            seen.add(k)
            out.append((name, v))
    return out


def _fmt(v: float) -> str:
    return f"{v:g}"


def _fmt_record(r: F64, labelled: bool) -> str:
    if labelled:
        return "(" + ", ".join(_fmt(float(x)) for x in r[:-1]) + f"; y={_fmt(float(r[-1]))})"
    return "(" + ", ".join(_fmt(float(x)) for x in r) + ")"


# =========================================================================== sizes
def _safe_size(size: Callable[[int], int], n: int) -> int | None:
    try:
        v = size(n)
    except (ArithmeticError, ValueError, TypeError):
        return None
    try:
        return int(v)
    except (TypeError, ValueError, OverflowError):
        return None


def size_jumps(size: Callable[[int], int], low: int, high: int, *, limit: int = 8) -> tuple[int, ...]:
    """Sizes n in (low, high] where size(n) ≠ size(n − 1): the first `limit − 1` and the last.

    Sizes where `size` raises are skipped. The scan stops at `low + 4096`.
    """
    jumps: list[int] = []
    last = None
    prev = _safe_size(size, low) if low >= 0 else None
    for n in range(max(low, 0) + 1, min(high, max(low, 0) + _SIZE_SCAN_LIMIT) + 1):
        cur = _safe_size(size, n)
        if cur is not None and prev is not None and cur != prev:
            if len(jumps) < limit - 1:
                jumps.append(n)
            else:
                last = n
        prev = cur
    if last is not None:
        jumps.append(last)
    return tuple(jumps)


def inclusion_probability(subsampling: Subsampling, n: int) -> float | None:
    """Probability that a given record (one copy) enters the subsample, if declared."""
    kind = subsampling.kind
    if kind is SubsamplingKind.POISSON:
        return subsampling.rate
    if n <= 0 or subsampling.size is None:
        return None
    m = _safe_size(subsampling.size, n)
    if m is None:
        return None
    if kind is SubsamplingKind.WITHOUT_REPLACEMENT:
        return min(1.0, max(m, 0) / n)
    if kind is SubsamplingKind.WITH_REPLACEMENT:
        return 1.0 - (1.0 - 1.0 / n) ** max(m, 0)
    return None


def _no_amplification_size(sub: Subsampling, low: int, high: int) -> int | None:
    """Largest n in [low, high] whose subsample contains every record for sure."""
    best = None
    for n in range(max(low, 1), min(high, max(low, 1) + _SIZE_SCAN_LIMIT) + 1):
        p = inclusion_probability(sub, n)
        if p is not None and p >= 1.0:
            best = n
    return best


def boundary_sizes(
    domain: Domain, relation: Relation = Relation.REPLACE_ONE, *, max_rows: int = DEFAULT_MAX_ROWS
) -> tuple[int, ...]:
    """Base sizes worth auditing, in priority order, within the domain's size limits.

    For add/remove the size is the smaller side's (its neighbour has n + 1 rows). First the
    jumps of the declared `Subsampling.size` (n and n − 1), the largest n without
    amplification and its successor, then min_size and min_size + 1, tiny sizes (0 for
    add/remove, 1, 2, 3), powers of two and their successors (where ⌈log₂ n⌉ rounds), 10, and
    the largest allowed sizes.
    """
    space = _Space.of(domain, max_rows)
    if space is None:
        return ()
    a, b = space.sizes_for(relation)
    if a > b:
        return ()
    cand: list[int] = []
    sub = domain.subsampling
    if sub.size is not None:
        for n in size_jumps(sub.size, a, b + 1):
            cand += [n, n - 1]
    if sub.kind is not SubsamplingKind.NONE:
        n0 = _no_amplification_size(sub, a, b + 1)
        if n0 is not None:
            cand += [n0, n0 + 1]
    cand += [space.min_n, space.min_n + 1, 0, 1, 2, 3, 4, 5, 8, 9, 10, 16, 17, 32, 33, b, b - 1]
    return tuple(n for n in dict.fromkeys(cand) if a <= n <= b)


# =========================================================================== pair building
def _emit(
    space: _Space,
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


def _relation_label(relation: Relation) -> str:
    return {
        Relation.REPLACE_ONE: "replace",
        Relation.ADD_REMOVE_ONE: "add",
        Relation.RELABEL_ONE: "relabel",
    }[relation]


def _change(
    space: _Space,
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
        desc = f"add {_fmt_record(new, space.labelled)} at {pos} of n={n} ({what})"
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
        desc = f"relabel row {i} ({pos}) of n={n}: y={_fmt(rows[i, -1])} → {_fmt(alts[0][-1])} ({what})"
    else:
        assert new is not None
        if np.array_equal(rows[i], new):
            return None
        other = rows.copy()
        other[i] = new
        desc = (
            f"replace row {i} ({pos}) of n={n}: {_fmt_record(rows[i], space.labelled)} → "
            f"{_fmt_record(new, space.labelled)} ({what})"
        )
    return _emit(space, rows, other, relation, desc, ("template", f"position:{pos}", *tags))


def _filler(space: _Space, kind: str, n: int) -> F64:
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


def _farthest(space: _Space, record: F64, limit: int | None = None) -> list[tuple[str, F64]]:
    """Extreme records ≠ record, farthest (box-normalised, labels count 1) first."""
    span = np.where(space.hi > space.lo, space.hi - space.lo, 1.0)

    def dist(r: F64) -> float:
        dx = float(np.abs((r[: space.d] - record[: space.d]) / span).sum())
        return dx + (1.0 if space.labelled and r[-1] != record[-1] else 0.0)

    recs = [(name, r) for name, r in space.extreme_records() if not np.array_equal(r, record)]
    recs.sort(key=lambda t: -dist(t[1]))
    return recs[:limit] if limit is not None else recs


# --------------------------------------------------------------------------- families
def _family_extreme(space: _Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    n = space.clamp_size(base_size, relation)
    if n is None:
        return
    for kind in ("low", "high", "mixed", "centre"):
        rows = _filler(space, kind, n)
        for where in _POSITIONS:
            if relation is Relation.ADD_REMOVE_ONE:
                for name, r in _farthest(space, rows[0] if n else space.low_record(), limit=4):
                    yield _change(space, rows, relation, where, r, f"{name} into {kind} filler", ("extreme",))
            elif relation is Relation.RELABEL_ONE:
                yield _change(space, rows, relation, where, None, f"{kind} filler", ("extreme", "relabel"))
            else:
                i = space.position(n, where, relation)
                for name, r in _farthest(space, rows[i], limit=4):
                    yield _change(space, rows, relation, where, r, f"to {name}, {kind} filler", ("extreme",))


def _family_corners(space: _Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """The changed record moves between every two extreme records (corner to corner)."""
    if relation is Relation.ADD_REMOVE_ONE:
        return  # the extreme family already adds every extreme record
    recs = space.extreme_records()
    sizes = [n for n in dict.fromkeys((space.clamp_size(1, relation), space.clamp_size(base_size, relation)))]
    for n in sizes:
        if n is None:
            continue
        filler = _filler(space, "low", n)
        for where in ("first", "last") if n > 1 else ("first",):
            i = space.position(n, where, relation)
            for (n1, r1), (n2, r2) in itertools.combinations(recs, 2):
                rows = filler.copy()
                rows[i] = r1
                what = f"corner to corner: {n1} → {n2}"
                if relation is Relation.RELABEL_ONE:
                    if n2.split(", y=")[0] == n1.split(", y=")[0]:
                        yield _change(space, rows, relation, where, r2, what, ("corner",))
                else:
                    yield _change(space, rows, relation, where, r2, what, ("corner",))


def _family_tiny(space: _Space, relation: Relation) -> Iterator[NeighborPair | None]:
    """Empty vs singleton (add/remove: *every* extreme record, low corner first: on a learner
    whose output hinges on one labelled example the label matters more than the distance),
    then singleton, two- and three-record datasets with low and high fillers."""
    a, b = space.sizes_for(relation)
    if relation is Relation.ADD_REMOVE_ONE and a <= 0 <= b:
        empty = np.zeros((0, space.width))
        for name, r in space.extreme_records():
            yield _change(space, empty, relation, "first", r, f"tiny, {name} vs the empty dataset", ("tiny",))
    for n in (0, 1, 2, 3):
        if not a <= n <= b or (n == 0 and relation is Relation.ADD_REMOVE_ONE):
            continue
        for kind in ("low", "high"):
            rows = _filler(space, kind, n)
            ref = rows[0] if n else space.low_record()
            for where in ("first", "last"):
                if relation is Relation.RELABEL_ONE:
                    yield _change(space, rows, relation, where, None, f"tiny, {kind} filler", ("tiny",))
                    continue
                for name, r in _farthest(space, ref, limit=2):
                    yield _change(space, rows, relation, where, r, f"tiny, {name}, {kind} filler", ("tiny",))
                if n == 0:
                    break


def _family_sizes(space: _Space, relation: Relation, max_rows: int) -> Iterator[NeighborPair | None]:
    sizes = boundary_sizes(space.domain, relation, max_rows=max_rows)
    for where in ("first", "last", "middle"):  # breadth-first: every size at one position first
        for n in sizes:
            rows = _filler(space, "low", n)
            ref = rows[0] if n else space.low_record()
            what = f"size boundary n={n}"
            if relation is Relation.RELABEL_ONE:
                yield _change(space, rows, relation, where, None, what, ("size-boundary",))
                continue
            far = _farthest(space, ref, limit=1)
            if far:
                yield _change(
                    space, rows, relation, where, far[0][1], f"{what}, to {far[0][0]}", ("size-boundary",)
                )


def _family_duplicates(space: _Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    n = space.clamp_size(max(base_size, 3), relation)
    if n is None or n < 2:
        n = space.clamp_size(2, relation)
        if n is None or n < 1:
            return
    filler = _filler(space, "low", n)
    low = filler[0]
    targets = _farthest(space, low, limit=3)
    # many identical records and one conflicting copy (a larger base: the conflict's effect on a
    # learner scoring by counts grows with the number of copies it contradicts)
    big = space.clamp_size(max(2 * n, 8), relation)
    if big is not None and big > n and space.labelled:
        for name, r in [("low corner", low), *targets[:1]]:
            rows = np.tile(r, (big, 1))
            what = f"{big} copies of {name}"
            for alt in space.relabelled(r):
                if relation is Relation.ADD_REMOVE_ONE:
                    yield _change(
                        space, rows, relation, "last", alt, f"add a conflicting copy: {what}", ("conflict",)
                    )
                else:
                    yield _change(
                        space, rows, relation, big - 1, alt, f"relabel one of {what}", ("conflict",)
                    )
    for name, r in targets:
        for k in sorted({2, max(n // 2, 1), n - 1, n}):
            if k < 1 or k > n:
                continue
            rows = filler.copy()
            rows[n - k :] = r  # k copies of r at the end
            what = f"{k} copies of {name}"
            if relation is Relation.ADD_REMOVE_ONE:
                # one more copy of an already duplicated record
                if k < n:
                    yield _change(
                        space, rows, relation, "last", r, f"add another copy: {what}", ("duplicate",)
                    )
                    yield _change(
                        space, rows, relation, "first", r, f"add another copy: {what}", ("duplicate",)
                    )
                # a conflicting copy (same features, other label) of a record repeated k times
                for alt in space.relabelled(r):
                    yield _change(
                        space, rows, relation, "last", alt, f"add a conflicting copy: {what}", ("conflict",)
                    )
            elif relation is Relation.RELABEL_ONE:
                yield _change(
                    space, rows, relation, n - 1, None, f"relabel one of {what}", ("duplicate", "conflict")
                )
            else:
                # replace one copy of the duplicated record by the filler record
                yield _change(space, rows, relation, n - 1, low, f"one of {what} → filler", ("duplicate",))
                # a filler record becomes one more copy of the duplicated record
                if k < n:
                    yield _change(space, rows, relation, 0, r, f"one more copy: {what}", ("duplicate",))
                # conflicting duplicate: same features, other label
                for alt in space.relabelled(r):
                    yield _change(
                        space, rows, relation, n - 1, alt, f"conflicting duplicate of {what}", ("conflict",)
                    )
    # a conflicting pair already present: relabel one side so they agree / replace it
    if space.labelled and n >= 2 and space.labels is not None and len(space.labels) >= 2:
        rows = filler.copy()
        rows[-1, -1] = space.labels[-1]  # rows[-2] and rows[-1]: same features, different labels
        if relation is Relation.RELABEL_ONE or relation is Relation.REPLACE_ONE:
            yield _change(space, rows, relation, n - 1, rows[-2], "resolve a conflicting pair", ("conflict",))
        else:
            # n is an allowed base size for add/remove: add the conflicting record to the filler
            yield _change(
                space, filler, relation, "last", rows[-1], "add a conflicting duplicate", ("conflict",)
            )


def _diagonal_point(space: _Space, t: float) -> F64:
    """The point lo + t·(hi − lo) of the box diagonal (rounded to the grid, clipped to the box)."""
    v = space.lo + min(max(t, 0.0), 1.0) * (space.hi - space.lo)
    if space.domain.integer_features:
        v = np.floor(v + 0.5)
    return np.asarray(np.clip(v, space.lo, space.hi), dtype=float)


_CLUSTER_LAYOUTS = ((0.25, 0.5), (0.25, 0.75), (0.5, 0.75))


def _family_clusters(space: _Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
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
    yield from _round_robin([_cluster_layouts(space, relation, n, extra=k > 0) for k, n in enumerate(sizes)])


_Layout = tuple[str, tuple[float, ...], float, int | None, list[F64], bool]
"""(name, cluster positions on the diagonal, lone record's position, index of its nearer cluster
(None: between two), far corners it may move to, lone record in the middle of the stream)."""


def _cluster_layouts(
    space: _Space, relation: Relation, n: int, *, extra: bool
) -> Iterator[NeighborPair | None]:
    span = space.hi - space.lo
    integer = space.domain.integer_features
    unit = 1.0 / float(np.max(span)) if integer and np.max(span) > 0 else 1.0 / 16
    lo_corner, hi_corner = space.lo.copy(), space.hi.copy()
    centre = _diagonal_point(space, 0.5)
    adjacent = centre.copy()  # one grid step from the central cluster, along the last coordinate
    adjacent[-1] = min(adjacent[-1] + unit * float(span[-1]), float(space.hi[-1]))
    if space.domain.integer_features:
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
    yield from _round_robin([_cluster_layout(space, relation, n, layout) for layout in layouts])


def _cluster_layout(
    space: _Space, relation: Relation, n: int, layout: _Layout
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
            lab = "|".join(_fmt(y) for y in cl_labels if y is not None)
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
                yield _change(space, rows, relation, i, None, f"{what}: relabel it", tags)
            elif relation is Relation.ADD_REMOVE_ONE:
                for t in targets:
                    desc = f"{what}: a new point outside the support {_fmt_record(t, space.labelled)}"
                    yield _change(space, rows, relation, i, t, desc, tags)
                if n - 1 >= space.sizes_for(relation)[0]:
                    rest = np.delete(rows, i, axis=0)
                    yield _change(space, rest, relation, i, lone, f"{what}: add / remove it", tags)
            else:
                for t in targets:
                    desc = f"{what} → outside the support {_fmt_record(t, space.labelled)}"
                    yield _change(space, rows, relation, i, t, desc, tags)
                for alt in space.relabelled(lone):
                    yield _change(space, rows, relation, i, alt, f"{what}: relabel it", tags)


def _family_stream(space: _Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """Streams: alternating low/high records, a sorted stream (change at its switch point), and
    (labelled) one extreme record repeated with alternating labels (a non-realizable stream: an
    online learner errs, and updates, on every round), changed at positions 0, 1, the middle,
    n − 2 and n − 1."""
    n = space.clamp_size(max(base_size, 6), relation)
    if n is None:
        return
    slots = n + 1 if relation is Relation.ADD_REMOVE_ONE else n
    every = sorted({0, 1, slots // 2, slots - 2, slots - 1} & set(range(slots)))
    kinds = ["mixed", "sorted"]
    if space.labels is not None and len(space.labels) > 1 and n >= 2:
        kinds.append("conflict")
    for kind in kinds:
        positions = every
        if kind == "sorted":
            rows = _filler(space, "low", n)
            rows[n // 2 :] = _filler(space, "high", n - n // 2)
            positions = sorted({max(n // 2 - 1, 0), n // 2} & set(range(slots)))
        elif kind == "conflict":
            vecs = space.feature_vectors()
            v = vecs[2][1] if len(vecs) > 2 else vecs[-1][1]  # a mixed corner when there is one
            rows = np.tile(np.append(v, 0.0), (n, 1))
            assert space.labels is not None
            rows[:, -1] = np.where(np.arange(n) % 2 == 0, space.labels[-1], space.labels[0])
        else:
            rows = _filler(space, "mixed", n)
        for i in positions:
            what = f"{kind} stream"
            if relation is Relation.RELABEL_ONE:
                yield _change(space, rows, relation, i, None, what, ("stream",))
                continue
            if kind == "conflict" and relation is Relation.REPLACE_ONE:
                for alt in space.relabelled(rows[i]):
                    yield _change(space, rows, relation, i, alt, f"{what}, relabel", ("stream", "conflict"))
            if relation is Relation.ADD_REMOVE_ONE:
                ref = rows[min(i, n - 1)] if n else space.low_record()
                for name, r in _farthest(space, ref, limit=2):
                    yield _change(space, rows, relation, i, r, f"{what}, {name}", ("stream",))
            else:
                for name, r in _farthest(space, rows[i], limit=2):
                    yield _change(space, rows, relation, i, r, f"{what}, to {name}", ("stream",))


def _family_lone(space: _Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """One extreme record on a constant filler (the box centre first: the 'null' record of a
    symmetric box, then the low and high corners), relabelled: the only informative example of
    the dataset changes its label (replace-one and relabel-one)."""
    if space.labels is None or len(space.labels) < 2 or relation is Relation.ADD_REMOVE_ONE:
        return
    n = space.clamp_size(max(base_size, 8), relation)
    if n is None:
        return
    for kind in ("centre", "low", "high"):
        filler = _filler(space, kind, n)
        for where in ("first", "last"):
            i = space.position(n, where, relation)
            if i < 0:
                continue
            for name, v in space.feature_vectors():
                if np.array_equal(v, filler[i, : space.d]):
                    continue
                rows = filler.copy()
                rows[i] = np.append(v, space.labels[-1])
                what = f"lone {name} on a {kind} filler: relabel it"
                yield _change(
                    space,
                    rows,
                    relation,
                    i,
                    None if relation is Relation.RELABEL_ONE else np.append(v, space.labels[0]),
                    what,
                    ("lone", "relabel"),
                )


def _family_subsampling(space: _Space, relation: Relation) -> Iterator[NeighborPair | None]:
    sub = space.domain.subsampling
    if sub.kind is SubsamplingKind.NONE:
        return
    a, b = space.sizes_for(relation)
    if a > b:
        return
    probs = {n: inclusion_probability(sub, n) for n in range(max(a, 1), b + 1)}
    known = {n: p for n, p in probs.items() if p is not None}
    picks: list[tuple[int, str]] = []
    n0 = _no_amplification_size(sub, a, b)
    if n0 is not None:
        picks.append((n0, "certain to be drawn (n = subsample size, no amplification)"))
        if n0 + 1 <= b:
            picks.append((n0 + 1, "likely to be drawn (smallest n with amplification)"))
    if sub.size is not None:
        for n in size_jumps(sub.size, a, b, limit=3):
            picks += [(n, "at a subsample-size jump"), (n - 1, "just below a subsample-size jump")]
    if known:
        likely = max(known, key=lambda n: (known[n] < 1.0, known[n], -n))
        unlikely = min(known, key=lambda n: (known[n], -n))
        picks.append((likely, "likely to be drawn"))
        picks.append((unlikely, "unlikely to be drawn (largest n)"))
    else:  # no size function: smallest and largest n
        picks += [(max(a, 1), "smallest n"), (b, "largest n")]
    chosen: dict[int, str] = {}
    for n, label in picks:
        if n not in chosen and a <= n <= b:
            chosen[n] = label
    stages: list[list[NeighborPair | None]] = [[], [], []]  # first position, last, duplicates
    for n, label in chosen.items():
        p = inclusion_probability(sub, max(n, 1))
        ptxt = f", inclusion probability {p:.3g}" if p is not None else ""
        rows = _filler(space, "low", n)
        ref = rows[0] if n else space.low_record()
        far = _farthest(space, ref, limit=1)
        what = f"{sub.kind.value}: {label}{ptxt}"
        for stage, where in enumerate(("first", "last")):
            if relation is Relation.RELABEL_ONE:
                stages[stage].append(_change(space, rows, relation, where, None, what, ("subsampling",)))
            elif far:
                stages[stage].append(_change(space, rows, relation, where, far[0][1], what, ("subsampling",)))
        # duplicates of the changed record change its inclusion probability
        if far and n >= 2:
            r = far[0][1]
            for k in sorted({1, max(n // 2, 1), n - 1}):
                dup = rows.copy()
                dup[:k] = r
                dtxt = f"{what}; {k} other cop{'y' if k == 1 else 'ies'} of the changed record"
                tags = ("subsampling", "duplicate")
                if relation is Relation.ADD_REMOVE_ONE:
                    stages[2].append(_change(space, dup, relation, "last", r, dtxt, tags))
                elif relation is Relation.RELABEL_ONE:
                    stages[2].append(_change(space, dup, relation, k - 1, None, dtxt, tags))
                elif k < n:
                    stages[2].append(_change(space, dup, relation, n - 1, r, dtxt, tags))
    for stage_items in stages:
        yield from stage_items


def _round_robin(iterators: list[Iterator[NeighborPair | None]]) -> Iterator[NeighborPair | None]:
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


def _admitted(
    items: Iterable[NeighborPair | None], domain: Domain, *, strict: bool, limit: int | None
) -> Iterator[NeighborPair]:
    seen: set[tuple[str, str, str]] = set()
    count = 0
    for pair in items:
        if pair is None:
            continue
        if not admissible(pair, domain):
            if strict:
                raise InadmissiblePairError(f"generated pair is not admissible: {pair.description}")
            continue
        key = pair_key(pair)
        if key in seen:
            continue
        seen.add(key)
        yield pair
        count += 1
        if limit is not None and count >= limit:
            return


# =========================================================================== generators
@dataclass(frozen=True, slots=True)
class BoundaryPairs:
    """Template pairs: the changed record moves between opposite corners of the domain (only
    admissible ones are yielded; with `private_rows` the change is moved into a private row)."""

    base_size: int = 4

    def pairs(self, domain: Domain, relation: Relation) -> Iterator[NeighborPair]:
        for pair in self._pairs(domain, relation):
            placed = _placed(pair, domain)
            if placed is not None and admissible(placed, domain):
                yield placed

    def _pairs(self, domain: Domain, relation: Relation) -> Iterator[NeighborPair]:
        lo, hi = (np.array(b, dtype=float) for b in domain.bounds())
        d = domain.num_features
        n = max(self.base_size, domain.min_size, 1)
        if domain.max_size is not None:
            n = min(n, domain.max_size)
        if n < 1 and relation is not Relation.ADD_REMOVE_ONE:
            return
        labelled = domain.labels is not None
        y0 = float(domain.labels[0]) if domain.labels else 0.0
        y1 = float(domain.labels[-1]) if domain.labels else 0.0
        base = np.tile(lo, (n, 1)).reshape(n, d)
        ybase = np.full(n, y0) if labelled else None

        def ds(rows: F64, labels: F64 | None) -> Dataset:
            return Dataset(rows.reshape(-1, d), labels)

        if relation is Relation.REPLACE_ONE:
            other = base.copy()
            other[-1] = hi
            yo = None
            if labelled:
                yo = ybase.copy()  # type: ignore[union-attr]
                yo[-1] = y1
            if not np.array_equal(other, base) or (labelled and y0 != y1):
                yield NeighborPair(
                    dataset=ds(base, ybase),
                    neighbor=ds(other, yo),
                    relation=relation,
                    description="replace the last record: low corner → high corner",
                    tags=("template", "extreme"),
                )
        elif relation is Relation.ADD_REMOVE_ONE:
            m = max(domain.min_size, n - 1)
            if domain.max_size is not None and m + 1 > domain.max_size:
                return
            small = base[:m]
            big = np.vstack([small, hi[None, :]])
            ys = ybase[:m] if ybase is not None else None
            yb = np.append(ys, y1) if ys is not None else None
            yield NeighborPair(
                dataset=ds(small, ys),
                neighbor=ds(big, yb),
                relation=relation,
                description="add a record at the high corner",
                tags=("template", "extreme"),
            )
        elif relation is Relation.RELABEL_ONE and labelled and y0 != y1:
            yo = ybase.copy()  # type: ignore[union-attr]
            yo[0] = y1
            yield NeighborPair(
                dataset=ds(base, ybase),
                neighbor=ds(base, yo),
                relation=relation,
                description="relabel the first record",
                tags=("template", "relabel"),
            )


def _placed(pair: NeighborPair, domain: Domain) -> NeighborPair | None:
    """`pair` with its change moved into the domain's private rows (None if impossible)."""
    if domain.private_rows is None:
        return pair
    space = _Space.of(domain, max(pair.dataset.n, pair.neighbor.n, 1))
    if space is None:
        return None
    w = space.width
    placed = space.privatise(pair.dataset.records().reshape(-1, w), pair.neighbor.records().reshape(-1, w))
    if placed is None:
        return None
    a, b = space.dataset(placed[0]), space.dataset(placed[1])
    moved = not (a.equals(pair.dataset) and b.equals(pair.neighbor))
    out = NeighborPair(
        dataset=a,
        neighbor=b,
        relation=pair.relation,
        description=pair.description + (" (moved into the private rows)" if moved else ""),
        tags=pair.tags,
    )
    return out if domain.check_pair(out) is None else None


@dataclass(frozen=True, slots=True)
class SubsamplingPairs:
    """Subsampling edge cases for a domain that declares subsampling (nothing otherwise).

    The changed record certain to be drawn (n equal to the subsample size: no
    amplification), likely and unlikely to be drawn, at the sizes where the subsample size
    jumps, and with duplicates of the changed record (which change its inclusion probability).
    """

    max_rows: int = DEFAULT_MAX_ROWS
    strict: bool = False

    def pairs(self, domain: Domain, relation: Relation) -> Iterator[NeighborPair]:
        check_amplification(domain, relation)
        space = _Space.of(domain, self.max_rows)
        if space is None:
            return
        yield from _admitted(_family_subsampling(space, relation), domain, strict=self.strict, limit=None)


@dataclass(frozen=True, slots=True)
class WorstCasePairs:
    """Every template family for a relation, merged round-robin, deduplicated.

    `max_pairs` caps the output (a prefix still covers every family); `strict=True` raises
    `InadmissiblePairError` on a family bug instead of dropping the pair.
    """

    base_size: int = 4
    max_rows: int = DEFAULT_MAX_ROWS
    max_pairs: int | None = None
    strict: bool = False

    def families(self, domain: Domain, relation: Relation) -> dict[str, Iterator[NeighborPair | None]]:
        space = _Space.of(domain, self.max_rows)
        if space is None:
            return {}
        fams: dict[str, Iterator[NeighborPair | None]] = {}
        if domain.subsampling.kind is not SubsamplingKind.NONE:
            fams["subsampling"] = _family_subsampling(space, relation)
        fams["extreme"] = _family_extreme(space, relation, self.base_size)
        fams["corner"] = _family_corners(space, relation, self.base_size)
        fams["tiny"] = _family_tiny(space, relation)
        fams["size"] = _family_sizes(space, relation, self.max_rows)
        fams["duplicate"] = _family_duplicates(space, relation, self.base_size)
        fams["cluster"] = _family_clusters(space, relation, self.base_size)
        fams["lone"] = _family_lone(space, relation, self.base_size)
        if domain.ordered:
            fams["stream"] = _family_stream(space, relation, self.base_size)
        return fams

    def pairs(self, domain: Domain, relation: Relation) -> Iterator[NeighborPair]:
        check_amplification(domain, relation)
        merged = _round_robin(list(self.families(domain, relation).values()))
        yield from _admitted(merged, domain, strict=self.strict, limit=self.max_pairs)


# =========================================================================== random and local moves
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


def random_pair(
    domain: Domain,
    relation: Relation,
    rng: np.random.Generator,
    *,
    max_rows: int = DEFAULT_MAX_ROWS,
    tries: int = 20,
) -> NeighborPair | None:
    """A random admissible pair: random size (half the time a boundary size), random
    records, a random change at a random position. None if none was found in `tries`."""
    space = _Space.of(domain, max_rows)
    if space is None:
        return None
    a, b = space.sizes_for(relation)
    if a > b:
        return None
    sizes = boundary_sizes(domain, relation, max_rows=max_rows)
    for _ in range(tries):
        if sizes and rng.random() < 0.5:
            n = int(sizes[int(rng.integers(len(sizes)))])
        else:
            n = int(rng.integers(a, min(b, a + 32) + 1))
        rows = np.array([space.random_record(rng) for _ in range(n)]).reshape(n, space.width)
        if relation is Relation.ADD_REMOVE_ONE:
            i = int(rng.integers(n + 1))
            new: F64 | None = space.random_record(rng)
        else:
            lo_i, hi_i = space.change_range(n)
            if hi_i <= lo_i:
                continue
            i = int(rng.integers(lo_i, hi_i))
            new = None if relation is Relation.RELABEL_ONE else space.random_record(rng)
        pair = _change(space, rows, relation, i, new, "random", ("random",))
        if pair is not None and admissible(pair, domain):
            w = space.width
            desc = _describe(
                space, pair.dataset.records().reshape(-1, w), pair.neighbor.records().reshape(-1, w), relation
            )
            return _retag(
                pair, ("random",), f"random: {desc} [#{pair.dataset.key()[:4]}{pair.neighbor.key()[:4]}]"
            )
    return None


def _retag(pair: NeighborPair, tags: tuple[str, ...], description: str) -> NeighborPair:
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
    space = _Space.of(domain, max_rows)
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
        desc = _describe(space, a_rows, b_rows, relation)
        tag = space.dataset(a_rows).key()[:4] + space.dataset(b_rows).key()[:4]
        cand = _emit(space, a_rows, b_rows, relation, f"search ({what}): {desc} [#{tag}]", ("search", move))
        if cand is None or not admissible(cand, domain):
            continue
        key = pair_key(cand)
        if key in seen:
            continue
        seen.add(key)
        out.append(cand)
    return out


def _describe(space: _Space, a: F64, b: F64, relation: Relation) -> str:
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
        return f"add {_fmt_record(long_[i], space.labelled)} at position {i} of n={short.shape[0]}"
    mism = np.flatnonzero(np.any(a != b, axis=1))
    i = int(mism[0]) if mism.size else 0
    return (
        f"{_relation_label(relation)} row {i} of n={a.shape[0]}: {_fmt_record(a[i], space.labelled)} → "
        f"{_fmt_record(b[i], space.labelled)}"
    )


def _new_record(space: _Space, old: F64, rng: np.random.Generator) -> F64:
    r = rng.random()
    if r < 0.4:
        recs = space.extreme_records()
        return recs[int(rng.integers(len(recs)))][1].copy()
    if r < 0.7 or space.domain.integer_features:
        return space.random_record(rng)
    # small continuous step from the old record
    span = space.hi - space.lo
    v = np.clip(old[: space.d] + rng.normal(0, 0.1, space.d) * span, space.lo, space.hi)
    return np.append(v, old[-1]) if space.labelled else v


def _apply_move(
    space: _Space, pair: NeighborPair, move: str, rng: np.random.Generator
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


def _outside_support(space: _Space, rows: F64, old: F64, rng: np.random.Generator) -> F64 | None:
    """An extreme record whose features are farthest (box-normalised L1) from every record in
    `rows`, with `old`'s label flipped half the time (labelled domains)."""
    span = np.where(space.hi > space.lo, space.hi - space.lo, 1.0)
    feats = rows[:, : space.d]
    best: F64 | None = None
    best_d = 0.0
    for _, v in space.feature_vectors():
        dist = float(np.min(np.abs((feats - v) / span).sum(axis=1))) if feats.size else 1.0
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
