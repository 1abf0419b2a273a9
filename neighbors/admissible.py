"""Admissibility of generated pairs: the amplification guard, the neighbour/domain check, dedup.

A pair is admissible when it satisfies its relation (`is_neighbor`: exactly one differing
record), both sides lie in the domain (`Domain.check`) and it changes only rows the claim
covers (`Domain.check_pair`). `check_amplification` refuses to audit a claim that relies on
amplification by subsampling under a relation that amplification does not cover.
`admitted_pairs` is the filter every generator ends with: admissible pairs only (or
`InadmissiblePairError` in strict mode), deduplicated by the symmetric `pair_key`, capped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .base import Domain, NeighborPair, Relation, is_neighbor

__all__ = [
    "AmplificationMismatchError",
    "InadmissiblePairError",
    "admissible",
    "admitted_pairs",
    "check_amplification",
    "pair_key",
]


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


def admitted_pairs(
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
