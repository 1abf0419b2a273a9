from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation, are_neighbors, is_neighbor
from dpaudit.neighbors.generators import BoundaryPairs


def test_dataset_is_frozen_and_validated() -> None:
    d = Dataset(np.zeros((3, 2)), np.array([0, 1, 0]))
    assert d.n == 3 and d.num_features == 2 and d.labelled
    with pytest.raises(ValueError):
        d.X[0, 0] = 1.0
    with pytest.raises(ValueError, match="NaN"):
        Dataset(np.array([[np.nan]]))
    with pytest.raises(ValueError, match="entries"):
        Dataset(np.zeros((3, 1)), np.zeros(2))
    assert Dataset(np.zeros((0, 2))).n == 0
    assert Dataset([1.0, 2.0]).X.shape == (2, 1)


def test_dataset_key_is_content_hash() -> None:
    a = Dataset(np.arange(6.0).reshape(3, 2), np.array([0.0, 1.0, 0.0]))
    b = Dataset(np.arange(6.0).reshape(3, 2), np.array([0.0, 1.0, 0.0]))
    c = Dataset(np.arange(6.0).reshape(3, 2), np.array([0.0, 1.0, 1.0]))
    assert a.key() == b.key() != c.key()
    assert a.equals(b) and not a.equals(c)


def test_relations_positive_and_negative() -> None:
    X = np.arange(8.0).reshape(4, 2)
    y = np.array([0.0, 1.0, 0.0, 1.0])
    base = Dataset(X, y)
    Xr = X.copy()
    Xr[2] = [100, 100]
    replaced = Dataset(Xr, y)
    yr = y.copy()
    yr[1] = 0
    relabelled = Dataset(X, yr)
    removed = Dataset(np.delete(X, 1, axis=0), np.delete(y, 1))
    assert are_neighbors(base, replaced, Relation.REPLACE_ONE)
    assert not are_neighbors(base, replaced, Relation.RELABEL_ONE)
    assert are_neighbors(base, relabelled, Relation.RELABEL_ONE)
    assert are_neighbors(base, relabelled, Relation.REPLACE_ONE)
    assert are_neighbors(base, removed, Relation.ADD_REMOVE_ONE)
    assert are_neighbors(removed, base, Relation.ADD_REMOVE_ONE)
    assert not are_neighbors(base, removed, Relation.REPLACE_ONE)
    assert not are_neighbors(base, base, Relation.REPLACE_ONE)  # distance 0 is not a pair
    swapped = Dataset(X[[1, 0, 2, 3]], y[[1, 0, 2, 3]])
    assert not are_neighbors(base, swapped, Relation.REPLACE_ONE)  # streams: order matters
    assert Relation.RELABEL_ONE.is_covered_by(Relation.REPLACE_ONE)
    assert not Relation.REPLACE_ONE.is_covered_by(Relation.RELABEL_ONE)


rows = st.integers(min_value=1, max_value=8).flatmap(
    lambda n: st.tuples(
        st.lists(st.lists(st.integers(-3, 3), min_size=2, max_size=2), min_size=n, max_size=n),
        st.lists(st.integers(0, 1), min_size=n, max_size=n),
        st.integers(0, n - 1),
    )
)


@settings(max_examples=200, deadline=None)
@given(rows, st.sampled_from(list(Relation)))
def test_every_single_change_is_a_neighbour(data: tuple, relation: Relation) -> None:
    X, y, i = np.array(data[0], float), np.array(data[1], float), data[2]
    base = Dataset(X, y)
    if relation is Relation.ADD_REMOVE_ONE:
        other = Dataset(np.delete(X, i, axis=0), np.delete(y, i))
    elif relation is Relation.RELABEL_ONE:
        y2 = y.copy()
        y2[i] = 1 - y2[i]
        other = Dataset(X, y2)
    else:
        X2 = X.copy()
        X2[i, 0] += 7
        other = Dataset(X2, y)
    pair = NeighborPair(dataset=base, neighbor=other, relation=relation, description="p")
    assert is_neighbor(pair)
    assert is_neighbor(pair.swapped())


@settings(max_examples=100, deadline=None)
@given(rows)
def test_two_changes_are_not_neighbours(data: tuple) -> None:
    X = np.array(data[0], float)
    if X.shape[0] < 2:
        return
    X2 = X.copy()
    X2[0, 0] += 7
    X2[-1, 1] += 7
    assert not are_neighbors(Dataset(X), Dataset(X2), Relation.REPLACE_ONE)


@settings(max_examples=100, deadline=None)
@given(
    st.integers(1, 4),
    st.floats(-5, 0),
    st.floats(0.5, 5),
    st.booleans(),
    st.integers(0, 3),
    st.sampled_from(list(Relation)),
)
def test_boundary_pairs_are_neighbours_in_domain(
    d: int, lo: float, hi: float, labelled: bool, min_size: int, relation: Relation
) -> None:
    domain = Domain(
        num_features=d,
        feature_low=lo,
        feature_high=hi,
        labels=(0.0, 1.0) if labelled else None,
        min_size=min_size,
    )
    for pair in BoundaryPairs().pairs(domain, relation):
        assert is_neighbor(pair)
        assert domain.check(pair.dataset) is None
        assert domain.check(pair.neighbor) is None


def test_domain_check_reasons() -> None:
    dom = Domain(num_features=1, feature_low=0, feature_high=1, labels=(0.0, 1.0), integer_features=True)
    assert dom.check(Dataset([[0.0]], [1.0])) is None
    assert "outside" in (dom.check(Dataset([[2.0]], [1.0])) or "")
    assert "labels" in (dom.check(Dataset([[1.0]], [3.0])) or "")
    assert "labels required" in (dom.check(Dataset([[1.0]])) or "")
    assert "integers" in (dom.check(Dataset([[0.5]], [1.0])) or "")
