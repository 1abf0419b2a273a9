"""Tabular domains per column (issue 44, item 2): `DesignAxis` (declared ranges, levels), the
Sobol design mapped column by column, every category / special / label enumerated as a count
sweep location, and the held-out tabular gates of `tests/blind_tabular.py` found blind at a
small budget while their noisy twins are not flagged."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dpaudit.engine.search.candidates import sobol_design
from dpaudit.engine.search.plan import RACE_SWEEP_SHARE, SMALL_SWEEP_SHARE, plan_pilot
from dpaudit.engine.search.procedure import search_and_certify
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.adapters.estimator import with_target
from dpaudit.neighbors.base import DesignAxis, Domain, Relation
from dpaudit.neighbors.space import Space
from dpaudit.neighbors.sweep_locations import DESIGN_POINTS, design_points, level_points
from dpaudit.neighbors.sweeps import DESIGN_EARLY, CountSweeps
from dpaudit.neighbors.tabular import CategoricalColumn, NumericColumn, TabularSpace
from tests.blind_tabular import BY_NAME, GATED, SPACE

SPECIALS = TabularSpace(
    columns=(
        NumericColumn(name="v", low=-5.0, high=20.0, specials=(float("nan"), float("inf"))),
        CategoricalColumn(name="c", categories=("a", "b", "c", "d", "e")),
    ),
    label=CategoricalColumn(name="y", categories=(0, 1, 2), allow_unseen=False),
)


def _space(domain: Domain) -> Space:
    space = Space.of(domain, 65)
    assert space is not None
    return space


def test_a_table_declares_each_columns_axis() -> None:
    """Numeric columns over their declared bounds (not the record range 1000 widths wider), a
    special code and a categorical column at every code; a continuous target adds its range."""
    domain = SPECIALS.domain()
    lo, hi = domain.bounds()
    assert lo[0] < -5.0 - 1000 and hi[0] > 20.0 + 1000  # the record range reaches beyond
    assert domain.design == (
        DesignAxis(low=-5.0, high=20.0),
        DesignAxis(levels=(0, 1, 2)),  # the number, NaN, inf
        DesignAxis(levels=(0, 1, 2, 3, 4, 5)),  # five categories and unseen
    )
    box = Domain(num_features=2, design=(DesignAxis(), DesignAxis(levels=(0, 1))))
    assert with_target(box, (0.0, 3.0)).design == (*box.design, DesignAxis(low=0.0, high=3.0))
    with pytest.raises(ValueError, match="axes"):
        Domain(num_features=2, design=(DesignAxis(),))
    with pytest.raises(ValueError, match="distinct"):
        DesignAxis(levels=(1, 1))


def test_the_design_maps_each_column_on_its_own_axis() -> None:
    """The numeric value lies in its declared bounds at every point; every code of a column with
    L ≤ 32 levels gets ⌊32/L⌋ or ⌈32/L⌉ of the 32 points (a Sobol net's stratification); labels in
    turn. Without the declared axes the same design puts no point inside the bounds."""
    domain = SPECIALS.domain()
    unit = sobol_design(3, np.random.default_rng(4))
    pts = np.array([r for _, r in design_points(_space(domain), unit)])
    assert pts.shape == (DESIGN_POINTS, 4)
    assert np.all((pts[:, 0] >= -5.0) & (pts[:, 0] <= 20.0))
    for j, levels in ((1, 3), (2, 6)):
        counts = np.bincount(pts[:, j].astype(int), minlength=levels)
        assert counts.min() >= DESIGN_POINTS // levels and counts.max() <= -(-DESIGN_POINTS // levels), j
    assert sorted(set(pts[:, 3])) == [0.0, 1.0, 2.0]
    plain = np.array([r for _, r in design_points(_space(dataclasses.replace(domain, design=None)), unit)])
    assert not np.any((plain[:, 0] >= -5.0) & (plain[:, 0] <= 20.0))


def test_every_category_special_and_label_is_a_sweep_location() -> None:
    """`level_points` puts each level of each declared axis and each label on a typical record
    (numeric columns at their declared centre); the count sweeps cross a count at each of them
    for k ≤ `DESIGN_EARLY` right after the extremes' small counts; a plain box gets none."""
    space = _space(SPECIALS.domain())
    points = np.array([r for _, r in level_points(space)])
    assert np.all(points[:, 0] == 7.5)  # the centre of [-5, 20]
    for j, levels in ((1, 3), (2, 6)):
        assert set(points[:, j]) == set(range(levels))
    assert set(points[:, 3]) == {0.0, 1.0, 2.0}
    sweeps = list(CountSweeps().pairs(SPECIALS.domain(), Relation.REPLACE_ONE))
    level = [p for p in sweeps if "level" in p.tags]
    first = sweeps.index(level[0])
    assert all("count" in p.tags for p in sweeps[:first]) and first <= 2 * DESIGN_EARLY
    at = {t for p in level if "count:3" in p.tags for t in p.tags if t.startswith("at:")}
    assert len(at) >= len(points) - 2  # every level point but those among the two extremes
    assert not [
        p for p in CountSweeps().pairs(Domain(num_features=2), Relation.REPLACE_ONE) if "level" in p.tags
    ]


def test_a_declared_table_races_on_the_wide_share_at_a_small_budget() -> None:
    kw = dict(pilot_fraction=0.2, max_candidates=64, min_pilot_samples=1000, sweep_share=1 / 16)
    config = AuditConfig(num_samples=5000)
    narrow = plan_pilot(config, total_budget=5000, **kw)
    wide = plan_pilot(config, total_budget=5000, wide=True, **kw)
    assert narrow.sweep_budget == int(SMALL_SWEEP_SHARE * narrow.pilot_budget)
    assert wide.sweep_budget == int(RACE_SWEEP_SHARE * wide.pilot_budget) > narrow.sweep_budget
    assert wide.pilot_budget == narrow.pilot_budget  # certification keeps its share


@pytest.mark.parametrize("name", ["category_band", "rare_label"])
def test_tabular_gates_are_found_blind_at_3000_samples_and_their_twins_are_not(name: str) -> None:
    """`--pairs search` at 3,000 samples per side certifies the gate (true ε = ∞) above its claim
    on a pair that crosses its count; the noisy twin (ε = 1) is not flagged; without the declared
    columns (the design over the record box, no level locations) the gate is missed at that
    budget."""
    buggy, twin = BY_NAME[f"table_{name}"].mechanism, BY_NAME[f"noisy_table_{name}"].mechanism
    config = AuditConfig(num_samples=3000, seed=0)
    result = search_and_certify(buggy, config, budget=3000)
    found = result.certified
    assert found.violation and found.epsilon_lower_bound > buggy.claim.epsilon
    pair = result.certified_pairs[0]
    counts = {int(GATED[name](SPACE.decode(ds)).sum()) for ds in (pair.dataset, pair.neighbor)}
    assert len(counts) == 2
    assert not search_and_certify(twin, config, budget=3000).certified.violation
    plain = dataclasses.replace(buggy, domain=dataclasses.replace(buggy.domain, design=None))
    assert not search_and_certify(plain, config, budget=3000).certified.violation
