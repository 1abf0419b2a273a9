"""Slow tier for 004: HS-StL shows no violation at 10^5 samples per side, its certified bound is
below the white-box GDP upper bound, and every detectable twin is flagged.

False-failure rates: a correct mechanism is flagged with probability ≤ failure_probability =
0.05 (runner's Clopper–Pearson + Bonferroni); seeds are fixed. Twin budgets measured: certified
ε ≥ 2× the claim at 3·10^4 samples."""

from __future__ import annotations

import pytest

from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig, Verdict
from dpaudit.mechanisms.boosting import REGISTRY_ENTRIES

pytestmark = pytest.mark.slow
ENTRIES = {e.name: e for e in REGISTRY_ENTRIES}
TWINS = [
    "hs_stl_no_projection",
    "hs_stl_uniform_noise",
    "hs_stl_early_stop",
    "hs_stl_unclipped_loss",
    "hs_stl_double_rounds",
    "hs_weak_learner_uniform_noise",
]


def test_hs_stl_no_violation_and_bound_below_gdp_oracle() -> None:
    m = ENTRIES["hs_stl"].build()
    pairs = m.neighbor_pairs()
    result = run_audit(m, pairs, AuditConfig(num_samples=100_000, seed=21))
    assert result.verdict is Verdict.NO_VIOLATION_FOUND
    for pr, pair in zip(result.pairs, pairs, strict=True):
        assert pr.estimate.epsilon_lower_bound <= m.exact_epsilon(pair, pr.claim.delta)


@pytest.mark.parametrize("name", TWINS)
def test_detectable_twin_is_flagged(name: str) -> None:
    assert ENTRIES[name].detectable
    m = ENTRIES[name].build()
    result = run_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=30_000, seed=22))
    assert result.verdict is Verdict.VIOLATION_FOUND


def test_every_detectable_twin_is_tested() -> None:
    assert {e.name for e in REGISTRY_ENTRIES if e.buggy and e.detectable} == set(TWINS)
