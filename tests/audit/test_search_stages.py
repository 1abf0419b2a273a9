"""The search's stages alone: budget plan, pilot sampling, registered top-ups, halving, the
choice of certified pairs, certification's accounting, and the cross-fitted rank."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from dpaudit.engine.distinguishers import DEFAULT_DISTINGUISHERS
from dpaudit.engine.sampling import sample_rows
from dpaudit.engine.search.candidates import Proposer, proposal_rng
from dpaudit.engine.search.certify import Outputs, certification_order, certify, choose
from dpaudit.engine.search.pilot import (
    MIN_CERTIFICATION,
    MIN_SCREEN_SAMPLES,
    REGISTERED_TIE,
    SCREEN_TARGET,
    VERDICT_TIE,
    Halving,
    Pilot,
    RegisteredPairs,
    halve,
    plan_pilot,
    rank_registered,
    registered_tie,
    screen,
    smallest_budget,
)
from dpaudit.engine.search.pilot_samples import Entry, PilotSampler, pilot_seed
from dpaudit.engine.search.ranking import Ranker, cross_fitted
from dpaudit.engine.search.result import SearchBudgetError
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import claims_of
from dpaudit.mechanisms.reference import LaplaceSum
from dpaudit.neighbors.base import NeighborPair, Relation

CONFIG = AuditConfig(num_samples=20_000, seed=5, failure_probability=0.05)
PAIR = LaplaceSum().neighbor_pairs()[0]


def _ranker(projected_total: int = 50_000) -> Ranker:
    return Ranker(
        projected_total=projected_total, projected_level=0.05, distinguishers=DEFAULT_DISTINGUISHERS
    )


def _entry(
    rank: float, *, drawn: int = 1000, source: str = "template", relation: Relation | None = None
) -> Entry:
    pair = (
        PAIR
        if relation is None
        else NeighborPair(
            dataset=PAIR.dataset, neighbor=PAIR.neighbor, relation=relation, description=PAIR.description
        )
    )
    e = Entry(pair, source, 1.0, 0.0)
    e.rank, e.drawn = rank, drawn
    return e


def test_plan_pilot_splits_the_budget() -> None:
    plan = plan_pilot(
        CONFIG,
        total_budget=100_000,
        pilot_fraction=0.2,
        max_candidates=64,
        min_pilot_samples=1000,
        small=False,
    )
    assert plan.pilot_budget == 20_000 and plan.challenge_budget == 2_500  # P/8 held for the challenge
    assert plan.num_candidates == 7 and plan.per_candidate == 7_500 // 7  # screening: 3P/8
    assert plan.projected_total == AuditConfig(num_samples=80_000, seed=5).split()[1]
    with pytest.raises(SearchBudgetError, match="registered pairs"):
        plan_pilot(
            CONFIG,
            total_budget=5_000,
            pilot_fraction=0.2,
            max_candidates=64,
            min_pilot_samples=1000,
            small=False,
        )


def test_small_budgets_get_a_racing_plan_down_to_the_stated_minimum() -> None:
    """Below the full plan's 20,000 (at f = 0.2, 1,000 per candidate) the pilot's share grows
    (f·√(20,000 / T), at most 0.5, leaving ≥ MIN_CERTIFICATION), candidates are screened on a
    few samples each and the sweeps race on a quarter of the pilot; below `smallest_budget` the
    error says how much is needed, and that budget itself fits."""
    kw = {"pilot_fraction": 0.2, "max_candidates": 64, "min_pilot_samples": 1000, "sweep_share": 1 / 16}
    plan = plan_pilot(CONFIG, total_budget=1_000, **kw)
    assert plan.pilot_budget == 500 and plan.sweep_budget == 125 and plan.min_samples == MIN_SCREEN_SAMPLES
    assert plan.num_candidates * plan.per_candidate <= (500 - 125) * 3 // 8 and plan.num_candidates >= 8
    assert 1_000 - plan.pilot_budget >= MIN_CERTIFICATION
    mid = plan_pilot(CONFIG, total_budget=10_000, **kw)
    assert 0.2 < mid.pilot_budget / 10_000 < 0.5 and mid.num_candidates == SCREEN_TARGET
    # above the full plan's minimum, a blind search races while the full plan would screen few
    assert plan_pilot(CONFIG, total_budget=100_000, **kw).num_candidates == SCREEN_TARGET
    assert plan_pilot(CONFIG, total_budget=10**6, **kw).min_samples == 1000  # the full plan
    need = smallest_budget(pilot_fraction=0.2, min_pilot_samples=1000)
    assert MIN_CERTIFICATION < need < 1_000
    plan_pilot(CONFIG, total_budget=need, **kw)
    with pytest.raises(SearchBudgetError, match=f"need ≥ {need:,}"):
        plan_pilot(CONFIG, total_budget=need - 1, **kw)


def test_pilot_sampler_issues_pilot_seeds_in_order_and_counts_spend() -> None:
    sampler = PilotSampler(LaplaceSum(), CONFIG)
    a, b = Entry(PAIR, "registered", 1.0, 0.0), Entry(PAIR, "template", 1.0, 0.0)
    assert sampler.draw_all([(a, 300), (b, 200)]) == [True, True]
    assert sampler.draw_all([(a, 100)], ranking=False) == [True]
    assert sampler.seeds == [pilot_seed(CONFIG.seed, j) for j in range(3)]
    assert CONFIG.seed not in sampler.seeds
    assert sampler.spent == 600 and (a.drawn, b.drawn) == (300, 200)
    assert (a.rows(), b.rows()) == (400, 200)


def test_screen_then_registered_top_up_ranks_registered_pairs_at_the_selection_size() -> None:
    mech = LaplaceSum()
    claims = claims_of(mech)
    relations = tuple(dict.fromkeys(c.relation for c in claims))
    sampler = PilotSampler(mech, CONFIG)
    proposer = Proposer(mech.domain, claims, relations, proposal_rng(CONFIG.seed), sampler.skipped)
    ranker = _ranker()
    entries = screen(
        sampler, proposer, ranker, registered=mech.neighbor_pairs(), num_candidates=6, per_candidate=500
    )
    assert 1 <= len(entries) <= 6 and sampler.spent == 500 * len(entries)
    assert entries[0].source == "registered" and all(math.isfinite(e.rank) for e in entries)
    selection = CONFIG.split()[0]
    pairs = mech.neighbor_pairs()
    reg = rank_registered(sampler, ranker, entries, selection=selection, registered=pairs)
    registered = [e for e in entries if e.source == "registered"]
    assert reg.champion is max(registered, key=lambda e: e.rank)
    assert all(e.rows() == selection for e in registered)
    # drawn afresh (screening samples dropped) on the registered route's own selection streams
    assert sampler.spent == 500 * len(entries) + selection * len(registered)
    for i, e in enumerate(registered):
        a, b = e.outputs()
        assert np.array_equal(a, sample_rows(mech, pairs[i].dataset, selection, CONFIG.seed, (i, 0, 0, 0)))
        assert np.array_equal(b, sample_rows(mech, pairs[i].neighbor, selection, CONFIG.seed, (i, 1, 0, 0)))
    tie = registered_tie(registered)  # REGISTERED_TIE, or two sd of the fold noise if larger
    assert tie >= REGISTERED_TIE
    assert all(c in registered and c.rank >= reg.champion.rank - tie for c in reg.contenders)


def test_halve_keeps_the_better_half_each_round_within_its_budget() -> None:
    sampler = PilotSampler(LaplaceSum(), CONFIG)
    entries = [Entry(PAIR, "template", 1.0, 0.0) for _ in range(4)]
    sampler.draw_all([(e, 400) for e in entries])
    ranker = _ranker()
    for e in entries:
        ranker(e)
    before = sampler.spent
    halving = halve(
        sampler,
        ranker,
        entries,
        RegisteredPairs(champion=None, contenders=()),
        budget=8_000,
        min_pilot_samples=400,
    )
    assert halving.rounds == 2 and len(halving.survivors) == 1
    assert sampler.spent - before == 4 * 1000 + 2 * 2000  # 4_000 per round over 4, then 2
    assert sum(e.rows() > 0 for e in entries) == 1  # the losers' samples are released


def test_choice_prefers_survivors_then_the_verdict_relation_and_the_champion_on_near_ties() -> None:
    strong, near = _entry(1.0), _entry(1.0 - VERDICT_TIE / 2, relation=Relation.ADD_REMOVE_ONE)
    loser = _entry(2.0)  # highest rank, but not a halving survivor
    order = certification_order([loser, strong, near], [strong, near], None)
    assert order == [strong, near, loser]
    none = RegisteredPairs(champion=None, contenders=())
    choice = choose(
        Pilot(
            entries=(loser, strong, near),
            registered=none,
            halving=Halving(survivors=(strong, near), rounds=1),
            champion=None,
        ),
        verdict_relation=Relation.ADD_REMOVE_ONE,
        top_k=2,
        hedge_registered=True,
        spare=100_000,
        registered_certification=10_000,
    )
    assert choice.chosen == (near, strong)  # within the tie, the verdict claim's relation wins
    champion = _entry(0.2, source="registered")
    contender = _entry(0.1, source="registered")
    hedged = choose(
        Pilot(
            entries=(strong, champion, contender),
            registered=RegisteredPairs(champion=champion, contenders=(contender,)),
            halving=Halving(survivors=(strong,), rounds=1),
            champion=champion,
        ),
        verdict_relation=Relation.REPLACE_ONE,
        top_k=1,
        hedge_registered=True,
        spare=25_000,
        registered_certification=10_000,
    )
    assert hedged.chosen == (strong, champion)  # a third pair would get < 10 000 samples


def test_choice_holds_a_pair_under_the_verdict_relation_when_asked() -> None:
    """With `verdict_pair` (the blind route's), a replace-one winner far ahead (beyond the tie)
    is certified and the best-ranked add/remove pair with a finite rank joins it when the
    verdict claim is add/remove; nothing joins when a chosen pair is already under that
    relation, or without `verdict_pair` (the registered route's)."""
    winner = _entry(1.0, relation=Relation.REPLACE_ONE)
    behind = _entry(1.0 - 10 * VERDICT_TIE, relation=Relation.ADD_REMOVE_ONE)
    worse = _entry(-1.0, relation=Relation.ADD_REMOVE_ONE)
    unranked = _entry(-math.inf, relation=Relation.ADD_REMOVE_ONE)

    def chosen(verdict: Relation, *entries: Entry, ask: bool = True) -> tuple[Entry, ...]:
        pilot = Pilot(
            entries=entries,
            registered=RegisteredPairs(champion=None, contenders=()),
            halving=Halving(survivors=entries[:1], rounds=1),
            champion=None,
        )
        return choose(
            pilot,
            verdict_relation=verdict,
            top_k=1,
            hedge_registered=True,
            spare=100_000,
            registered_certification=10_000,
            verdict_pair=ask,
        ).chosen

    assert chosen(Relation.ADD_REMOVE_ONE, winner, worse, behind) == (winner, behind)
    assert chosen(Relation.ADD_REMOVE_ONE, winner, worse, behind, ask=False) == (winner,)
    assert chosen(Relation.ADD_REMOVE_ONE, winner, unranked) == (winner,)
    assert chosen(Relation.REPLACE_ONE, winner, behind) == (winner,)


def test_certify_tops_up_selection_splits_and_certifies_the_rest() -> None:
    sampler = PilotSampler(LaplaceSum(), CONFIG)
    chosen = Entry(PAIR, "template", 1.0, 0.0)
    dropped = Entry(PAIR, "template", 1.0, 0.0)
    sampler.draw_all([(chosen, 500), (dropped, 500)])
    calls: list[tuple[int, list[int]]] = []

    def audit(pairs: list[NeighborPair], num: int, outputs: list[Outputs]) -> Any:
        calls.append((num, [min(len(a), len(b)) for a, b in outputs]))
        return "certified"

    cert = certify(sampler, [chosen, dropped], [chosen], total_budget=41_000, audit=audit)
    want = AuditConfig(num_samples=40_000, seed=5).split()[0]
    assert dropped.rows() == 0 and chosen.rows() == 0  # released once certified
    assert cert.pilot_samples == 1000 and cert.topup_samples == want - 500
    assert calls == [(41_000 - 1000 - (want - 500), [want])]
    assert cert.samples == calls[0][0] and cert.selection_rows == (want,) and cert.result == "certified"


def test_cross_fitted_rank_separates_a_leaky_pair_from_identical_sides() -> None:
    rng = np.random.default_rng(0)
    same = rng.normal(size=(4000, 1)), rng.normal(size=(4000, 1))
    leaky = rng.normal(size=(4000, 1)), rng.normal(loc=3.0, size=(4000, 1))
    kw: dict[str, Any] = dict(
        claim_epsilon=1.0, delta=0.0, projected_total=50_000, projected_level=0.05,
        distinguishers=DEFAULT_DISTINGUISHERS,
    )  # fmt: skip
    s_same, _ = cross_fitted(*same, **kw)
    s_leaky, est = cross_fitted(*leaky, **kw)
    assert s_leaky > 0 > s_same
    assert est.p_total == est.q_total == 2000 and est.assumption.startswith("pilot figure")


def test_the_pilot_shows_progress_and_only_displays(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pilot reports its draws on the progress line (2 × samples per side, labelled "pilot"),
    and the search result is the same with the display on or off."""
    import dpaudit.engine.search.procedure as search_module
    from dpaudit.engine.search.procedure import search_and_certify
    from dpaudit.engine.types import AuditConfig
    from dpaudit.mechanisms.reference import LaplaceSum

    shown: list[tuple[str, int]] = []

    class Recorder:
        def __init__(self, label: str, total: int, *, enabled: bool | None = None) -> None:
            self.label, self.total = label, total

        def advance(self, amount: int, note: str = "") -> None:
            shown.append((note, amount))

        def close(self) -> None:
            shown.append(("closed", self.total))

    m = LaplaceSum(epsilon=1.0)
    cfg = AuditConfig(num_samples=20_000, seed=3)
    plain = search_and_certify(m, cfg, registered=m.neighbor_pairs(), show_progress=False)
    monkeypatch.setattr(search_module, "Progress", Recorder)
    watched = search_and_certify(m, cfg, registered=m.neighbor_pairs(), show_progress=True)
    pilot = [a for note, a in shown if note == "pilot"]
    closed = [total for note, total in shown if note == "closed"]
    assert pilot and closed == [2 * int(0.2 * watched.budget)] and shown[-1][0] == "closed"
    assert watched.certified.epsilon_lower_bound == plain.certified.epsilon_lower_bound


def test_stable_top_equals_the_first_k_of_a_stable_argsort() -> None:
    """The pilot's screen keeps the SCREEN_SIZE best candidate events by a partial sort; it must
    pick the same indices in the same order as the full stable argsort (ties by index, ±inf)."""
    from dpaudit.engine.search.ranking import stable_top

    rng = np.random.default_rng(0)
    for _ in range(500):
        n = int(rng.integers(2, 300))
        k = int(rng.integers(1, n + 1))
        v = rng.integers(0, 5, n).astype(float)
        v[rng.random(n) < 0.2] = np.inf
        v[rng.random(n) < 0.1] = -np.inf
        assert np.array_equal(stable_top(v, k), np.argsort(v, kind="stable")[:k])
