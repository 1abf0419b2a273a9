"""Calibration and power of the gate's regression test (audit/baseline.py), over seeded repetitions.

Each repetition is one baseline/gate pair, run through the library functions the gate uses:
`run_audit` at the violation share of the budget → `baseline_audit_from_result` (the baseline
entry `--update-baseline` would write) → `regression_checks` at the regression share on the
current mechanism (what `dpaudit gate --baseline` runs). Budgets are small so the tier stays
well under a minute.
"""

from __future__ import annotations

import pytest
from scipy import stats

from dpaudit.app.baseline.core import baseline_audit_from_result, regression_checks
from dpaudit.app.gate.procedure import VIOLATION_SHARE
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.reference import LaplaceSum, RandomizedResponse

pytestmark = pytest.mark.slow


def regression_fires(
    baseline_mechanism: Mechanism,
    current_mechanism: Mechanism,
    *,
    baseline_seed: int,
    gate_seed: int,
    num_samples: int,
    failure_probability: float,
) -> bool:
    pairs = baseline_mechanism.neighbor_pairs()  # type: ignore[attr-defined]
    config = AuditConfig(
        num_samples=num_samples, seed=baseline_seed, failure_probability=failure_probability * VIOLATION_SHARE
    )
    result = run_audit(baseline_mechanism, pairs, config, show_progress=False)
    entry = baseline_audit_from_result("audit", baseline_mechanism.name, result, pairs, baseline_mechanism)
    report = regression_checks(
        current_mechanism,
        entry,
        num_samples=result.certification_samples,
        seed=gate_seed,
        failure_probability=failure_probability * (1 - VIOLATION_SHARE),
    )
    return report.regression


@pytest.mark.parametrize(
    ("mechanism", "beta", "same_seed"),
    [
        # the CI situation: the config's fixed seed serves the baseline run and every gate run
        (LaplaceSum(epsilon=1.0), 0.05, True),
        # a large budget (β_reg = 0.25) makes the test sensitive to an anti-conservative bound
        (RandomizedResponse(epsilon=1.0), 0.5, False),
        (LaplaceSum(epsilon=0.5), 0.5, False),
    ],
    ids=["laplace-beta0.05-same-seed", "rr-beta0.5", "laplace-beta0.5"],
)
def test_false_alarm_rate_at_most_beta(mechanism: Mechanism, beta: float, same_seed: bool) -> None:
    """Unchanged mechanism: the regression test may fire with probability ≤ β_reg = β/2 per
    repetition. One-sided binomial test of H0: rate ≤ β_reg; this test fails if H0 is rejected
    at p < 1e-3, so a correct implementation fails it with probability < 1e-3."""
    reps = 200
    beta_reg = beta * (1 - VIOLATION_SHARE)
    fired = sum(
        regression_fires(
            mechanism,
            mechanism,
            baseline_seed=1000 + r,
            gate_seed=1000 + r if same_seed else 5000 + r,
            num_samples=4000,
            failure_probability=beta,
        )
        for r in range(reps)
    )
    pvalue = stats.binomtest(fired, reps, beta_reg, alternative="greater").pvalue
    print(f"false alarms: {fired}/{reps} (β_reg = {beta_reg:g}; binomial p = {pvalue:.3g})")
    assert pvalue >= 1e-3, (fired, reps, beta_reg)


def test_power_on_an_injected_regression() -> None:
    """Baseline from laplace_sum at ε = 0.5, gate on ε = 1.0 (the realised loss on every tail event
    doubles). Measured power at 4000 samples/side: 100/100 (see the report). Asserting ≥ 40/50
    fails with probability 3e-5 if the true power were only 0.95 (Binomial(50, 0.95) cdf at 39)."""
    reps = 50
    caught = sum(
        regression_fires(
            LaplaceSum(epsilon=0.5),
            LaplaceSum(epsilon=1.0),
            baseline_seed=2000 + r,
            gate_seed=2000 + r,
            num_samples=4000,
            failure_probability=0.05,
        )
        for r in range(reps)
    )
    print(f"regression caught: {caught}/{reps}")
    assert caught >= 40, caught
