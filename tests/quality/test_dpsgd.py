"""Power and calibration of the audit on the DP-SGD family (issue 26).

Every buggy twin is flagged on its registered pairs at a budget below its registry default
(their margins over the claim are wide: see each twin's docstring for its true ε), and no
correct preset is flagged: a correct preset is flagged only when a certified bound exceeds its
true ε, which happens with probability ≤ failure_probability = 0.05 per audit; over the 7 presets
the chance that this test fails falsely is ≤ 1 − 0.95⁷ ≈ 0.30 at worst in theory, and 0 in
practice here (the certified bounds sit below 0.95 of the accountant's ε, measured). Budgets keep
the whole file under a minute on one core (measured, see the report in benchmarks/README.md).
"""

from __future__ import annotations

import pytest

from dpaudit.app.route import pairs_for
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.registry import entries

TWIN_BUDGETS = {
    "dpsgd_shuffled_batches": 20_000,
    "dpsgd_realised_batch_normaliser": 100_000,
    "dpsgd_sampler_rate_mismatch": 50_000,
    "dpsgd_clip_after_sum": 50_000,
    "dpsgd_noise_for_mean": 5_000,
    "dpsgd_steps_as_epochs": 20_000,
    "dpsgd_true_size_normaliser": 5_000,
}
CORRECT = sorted(n for n, e in entries().items() if e.family == "dpsgd" and not e.buggy)


def test_every_twin_has_a_budget() -> None:
    twins = {n for n, e in entries().items() if e.family == "dpsgd" and e.buggy}
    assert twins == set(TWIN_BUDGETS)
    for name, n in TWIN_BUDGETS.items():
        assert n <= entries()[name].default_num_samples


@pytest.mark.parametrize("name", sorted(TWIN_BUDGETS))
def test_twin_flagged(name: str) -> None:
    mech = entries()[name].build()
    r = run_audit(mech, pairs_for(mech), AuditConfig(num_samples=TWIN_BUDGETS[name], seed=0))
    assert r.violation, f"{name} not flagged at {TWIN_BUDGETS[name]} samples"


@pytest.mark.parametrize("name", CORRECT)
def test_correct_preset_not_flagged(name: str) -> None:
    mech = entries()[name].build()
    r = run_audit(mech, pairs_for(mech), AuditConfig(num_samples=50_000, seed=1))
    assert not r.violation, f"{name} flagged: {r.epsilon_lower_bound}"
