"""Slow tier for the worst-case search: edge-case bugs caught blind, coverage, registered parity.

Every search here is blind (not told the registered pairs) and spends the registered route's
total budget (num_samples × registered pairs; `audit.search.default_budget`).
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.search.procedure import search_and_certify
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.reference import LaplaceSum, RandomizedResponse
from dpaudit.mechanisms.registry import entries
from tests.audit.test_search import SubsampledLaplaceSum

pytestmark = pytest.mark.slow


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class FloorSizeLaplaceSum(SubsampledLaplaceSum):
    """Bug: the noise is calibrated for ⌊n/4⌋ records while ⌈n/4⌉ are drawn (true ε ≈ 1.49 at
    n = 5, 6, 7; exact at multiples of 4, which is where a hand-written pair tends to sit)."""

    name: str = "floor_size_laplace_sum"

    def assumed_size(self, n: int) -> int:
        return max(1, n // 4)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_search_finds_a_rounding_bug_at_the_size_boundary(seed: int) -> None:
    cfg = AuditConfig(num_samples=200_000, seed=seed)
    found = search_and_certify(FloorSizeLaplaceSum(), cfg)
    assert found.certified.violation
    sizes = {min(p.dataset.n, p.neighbor.n) for p in found.certified_pairs}
    assert sizes & {5, 6, 7, 9, 10, 11}
    # false-failure probability of the next line ≤ 0.05 per seed (the runner's guarantee)
    assert not search_and_certify(SubsampledLaplaceSum(), cfg).certified.violation


@pytest.mark.parametrize(
    ("twin", "num_samples"),
    [
        # "first m records instead of a random subsample" ([LWY] A_Agnostic's T = S_{1..k}): the
        # blind search must put the change inside the first k positions (the entry's default
        # budget, 10^5 × 7 pairs; at 3·10^4 × 7 it is missed)
        ("agnostic_learner_first_k", 100_000),
        # h̄ read from T^h instead of V^h: caught by a pair changing a *private* row (U) only
        ("auxiliary_learner_hbar_from_t", 200_000),
        ("relabel_and_learn_argmin", 200_000),
        ("em_learner_no_half", 200_000),
        ("private_decision_list_early_stop", 100_000),
    ],
)
def test_blind_search_catches_registered_edge_case_twins(twin: str, num_samples: int) -> None:
    # a twin that is not flagged is a miss; the certified bound exceeding the correct claim is
    # a certificate (failure probability ≤ 0.05), so a flagged twin is never a false alarm
    mech = entries()[twin].build()
    found = search_and_certify(mech, AuditConfig(num_samples=num_samples, seed=0))
    assert found.certified.violation, (twin, found.certified.epsilon_lower_bound, mech.claim.epsilon)


@pytest.mark.parametrize("name", ["em_learner", "relabel_and_learn"])
def test_blind_search_matches_the_registered_pairs(name: str) -> None:
    """The last session's two gaps (em_learner 0.74 vs 0.92, relabel_and_learn 0.82 vs 1.38).

    Measured over seeds 0–4 at these budgets (benchmarks/search.py gives the full table):
    the blind search's certified bound is ≥ 0.97 × the registered pairs' on every seed; the
    0.95 tolerance leaves room for the bounds' own seed-to-seed spread (≤ 0.02 here).
    """
    mech = entries()[name].build()
    cfg = AuditConfig(num_samples=entries()[name].default_num_samples, seed=3)
    reg = run_audit(mech, mech.neighbor_pairs(), cfg)  # type: ignore[attr-defined]
    found = search_and_certify(mech, cfg)
    assert found.budget == cfg.num_samples * len(mech.neighbor_pairs())  # type: ignore[attr-defined]
    assert found.certified.epsilon_lower_bound >= 0.95 * reg.epsilon_lower_bound


@pytest.mark.parametrize("pooled", [False, True], ids=["blind", "pooled"])
@pytest.mark.parametrize("mechanism", [LaplaceSum(), RandomizedResponse()], ids=lambda m: m.name)
@pytest.mark.parametrize("seed", range(5))
def test_certified_bounds_never_exceed_the_truth(
    mechanism: LaplaceSum | RandomizedResponse, seed: int, pooled: bool
) -> None:
    """Blind, and pooled (`dpaudit run`'s default: the registered pairs in the pilot pool, the
    champion hedged, contenders certified): every certified pair's bound ≤ its true ε."""
    # each run fails with probability ≤ 0.002 (failure_probability), 20 runs: ≤ 0.04 in all
    # (benchmarks/search_coverage.py measures the pooled route over 50 seeds per mechanism)
    registered = tuple(mechanism.neighbor_pairs()) if pooled else ()
    r = search_and_certify(
        mechanism,
        AuditConfig(num_samples=50_000, seed=seed, failure_probability=0.002),
        registered=registered,
    )
    for pr, pair in zip(r.certified.pairs, r.certified_pairs, strict=True):
        truth = mechanism.exact_epsilon(pair)
        assert pr.estimate.epsilon_lower_bound <= truth + 1e-9 or math.isinf(truth)
