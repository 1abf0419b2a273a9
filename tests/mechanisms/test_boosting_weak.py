"""The private Gaussian weak learner of "Efficient, Noise-Tolerant, and Private Learning via Boosting"
(Thm 27) audited alone: zCDP claim as a curve, exact Gaussian oracle, twin; the clipped final
prediction of HS-StL (Alg. 1's sign of the average of the clipped h_t)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.mechanisms.base import CurveKind, applicable_claim, claims_of
from dpaudit.mechanisms.boosting import HSStL, HSWeakLearner, WeakUniformNoise
from dpaudit.mechanisms.registry import resolve
from dpaudit.neighbors.base import is_neighbor


def test_weak_learner_claims_gdp_verdict_and_the_thm27_zcdp_curve() -> None:
    """The verdict's claim is the proved μ = 2/(κnσ)-GDP curve (ε(10⁻³) = 1.036 at the preset,
    what its own oracle gives on the registered pair); the paper's ρ-zCDP curve (1.567) is kept."""
    m = HSWeakLearner()
    c = applicable_claim(claims_of(m), m.claim.relation)
    assert c is not None and c.curve is not None and c.curve.kind is CurveKind.GDP
    assert c == m.claim  # the headline, as HS-StL's
    mu = 2 / (m.kappa * m.n * m.sigma)
    assert c.curve.parameter == pytest.approx(mu) == pytest.approx(0.4)
    assert c.epsilon == pytest.approx(1.036, abs=5e-4)
    assert c.epsilon == pytest.approx(m.exact_epsilon(m.neighbor_pairs()[0], m.delta), rel=1e-9)
    (z,) = [k for k in claims_of(m) if k.curve is not None and k.curve.kind is CurveKind.ZCDP]
    rho = 2 / (m.kappa * m.n * m.sigma) ** 2
    assert z.curve is not None and z.curve.parameter == pytest.approx(rho) == pytest.approx(mu**2 / 2)
    assert z.epsilon == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / m.delta)))
    assert z.epsilon == pytest.approx(1.567, abs=5e-4)
    assert m.measure().sum() == pytest.approx(1.0) and m.measure().max() <= 1 / (m.kappa * m.n) + 1e-15


def test_weak_learner_pairs_reach_the_proof_sensitivity_and_stay_under_the_curve() -> None:
    m, twin = HSWeakLearner(), WeakUniformNoise()
    for p in m.neighbor_pairs():
        assert is_neighbor(p)
        dz = np.linalg.norm(m.center(p.dataset) - m.center(p.neighbor))
        assert dz == pytest.approx(2 / (m.kappa * m.n))
        for d in (1e-3, 1e-2, 1e-1):  # the GDP claim is exact on these pairs: equal up to rounding
            assert m.exact_epsilon(p, d) <= m.claim.epsilon_at(d) * (1 + 1e-9)
            assert twin.exact_epsilon(p, d) > twin.claim.epsilon_at(d)  # the twin exceeds the curve


def test_weak_learner_sample_law(rng: np.random.Generator) -> None:
    m = HSWeakLearner()
    p = m.neighbor_pairs()[0]
    out = m.sample(p.dataset, 200_000, rng=rng)
    assert out.shape == (200_000, 1)
    assert abs(out.mean() - m.center(p.dataset)[0]) < 5 * m.sigma / math.sqrt(200_000)
    assert abs(out.std() - m.sigma) < 0.01


def test_weak_learner_registered() -> None:
    _, e = resolve("hs_weak_learner_uniform_noise")
    assert e is not None and e.detectable and e.twin_of == "hs_weak_learner"


def test_hsstl_prediction_uses_clipped_hypotheses() -> None:
    # ẑ_1 = 10 (h_1 = clip(10x) = 1 at x = 1), ẑ_2 = ẑ_3 = −0.6: unclipped Σ = 8.8 > 0, clipped 1 − 1.2 < 0
    transcript = np.array([[10.0, -0.6, -0.6]])
    assert HSStL.predict(transcript, np.array([[1.0]]), 1)[0, 0] == -1.0
    assert HSStL.predict(transcript, np.array([[0.05]]), 1)[0, 0] == 1.0  # 0.5 − 0.06 > 0
