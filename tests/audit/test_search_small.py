"""The search at small budgets (issue 44): the racing plan, the sweep race, the space-filling
design, held-out region gates found blind, and `dpaudit run … --pairs search --num-samples 1000`
on representative presets (`benchmarks/search_small.py` runs every preset)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpaudit.app.cli.entry import main
from dpaudit.engine.distinguishers import DEFAULT_DISTINGUISHERS
from dpaudit.engine.search.candidates import Proposer, proposal_rng, sobol_design
from dpaudit.engine.search.pilot_samples import PilotSampler
from dpaudit.engine.search.procedure import search_and_certify
from dpaudit.engine.search.ranking import Ranker
from dpaudit.engine.search.sweeps import MIN_SWEEP_SAMPLES, RACE_KEEP, race_rounds, sweep_screen
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import claims_of
from dpaudit.neighbors.base import Domain, Relation
from dpaudit.neighbors.records import RecordSpace
from dpaudit.neighbors.space import Space
from dpaudit.neighbors.sweep_locations import DESIGN_POINTS, design_locations, design_points
from dpaudit.neighbors.sweeps import DESIGN_EARLY, CountSweeps
from tests.blind_regions import BY_NAME, INSIDE

BOX3 = Domain(num_features=3, feature_low=0.0, feature_high=1.0)


def _space(domain: Domain) -> Space:
    space = Space.of(domain, 65)
    assert space is not None
    return space


def test_the_design_is_a_seeded_scrambled_sobol_net_over_the_box() -> None:
    """Points in the box, one in each of the 2^m elementary intervals of every coordinate (a
    (0, m, d)-net's stratification: 32 points, one per 1/32 of each axis), the same for the same
    seed and different for another; integer features on their grid; labels in turn; none for a
    record space."""
    space = _space(BOX3)

    def design(d: int, seed: int) -> tuple[tuple[float, ...], ...]:
        return sobol_design(d, np.random.default_rng(seed))

    pts = np.array([r for _, r in design_points(space, design(3, 1))])
    assert pts.shape == (DESIGN_POINTS, 3) and np.all((pts >= 0) & (pts <= 1))
    for j in range(3):
        assert sorted(np.floor(pts[:, j] * DESIGN_POINTS).astype(int)) == list(range(DESIGN_POINTS))
    again = np.array([r for _, r in design_points(space, design(3, 1))])
    other = np.array([r for _, r in design_points(space, design(3, 2))])
    assert np.array_equal(pts, again) and not np.array_equal(pts, other)
    grid = _space(Domain(num_features=2, feature_low=0.0, feature_high=5.0, integer_features=True))
    ints = np.array([r for _, r in design_points(grid, design(2, 0))])
    assert np.array_equal(ints, np.floor(ints)) and ints.min() >= 0 and ints.max() <= 5
    labelled = _space(Domain(num_features=1, labels=(0.0, 1.0)))
    assert {float(r[-1]) for _, r in design_points(labelled, design(1, 0))} == {0.0, 1.0}
    assert design_points(_space(Domain.over(RecordSpace.categorical(4))), design(1, 0)) == []
    assert design_points(space, design(2, 0)) == []  # a design of another dimension
    # each point's change moves one copy to the farthest extreme record
    for _, r, o in design_locations(space, design(3, 1)):
        assert np.array_equal(o, np.where(r < 0.5, 1.0, 0.0))


def test_count_sweeps_at_the_design_cover_k_up_to_twenty_small_counts_early() -> None:
    unit = sobol_design(3, np.random.default_rng(0))
    sweeps = list(CountSweeps(design=unit).pairs(BOX3, Relation.REPLACE_ONE))
    design = [p for p in sweeps if "design" in p.tags]
    ks = [int(next(t for t in p.tags if t.startswith("count:"))[6:]) for p in design]
    assert sorted(set(ks)) == list(range(1, 21)) and len(design) == 20 * DESIGN_POINTS
    first = sweeps.index(design[0])
    late = [i for i, p in enumerate(sweeps) if "design" not in p.tags and "count:12" in p.tags]
    assert ks[: DESIGN_EARLY * DESIGN_POINTS] == sorted(ks[: DESIGN_EARLY * DESIGN_POINTS])
    # the extremes' few large counts (a count-20 branch at a corner) precede the design's
    assert min(late) < first < sweeps.index(design[DESIGN_EARLY * DESIGN_POINTS])
    assert not [p for p in CountSweeps().pairs(BOX3, Relation.REPLACE_ONE) if "design" in p.tags]


def test_the_sweep_race_finds_a_region_gate_in_a_field_ten_times_its_finalists() -> None:
    """The race tries hundreds of sweep candidates on `MIN_SWEEP_SAMPLES` coupled samples each,
    keeps a quarter per round, and its best finalist is a pair carrying the count in the held-out
    ball across its threshold, within its budget."""
    mech = BY_NAME["region_ball_d3"].mechanism
    config = AuditConfig(num_samples=20_000, seed=0)
    sampler = PilotSampler(mech, config)
    claims = claims_of(mech)
    proposer = Proposer(
        mech.domain, claims, (Relation.REPLACE_ONE,), proposal_rng(0), sampler.skipped, design_seed=0
    )
    ranker = Ranker(projected_total=10_000, projected_level=0.05, distinguishers=DEFAULT_DISTINGUISHERS)
    screen = sweep_screen(sampler, proposer, ranker, budget=6_000, limit=16)
    assert screen.ranked >= 10 * 4 and screen.samples <= 6_000 and screen.coupled
    assert screen.samples_per_candidate >= MIN_SWEEP_SAMPLES and screen.rounds == race_rounds(screen.ranked)
    assert (
        race_rounds(4 * screen.ranked) == screen.rounds + 1
    )  # a field RACE_KEEP times larger: one round more
    assert RACE_KEEP == 4
    best = screen.finalists[0]
    inside = INSIDE["ball_d3"]
    counts = {int(np.count_nonzero(inside(best.dataset.X))), int(np.count_nonzero(inside(best.neighbor.X)))}
    assert counts == {2, 3}  # the threshold t = 3 crossed


@pytest.mark.parametrize("name", ["region_interval_d1", "region_slab_d4"])
def test_held_out_region_gates_are_found_blind_at_a_small_budget(name: str) -> None:
    """`--pairs search` at 100,000 samples per side (a tenth of the default) certifies the
    held-out gate (true ε = ∞) above its claim; every region avoids the templates' points."""
    row = BY_NAME[name]
    found = search_and_certify(row.mechanism, AuditConfig(num_samples=100_000, seed=0), budget=100_000)
    assert found.certified.violation and found.certified.epsilon_lower_bound > row.mechanism.claim.epsilon


def test_the_held_out_regions_contain_no_template_point() -> None:
    from dpaudit.neighbors.sweep_locations import interior_points

    for name, inside in INSIDE.items():
        d = BY_NAME[f"region_{name}"].mechanism.domain
        space = _space(d)
        special = [r for _, r in space.extreme_records()] + [r for _, r in interior_points(space)]
        assert not np.any(inside(np.array(special))), name


@pytest.mark.parametrize(
    "name", ["laplace_sum_range_bug", "randomized_response", "svt1", "em_learner_no_half"]
)
def test_run_pairs_search_at_1000_samples(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`dpaudit run NAME --pairs search --num-samples 1000` searches (no minimum budget): the
    result carries the search record, the pilot spent at most half the budget and the total is
    within it."""
    code = main(["run", name, "--pairs", "search", "--num-samples", "1000", "--json", "--seed", "0"])
    data = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and (code == 1) == (data["verdict"] == "violation_found")
    search = data["extra"]["search"]
    assert "--pairs search" in data["command"] and len(search["candidates"]) >= 4
    assert search["pilot_samples"] <= search["budget"] // 2 and search["total_samples"] <= search["budget"]
    assert math.isfinite(data["epsilon_lower_bound"])


def test_a_budget_too_small_for_any_search_says_what_it_needs(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "svt1", "--pairs", "search", "--num-samples", "300"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "too small for a search (need ≥ " in err[0]
