"""Subsampling edge cases: the changed record certain, likely and unlikely to be drawn.

For a domain that declares subsampling: n equal to the subsample size (no amplification),
the smallest n with amplification, the sizes where the subsample size jumps, the most and
least likely inclusion, and duplicates of the changed record (which change its inclusion
probability). Used as a `WorstCasePairs` family and on its own as `SubsamplingPairs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .admissible import admitted_pairs, check_amplification
from .base import Domain, NeighborPair, Relation, SubsamplingKind
from .building import change_pair, farthest_records, make_filler
from .sizes import inclusion_probability, no_amplification_size, size_jumps
from .space import DEFAULT_MAX_ROWS, Space

__all__ = ["SubsamplingPairs", "family_subsampling"]


def family_subsampling(space: Space, relation: Relation) -> Iterator[NeighborPair | None]:
    sub = space.domain.subsampling
    if sub.kind is SubsamplingKind.NONE:
        return
    a, b = space.sizes_for(relation)
    if a > b:
        return
    probs = {n: inclusion_probability(sub, n) for n in range(max(a, 1), b + 1)}
    known = {n: p for n, p in probs.items() if p is not None}
    picks: list[tuple[int, str]] = []
    n0 = no_amplification_size(sub, a, b)
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
        rows = make_filler(space, "low", n)
        ref = rows[0] if n else space.low_record()
        far = farthest_records(space, ref, limit=1)
        what = f"{sub.kind.value}: {label}{ptxt}"
        for stage, where in enumerate(("first", "last")):
            if relation is Relation.RELABEL_ONE:
                stages[stage].append(change_pair(space, rows, relation, where, None, what, ("subsampling",)))
            elif far:
                stages[stage].append(
                    change_pair(space, rows, relation, where, far[0][1], what, ("subsampling",))
                )
        # duplicates of the changed record change its inclusion probability
        if far and n >= 2:
            r = far[0][1]
            for k in sorted({1, max(n // 2, 1), n - 1}):
                dup = rows.copy()
                dup[:k] = r
                dtxt = f"{what}; {k} other cop{'y' if k == 1 else 'ies'} of the changed record"
                tags = ("subsampling", "duplicate")
                if relation is Relation.ADD_REMOVE_ONE:
                    stages[2].append(change_pair(space, dup, relation, "last", r, dtxt, tags))
                elif relation is Relation.RELABEL_ONE:
                    stages[2].append(change_pair(space, dup, relation, k - 1, None, dtxt, tags))
                elif k < n:
                    stages[2].append(change_pair(space, dup, relation, n - 1, r, dtxt, tags))
    for stage_items in stages:
        yield from stage_items


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
        space = Space.of(domain, self.max_rows)
        if space is None:
            return
        yield from admitted_pairs(family_subsampling(space, relation), domain, strict=self.strict, limit=None)
