from __future__ import annotations

import pytest

from audit.runner import run_audit
from audit.types import AuditConfig
from mechanisms.analytic import gaussian_delta
from mechanisms.reference import GaussianSum


def test_profile_and_gdp_tests_are_valid_and_split_the_budget() -> None:
    m = GaussianSum()
    pair = m.neighbor_pairs()[0]
    mu = m.mu(pair)
    cfg = AuditConfig(num_samples=200_000, seed=2, profile_deltas=(1e-2,), profile_epsilons=(0.25,), gdp=True)
    r = run_audit(m, [pair], cfg)
    assert r.per_test_failure_probability == pytest.approx(0.05 / 4)
    by_kind = {p.objective: p for p in r.profile}
    assert set(by_kind) == {"epsilon", "delta", "gdp_mu"}
    # every certified value is below the truth (each holds at the shared confidence)
    assert by_kind["epsilon"].value <= m.exact_epsilon(pair, delta=1e-2)
    assert by_kind["delta"].value <= gaussian_delta(0.25, mu)
    assert 0 < by_kind["gdp_mu"].value <= mu
    # the GDP route is sharper than the direct ε test for a Gaussian mechanism
    assert by_kind["gdp_mu"].value > 0.5 * mu
