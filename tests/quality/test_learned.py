"""Slow tier for issue 7: learned distinguishers on harder vector mechanisms and a registered
vector learner, and the GDP route at 10^6 samples per side.

Every certified bound below holds with probability ≥ 1 − 0.05 (its own audit), so each
"bound ≤ truth" assertion fails with probability ≤ 0.05 per audit at a fixed seed (seeds are
fixed, so the outcome is reproducible). The ratio assertions have wide margins over the
measured figures quoted in each docstring."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from benchmarks.gdp import gdp_audit
from dpaudit.engine.distinguishers.learned.defaults import FittedEvent, LogisticDistinguisher
from dpaudit.engine.distinguishers.selection import Event, ThresholdEvent, event_from_spec
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.analytic import gaussian_epsilon
from dpaudit.mechanisms.reference import GaussianSum
from tests.audit.test_learned import CorrelatedShift
from tests.audit.vector_mechanisms import CoordinateThresholds, ScaleChange

pytestmark = pytest.mark.slow


def test_squared_logistic_on_scale_change() -> None:
    """N(0, 1.3² I₁₀) vs N(0, I₁₀), 2·10^5 samples per side: true ε(1e-5) = 10.96. No mean shift,
    so only the squared-feature score sees the change (measured at 10^6: 5.9 vs 2.5 for the best
    coordinate)."""
    m = ScaleChange()
    cfg = AuditConfig(num_samples=200_000, seed=2)
    learned = run_audit(m, [m.pair()], cfg, distinguishers=(LogisticDistinguisher(squared=True),))
    coords = run_audit(m, [m.pair()], cfg, distinguishers=(CoordinateThresholds(),))
    truth = m.exact_epsilon()
    assert coords.epsilon_lower_bound > 0
    assert learned.epsilon_lower_bound >= 1.5 * coords.epsilon_lower_bound
    assert learned.epsilon_lower_bound <= truth and coords.epsilon_lower_bound <= truth


def test_logistic_on_hs_stl_transcript() -> None:
    """HS-StL with noise calibrated for uniform weights (a buggy twin with a larger μ): the
    8-coordinate transcript is a composition of Gaussian rounds, each carrying a fraction of the
    loss. Measured at 2·10^5 samples per side: logistic 3.71 vs best coordinate 1.46; the
    white-box upper bound (GDP profile) is 7.10."""
    boosting = pytest.importorskip("dpaudit.mechanisms.boosting")
    entry = next(e for e in boosting.REGISTRY_ENTRIES if e.name == "hs_stl_uniform_noise")
    m = entry.build()
    pairs = m.neighbor_pairs()
    cfg = AuditConfig(num_samples=100_000, seed=4)
    learned = run_audit(m, pairs, cfg, distinguishers=(LogisticDistinguisher(),))
    coords = run_audit(m, pairs, cfg, distinguishers=(CoordinateThresholds(),))
    oracle = max(m.exact_epsilon(p, m.claim.delta) for p in pairs)
    assert coords.epsilon_lower_bound > 0
    assert learned.epsilon_lower_bound >= 1.5 * coords.epsilon_lower_bound
    assert learned.epsilon_lower_bound <= oracle


def test_gdp_route_at_one_million() -> None:
    """Gaussian mechanism, μ = 1, 10^6 samples per side: measured μ_lb = 0.991 → ε ≥ 4.33 at
    δ = 1e-5 (issue target ≥ 4.2). Expected shading ≈ 2.24·2·1.3/√(9·10^5) ≈ 0.006, count-noise
    sd ≈ 0.002, so μ_lb ≥ 0.98 fails with probability < 1e-4; μ_lb ≤ 1 with probability ≥ 0.95."""
    m = GaussianSum(epsilon=gaussian_epsilon(1e-5, 1.0), delta=1e-5)
    g = gdp_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=1_000_000, seed=0))
    assert 0.98 <= g.mu_lower_bound <= 1.0
    assert g.epsilon_at_delta >= 4.2


LEARNED = {"logistic", "logistic-squared", "projection"}


def _linear_form(event: Event, d: int) -> tuple[np.ndarray, float, float, bool] | None:
    """(α, c, t, upper) with the event = {α·x + c ≥ t} (upper) or {≤ t}; None if not linear."""
    if isinstance(event, ThresholdEvent):
        if event.projection is not None:
            alpha = np.asarray(event.projection, dtype=float)
        else:
            alpha = np.zeros(d)
            alpha[event.coordinate or 0] = 1.0
        return alpha, 0.0, event.threshold, event.upper
    if isinstance(event, FittedEvent) and not event.squared_columns:
        alpha = np.zeros(d)
        w, s, c = np.asarray(event.weights), np.asarray(event.scale), np.asarray(event.center)
        alpha[list(event.columns)] = w / s
        return alpha, float(-np.sum(w * c / s)), event.threshold, event.upper
    return None


def _probability(m: CorrelatedShift, mean: np.ndarray, form: tuple[np.ndarray, float, float, bool]) -> float:
    alpha, c, t, upper = form
    mu = float(alpha @ mean) + c
    sd = math.sqrt(float(alpha @ m.covariance @ alpha))
    return float(stats.norm.sf(t, mu, sd) if upper else stats.norm.cdf(t, mu, sd))


def test_coverage_over_repetitions_with_learned_events() -> None:
    """Issue 7 acceptance (coverage). 200 seeded audits (seeds 0–199) of `CorrelatedShift`
    (d = 4, equicorrelation 0.9, μ = 2: true ε(1e-5) = 9.997), 20 000 samples per side, default
    distinguishers, failure probability β = 0.05 (one test per audit: β_t = β).

    Measured (seeds 0–199): a learned distinguisher is chosen in 200/200 audits (the threshold's
    projected ε ≈ 1.1 against ≈ 4 for the learned scores); 0/200 certified bounds exceed the true
    ε; the certified event is linear (exact probabilities: Gaussian tails) in 134 audits, and the
    certified interval pair (p_lo ≤ P(S), q_hi ≥ Q(S)) failed in 1/134 of them (β = 0.05;
    Clopper–Pearson is conservative).

    Checks: (1) learned chosen in ≥ 90 % of audits; (2) #(bound > true ε) and (3) #(interval
    pair fails on the chosen event's exact probabilities) are each consistent with a failure rate
    ≤ β: one-sided binomial test p-value ≥ 1e-3. If every audit fails with probability ≤ β the
    counts are stochastically below Binomial(n, β), so (2) and (3) each fail falsely with
    probability ≤ 1e-3 (≤ 2e-3 together); (1) is deterministic at these seeds. (3) is the sharp
    check: it tests exactly what the certificate states, on the event actually certified,
    conditionally on its selection."""
    m = CorrelatedShift()
    truth = m.exact_epsilon()
    beta = 0.05
    reps = 200
    mean_p, mean_q = m.mean(m.pair().dataset), m.mean(m.pair().neighbor)
    chosen_learned = exceed = linear = interval_fail = 0
    for seed in range(reps):
        r = run_audit(m, [m.pair()], AuditConfig(num_samples=20_000, seed=seed, failure_probability=beta))
        pr = r.pairs[0]
        est = pr.estimate
        chosen_learned += est.distinguisher in LEARNED
        exceed += est.epsilon_lower_bound > truth
        assert pr.event_spec is not None
        form = _linear_form(event_from_spec(pr.event_spec), m.dimension)
        if form is None:
            continue
        linear += 1
        p_mean, q_mean = (mean_p, mean_q) if est.direction == "dataset>neighbor" else (mean_q, mean_p)
        p_true, q_true = _probability(m, p_mean, form), _probability(m, q_mean, form)
        interval_fail += est.p_lower > p_true or est.q_upper < q_true
    summary = (
        f"learned chosen {chosen_learned}/{reps}; bound > true ε in {exceed}/{reps}; "
        f"interval failures {interval_fail}/{linear} linear events"
    )
    print(summary)
    assert chosen_learned >= 0.9 * reps, summary
    assert stats.binomtest(exceed, reps, beta, alternative="greater").pvalue >= 1e-3, summary
    assert linear >= reps // 2, summary
    assert stats.binomtest(interval_fail, linear, beta, alternative="greater").pvalue >= 1e-3, summary
