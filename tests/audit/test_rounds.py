"""Sequential selection in doubling rounds (audit/runner/rounds.py, issue 44).

Statistical statements: the one-sided fixture below (output 1 always on D, never on D′) is
certified above ε = 1 from the first round's 32 + 48 samples per side at any seed (its bound is
deterministic); the coverage test's counts are measured (benchmarks/stopping_coverage.py prints
the same figures at 1,000 audits: 39/1000 with the split at β = 0.5 against 981/1000 without).
"""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from dpaudit.app.route import pairs_for
from dpaudit.engine.runner import rounds as rounds_module
from dpaudit.engine.runner import run_audit
from dpaudit.engine.runner.rounds import ROUND_SELECTION, round_schedule
from dpaudit.engine.runner.stopping import VIOLATION
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import PrivacyClaim
from dpaudit.mechanisms.registry import resolve
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import stopping_coverage


@pytest.mark.parametrize("cap", [200, 383, 384, 1_000, 2_000, 20_000, 10**6])
def test_the_rounds_fit_the_cap_and_their_shares_sum_below_one(cap: int) -> None:
    rounds = round_schedule(cap)
    assert sum(r.selection + r.certification for r in rounds) == cap  # selection included
    assert sum(r.share for r in rounds) < 1 and rounds[-1].share == 0.5
    assert [r.selection for r in rounds[:-1]] == [ROUND_SELECTION * 2**r.index for r in rounds[:-1]]
    assert all(r.certification >= r.selection > 0 for r in rounds)
    assert rounds[-1].selection + rounds[-1].certification >= cap // 2 or len(rounds) == 1


class OneSided:
    """Output 1 on D always, 0 on D′ always: a label-set bug's shape (ε = ∞) claiming ε = 1."""

    name = "one_sided"
    claim = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="test fixture")
    domain = Domain(num_features=1, feature_low=0.0, feature_high=1.0)
    seedable = True

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        pair = NeighborPair(
            dataset=Dataset([[0.0]]),
            neighbor=Dataset([[1.0]]),
            relation=Relation.REPLACE_ONE,
            description="0 vs 1",
        )
        return (pair,)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> np.ndarray:
        return np.full(num_samples, float(dataset.X[0, 0] < 0.5)) + 0.0 * rng.random(num_samples)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_one_sided_witness_is_certified_in_the_first_round(seed: int) -> None:
    m = OneSided()
    r = run_audit(
        m,
        list(m.neighbor_pairs()),
        AuditConfig(num_samples=2_000, seed=seed, sequential=True),
        show_progress=False,
    )
    seq = r.extra["sequential"]
    assert isinstance(seq, dict)
    assert r.violation and seq["reason"] == VIOLATION and seq["round"] == 0
    assert seq["drawn"] == ROUND_SELECTION + seq["stopped_at"] <= 2_000 // 10
    assert r.epsilon_lower_bound > 1
    # the certificate is the stopping look's: β_t × the look's share × the round's share
    assert r.test_level == pytest.approx(0.05 * seq["share"])
    assert seq["share"] < 0.05


def test_rounds_are_reproducible_and_draw_fresh_samples_each_round() -> None:
    mechanism, _ = resolve("randomized_response", {})
    pairs = pairs_for(mechanism)
    config = AuditConfig(num_samples=2_000, seed=4, sequential=True)
    a = run_audit(mechanism, pairs, config, show_progress=False)
    b = run_audit(mechanism, pairs, config, show_progress=False)
    assert a.pairs[0].estimate == b.pairs[0].estimate and a.extra["sequential"] == b.extra["sequential"]
    seq = a.extra["sequential"]
    assert (
        isinstance(seq, dict) and seq["drawn"] <= 2_000 and len(seq["rounds"]) == len(round_schedule(2_000))
    )
    assert not a.violation and a.epsilon_lower_bound <= 1.0


@pytest.mark.parametrize("beta", [0.05, 0.5])
def test_coverage_holds_with_the_split_and_fails_without_it(beta: float) -> None:
    audits, cap = 400, 5_000
    sd = math.sqrt(beta * (1 - beta) * audits)
    kept = stopping_coverage.round_failures("rr", beta=beta, cap=cap, audits=audits, seed=0)
    dropped = stopping_coverage.round_failures("rr", beta=beta, cap=cap, audits=audits, seed=0, split=False)
    assert kept <= beta * audits + 3 * sd
    assert dropped > beta * audits  # the split is what keeps it (measured: 25 and 390 of 400)


def test_seeded_runner_audits_at_the_exact_epsilon_rarely_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    """200 seeded run_audits of randomized_response (claim = exact ε = 1) through the rounds at
    β = 0.5: false violations ≤ β·audits; with the rounds' split dropped (every round at β_t),
    more of them (the runner, not a model of it, takes the split)."""
    from dpaudit.engine.distinguishers import HistogramDistinguisher

    mechanism, _ = resolve("randomized_response", {})
    pairs = pairs_for(mechanism)

    def false_violations() -> int:
        return sum(
            run_audit(
                mechanism,
                pairs,
                AuditConfig(num_samples=1_000, seed=s, sequential=True, failure_probability=0.5),
                distinguishers=[HistogramDistinguisher()],
                show_progress=False,
            ).violation
            for s in range(200)
        )

    kept = false_violations()
    schedule = rounds_module.round_schedule
    monkeypatch.setattr(
        rounds_module,
        "round_schedule",
        lambda cap: tuple(dataclasses.replace(r, share=1.0) for r in schedule(cap)),
    )
    dropped = false_violations()
    assert kept <= 0.5 * 200
    assert dropped > kept


def test_the_default_route_decides_a_clear_violation_in_its_first_round() -> None:
    import dpaudit

    r = dpaudit.audit("randomized_response_half_flip", num_samples=20_000, sequential=True)
    first = r.extra["first_round"]
    assert (
        isinstance(first, dict) and first["verdict"] == "violation_found" and first["pairs"] == "registered"
    )
    assert r.violation and r.failure_probability == 0.05
    assert "search" not in r.extra  # no pilot was drawn
    assert int(first["drawn"]) <= 4_000 // 10 and int(first["cap"]) == 4_000


def test_the_default_route_searches_on_the_rest_after_a_first_round_without_a_violation() -> None:
    import dpaudit
    from dpaudit.app.summary import samples_sentence

    r = dpaudit.audit("randomized_response", num_samples=5_000, sequential=True)
    first = r.extra["first_round"]
    assert isinstance(first, dict) and first["verdict"] != "violation_found"
    assert not r.violation and r.failure_probability == pytest.approx(0.05)
    assert r.test_level <= 0.05 * 3 / 4  # the rest of β after the first round's quarter
    assert samples_sentence(r).startswith("5,000 asked; a first round on the registered pairs drew ")
    fixed = dpaudit.audit("randomized_response", num_samples=5_000)
    assert "first_round" not in fixed.extra  # the fixed-n route (the main job's) has none
