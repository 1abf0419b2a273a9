"""The runner's *plan* stage: which pairs, claims and tests an audit certifies, and its budget.

`plan_audit` validates the pairs (neighbour relation, the mechanism's domain, an applicable
claim), fixes the selection / certification split, lists each pair's tests (`objectives_for`:
ε at the claim's δ first, then the privacy profile) and splits the failure probability over
all of them by the union (Bonferroni) bound: with β_t = failure_probability / (number of tests)
per test, every certified statement of the audit holds simultaneously with probability at least
1 − failure_probability. It also warns when the claimed ε is at or above `bounds.epsilon_ceiling`,
the largest ε that n one-sided Clopper–Pearson intervals at β_t/2 can certify. No samples are
drawn here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...mechanisms.base import CurveKind, Mechanism, PrivacyClaim, applicable_claim, claims_of
from ...mechanisms.base import verdict_claim as verdict_claim_of
from ...neighbors.base import NeighborPair, is_neighbor
from ..bounds import epsilon_ceiling
from ..distinguishers import DIRECT_ASSUMPTION, DeltaAt, EpsilonAt, GaussianMu, Objective
from ..types import AuditConfig

CURVE_PROFILE_DELTAS: tuple[float, ...] = (1e-3, 1e-2, 1e-1)
"""δ grid audited when the claim is a curve and no profile grid is configured.

Why these: (1) a certified ε at δ needs events of probability well above δ seen on both sides,
so at 10⁴–10⁶ certification samples a point below ~10⁻³ certifies about what the primary test
(δ = the claim's, typically 10⁻⁵–10⁻⁶) already does, and would only cost Bonferroni budget;
(2) from 10⁻³ up a curve claim is strictly stronger than its headline point (a point claim
(4.38, 10⁻⁵) still allows 4.38, 4.37, 4.27 at 10⁻³, 10⁻², 10⁻¹ where the 1-GDP curve through it
allows 3.14, 2.32, 1.16), so these are the points where the curve can refute what the headline cannot;
(3) three decades keep the split at 1 + 3 (+1 for the GDP μ) tests per pair."""

GivenOutputs = Sequence[tuple[NDArray[Any], NDArray[Any]]]
"""Selection outputs supplied by the caller: one (dataset side, neighbour side) pair per pair."""


class AuditInputError(ValueError):
    """The audit cannot start: bad pairs, a claim that does not apply, bad config."""


@dataclass(frozen=True, slots=True)
class PlannedPair:
    """One validated pair and the claim it is audited against."""

    pair: NeighborPair
    claim: PrivacyClaim


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditPlan:
    """Output of the plan stage: everything fixed before any sample is drawn."""

    pairs: tuple[PlannedPair, ...]
    claims: tuple[PrivacyClaim, ...]
    verdict_claim: PrivacyClaim
    objectives: tuple[tuple[Objective, ...], ...]
    """Per pair: the primary test first, then the profile tests."""
    selection_samples: int
    certification_samples: int
    key_parameters: tuple[tuple[str, str], ...]
    """What the checkpoint key hashes besides the config (the parameters, a digest of given outputs)."""
    num_tests: int
    test_level: float
    """Per-test failure probability: failure_probability / num_tests (union bound)."""
    epsilon_ceiling: float
    warnings: tuple[str, ...]


def plan_pairs(mechanism: Mechanism, pairs: Sequence[NeighborPair]) -> list[PlannedPair]:
    """Validate `pairs` and attach to each the claim that decides its verdict."""
    if not pairs:
        raise AuditInputError(f"no neighbour pairs to audit for {mechanism.name!r}")
    claims = claims_of(mechanism)
    plans = []
    for pair in pairs:
        if not is_neighbor(pair):
            raise AuditInputError(f"pair {pair.description!r} is not a {pair.relation.value} neighbour pair")
        for side in (pair.dataset, pair.neighbor):
            reason = mechanism.domain.check(side)
            if reason is not None:
                raise AuditInputError(
                    f"pair {pair.description!r} is outside {mechanism.name!r}'s domain: {reason}"
                )
        reason = mechanism.domain.check_pair(pair)
        if reason is not None:
            raise AuditInputError(f"pair {pair.description!r} cannot be audited: {reason}")
        claim = applicable_claim(claims, pair.relation)
        if claim is None:
            raise AuditInputError(
                f"{mechanism.name!r} claims nothing under {pair.relation.value} "
                f"(its claims: {', '.join(c.relation.value for c in claims)}); "
                f"pair {pair.description!r} cannot be audited against it"
            )
        plans.append(PlannedPair(pair, claim))
    return plans


def objectives_for(claim: PrivacyClaim, config: AuditConfig) -> list[Objective]:
    """The primary test (ε at the claim's δ) first, then the configured extras; for a curve
    claim without a configured grid, ε at `CURVE_PROFILE_DELTAS` (and μ for a GDP curve)."""
    extras: list[Objective] = [EpsilonAt(d) for d in config.profile_deltas]
    extras += [DeltaAt(e) for e in config.profile_epsilons]
    gdp = config.gdp
    if claim.curve is not None and not config.profile_deltas and not config.profile_epsilons:
        extras += [EpsilonAt(d) for d in CURVE_PROFILE_DELTAS if d != claim.delta]
        gdp = gdp or claim.curve.kind is CurveKind.GDP
    if gdp:
        extras.append(GaussianMu())
    return [EpsilonAt(claim.delta), *extras]


def claimed_value(claim: PrivacyClaim, objective: Objective) -> float | None:
    """What `claim` allows for `objective`'s certified value: ε at δ (`epsilon_at`), δ at ε
    (`delta_at`), or μ for a GDP curve claim; None when the claim says nothing comparable."""
    if isinstance(objective, EpsilonAt):
        return float(claim.epsilon_at(objective.delta))
    if isinstance(objective, DeltaAt):
        return float(claim.delta_at(objective.epsilon))
    if isinstance(objective, GaussianMu) and claim.curve is not None and claim.curve.kind is CurveKind.GDP:
        return float(claim.curve.parameter)
    return None


def assumption_of(objective: Objective, distinguisher: str) -> str:
    """What a certificate from `objective` on an event of `distinguisher` assumes (one line)."""
    text = str(getattr(objective, "assumption", DIRECT_ASSUMPTION))
    if distinguisher.startswith(("logistic", "projection")):
        text += (
            f"; event from a {distinguisher} statistic fitted on the selection split "
            "(the model need not be correct)"
        )
    return text


def given_split(given: GivenOutputs, *, num_pairs: int, num_samples: int) -> tuple[int, int, tuple[str, str]]:
    """(n_sel, n_cert, key parameter) when the caller supplies the selection outputs: events
    are chosen on them and all `num_samples` certify; the key parameter is their digest."""
    if len(given) != num_pairs:
        raise AuditInputError(f"selection_outputs has {len(given)} entries for {num_pairs} pairs")
    n_sel = min(min(len(a), len(b)) for a, b in given)
    digest = hashlib.sha256()
    for arrays in given:
        for x in arrays:
            digest.update(np.ascontiguousarray(x).tobytes())
    return n_sel, num_samples, ("selection_outputs", digest.hexdigest())


def budget_warnings(
    mechanism: Mechanism, claim: PrivacyClaim, *, ceiling: float, n_cert: int
) -> tuple[str, ...]:
    """Warnings known before sampling: a claim above the ceiling, an unseedable mechanism."""
    warnings: list[str] = []
    if claim.epsilon >= ceiling:
        warnings.append(
            f"claimed ε = {claim.epsilon:g} is at or above the largest ε that "
            f"{n_cert:,} certification samples per side can certify ({ceiling:.3f}); "
            "this audit cannot find a violation at this budget"
        )
    if not mechanism.seedable:
        warnings.append(f"{mechanism.name!r} is not seedable: results do not reproduce from the seed")
    return tuple(warnings)


def plan_audit(
    mechanism: Mechanism,
    pairs: Sequence[NeighborPair],
    config: AuditConfig,
    *,
    parameters: Sequence[tuple[str, str]] = (),
    selection_outputs: GivenOutputs | None = None,
) -> AuditPlan:
    """The plan stage: validate, split the budget, list the tests, set β_t (module docstring)."""
    plans = plan_pairs(mechanism, pairs)
    claims = claims_of(mechanism)
    verdict_claim = verdict_claim_of(mechanism)
    n_sel, n_cert = config.split()
    key_parameters = tuple(parameters)
    if selection_outputs is not None:
        n_sel, n_cert, digest = given_split(
            selection_outputs, num_pairs=len(plans), num_samples=config.num_samples
        )
        key_parameters += (digest,)
    objectives = tuple(tuple(objectives_for(p.claim, config)) for p in plans)
    num_tests = sum(len(o) for o in objectives)
    test_level = config.failure_probability / num_tests
    ceiling = epsilon_ceiling(n_cert, bound_level=test_level, delta=verdict_claim.delta)
    return AuditPlan(
        pairs=tuple(plans),
        claims=tuple(claims),
        verdict_claim=verdict_claim,
        objectives=objectives,
        selection_samples=n_sel,
        certification_samples=n_cert,
        key_parameters=key_parameters,
        num_tests=num_tests,
        test_level=test_level,
        epsilon_ceiling=ceiling,
        warnings=budget_warnings(mechanism, verdict_claim, ceiling=ceiling, n_cert=n_cert),
    )
