"""The blind pilot's seats (issue 44, IBM/differential-privacy-library#104): the count sweeps'
far end is screened whatever the sweep race chose, and the halving never cuts it, so a pair
whose evidence is a rare event (ranked low on a few dozen samples, first on a few hundred)
reaches the final and is ranked there on as many samples as the halving's winner."""

from __future__ import annotations

import math
from typing import cast

import numpy as np
import pytest
from numpy.typing import NDArray

from dpaudit.engine.search.candidates import SEATS, Proposer, proposal_rng
from dpaudit.engine.search.pilot import SEAT_FINAL_GROWTH, RegisteredPairs, halve, seat_final
from dpaudit.engine.search.pilot_samples import Entry, PilotSampler
from dpaudit.engine.search.procedure import search_and_certify
from dpaudit.engine.search.ranking import Ranker
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import PrivacyClaim, from_callable
from dpaudit.mechanisms.reference import LaplaceSum
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation
from dpaudit.neighbors.sweeps import DEFAULT_MAX_COUNT

CONFIG = AuditConfig(num_samples=4_000, seed=3, failure_probability=0.05)
PAIR = LaplaceSum().neighbor_pairs()[0]
BOX2 = Domain(num_features=2, feature_low=0.0, feature_high=1.0)
NONE = RegisteredPairs(champion=None, contenders=())


def _count(entry_tags: tuple[str, ...]) -> int:
    return int(next(t for t in entry_tags if t.startswith("count:")).split(":")[1])


def test_seats_are_the_largest_counting_pair_at_each_extreme() -> None:
    claim = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="test")
    proposer = Proposer(BOX2, [claim], (Relation.REPLACE_ONE,), proposal_rng(0), [], design_seed=0)
    assert proposer.seats() == []  # no sweeps built yet: nothing to seat
    sweeps = proposer.sweeps()
    seats = proposer.seats()
    assert len(seats) == SEATS
    assert all("count" in p.tags and "anywhere" not in p.tags for p in seats)
    assert [_count(p.tags) for p in seats] == [DEFAULT_MAX_COUNT] * SEATS
    places = {t for p in seats for t in p.tags if t.startswith("at:")}
    firsts = list(dict.fromkeys(t for e in sweeps for t in e.pair.tags if t.startswith("at:")))
    assert places == set(firsts[:SEATS])  # the two extremes (low and high corner), not the design
    # a pair the sweep race had in its field competed there: no seat
    assert proposer.seats(raced=len(sweeps)) == []
    # a seat already admitted as a candidate is not proposed twice
    proposer.admit(seats[0], "sweep", [])
    assert proposer.seats() == seats[1:]


class _RareEventRanker:
    """Ranks as a pilot would a field where one pair's evidence is a rare event: the planted pair
    ranks last on fewer than 200 samples per side and first from then on; the others keep fixed
    ranks, best first in their order."""

    def __init__(self, planted: Entry, others: list[Entry], *, shows: int = 200) -> None:
        self.planted, self.others, self.shows = planted, others, shows

    def __call__(self, entry: Entry) -> None:
        if entry is self.planted:
            entry.rank = 1.0 if entry.rows() >= self.shows else -5.0
        else:
            entry.rank = -0.1 * self.others.index(entry)

    def rerank(self, entry: Entry, ok: bool) -> None:
        """`Ranker.rerank`'s contract: rank after a draw, −∞ when it failed."""
        if ok:
            self(entry)
        else:
            entry.rank = -math.inf


def _field() -> tuple[PilotSampler, Entry, list[Entry], _RareEventRanker]:
    sampler = PilotSampler(LaplaceSum(), CONFIG)
    others = [Entry(PAIR, "template", 1.0, 0.0) for _ in range(7)]
    planted = Entry(PAIR, "sweep", 1.0, 0.0)
    ranker = _RareEventRanker(planted, others)
    sampler.draw_all([(e, 32) for e in [*others, planted]], then=lambda e, ok: ranker(e))
    return sampler, planted, others, ranker


def test_halving_keeps_a_seat_to_the_final_where_its_evidence_shows() -> None:
    sampler, planted, others, ranker = _field()
    halving = halve(
        sampler, cast(Ranker, ranker), [*others, planted], NONE, budget=2_400, min_pilot_samples=32,
        seats=[planted],
    )
    assert halving.rounds == 3 and halving.survivors[0] is planted  # ranked first at the final
    assert planted.rows() >= 200 and len(halving.survivors) == 2  # the seat and the halving's winner
    assert halving.survivors[1] is others[0]
    # the same field without the seat: the planted pair ranks last on its screening samples and
    # the first round cuts it
    sampler, planted, others, ranker = _field()
    plain = halve(sampler, cast(Ranker, ranker), [*others, planted], NONE, budget=2_400, min_pilot_samples=32)
    assert planted not in plain.survivors and planted.rows() == 0


def test_a_seat_final_reranks_the_winner_and_the_seats_on_more_samples() -> None:
    sampler, planted, others, ranker = _field()
    halving = halve(
        sampler, cast(Ranker, ranker), [*others, planted], NONE, budget=2_400, min_pilot_samples=32,
        seats=[planted],
    )
    rows = max(e.rows() for e in halving.survivors)
    ranker.shows = rows + 1  # the seat's evidence shows only beyond the halving's final
    for e in halving.survivors:
        ranker(e)
    halving = type(halving)(survivors=(others[0], planted), rounds=halving.rounds)
    # too little left to certify after a final (more than a quarter would go to it): none
    spent = sampler.spent
    rank = cast(Ranker, ranker)
    assert seat_final(sampler, rank, halving, [planted], total_budget=spent + 3 * rows) is halving
    assert sampler.spent == spent
    before = [e.rows() for e in halving.survivors]
    final = seat_final(sampler, rank, halving, [planted], total_budget=spent + 20_000)
    assert final.survivors == (planted, others[0]) and final.rounds == halving.rounds
    assert [e.rows() for e in final.survivors] == [SEAT_FINAL_GROWTH * rows] * 2
    assert sampler.spent == spent + sum(SEAT_FINAL_GROWTH * rows - n for n in before)  # the top-ups only
    # a seat that already won, or no seat at all: no final, nothing drawn
    spent = sampler.spent
    assert seat_final(sampler, rank, final, [planted], total_budget=spent + 20_000) is final
    assert seat_final(sampler, rank, halving, [], total_budget=spent + 20_000) is halving
    assert sampler.spent == spent


def _crowded_gate(data: Dataset, n: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """A noisy count of the records at x₀ ≥ ½, but w.p. ⅕ the sentinel −1 when at least 40
    records sit at the low corner and one at the high corner: an infinite ε that only datasets of
    ≥ 41 rows show, far beyond the small counts a 4,000-sample race fields."""
    x = data.X
    high = float(np.sum(x[:, 0] >= 0.5))
    crowded = np.sum(np.all(x <= 0.0, axis=1)) >= 40 and bool(np.any(np.all(x >= 1.0, axis=1)))
    out = high + rng.laplace(0.0, 1.0, n)
    if crowded:
        out[rng.random(n) < 0.2] = -1.0
    return out


def test_a_blind_search_at_a_small_budget_reaches_the_count_sweeps_far_end() -> None:
    mech = from_callable(
        name="crowded_gate",
        claim=PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="test"),
        domain=BOX2,
        batch_fn=_crowded_gate,
    )
    found = search_and_certify(mech, AuditConfig(num_samples=4_000, seed=0), budget=4_000)
    assert found.certified.violation
    assert [_count(p.tags) for p in found.certified_pairs] == [DEFAULT_MAX_COUNT]  # a seat


def test_only_a_racing_plan_seats_the_far_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seats are for racing plans (budgets below the full plan's) whose pilot can afford them
    (`SEAT_MIN_PILOT`): there candidates are screened on a few dozen samples. On the full plan
    (screened on `min_pilot_samples` each) and below that pilot the proposer is asked for no
    seat, so a blind search there is what it was before the seats."""
    from dpaudit.engine.search import candidates

    asked: list[int] = []
    real = candidates.Proposer.seats

    def spy(self: candidates.Proposer, *, raced: int = 0) -> list[NeighborPair]:
        asked.append(raced)
        return real(self, raced=raced)

    monkeypatch.setattr(candidates.Proposer, "seats", spy)
    mech = from_callable(
        name="crowded_gate",
        claim=PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="test"),
        domain=BOX2,
        batch_fn=_crowded_gate,
    )
    search_and_certify(mech, AuditConfig(num_samples=1_000, seed=0), budget=1_000)
    assert asked == []  # a pilot below SEAT_MIN_PILOT cannot afford seats
    search_and_certify(mech, AuditConfig(num_samples=4_000, seed=0), budget=4_000)
    assert len(asked) == 1  # the racing plan of 4,000 per side seats
    search_and_certify(mech, AuditConfig(num_samples=400_000, seed=0), budget=400_000)
    assert len(asked) == 1  # the full plan does not
