"""The default route's guarantee against the registered route (audit.search, "Guarantee"):
pairs the pilot cannot separate from the registered champion are not certified next to it,
the pilot never spends more than its budget, and the default pilot fraction."""

from __future__ import annotations

import dataclasses

import pytest

from dpaudit.engine.search.certify import choose
from dpaudit.engine.search.pilot import CHAMPION_MARGIN, Halving, Pilot, RegisteredPairs, beats, challenge
from dpaudit.engine.search.pilot_samples import Entry, PilotSampler
from dpaudit.engine.search.procedure import (
    MAX_PILOT_FRACTION,
    PILOT_FRACTION,
    auto_pilot_fraction,
    search_and_certify,
)
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.reference import GaussianSum, LaplaceSum
from dpaudit.neighbors.base import Relation

CONFIG = AuditConfig(num_samples=20_000, seed=5, failure_probability=0.05)
PAIR = LaplaceSum().neighbor_pairs()[0]


def _entry(rank: float, *, drawn: int, source: str = "template") -> Entry:
    e = Entry(PAIR, source, 1.0, 0.0)
    e.rank, e.drawn = rank, drawn
    return e


def test_beats_needs_the_margin_scaled_by_samples_and_pool() -> None:
    champion = _entry(0.0, drawn=40_000, source="registered")
    assert not beats(_entry(CHAMPION_MARGIN * 0.9, drawn=40_000), champion, pool=64)
    assert beats(_entry(CHAMPION_MARGIN * 1.1, drawn=40_000), champion, pool=64)
    # on 1/16 of the champion's samples among 64 candidates: √16 · √(2 ln 64) ≈ 11.5 margins
    assert not beats(_entry(CHAMPION_MARGIN * 10, drawn=2_500), champion, pool=64)
    assert beats(_entry(CHAMPION_MARGIN * 13, drawn=2_500), champion, pool=64)


def _pilot(winner: Entry, champion: Entry) -> Pilot:
    return Pilot(
        entries=(winner, champion),
        registered=RegisteredPairs(champion=champion, contenders=()),
        halving=Halving(survivors=(winner,), rounds=1),
        champion=champion,
    )


def test_an_unseparated_winner_is_not_certified_next_to_the_champion() -> None:
    champion = _entry(0.0, drawn=10_000, source="registered")
    tied = _entry(CHAMPION_MARGIN / 2, drawn=10_000)
    kw = dict(
        verdict_relation=Relation.REPLACE_ONE,
        top_k=1,
        hedge_registered=True,
        spare=100_000,
        registered_certification=9_000,
    )
    assert choose(_pilot(tied, champion), **kw).chosen == (champion,)  # type: ignore[arg-type]
    better = _entry(2 * CHAMPION_MARGIN, drawn=10_000)
    assert choose(_pilot(better, champion), **kw).chosen == (better, champion)  # type: ignore[arg-type]


def test_the_challenge_stays_within_the_pilot_budget() -> None:
    sampler = PilotSampler(LaplaceSum(), CONFIG)
    champion = Entry(PAIR, "registered", 1.0, 0.0)
    challenger = Entry(PAIR, "template", 1.0, 0.0)
    sampler.draw_all([(champion, 4_000), (challenger, 500)])
    champion.rank, challenger.rank = 0.0, 1.0
    before = sampler.spent

    def no_ranking(entry: Entry) -> None:
        return None

    challenge(sampler, no_ranking, [challenger], champion, budget=300)  # type: ignore[arg-type]
    assert sampler.spent == before  # 300 would not even double the challenger's 500 samples
    challenge(sampler, no_ranking, [challenger], champion, budget=1_000)  # type: ignore[arg-type]
    assert sampler.spent == before + 1_000  # part way: 1 000 of the 3 500 to the champion's size
    challenge(sampler, no_ranking, [challenger], champion, budget=10_000)  # type: ignore[arg-type]
    assert sampler.spent == before + 3_500  # never past the champion's pilot size


def test_equally_strong_pairs_leave_the_registered_pair_its_share() -> None:
    """gaussian_sum has add/remove templates as strong as its registered pair: the default route
    certifies the registered pair alone, on everything the pilot (≤ P) leaves."""
    mech = GaussianSum()
    config = dataclasses.replace(CONFIG, num_samples=100_000)
    r = search_and_certify(mech, config, registered=mech.neighbor_pairs())
    assert [p.description for p in r.certified_pairs] == [mech.neighbor_pairs()[0].description]
    assert r.pilot_samples <= int(PILOT_FRACTION * r.budget)
    assert r.certification_samples >= r.budget - int(PILOT_FRACTION * r.budget) - r.selection_topup_samples


def test_auto_pilot_fraction() -> None:
    assert auto_pilot_fraction(0.1, registered=True) == PILOT_FRACTION
    assert auto_pilot_fraction(1.0, registered=False) == PILOT_FRACTION
    assert auto_pilot_fraction(0.5, registered=False) == pytest.approx(0.2 * 2**0.4)
    assert auto_pilot_fraction(0.01, registered=False) == MAX_PILOT_FRACTION


def test_noisy_registered_ranks_widen_the_tie() -> None:
    """Pilot ranks whose two folds disagree by ~1 cannot rank registered pairs 0.5 apart: the
    tie widens to two sd of a rank difference (σ̂ from the median fold spread)."""
    from dpaudit.engine.search.pilot import REGISTERED_TIE, registered_tie

    quiet = [_entry(-0.1 * i, drawn=10_000, source="registered") for i in range(5)]
    for e in quiet:
        e.spread = 0.01
    assert registered_tie(quiet) == REGISTERED_TIE
    noisy = [_entry(-0.1 * i, drawn=10_000, source="registered") for i in range(5)]
    for e in noisy:
        e.spread = 1.0
    assert registered_tie(noisy) == pytest.approx(2 * 1.0 / (0.6745 * 2**0.5))
    noisy[0].spread = 40.0  # one pair with no event on a fold (clipped at −20): the median ignores it
    assert registered_tie(noisy) == pytest.approx(2 * 1.0 / (0.6745 * 2**0.5))


def test_only_registered_pairs_chosen_get_the_registered_certification_size() -> None:
    from dpaudit.engine.search.certify import registered_floor

    first = _entry(-1.0, drawn=2_000, source="registered")
    second = _entry(-1.1, drawn=2_000, source="registered")
    found = _entry(0.5, drawn=2_000, source="sweep")
    assert registered_floor((first, second), registered=2, certification=9_000) == 9_000
    assert registered_floor((first,), registered=2, certification=9_000) == 0  # shares ≥ c already
    assert registered_floor((found, first), registered=1, certification=9_000) == 0  # the hedge's price
    assert registered_floor((found,), registered=0, certification=9_000) == 0  # a blind search


@pytest.mark.parametrize("name", ["laplace_sum", "dpsgd_linear_score"])
def test_when_only_registered_pairs_are_certified_the_default_route_certifies_as_the_registered_one(
    name: str,
) -> None:
    """Issue "no loss at default budgets": where the search certifies exactly the registered
    pairs (inseparable, or a single one), every bound is the registered route's, to the bit: the
    same selection samples, certification streams and sample counts; the pilot's exploration is
    paid on top."""
    import dpaudit

    default = dpaudit.audit(name, num_samples=20_000, seed=0)
    registered = dpaudit.audit(name, num_samples=20_000, seed=0, pairs="registered")
    search = default.extra["search"]
    assert isinstance(search, dict)
    assert list(search["certified_pairs"]) == [p.description for p in registered.pairs]
    assert search["certification_samples"] == registered.certification_samples
    assert search["total_samples"] > search["budget"]  # the exploration came on top
    bounds = [p.estimate.epsilon_lower_bound for p in default.pairs]
    assert bounds == [p.estimate.epsilon_lower_bound for p in registered.pairs]
    assert default.epsilon_lower_bound == registered.epsilon_lower_bound
