"""Slow tier for 003: audits of the correct learners (no violation at 10^5 samples per side),
every detectable buggy twin flagged, certified bound ≤ the exact oracle ε (enumeration for the
tiny decision list, the binomial formula for DP-Winnow's W1 pair).

False-failure rates: a correct mechanism is flagged with probability ≤ failure_probability =
0.05 by construction of the runner (Clopper–Pearson, Bonferroni); the seeds are fixed, so the
outcome is deterministic. The twins' budgets were measured to flag with a wide margin
(certified ε ≥ 1.5× the claim at 3·10^4 samples)."""

from __future__ import annotations

import pytest

from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig, Verdict
from dpaudit.mechanisms.decision_lists import REGISTRY_ENTRIES

pytestmark = pytest.mark.slow
ENTRIES = {e.name: e for e in REGISTRY_ENTRIES}
TWIN_BUDGET = {
    "private_decision_list_early_stop": 30_000,
    "private_decision_list_deterministic": 30_000,
    "dp_winnow_shadow_release": 30_000,
    "dp_winnow_no_cap": 50_000,  # certified 3.59 / 3.95 (seeds 12 / 13) vs the derived 2.14
    "dp_winnow_cached_queries": 30_000,
    "private_decision_list_data_features": 30_000,
    "dp_winnow_one_draw_charge": 200_000,  # measured certified 4.04 vs claim 3.6 (seed 12)
    "private_decision_list_no_half_wide": 1_000_000,  # certified 4.90 vs claim 4.0 (seed 12), ~35 s
    "private_decision_list_no_group_privacy": 1_000_000,  # certified 2.27 vs claim 2.0 (seed 12)
    "dp_winnow_shadow_cache": 100_000,  # certified 3.34 / 3.38 (seeds 12 / 13) vs the derived 2.14
    "dp_winnow_utility_eta": 100_000,  # exact W1 3.89; certified 2.51 / 2.52 vs the derived 2.14
}
CORRECT_BUDGET = {
    "private_decision_list": 100_000,
    "dp_winnow": 100_000,
    "online_decision_list": 100_000,
    "private_decision_list_medium": 10_000,  # ~4·10^3 samples/s; smoke test of the 41-step preset
}


@pytest.mark.parametrize("name", sorted(CORRECT_BUDGET))
def test_correct_learner_no_violation_and_bound_below_oracle(name: str) -> None:
    m = ENTRIES[name].build()
    result = run_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=CORRECT_BUDGET[name], seed=11))
    # a correct learner is never flagged; a small budget that certifies no loss reads inconclusive
    assert result.verdict in (Verdict.NO_VIOLATION_FOUND, Verdict.INCONCLUSIVE)
    for pr, pair in zip(result.pairs, m.neighbor_pairs(), strict=True):
        try:
            oracle = m.exact_epsilon(pair, pr.claim.delta)  # type: ignore[attr-defined]
        except NotImplementedError:
            continue
        assert pr.estimate.epsilon_lower_bound <= oracle


@pytest.mark.parametrize("name", sorted(TWIN_BUDGET))
def test_detectable_twin_is_flagged(name: str) -> None:
    entry = ENTRIES[name]
    assert entry.buggy and entry.detectable
    m = entry.build()
    result = run_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=TWIN_BUDGET[name], seed=12))
    assert result.verdict is Verdict.VIOLATION_FOUND


def test_every_detectable_twin_has_a_budget() -> None:
    assert {e.name for e in REGISTRY_ENTRIES if e.buggy and e.detectable} == set(TWIN_BUDGET)
    assert {e.name for e in REGISTRY_ENTRIES if not e.buggy} == set(CORRECT_BUDGET)


def test_undetectable_no_half_twin_is_below_its_claim_by_the_oracle() -> None:
    m = ENTRIES["private_decision_list_no_half"].build()
    for pair in m.neighbor_pairs():
        claim = min(c.epsilon for c in m.claims if c.kind.value == "proved" and c.covers(pair.relation))
        assert m.exact_epsilon(pair) < claim  # on its registered pairs (an oracle-searched pair
        # reaches 2.19 > 2.0, too thin to certify; see private_decision_list_no_half_wide)


def test_no_group_privacy_twin_exceeds_its_buggy_claim_by_the_oracle() -> None:
    """At its one-feature preset the oracle-searched replace pair is above the claimed 2.0."""
    m = ENTRIES["private_decision_list_no_group_privacy"].build()
    gaps = []
    for pair in m.neighbor_pairs():
        claim = min(c.epsilon for c in m.claims if c.kind.value == "proved" and c.covers(pair.relation))
        gaps.append(m.exact_epsilon(pair) - claim)
    assert max(gaps) > 0.3
