"""Claims as privacy profiles: `PrivacyClaim.epsilon_at` / `delta_at` and `ClaimCurve`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.mechanisms.analytic import discrete_delta, discrete_epsilon, gaussian_epsilon
from dpaudit.mechanisms.base import ClaimCurve, CurveKind, PrivacyClaim
from dpaudit.neighbors.base import Relation
from dpaudit.reports.schema import claim_from_dict


def _claim(eps: float, delta: float, curve: ClaimCurve | None = None) -> PrivacyClaim:
    return PrivacyClaim(
        epsilon=eps, delta=delta, relation=Relation.REPLACE_ONE, reference="test", curve=curve
    )


def _canonical(eps: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """The (ε, δ) mechanism whose privacy region is exactly the claim's (Kairouz et al. 2015)."""
    a = (1 - delta) * math.exp(eps) / (1 + math.exp(eps))
    b = (1 - delta) / (1 + math.exp(eps))
    return np.array([delta, a, b, 0.0]), np.array([0.0, b, a, delta])


@pytest.mark.parametrize(("eps", "delta"), [(1.0, 0.0), (1.0, 1e-5), (0.3, 0.05), (2.5, 1e-3)])
def test_point_claim_profile_is_the_canonical_mechanisms(eps: float, delta: float) -> None:
    c = _claim(eps, delta)
    p, q = _canonical(eps, delta)
    for e in (0.0, 0.2 * eps, 0.7 * eps, eps, eps + 1):
        assert c.delta_at(e) == pytest.approx(discrete_delta(p, q, e), abs=1e-12)
    for d in (1.000001 * delta, 0.01, 0.2, 0.9):
        assert c.epsilon_at(d) == pytest.approx(discrete_epsilon(p, q, d), rel=1e-6, abs=1e-9)
    if delta > 0:  # mass δ where the neighbour has none: nothing below δ is allowed
        assert c.epsilon_at(delta / 2) == math.inf


def test_point_claim_epsilon_and_delta_at_invert_each_other() -> None:
    c = _claim(1.5, 1e-4)
    for e in np.linspace(0.01, 1.4, 8):
        assert c.epsilon_at(c.delta_at(float(e))) == pytest.approx(float(e), abs=1e-9)


def test_gdp_curve_is_the_gaussian_profile() -> None:
    curve = ClaimCurve(kind=CurveKind.GDP, parameter=1.0)
    c = _claim(gaussian_epsilon(1e-5, 1.0), 1e-5, curve)
    assert c.epsilon_at(1e-5) == pytest.approx(4.377, abs=1e-3)
    assert c.epsilon_at(1e-3) == pytest.approx(gaussian_epsilon(1e-3, 1.0), rel=1e-9)
    assert c.epsilon_at(1e-3) < c.epsilon


def test_zcdp_curve_is_the_standard_conversion_and_never_above_the_point() -> None:
    rho = 0.1
    curve = ClaimCurve(kind="zcdp", parameter=rho)
    assert curve.epsilon_at(1e-5) == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1e5)))
    assert curve.delta_at(curve.epsilon_at(1e-5)) == pytest.approx(1e-5, rel=1e-9)
    weak_point = _claim(10.0, 1e-5, curve)  # the curve is the tighter claim here
    assert weak_point.epsilon_at(1e-5) == pytest.approx(curve.epsilon_at(1e-5))


def test_curve_round_trips_through_the_schema_and_rejects_bad_parameters() -> None:
    c = _claim(2.0, 1e-5, ClaimCurve(kind="gdp", parameter=0.5))
    assert claim_from_dict(c.to_dict()) == c
    assert "curve" not in _claim(1.0, 0.0).to_dict()
    with pytest.raises(ValueError):
        ClaimCurve(kind="gdp", parameter=0.0)
    with pytest.raises(ValueError):
        ClaimCurve(kind="renyi", parameter=1.0)
