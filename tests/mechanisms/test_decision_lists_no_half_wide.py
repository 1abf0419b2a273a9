"""B-DL5 at ε0 = 2 (`private_decision_list_no_half_wide`): a decision-list twin whose FINITE exact
ε exceeds its proved claim, and the "reconstructed statement" labels of the 003 stated claims."""

from __future__ import annotations

import numpy as np

from dpaudit.mechanisms.base import ClaimKind
from dpaudit.mechanisms.decision_lists import REGISTRY_ENTRIES, DPWinnow, PrivateDecisionList
from dpaudit.mechanisms.decision_lists.buggy import PrivateDecisionListNoHalfWide, no_half_wide_pair
from dpaudit.neighbors.base import Relation, is_neighbor

ENTRIES = {e.name: e for e in REGISTRY_ENTRIES}


def _proved_claim(m: PrivateDecisionList, relation: Relation) -> float:
    return min(c.epsilon for c in m.claims if c.kind is ClaimKind.PROVED and c.covers(relation))


def test_twin_is_registered_detectable_with_its_witness_pair() -> None:
    entry = ENTRIES["private_decision_list_no_half_wide"]
    assert entry.buggy and entry.detectable and entry.twin_of == "private_decision_list"
    m = entry.build()
    assert isinstance(m, PrivateDecisionListNoHalfWide)
    assert m.epsilon0 == 2.0 and m.weight() == 2 * m.accounted_weight() == 2.0  # the bug
    pair = m.neighbor_pairs()[-1]
    assert is_neighbor(pair) and pair.relation is Relation.ADD_REMOVE_ONE
    assert m.claim.epsilon == 4.0 and m.claim.delta == 0.0  # basic composition 4·c, c = 1, binds


def test_twin_exact_epsilon_exceeds_its_proved_claim() -> None:
    m = PrivateDecisionListNoHalfWide()
    pair = no_half_wide_pair()
    claim = _proved_claim(m, pair.relation)
    assert claim == 4.0
    for delta, floor in ((0.0, 5.2), (1e-5, 5.2), (1e-3, 5.0)):
        eps = m.exact_epsilon(pair, delta)
        assert np.isfinite(eps) and eps > floor > claim  # finite, above the claim by > 1


def test_correct_learner_at_the_same_preset_stays_below_the_claim() -> None:
    correct = PrivateDecisionList(epsilon0=2.0)
    twin = PrivateDecisionListNoHalfWide()
    pair = no_half_wide_pair()
    assert _proved_claim(correct, pair.relation) == _proved_claim(twin, pair.relation) == 4.0
    assert correct.exact_epsilon(pair, 0.0) < 2.3  # 2.19
    for p in twin.neighbor_pairs():  # every registered pair, with the correct exponent
        assert correct.exact_epsilon(p, 0.0) < _proved_claim(correct, p.relation)


def test_twin_sampler_matches_its_enumeration_on_the_witness_pair() -> None:
    m = PrivateDecisionListNoHalfWide()
    ds = no_half_wide_pair().neighbor
    exact = m.output_distribution(ds)
    out = m.sample(ds, 40_000, rng=np.random.default_rng(5))
    keys, counts = np.unique(out, axis=0, return_counts=True)
    emp = {tuple(int(v) for v in k): c / out.shape[0] for k, c in zip(keys, counts, strict=True)}
    tv = 0.5 * sum(abs(emp.get(k, 0.0) - exact.get(k, 0.0)) for k in set(emp) | set(exact))
    assert tv < 0.03


def test_stated_003_claims_are_labelled_reconstructed() -> None:
    for m in (PrivateDecisionList(), PrivateDecisionListNoHalfWide(), DPWinnow()):
        stated = [c for c in m.claims if c.kind is ClaimKind.STATED]
        assert stated
        for c in stated:
            assert "reconstructed statement" in c.reference
            assert "printed constant" in c.reference and "lost from the text" in c.reference
        for c in m.claims:
            if c.kind is ClaimKind.PROVED:
                assert "reconstructed statement" not in c.reference  # proofs/derivations, not statements


def test_winnow_no_pair_can_reach_the_claim_at_the_preset() -> None:
    """winnow.py docstring: one SVT epoch touched + ≤ 2.1η per draw ⇒ pure ε ≤ 2.14 < 4.2."""
    import pytest

    from dpaudit.mechanisms.decision_lists.buggy import DPWinnowHalfCharge, DPWinnowShadowCache

    m = DPWinnow()
    bound = m.two_coordinate_pure_bound()
    assert bound == pytest.approx(0.5 + 8 * 0.1 + 8 * np.log((1 + np.exp(0.2)) / 2))
    assert m.sampling_epsilon(0.0) <= bound < 4.2  # W1 oracle (pure) 1.6 ≤ 2.14 < basic composition
    assert m.claim.epsilon == pytest.approx(bound) == m.derived_pure_bound()  # registered: it decides
    assert bound < DPWinnowHalfCharge().claim.epsilon  # the 2η-charge twin is sound at this preset too
    with pytest.raises(NotImplementedError):
        DPWinnowShadowCache().two_coordinate_pure_bound()  # its cache test spans epochs
