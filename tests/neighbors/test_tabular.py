"""The tabular record space: encoding, the search's domain, and its named pairs."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.neighbors.base import Dataset, Relation, are_neighbors
from dpaudit.neighbors.tabular import CategoricalColumn, NumericColumn, TabularSpace, tabular_pairs

SPACE = TabularSpace(
    columns=(
        NumericColumn(name="age", low=0.0, high=100.0),
        CategoricalColumn(name="colour", categories=("a", "b", "c")),
        NumericColumn(name="score", low=0.0, high=1.0, clips=False),
    ),
    label=CategoricalColumn(name="y", categories=(0, 1), allow_unseen=False),
)


def test_domain_reaches_outside_declared_bounds_only_where_the_library_clips() -> None:
    lo, hi = SPACE.domain().bounds()
    assert lo[0] < 0.0 and hi[0] > 100.0  # clipped column: records far outside the bounds
    assert (lo[1], hi[1]) == (0.0, 3.0)  # three categories and the unseen code
    assert (lo[2], hi[2]) == (0.0, 1.0)  # not clipped: records stay inside
    assert SPACE.domain().labels == (0.0, 1.0)


def test_decode_rounds_codes_and_names_the_unseen_category() -> None:
    table = SPACE.decode(
        Dataset(np.array([[5.0, 0.4, 0.5], [-3e4, 2.6, 1.0], [1.0, 9.0, 0.0]]), np.array([0, 1, 1]))
    )
    assert list(table["colour"]) == ["a", "__unseen__", "__unseen__"]
    assert list(table["age"]) == [5.0, -3e4, 1.0]
    assert list(table["y"]) == [0, 1, 1]
    back = SPACE.encode(table)
    assert np.array_equal(back.X[:, 1], [0.0, 3.0, 3.0])


def test_encode_refuses_an_undeclared_category() -> None:
    with pytest.raises(ValueError, match="not a declared category"):
        SPACE.encode({"age": [1.0], "colour": ["zz"], "score": [0.0], "y": [0]})


@pytest.mark.parametrize("relation", [Relation.REPLACE_ONE, Relation.ADD_REMOVE_ONE])
def test_named_pairs_are_neighbours_in_the_domain(relation: Relation) -> None:
    pairs = tabular_pairs(SPACE, relation, n=6)
    domain = SPACE.domain()
    words = " ".join(p.description for p in pairs)
    for needle in (
        "outside the declared bounds",
        "rare category",
        "unseen category",
        "only member of a class",
    ):
        assert needle in words
    for p in pairs:
        assert are_neighbors(p.dataset, p.neighbor, relation), p.description
        assert domain.check(p.dataset) is None and domain.check(p.neighbor) is None
        # the decoded tables differ in exactly the changed row too
        a, b = SPACE.decode(p.dataset), SPACE.decode(p.neighbor)
        if relation is Relation.REPLACE_ONE:
            diff = [i for i in range(6) if any(a[k][i] != b[k][i] for k in SPACE.names)]
            assert len(diff) == 1, p.description
    only = next(p for p in pairs if "only member" in p.description)
    assert np.sum(only.neighbor.y == 1) == 1 and np.sum(only.dataset.y == 1) == 0


def test_relabel_is_not_a_tabular_pair_relation() -> None:
    with pytest.raises(ValueError):
        tabular_pairs(SPACE, Relation.RELABEL_ONE)
