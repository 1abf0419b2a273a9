"""Count and mass sweeps (`neighbors.sweeps`): the grid, admissibility, sizes and words."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.neighbors.base import Domain, Relation
from dpaudit.neighbors.generators import admissible
from dpaudit.neighbors.records import RecordSpace
from dpaudit.neighbors.sweeps import DEFAULT_MAX_COUNT, CountSweeps, count_grid

DOMAINS = {
    "box": Domain(num_features=1, feature_low=0.0, feature_high=1.0),
    "signed box 2-d": Domain(num_features=2, feature_low=-1.0, feature_high=1.0),
    "integer": Domain.over(RecordSpace.integer(1, low=0, high=10)),
    "categorical": Domain.over(RecordSpace.categorical(3)),
    "one-hot": Domain.over(RecordSpace.one_hot(4)),
    "binary": Domain.over(RecordSpace.binary(3)),
    "bounded norm": Domain.over(RecordSpace.bounded_norm(2)),
    "labelled": Domain(num_features=1, labels=(-1.0, 1.0)),
    "sized": Domain(num_features=1, min_size=12, max_size=30),
    "private rows": Domain(num_features=1, private_rows=(2, 50)),
}


def test_grid_is_dense_then_geometric_and_reaches_the_maximum() -> None:
    grid = count_grid()
    assert grid[:10] == tuple(range(1, 11)) and grid[-1] == DEFAULT_MAX_COUNT == 64
    assert {10, 16, 20, 32, 50, 64} <= set(grid)
    steps = np.diff(grid[9:]) / np.asarray(grid[9:-1])
    assert np.all(steps > 0) and np.all(steps <= 0.6)  # geometric beyond 10, never a gap over 1.6×
    assert len(grid) < 25
    big = count_grid(1000)
    assert big[-1] == 1000 and len(big) < 45 and {100, 128, 200, 500, 512} <= set(big)
    assert count_grid(5) == (1, 2, 3, 4, 5) and count_grid(0) == ()


@pytest.mark.parametrize("name", sorted(DOMAINS))
@pytest.mark.parametrize("relation", [Relation.REPLACE_ONE, Relation.ADD_REMOVE_ONE, Relation.RELABEL_ONE])
def test_every_sweep_pair_is_admissible_and_within_the_sizes(name: str, relation: Relation) -> None:
    domain = DOMAINS[name]
    pairs = list(CountSweeps().pairs(domain, relation))
    if relation is Relation.RELABEL_ONE and domain.labels is None:
        assert pairs == []
        return
    if relation is Relation.ADD_REMOVE_ONE and domain.private_rows is not None:
        assert pairs == []  # an added row shifts the public ones
        return
    assert pairs
    for p in pairs:
        assert admissible(p, domain), p.description
        assert "sweep" in p.tags
        assert domain.max_size is None or max(p.dataset.n, p.neighbor.n) <= domain.max_size
    largest = max(max(p.dataset.n, p.neighbor.n) for p in pairs)
    assert largest >= min(DEFAULT_MAX_COUNT, domain.max_size or DEFAULT_MAX_COUNT)


def test_the_threshold_pairs_are_there_in_words() -> None:
    """k records at the top vs one moved to the bottom, for every k the done-when names."""
    words = {p.description for p in CountSweeps().pairs(DOMAINS["box"], Relation.REPLACE_ONE)}
    for k in (3, 5, 10, 20, 64):
        assert f"{k} records at x = 1 vs {k - 1} records at x = 1 and one at x = 0, replace-one" in words
    removed = {p.description for p in CountSweeps().pairs(DOMAINS["integer"], Relation.ADD_REMOVE_ONE)}
    assert "20 records at x = 10 vs 19 records at x = 10, add/remove-one" in removed
    assert "20 records at x = 10 vs 20 records at x = 10 and one at x = 0, add/remove-one" in removed


def test_min_size_pads_with_the_opposite_record_and_max_count_is_settable() -> None:
    pairs = list(CountSweeps(max_count=20).pairs(DOMAINS["sized"], Relation.REPLACE_ONE))
    assert all(p.dataset.n >= 12 for p in pairs)
    assert max(p.dataset.n for p in pairs) == 20
    three = next(p for p in pairs if p.description.startswith("3 records at x = 1 vs"))
    assert three.dataset.n == 12 and int((three.dataset.X == 1).sum()) == 3
    assert "(and 9 at x = 0 on both sides)" in three.description


def test_the_counting_changes_come_first() -> None:
    """A caller that can afford a prefix gets the counts of both extremes over the whole grid."""
    pairs = list(CountSweeps().pairs(DOMAINS["box"], Relation.REPLACE_ONE))
    grid = count_grid()
    first_other = next(i for i, p in enumerate(pairs) if "count" not in p.tags)
    assert first_other >= 2 * len(grid) - 1  # (k = 1 at x = 1 and at x = 0 is one pair, swapped)
    assert {p.tags[1] for p in pairs[:first_other]} == {f"count:{k}" for k in grid}
