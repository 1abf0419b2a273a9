"""Calibration and power of the audit on the reference mechanisms (issue 2).

Validity: for a correct mechanism the audit may report a violation only when its certified
bound exceeds the truth, which the construction allows with probability ≤ failure_probability.
Over R seeded repetitions the number of such events is then stochastically ≤ Binomial(R, β);
we reject only if P[Binomial(R, β) ≥ observed] < 1e-3, so each assertion fails falsely with
probability < 1e-3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.stats import norm

from dpaudit.engine.bounds import cp_lower, cp_upper, epsilon_from_bounds
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.registry import entries

CORRECT = [e.name for e in entries().values() if e.family == "reference" and not e.buggy]
TWINS = [e.name for e in entries().values() if e.family == "reference" and e.buggy]
REPS = 200


def _binomial_ok(observed: int, reps: int, beta: float) -> bool:
    return bool(stats.binom.sf(observed - 1, reps, beta) >= 1e-3)


@pytest.mark.parametrize("name", CORRECT)
def test_false_violation_rate_and_coverage(name: str) -> None:
    mech = entries()[name].build()
    pairs = mech.neighbor_pairs()
    beta = 0.05
    truth = [mech.exact_epsilon(p) for p in pairs]
    flagged = exceeded = 0
    for seed in range(REPS):
        r = run_audit(mech, pairs, AuditConfig(num_samples=20_000, seed=seed, failure_probability=beta))
        flagged += r.violation
        exceeded += any(
            p.estimate.epsilon_lower_bound > t + 1e-9 for p, t in zip(r.pairs, truth, strict=True)
        )
    assert _binomial_ok(flagged, REPS, beta), f"{name}: {flagged}/{REPS} false violations"
    assert _binomial_ok(exceeded, REPS, beta), f"{name}: {exceeded}/{REPS} bounds above the true ε"


@pytest.mark.parametrize("name", ["laplace_sum", "randomized_response", "exponential_mechanism"])
def test_coverage_at_loose_confidence(name: str) -> None:
    """At β = 0.5 a biased estimator (e.g. events chosen on the certification samples) would
    exceed the truth far more than half the time; a valid one at most half the time."""
    mech = entries()[name].build()
    pairs = mech.neighbor_pairs()[:1]
    truth = mech.exact_epsilon(pairs[0])
    exceeded = sum(
        run_audit(
            mech, pairs, AuditConfig(num_samples=5_000, seed=10_000 + s, failure_probability=0.5)
        ).epsilon_lower_bound
        > truth + 1e-9
        for s in range(REPS)
    )
    assert _binomial_ok(exceeded, REPS, 0.5), f"{name}: {exceeded}/{REPS} above the truth at β = 0.5"


def _best_threshold_bound(mu: float, n: int, beta: float, delta: float) -> tuple[float, float]:
    """Expected certified ε of the best threshold event for N(0,1) vs N(μ,1), and the sd of the
    certified bound at that event from count noise: sd(ln k/n) ≈ sqrt((1 − p)/(n p))."""
    t = np.linspace(0, 8, 4000)
    p, q = norm.sf(t - mu), norm.sf(t)
    e = epsilon_from_bounds(cp_lower(p * n, n, beta / 2), cp_upper(q * n, n, beta / 2), delta=delta)
    i = int(np.argmax(e))
    sd = math.sqrt((1 - p[i]) / (n * p[i]) + (1 - q[i]) / (n * q[i]))
    return float(e[i]), sd


@pytest.mark.parametrize("name", TWINS)
def test_every_twin_flagged_near_its_true_epsilon(name: str) -> None:
    mech = entries()[name].build()
    pairs = mech.neighbor_pairs()
    r = run_audit(mech, pairs, AuditConfig(num_samples=1_000_000, seed=11))
    assert r.violation, f"{name} not flagged"
    truth = max(mech.exact_epsilon(p) for p in pairs)
    if math.isinf(truth):
        assert any(p.estimate.infinite_witness for p in r.pairs)
        return
    assert r.epsilon_lower_bound <= truth + 1e-9
    if name == "gaussian_sum_range_bug":
        # No event reaches 80% of ε(δ = 1e-5) = 2.155 at 10^6 samples: the best threshold's expected
        # certified bound is 1.69 (78%), with count-noise sd ≈ 0.1 (≈ 120 events on the Q side).
        # Require the optimum minus 4 sd (false-failure probability ≈ 3e-5 from count noise).
        best, sd = _best_threshold_bound(
            mech.mu(pairs[0]), r.certification_samples, r.test_level, mech.claim.delta
        )
        assert r.epsilon_lower_bound >= best - 4 * sd, (r.epsilon_lower_bound, best, sd)
    else:
        assert r.epsilon_lower_bound >= 0.8 * truth, (r.epsilon_lower_bound, truth)
