"""Contracts for audited mechanisms (DESIGN.md, "Contracts": `mechanisms.base`).

A mechanism is a black box that carries its privacy claim(s). The audit only ever calls
`sample(dataset, num_samples, rng=...)`, which returns `num_samples` independent releases
stacked on axis 0, encoded numerically (a number, a vector, or a hypothesis encoded by its
parameters or its predictions on a fixed probe set).

Claims (ERRATA.md, "Which claim decides the verdict"): a mechanism may carry several, each
marked as the paper's *statement* or as *proved* (by the proof, or a derivation in the
docstring). The verdict uses the proved claim for the pair's relation; a certified bound
above only a stated claim is a finding about the paper, not a violation.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from neighbors.base import Dataset, Domain, NeighborPair, Relation


class ClaimKind(enum.StrEnum):
    PROVED = "proved"
    """Supported by the paper's proof or a derivation in the mechanism's docstring."""
    STATED = "stated"
    """The paper's statement as written; may be stronger than its proof supports."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivacyClaim:
    """A claimed (ε, δ)-DP guarantee under `relation`, with its source.

    `reference` names the paper file and theorem, e.g. "004_d2450801cba57aea.txt, Thm 30".
    """

    epsilon: float
    delta: float = 0.0
    relation: Relation
    reference: str
    kind: ClaimKind = ClaimKind.PROVED
    note: str = ""

    def __post_init__(self) -> None:
        if not (self.epsilon >= 0 and math.isfinite(self.epsilon)):
            raise ValueError(f"claim epsilon must be finite and ≥ 0, got {self.epsilon}")
        if not 0 <= self.delta < 1:
            raise ValueError(f"claim delta must be in [0, 1), got {self.delta}")
        if not isinstance(self.relation, Relation):
            raise TypeError(f"relation must be a Relation, got {self.relation!r}")
        if not self.reference:
            raise ValueError("a privacy claim needs a reference (paper file and theorem)")
        object.__setattr__(self, "kind", ClaimKind(self.kind))

    def covers(self, relation: Relation) -> bool:
        return relation.is_covered_by(self.relation)

    def to_dict(self) -> dict[str, Any]:
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "relation": self.relation.value,
            "reference": self.reference,
            "kind": self.kind.value,
            "note": self.note,
        }


class MechanismError(Exception):
    """A mechanism misbehaved (raised, returned NaN, wrong shape). Message is one line."""


@runtime_checkable
class Mechanism(Protocol):
    """The black-box contract every audited mechanism satisfies.

    Optional extras, looked up with getattr: `claims` (all claims; default `(claim,)`),
    `neighbor_pairs()` (registered worst-case pairs), `output_kind` ("continuous" or
    "discrete", a hint for the distinguisher), `exact_epsilon(pair, delta=...)` (a white-box
    oracle used by tests and benchmarks, never by the audit itself).
    """

    @property
    def name(self) -> str: ...

    @property
    def claim(self) -> PrivacyClaim: ...

    @property
    def domain(self) -> Domain: ...

    @property
    def seedable(self) -> bool: ...

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]: ...


def claims_of(mechanism: Mechanism) -> tuple[PrivacyClaim, ...]:
    """Every claim a mechanism carries; the primary `claim` first."""
    extra = tuple(getattr(mechanism, "claims", ()) or ())
    out = [mechanism.claim]
    out.extend(c for c in extra if c != mechanism.claim)
    return tuple(out)


def applicable_claim(claims: Sequence[PrivacyClaim], relation: Relation) -> PrivacyClaim | None:
    """The claim that decides the verdict for a pair under `relation`.

    Proved claims win over stated ones; among them an exact relation match wins over a
    covering one (a replace-one claim covers relabel-one pairs); then the strongest.
    """
    covering = [c for c in claims if c.covers(relation)]
    if not covering:
        return None
    proved = [c for c in covering if c.kind is ClaimKind.PROVED] or covering
    exact = [c for c in proved if c.relation is relation] or proved
    return min(exact, key=lambda c: (c.epsilon, c.delta))


def validate_output(name: str, out: object, num_samples: int) -> NDArray[Any]:
    """Check a `sample` result: an ndarray, axis 0 = samples, numeric and finite."""
    if not isinstance(out, np.ndarray):
        raise MechanismError(f"mechanism {name!r} returned {type(out).__name__}, expected a numpy array")
    if out.ndim == 0 or out.shape[0] != num_samples:
        raise MechanismError(
            f"mechanism {name!r} returned shape {out.shape} for {num_samples} samples "
            "(axis 0 must be the sample axis)"
        )
    if not (np.issubdtype(out.dtype, np.number) or out.dtype == np.bool_):
        raise MechanismError(f"mechanism {name!r} returned non-numeric dtype {out.dtype}")
    if np.issubdtype(out.dtype, np.inexact) and not np.all(np.isfinite(out)):
        bad = int(np.size(out) - np.count_nonzero(np.isfinite(out)))
        raise MechanismError(f"mechanism {name!r} returned {bad} NaN/infinite values")
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class CallableMechanism:
    """Adapts a one-release-at-a-time function `fn(dataset, rng) -> output` (any black box).

    The per-sample Python loop is the price of a black box; native mechanisms implement a
    vectorised `sample`. `seedable=False` marks a function that ignores `rng` (results then
    do not reproduce from a seed, and the report says so).
    """

    fn: Callable[[Dataset, np.random.Generator], Any]
    name: str
    claim: PrivacyClaim
    domain: Domain
    seedable: bool = True
    claims: tuple[PrivacyClaim, ...] = ()
    pairs: tuple[NeighborPair, ...] = ()
    output_kind: str | None = None

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        outs = [np.asarray(self.fn(dataset, rng)) for _ in range(num_samples)]
        if not outs:
            return np.empty((0,))
        try:
            return np.stack(outs)
        except ValueError as exc:
            raise MechanismError(f"mechanism {self.name!r} returned outputs of varying shape") from exc

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return self.pairs


def from_callable(
    fn: Callable[[Dataset, np.random.Generator], Any],
    *,
    name: str,
    claim: PrivacyClaim,
    domain: Domain,
    seedable: bool = True,
    claims: Sequence[PrivacyClaim] = (),
    pairs: Sequence[NeighborPair] = (),
    output_kind: str | None = None,
) -> CallableMechanism:
    """Wrap `fn(dataset, rng) -> one output` as a `Mechanism`."""
    return CallableMechanism(
        fn=fn,
        name=name,
        claim=claim,
        domain=domain,
        seedable=seedable,
        claims=tuple(claims),
        pairs=tuple(pairs),
        output_kind=output_kind,
    )
