"""Composition claims of the 002 set-cover learners and the flanked-cluster pair (fast checks).

Plain composition over the T steps (scl.py, `SetCoverLearner.composition_claims`) gives a pure
T·ε̂·r claim (r = per-step score change range: 1 add/remove, 1 + 1/k relabel, 2 replace); where
it is below the proof's (2ε, δ) it is registered as an extra PROVED claim and decides the verdict.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from dpaudit.engine.runner.procedure import _plan
from dpaudit.mechanisms.base import ClaimKind, PrivacyClaim, applicable_claim, claims_of
from dpaudit.mechanisms.geometric.buggy import UnionNoEpsSplit
from dpaudit.mechanisms.geometric.learners import (
    AmplifiedConvexKGonLearner,
    ConjunctionLearner,
    ConvexKGonLearner,
    CorrectedConvexKGonLearner,
    UnionOfPolygonsLearner,
    flanked_pair,
)
from dpaudit.mechanisms.registry import resolve
from dpaudit.neighbors.base import Relation, is_neighbor

COMPOSITION = "basic composition"


def _composition(m: Any, relation: Relation) -> PrivacyClaim | None:
    found = [c for c in claims_of(m) if c.relation is relation and COMPOSITION in c.reference]
    assert len(found) <= 1
    return found[0] if found else None


def test_halfplane_grid4_composition_claim_values() -> None:
    m = ConvexKGonLearner()
    assert m.T == 12
    eps_hat = 0.9 / (2 * math.log(math.e / 1e-3))
    for rel, r in ((Relation.ADD_REMOVE_ONE, 1.0), (Relation.RELABEL_ONE, 1.5), (Relation.REPLACE_ONE, 2.0)):
        c = _composition(m, rel)
        assert c is not None and c.kind is ClaimKind.PROVED and c.delta == 0.0
        assert c.epsilon == pytest.approx(12 * eps_hat * r, rel=1e-12)
    assert _composition(m, Relation.ADD_REMOVE_ONE).epsilon == pytest.approx(0.6829, abs=1e-4)  # type: ignore[union-attr]
    # the proof's claims are kept
    kept = {(c.relation, c.epsilon, c.delta) for c in claims_of(m) if COMPOSITION not in c.reference}
    assert (Relation.ADD_REMOVE_ONE, 1.8, 1e-3) in kept
    assert (Relation.RELABEL_ONE, 1.8, 1e-3) in kept


def test_composition_claim_only_where_tighter() -> None:
    conj = ConjunctionLearner()  # T = 26, k = 3
    assert _composition(conj, Relation.ADD_REMOVE_ONE).epsilon == pytest.approx(26 * conj.eps_hat)  # type: ignore[union-attr]
    assert _composition(conj, Relation.RELABEL_ONE) is None  # (4/3)·1.48 = 1.97 > 1.8
    amp = AmplifiedConvexKGonLearner()  # T = 86: 86·0.2246 = 19.3 > 1.98
    assert all(COMPOSITION not in c.reference for c in claims_of(amp))
    corr = CorrectedConvexKGonLearner()
    assert _composition(corr, Relation.ADD_REMOVE_ONE).epsilon == pytest.approx(12 * corr.eps_hat)  # type: ignore[union-attr]


def test_twins_keep_the_intended_composition_claim() -> None:
    twin, ok = UnionNoEpsSplit(), UnionOfPolygonsLearner()
    assert twin.selection_eps() == twin.epsilon  # the bug
    assert claims_of(twin) == claims_of(ok)  # the claim is about the intended ε̂


@pytest.mark.parametrize("name", ["geo_halfplane_grid4", "geo_union_grid3", "geo_conj_small"])
def test_verdict_claim_is_the_composition_claim(name: str) -> None:
    m: Any = resolve(name)[0]
    comp = _composition(m, Relation.ADD_REMOVE_ONE)
    assert comp is not None
    assert applicable_claim(claims_of(m), m.claim.relation) == comp
    # every add/remove pair is planned against it (the runner's claim choice)
    plans = _plan(m, [p for p in m.neighbor_pairs() if p.relation is Relation.ADD_REMOVE_ONE])
    assert plans and all(p.claim == comp for p in plans)


def test_halfplane_grid4_relabel_and_replace_pairs_use_composition() -> None:
    m = ConvexKGonLearner()
    for rel in (Relation.RELABEL_ONE, Relation.REPLACE_ONE):
        assert applicable_claim(claims_of(m), rel) == _composition(m, rel)


def test_applicable_claim_picks_smallest_epsilon_at_the_audited_delta() -> None:
    ar = Relation.ADD_REMOVE_ONE
    loose = PrivacyClaim(epsilon=1.8, delta=1e-3, relation=ar, reference="x")
    pure = PrivacyClaim(epsilon=0.7, delta=0.0, relation=ar, reference="y")
    stated = PrivacyClaim(epsilon=0.1, delta=1e-3, relation=ar, reference="z", kind=ClaimKind.STATED)
    assert applicable_claim([loose, pure, stated], ar) == pure
    assert applicable_claim([pure, loose], ar) == pure
    # smaller headline ε but a much larger δ: at the common δ (0.2) the other claim is tighter
    big_delta = PrivacyClaim(epsilon=0.5, delta=0.2, relation=ar, reference="a")
    small_delta = PrivacyClaim(epsilon=0.6, delta=1e-6, relation=ar, reference="b")
    assert small_delta.epsilon_at(0.2) < big_delta.epsilon_at(0.2)
    assert applicable_claim([big_delta, small_delta], ar) == small_delta


@pytest.mark.parametrize("cls", [UnionOfPolygonsLearner, ConvexKGonLearner])
def test_flanked_pair_geometry(cls: Any) -> None:
    m = cls()
    p = flanked_pair(m.d, m.form)
    assert is_neighbor(p) and p.relation is Relation.ADD_REMOVE_ONE
    assert m.domain.check(p.dataset) is None and m.domain.check(p.neighbor) is None
    lone = 0 if m.form == "or" else 1
    assert p.dataset.n == 127 and p.neighbor.n == 126
    assert int((p.dataset.y == lone).sum()) == 1 and int((p.neighbor.y == lone).sum()) == 0


def test_union_grid3_registers_the_flanked_pair() -> None:
    for name in ("geo_union_grid3", "geo_union_grid3_no_eps_split"):
        m: Any = resolve(name)[0]
        flanked = [p for p in m.neighbor_pairs() if "flanked" in p.tags]
        assert len(flanked) == 1
        x = flanked[0].dataset.X[flanked[0].dataset.y == 0]
        assert x.tolist() == [[1.0, 2.0]]


def test_union_no_eps_split_registered_detectable() -> None:
    _, entry = resolve("geo_union_grid3_no_eps_split")
    assert entry is not None and entry.detectable
