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


def test_claims_cover_every_relation_and_verdict_uses_the_pure_composition_claims() -> None:
    """The base class's pure composition claims T·ε̂·r (ε̂ = ε_0/2; r = 1, 1 + 1/k, 2) are
    registered beside the advanced (ε, δ) and basic (ε_L + T·ε_0, 0) ones and decide the verdict:
    0.291 / 0.388 / 0.582 at conj-small (issue 29: it registered only 0.9 / 1.032)."""
    m = CompositionConjunctionLearner()
    per = m.T * m.step_epsilon / 2
    want = {
        Relation.ADD_REMOVE_ONE: per,
        Relation.RELABEL_ONE: per * (1 + 1 / m.k),
        Relation.REPLACE_ONE: 2 * per,
    }
    assert [round(want[r], 3) for r in want] == [0.291, 0.388, 0.582]
    for rel, eps in want.items():
        c = applicable_claim(claims_of(m), rel)
        assert c is not None and c.kind is ClaimKind.PROVED and c.delta == 0.0 and c.relation is rel
        assert c.epsilon == pytest.approx(eps, rel=1e-12)
        kept = {(c.epsilon, c.delta) for c in claims_of(m) if c.relation is rel}
        assert (m.epsilon, m.delta) in kept  # the advanced-composition claim is kept
        assert any(d == 0 and e == pytest.approx(0.45 + 26 * m.step_epsilon) for e, d in kept)  # basic
    # the verdict claim is the tightest pure claim: add/remove's
    pure = [c for c in claims_of(m) if c.delta == 0]
    verdict = applicable_claim(claims_of(m), m.claim.relation)
    assert verdict == min(pure, key=lambda c: c.epsilon) and verdict.epsilon == pytest.approx(per)


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
