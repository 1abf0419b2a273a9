"""The Gaussian-DP route (issue 7): μ_lb = Φ⁻¹(p_lo) − Φ⁻¹(q_hi), its coverage, its projection
and the end-to-end route on the Gaussian mechanism with μ = 1."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special, stats

from benchmarks.gdp import (
    ASSUMPTION,
    gdp_audit,
    gdp_delta,
    gdp_epsilon,
    gdp_mu_from_bounds,
    gdp_mu_lower_bound,
    projected_gdp_mu,
)
from dpaudit.engine.bounds import cp_lower, cp_upper
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.analytic import gaussian_epsilon
from dpaudit.mechanisms.reference import GaussianSum

unit = st.floats(1e-9, 1 - 1e-9)


def test_gaussian_thresholds_give_exactly_mu() -> None:
    """N(μ, 1) vs N(0, 1), S = {x ≥ t}: Φ⁻¹(P) − Φ⁻¹(Q) = μ for every t (the GDP bound is tight)."""
    for mu in (0.3, 1.0, 2.5):
        for t in (-2.0, 0.0, 0.5, 3.0):
            p, q = stats.norm.sf(t - mu), stats.norm.sf(t)
            assert gdp_mu_lower_bound(p, q) == pytest.approx(mu, abs=1e-9)


def test_edges() -> None:
    assert gdp_mu_lower_bound(0.0, 0.3) == -math.inf
    assert gdp_mu_lower_bound(0.5, 1.0) == -math.inf
    assert gdp_mu_lower_bound(1.0, 0.5) == math.inf
    assert gdp_mu_lower_bound(0.5, 0.0) == math.inf
    assert gdp_mu_lower_bound(0.3, 0.3) == 0.0
    assert np.array_equal(gdp_mu_from_bounds([0.0, 0.5], [0.1, 1.0]), [-np.inf, -np.inf])
    assert gdp_epsilon(0.0, delta=1e-5) == 0.0 and gdp_epsilon(-1.0, delta=1e-5) == 0.0
    assert gdp_epsilon(math.inf, delta=1e-5) == math.inf
    assert gdp_epsilon(1.0, delta=1e-5) == pytest.approx(4.377178, abs=1e-5)
    assert gdp_delta(1.0, epsilon=gdp_epsilon(1.0, delta=1e-5)) == pytest.approx(1e-5, rel=1e-6)
    assert "not an arbitrary (ε, δ) claim" in ASSUMPTION


@given(unit, unit, unit)
def test_monotone_in_p_and_q(p: float, q: float, other: float) -> None:
    mu = gdp_mu_lower_bound(p, q)
    if other > p:
        assert gdp_mu_lower_bound(other, q) >= mu
    if other > q:
        assert gdp_mu_lower_bound(p, other) <= mu


def test_coverage(rng: np.random.Generator) -> None:
    """Simulated certification counts of a threshold event on N(1, 1) vs N(0, 1), n = 2000, β = 0.1:
    μ_lb > μ = 1 must happen with frequency ≤ β. Over 20,000 replications the frequency has
    sd ≤ 0.0022; the assertion allows β + 4 sd (false failure < 1e-4 even at exact level β)."""
    beta, n, reps = 0.1, 2000, 20_000
    for t in (-0.5, 0.5, 2.0):
        p, q = stats.norm.sf(t - 1.0), stats.norm.sf(t)
        kp, kq = rng.binomial(n, p, reps), rng.binomial(n, q, reps)
        mu_lb = gdp_mu_from_bounds(cp_lower(kp, n, beta / 2), cp_upper(kq, n, beta / 2))
        assert np.mean(mu_lb > 1.0) <= beta + 4 * math.sqrt(beta * (1 - beta) / reps)


def test_projected_mu() -> None:
    """With exact counts at huge selection sizes the projection is the certified μ_lb at the
    certification size, which increases towards μ with n and stays below it."""
    p, q = stats.norm.sf(0.5 - 1.0), stats.norm.sf(0.5)
    sel = 10**8
    values = [
        float(
            projected_gdp_mu(
                p * sel,
                q * sel,
                selection_total_p=sel,
                selection_total_q=sel,
                certify_total_p=n,
                certify_total_q=n,
                failure_probability=0.05,
            )
        )
        for n in (10**3, 10**4, 10**5, 10**6)
    ]
    assert all(x < y for x, y in itertools.pairwise(values))
    assert 0.98 < values[-1] < 1.0
    # no evidence: an event never seen on the P side
    assert (
        projected_gdp_mu(
            0,
            5,
            selection_total_p=100,
            selection_total_q=100,
            certify_total_p=1000,
            certify_total_q=1000,
            failure_probability=0.05,
        )
        == -np.inf
    )


def test_gdp_route_on_gaussian_mechanism_mu_1() -> None:
    """GaussianSum with μ = 1 at 2·10^5 samples per side, failure probability 10^-3.

    μ_lb ≤ 1 fails with probability ≤ 10^-3 (the route's guarantee). Closeness: for the chosen
    threshold event Φ⁻¹(P) − Φ⁻¹(Q) = 1 exactly, so E[μ_lb] ≈ 1 − z·(s_p + s_q) with z the
    β/2 normal quantile and s = √(p(1−p)/n)/φ(Φ⁻¹(p)) the probit-scale sd of each frequency;
    the assertion allows that shading plus 4·√(s_p² + s_q²) of count noise (false failure
    ≈ 3e-5). The implied ε at δ = 1e-5 then lies below the true 4.377."""
    beta = 1e-3
    m = GaussianSum(epsilon=gaussian_epsilon(1e-5, 1.0), delta=1e-5)
    pairs = m.neighbor_pairs()
    assert m.mu(pairs[0]) == pytest.approx(1.0)
    r = gdp_audit(m, pairs, AuditConfig(num_samples=200_000, seed=5, failure_probability=beta))
    est = r.pairs[0]
    n = est.p_total

    def s(k: int) -> float:
        f = k / n
        return math.sqrt(f * (1 - f) / n) / stats.norm.pdf(special.ndtri(f))

    sp, sq = s(est.p_count), s(est.q_count)
    z = stats.norm.isf(beta / 2)
    assert r.mu_lower_bound <= 1.0
    assert r.mu_lower_bound >= 1.0 - z * (sp + sq) - 4 * math.hypot(sp, sq)
    assert r.mu_lower_bound > 0.95  # what that tolerance amounts to here
    assert r.epsilon_at_delta == pytest.approx(gaussian_epsilon(1e-5, r.mu_lower_bound))
    assert 4.0 < r.epsilon_at_delta <= 4.3772
    assert r.refutes(0.9) and not r.refutes(1.0)
