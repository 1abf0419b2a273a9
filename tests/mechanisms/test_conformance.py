"""Conformance suite over every registered mechanism (DESIGN.md, "Tests")."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from dpaudit.app.route import pairs_for
from dpaudit.mechanisms.base import Mechanism, claims_of
from dpaudit.mechanisms.registry import entries
from dpaudit.neighbors.base import is_neighbor

NAMES = sorted(entries())


@pytest.fixture(scope="module")
def built() -> dict[str, Mechanism]:
    return {name: entries()[name].build() for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_claims_have_references(name: str, built: dict[str, Mechanism]) -> None:
    m = built[name]
    assert isinstance(m, Mechanism)
    assert m.name == name
    for c in claims_of(m):
        assert c.reference and math.isfinite(c.epsilon) and 0 <= c.delta < 1


@pytest.mark.parametrize("name", NAMES)
def test_pairs_are_neighbours_in_domain(name: str, built: dict[str, Mechanism]) -> None:
    m = built[name]
    pairs = pairs_for(m)  # registered pairs, else (a mechanism found blind) boundary templates
    assert pairs, "every registered mechanism has pairs to audit"
    for p in pairs:
        assert is_neighbor(p), p.description
        assert m.domain.check(p.dataset) is None, p.description
        assert m.domain.check(p.neighbor) is None, p.description


@pytest.mark.parametrize("name", NAMES)
def test_sample_axis_seed_and_pickle(name: str, built: dict[str, Mechanism]) -> None:
    m = built[name]
    ds = pairs_for(m)[0].dataset
    a = m.sample(ds, 7, rng=np.random.default_rng(5))
    b = m.sample(ds, 7, rng=np.random.default_rng(5))
    assert isinstance(a, np.ndarray) and a.shape[0] == 7
    assert np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_
    assert np.all(np.isfinite(a.astype(float)))
    clone = pickle.loads(pickle.dumps(m))
    c = clone.sample(ds, 7, rng=np.random.default_rng(5))
    if getattr(m, "seedable", True):
        assert np.array_equal(a, b), "same seed must give the same output"
        assert np.array_equal(c, a)
    else:  # the library's own randomness (e.g. OpenDP's): the clone still samples, same shape
        assert c.shape == a.shape and c.dtype == a.dtype


def test_every_twin_names_an_existing_correct_mechanism() -> None:
    table = entries()
    for e in table.values():
        if e.buggy:
            assert e.twin_of in table and not table[e.twin_of].buggy
            assert e.bug
