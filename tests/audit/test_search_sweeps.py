"""The sweep screen (`audit.search_sweeps`), coupled pilot draws, and the choice when the pilot
cannot rank the registered pairs (`search_pilot.inseparable`, `search_certify.choose`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit.engine.distinguishers import DEFAULT_DISTINGUISHERS
from dpaudit.engine.search.candidates import Proposer, proposal_rng
from dpaudit.engine.search.certify import choose
from dpaudit.engine.search.pilot import Halving, Pilot, RegisteredPairs, inseparable
from dpaudit.engine.search.pilot_samples import Entry, PilotSampler
from dpaudit.engine.search.procedure import search_and_certify
from dpaudit.engine.search.ranking import Ranker
from dpaudit.engine.search.sweeps import (
    MIN_SWEEP_SAMPLES,
    REFERENCE_ROWS,
    SWEEP_FINALISTS,
    sweep_screen,
    sweep_weights,
)
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import PrivacyClaim, claims_of, from_callable
from dpaudit.mechanisms.reference import LaplaceSum
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation
from dpaudit.neighbors.sweep_locations import DESIGN_POINTS

CONFIG = AuditConfig(num_samples=20_000, seed=3, failure_probability=0.05)
CLAIM = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="test")
BOX = Domain(num_features=1)


def _threshold(t: int) -> Any:
    """A noisy count of x ≥ 0.5 released only when the true count reaches t (true ε = ∞)."""

    def batch(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
        count = int(np.count_nonzero(ds.X[:, 0] >= 0.5))
        return count + rng.laplace(0.0, 1.0, size=m) if count >= t else np.full(m, -1.0)

    return from_callable(name=f"threshold_{t}", claim=CLAIM, domain=BOX, batch_fn=batch)


def _shift(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
    return ds.X[:, 0].sum() + rng.laplace(0.0, 1.0, size=m)


def _setup(mech: Any) -> tuple[PilotSampler, Proposer, Ranker]:
    sampler = PilotSampler(mech, CONFIG)
    claims = claims_of(mech)
    relations = tuple(dict.fromkeys(c.relation for c in claims))
    proposer = Proposer(mech.domain, claims, relations, proposal_rng(0), sampler.skipped)
    ranker = Ranker(projected_total=100_000, projected_level=0.05, distinguishers=DEFAULT_DISTINGUISHERS)
    return sampler, proposer, ranker


def test_coupled_draws_share_the_stream_and_the_screen_stays_in_its_budget() -> None:
    mech = from_callable(name="shift", claim=CLAIM, domain=BOX, batch_fn=_shift)
    sampler, proposer, ranker = _setup(mech)
    pair = NeighborPair(
        dataset=Dataset(np.zeros((1, 1))),
        neighbor=Dataset(np.ones((1, 1))),
        relation=Relation.REPLACE_ONE,
        description="p",
    )
    coupled, independent = Entry(pair, "sweep", 1.0, 0.0), Entry(pair, "sweep", 1.0, 0.0)
    sampler.draw_all([(coupled, 100)], coupled=True)
    sampler.draw_all([(independent, 100)])
    a, b = coupled.outputs()
    assert np.allclose(b - a, 1.0)  # the same noise on both datasets
    a, b = independent.outputs()
    assert not np.allclose(b - a, 1.0)
    assert sampler.coupled_draws == 1 and len(sampler.seeds) == 1  # coupled seeds are their own
    before = sampler.spent
    found = sweep_screen(sampler, proposer, ranker, budget=40 * MIN_SWEEP_SAMPLES, limit=36)
    assert found.coupled and 2 < found.ranked < 36 < found.proposed  # the row weights bind first
    assert sampler.spent - before == found.samples <= 40 * MIN_SWEEP_SAMPLES
    weights = sweep_weights(proposer.sweeps()[: found.ranked], REFERENCE_ROWS)
    assert weights.sum() * found.samples_per_candidate <= 40 * MIN_SWEEP_SAMPLES
    assert len(found.finalists) == SWEEP_FINALISTS
    assert all(isinstance(p, NeighborPair) for p in found.finalists)  # pairs, no samples kept


def test_the_sweep_finds_the_threshold_pair_and_certifies_it_on_fresh_samples() -> None:
    mech = _threshold(20)
    found = search_and_certify(mech, AuditConfig(num_samples=1_000_000, seed=0))
    sweeps: dict[str, Any] = found.certified.extra["search"]["sweeps"]  # type: ignore[index]
    words = "20 records at x = 1 vs 19 records at x = 1 and one at x = 0, replace-one"
    assert sweeps["finalists"][0] == words and sweeps["coupled"]
    # both extremes, the centre, the quartiles 0.25, 0.75 and the 16 points of the Sobol design
    assert sweeps["locations"] == 5 + DESIGN_POINTS and sweeps["rounds"] >= 2
    assert 0 < sweeps["samples"] <= found.budget // 16
    assert found.certified.violation
    assert found.certified_pairs[0].description == words
    i = found.candidate_pairs.index(found.certified_pairs[0])
    assert found.sources[i] == "sweep"  # screened afresh as a candidate, not on coupled draws
    estimate = found.certified.pairs[0].estimate
    assert estimate.infinite_witness and estimate.p_total == found.certification_samples


def test_without_sweeps_the_threshold_is_missed() -> None:
    """The sweeps are what catches it (the templates stop at a few records)."""
    found = search_and_certify(_threshold(20), AuditConfig(num_samples=1_000_000, seed=0), sweep_max_count=0)
    record: dict[str, Any] = found.certified.extra["search"]  # type: ignore[assignment]
    assert record["sweeps"]["ranked"] == 0
    assert not found.certified.violation


def _entry(rank: float, *, source: str = "registered", drawn: int = 10_000) -> Entry:
    e = Entry(LaplaceSum().neighbor_pairs()[0], source, 1.0, 0.0)
    e.rank, e.drawn, e.spread = rank, drawn, 0.05
    return e


def test_inseparable_registered_pairs_are_all_certified_in_their_order() -> None:
    first, second, third = _entry(-1.7), _entry(-1.66), _entry(-1.9)  # projected ε ≤ 0 for all
    assert inseparable(second, [first, third], floor=-1.66 - 0.3)  # all within the measured tie
    assert inseparable(second, [first, third], floor=-1.66 - 0.15)  # quiet, equal claims: noise orders them
    assert not inseparable(_entry(0.0), [_entry(-1.0)], floor=-0.15)  # evidence, and separated
    assert not inseparable(_entry(0.5), [], floor=0.0)  # one registered pair: nothing to separate
    # no pair projects any loss (rank + claim ≤ 0) and the claims are equal: only noise orders them
    assert inseparable(_entry(-1.36), [_entry(-2.48)], floor=-1.36 - 0.15)
    # the same ranks, but the second pair is held to a claim 1.3 larger: its claim ranks it
    held = _entry(-2.48)
    held.claim_epsilon = 2.3
    assert not inseparable(_entry(-1.36), [held], floor=-1.36 - 0.15)
    # evidence (projected ε 0.5 > 0) and separated beyond the tie: ranked
    assert not inseparable(_entry(-0.5), [_entry(-1.2)], floor=-0.5 - 0.15)
    assert inseparable(_entry(0.0), [_entry(-0.1)], floor=-0.15)  # within the tie
    lucky = _entry(-0.84, source="random", drawn=11_000)  # beats the champion, projects no violation
    violating = _entry(0.9, source="sweep", drawn=11_000)

    def chosen(generated: Entry) -> tuple[Entry, ...]:
        reg = RegisteredPairs(
            champion=second, contenders=(first, third), inseparable=True, in_order=(first, second, third)
        )
        pilot = Pilot(
            entries=(first, second, third, generated),
            registered=reg,
            halving=Halving(survivors=(generated,), rounds=1),
            champion=second,
        )
        kw: dict[str, Any] = {"spare": 30_000, "registered_certification": 18_000}
        return choose(
            pilot, verdict_relation=Relation.REPLACE_ONE, top_k=1, hedge_registered=True, **kw
        ).chosen

    assert chosen(lucky) == (first, second, third)  # as the registered route, in its order
    assert chosen(violating) == (first, second, third, violating)
