"""Slow tier for issue 7: learned distinguishers on harder vector mechanisms and a registered
vector learner, and the GDP route at 10^6 samples per side.

Every certified bound below holds with probability ≥ 1 − 0.05 (its own audit), so each
"bound ≤ truth" assertion fails with probability ≤ 0.05 per audit at a fixed seed (seeds are
fixed, so the outcome is reproducible). The ratio assertions have wide margins over the
measured figures quoted in each docstring."""

from __future__ import annotations

import pytest

from audit.gdp import gdp_audit
from audit.learned import LogisticDistinguisher
from audit.runner import run_audit
from audit.types import AuditConfig
from mechanisms.analytic import gaussian_epsilon
from mechanisms.reference import GaussianSum
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
    boosting = pytest.importorskip("mechanisms.boosting")
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
