"""Example 3.3 of "Differentially Private Learning of Geometric Concepts" (per-step exponential
mechanism + advanced composition, Thm 2.10) and the corrected preset's Δ."""

from __future__ import annotations

import math

import pytest

from dpaudit.mechanisms.base import ClaimKind, applicable_claim, claims_of
from dpaudit.mechanisms.geometric.composition import (
    CompositionConjunctionLearner,
    CompositionNoSplit,
    advanced_step_epsilon,
)
from dpaudit.mechanisms.geometric.learners import ConvexKGonLearner, CorrectedConvexKGonLearner
from dpaudit.neighbors.base import Relation


def test_step_epsilon_solves_advanced_composition() -> None:
    m = CompositionConjunctionLearner()
    assert m.T == 26
    e0 = m.step_epsilon
    total = math.sqrt(2 * m.T * math.log(1 / m.delta)) * e0 + 2 * m.T * e0**2
    assert total == pytest.approx(m.epsilon - m.laplace_epsilon, rel=1e-12)
    assert e0 == pytest.approx(0.02237, abs=1e-5)
    assert advanced_step_epsilon(total=0.45, steps=26, delta=1e-3) == pytest.approx(e0)
    assert m.selection_eps() == pytest.approx(e0 / 2)  # textbook EM exp(ε_0 q/2)
    assert m.noise_scale == pytest.approx(m.T / (m.epsilon / 2))
    assert m.Delta == pytest.approx(m.noise_scale * math.log(m.T / m.beta))


def test_claims_cover_every_relation_and_verdict_uses_advanced() -> None:
    m = CompositionConjunctionLearner()
    for rel in (Relation.ADD_REMOVE_ONE, Relation.RELABEL_ONE, Relation.REPLACE_ONE):
        c = applicable_claim(claims_of(m), rel)
        assert c is not None and c.kind is ClaimKind.PROVED
        assert (c.epsilon, c.delta) == (m.epsilon, m.delta)
    pure = [c for c in claims_of(m) if c.delta == 0]
    assert len(pure) == 3 and all(c.epsilon == pytest.approx(0.45 + 26 * m.step_epsilon) for c in pure)


def test_correct_learner_far_below_and_twin_above_claim() -> None:
    m, twin = CompositionConjunctionLearner(), CompositionNoSplit()
    assert claims_of(twin) == claims_of(m)
    pair = m.neighbor_pairs()[1]  # 20-cluster + far x*
    assert m.exact_epsilon(pair, m.delta, num_paths=500) < 0.1
    assert twin.exact_epsilon(pair, m.delta, num_paths=2000) > 0.5


def test_corrected_preset_delta_follows_its_noise_scale() -> None:
    ok, corr = ConvexKGonLearner(), CorrectedConvexKGonLearner()
    assert corr.noise_scale == pytest.approx(2 * ok.noise_scale)
    assert corr.Delta == pytest.approx(2 * ok.Delta)
    # Claim 3.1's tail: each floored draw exceeds Δ w.p. ½·e^{−Δ/scale} = ½·β/T
    assert 0.5 * math.exp(-corr.Delta / corr.noise_scale) == pytest.approx(0.5 * corr.beta / corr.T)
