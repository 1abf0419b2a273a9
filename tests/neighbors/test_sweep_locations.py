"""Sweep locations beyond the two extremes (`neighbors.sweep_locations`, issue 35)."""

from __future__ import annotations

import numpy as np

from dpaudit.neighbors.base import Domain, Relation
from dpaudit.neighbors.records import RecordSpace
from dpaudit.neighbors.space import Space
from dpaudit.neighbors.sweep_locations import LOCATIONS, interior_points, sweep_locations
from dpaudit.neighbors.sweeps import DENSE_UP_TO, CountSweeps

BOX = Domain(num_features=1, feature_low=0.0, feature_high=1.0)
BOX2 = Domain(num_features=2, feature_low=0.0, feature_high=1.0)


def _space(domain: Domain) -> Space:
    space = Space.of(domain, 65)
    assert space is not None
    return space


def test_interior_quartiles_per_feature_and_none_for_a_record_space() -> None:
    assert [float(r[0]) for _, r in interior_points(_space(BOX))] == [0.25, 0.5, 0.75]
    points = [tuple(r) for _, r in interior_points(_space(BOX2))]
    assert {(0.25, 0.5), (0.75, 0.5), (0.5, 0.25), (0.5, 0.75)} <= set(points)
    assert interior_points(_space(Domain.over(RecordSpace.categorical(3)))) == []


def test_locations_skip_the_swept_extremes_and_move_to_the_farthest_record() -> None:
    space = _space(BOX2)
    locs = sweep_locations(space, [np.zeros(2), np.ones(2)])
    where = [tuple(r) for _, r, _ in locs]
    assert where[:2] == [(0.0, 1.0), (1.0, 0.0)]  # the mixed corners first
    assert (0.0, 0.0) not in where and (1.0, 1.0) not in where and len(set(where)) == len(where)
    assert len(locs) <= LOCATIONS
    moved = {tuple(r): tuple(o) for _, r, o in locs}
    assert moved[(1.0, 0.0)] == (0.0, 1.0) and moved[(0.25, 0.5)] == (1.0, 1.0)


def test_anywhere_sweeps_cross_every_small_count_at_an_interior_point() -> None:
    pairs = [p for p in CountSweeps().pairs(BOX, Relation.REPLACE_ONE) if "anywhere" in p.tags]
    at_half = [p for p in pairs if "at:x = 0.5" in p.tags]
    band = [
        sorted(
            int(np.count_nonzero((ds.X[:, 0] >= 0.4) & (ds.X[:, 0] < 0.6))) for ds in (p.dataset, p.neighbor)
        )
        for p in at_half
    ]
    assert band == [[k - 1, k] for k in range(1, DENSE_UP_TO + 1)]  # the band's count crosses 1 … 10
    corner = [p for p in CountSweeps().pairs(BOX2, Relation.ADD_REMOVE_ONE) if "at:x = (1, 0)" in p.tags]
    assert any(p.dataset.n == p.neighbor.n + 1 for p in corner)  # add/remove: one copy removed


def test_no_locations_when_turned_off() -> None:
    assert not any("anywhere" in p.tags for p in CountSweeps(locations=0).pairs(BOX, Relation.REPLACE_ONE))
