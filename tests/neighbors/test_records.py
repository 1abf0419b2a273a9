"""Record spaces beyond boxes (neighbors.records) and their template families
(neighbors.record_templates): every generated pair is admissible in the declared space, and the
counting family realises the published counting-query patterns."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.neighbors.base import Dataset, Domain, Relation
from dpaudit.neighbors.building import round_robin
from dpaudit.neighbors.records import RecordKind, RecordSpace
from dpaudit.neighbors.space import Space
from dpaudit.neighbors.templates import WorstCasePairs

SPACES = [
    RecordSpace.categorical(3),
    RecordSpace.one_hot(4),
    RecordSpace.histogram(5),
    RecordSpace.binary(5),
    RecordSpace.integer(2, low=-3, high=5),
    RecordSpace.bounded_norm(3, radius=2.0),
    RecordSpace.bounded_norm(2, radius=1.0, norm=1.0),
    RecordSpace.bounded_norm(2, radius=1.0, norm=math.inf),
]


@pytest.mark.parametrize("records", SPACES, ids=lambda r: f"{r.kind.value}-{r.size}-{r.norm:g}")
@pytest.mark.parametrize("labels", [None, (0.0, 1.0)])
def test_every_template_lies_in_the_declared_space(
    records: RecordSpace, labels: tuple[float, ...] | None
) -> None:
    domain = Domain.over(records, labels=labels)
    for relation in Relation:
        pairs = list(WorstCasePairs(strict=True).pairs(domain, relation))  # strict: raises otherwise
        if relation is not Relation.RELABEL_ONE or labels is not None:
            assert pairs, (records.kind, relation)
        for p in pairs:
            assert records.check(p.dataset.X) is None and records.check(p.neighbor.X) is None


def test_checks_refuse_records_outside_the_space() -> None:
    assert Domain.over(RecordSpace.one_hot(3)).check(Dataset(np.array([[1.0, 1.0, 0.0]]))) is not None
    assert Domain.over(RecordSpace.one_hot(3)).check(Dataset(np.array([[0.0, 1.0, 0.0]]))) is None
    assert Domain.over(RecordSpace.histogram(3)).check(Dataset(np.array([[3.0]]))) is not None
    assert Domain.over(RecordSpace.histogram(3)).check(Dataset(np.array([[0.5]]))) is not None
    ball = Domain.over(RecordSpace.bounded_norm(2, radius=1.0))
    assert ball.check(Dataset(np.array([[0.8, 0.8]]))) is not None
    assert ball.check(Dataset(np.array([[0.6, 0.8]]))) is None
    with pytest.raises(ValueError):
        Domain(num_features=2, records=RecordSpace.one_hot(3))


def test_random_records_lie_in_the_space() -> None:
    rng = np.random.default_rng(0)
    for records in SPACES:
        space = Space.of(Domain.over(records), 64)
        assert space is not None
        rows = np.array([space.random_record(rng) for _ in range(200)])
        assert records.check(rows) is None, records.kind


def _delta(p: object) -> tuple[int, ...]:
    a, b = p.dataset.X.sum(axis=0), p.neighbor.X.sum(axis=0)  # type: ignore[attr-defined]
    return tuple(int(x) for x in b - a)


def test_binary_counting_patterns_come_first_and_cover_the_published_ones() -> None:
    domain = Domain.over(RecordSpace.binary(4))
    pairs = list(WorstCasePairs(max_pairs=24).pairs(domain, Relation.REPLACE_ONE))
    counting = [p for p in pairs if "counting" in p.tags]
    assert len(counting) >= 8  # the weighted family holds a large share of a capped prefix
    deltas = {tuple(sorted((_delta(p), tuple(-x for x in _delta(p))))) for p in counting}
    for want in [(1, 1, -1, -1), (1, -1, -1, -1), (1, 1, 1, 1), (1, 0, 0, 0)]:
        neg = tuple(-x for x in want)
        assert tuple(sorted((want, neg))) in deltas
    x_shape = [p for p in counting if p.dataset.n == 1 and _delta(p) in {(1, 1, -1, -1), (-1, -1, 1, 1)}]
    assert x_shape  # the answer vectors cross: (0, 0, 1, 1) vs (1, 1, 0, 0)


def test_one_hot_counting_moves_a_record_between_cells() -> None:
    domain = Domain.over(RecordSpace.one_hot(4))
    counting = [p for p in WorstCasePairs().pairs(domain, Relation.REPLACE_ONE) if "counting" in p.tags]
    assert counting
    assert all(sorted(_delta(p)) == [-1, 0, 0, 1] for p in counting)
    added = [p for p in WorstCasePairs().pairs(domain, Relation.ADD_REMOVE_ONE) if "counting" in p.tags]
    assert added and all(sorted(map(abs, _delta(p))) == [0, 0, 0, 1] for p in added)


def test_flanked_clusters_and_grid_boundaries() -> None:
    domain = Domain.over(RecordSpace.integer(1, low=0, high=10), hypothesis_grid=(2, 5, 8))
    pairs = list(WorstCasePairs(strict=True).pairs(domain, Relation.REPLACE_ONE))
    flanked = [p for p in pairs if "flanked" in p.tags]
    assert flanked and all(p.dataset.X.min() == 0 and p.dataset.X.max() == 10 for p in flanked)
    grid = [p for p in pairs if "grid" in p.tags]
    crossing = {(float(p.dataset.X[-1, 0]), float(p.neighbor.X[-1, 0])) for p in grid}
    assert (1.0, 3.0) in crossing or (3.0, 1.0) in crossing  # across grid point 2
    box = Domain(num_features=1, hypothesis_grid=(0.25, 0.5))
    values = {
        float(x)
        for p in WorstCasePairs().pairs(box, Relation.REPLACE_ONE)
        if "grid" in p.tags
        for x in (p.dataset.X[-1, 0], p.neighbor.X[-1, 0])
    }
    assert {0.125, 0.25, 0.375} <= values


def test_weighted_round_robin() -> None:
    a, b = iter([1, 2, 3, 4]), iter([10, 20])
    assert list(round_robin([a, b], [2, 1])) == [1, 2, 10, 3, 4, 20]  # type: ignore[list-item]
    assert RecordSpace.one_hot(3).kind is RecordKind.ONE_HOT
