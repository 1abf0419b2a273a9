"""The runner's stages, each alone: plan, probe, select, certify, assemble (and their composition)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from dpaudit.engine.bounds import cp_lower, cp_upper, epsilon_ceiling
from dpaudit.engine.distinguishers import default_distinguishers
from dpaudit.engine.distinguishers.objectives import EpsilonAt
from dpaudit.engine.distinguishers.selection import Selection, ThresholdEvent
from dpaudit.engine.progress import Progress
from dpaudit.engine.runner.assemble import assemble, assemble_pair
from dpaudit.engine.runner.certificates import CertifiedCounts, ChunkLayout, Selected, certify_test
from dpaudit.engine.runner.plan import plan_audit
from dpaudit.engine.runner.procedure import (
    AuditInputError,
    certify_counts,
    probe_layout,
    run_audit,
    select_events,
)
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.reference import LaplaceSum

CONFIG = AuditConfig(num_samples=20_000, seed=4, chunk_size=3000)


def _quiet(mechanism: LaplaceSum) -> Progress:
    return Progress(mechanism.name, 1, enabled=False)


def test_plan_stage_splits_the_failure_probability_over_all_tests() -> None:
    m = LaplaceSum()
    cfg = dataclasses.replace(CONFIG, profile_deltas=(1e-2, 1e-1))
    plan = plan_audit(m, m.neighbor_pairs(), cfg)
    assert len(plan.pairs) == len(m.neighbor_pairs())
    assert all(
        len(o) == 3 and o[0] == EpsilonAt(p.claim.delta)
        for p, o in zip(plan.pairs, plan.objectives, strict=True)
    )
    assert plan.num_tests == 3 * len(plan.pairs)
    assert plan.test_level == cfg.failure_probability / plan.num_tests
    assert (plan.selection_samples, plan.certification_samples) == cfg.split()
    assert plan.epsilon_ceiling == epsilon_ceiling(
        plan.certification_samples, bound_level=plan.test_level, delta=plan.verdict_claim.delta
    )
    assert plan.warnings == ()
    with pytest.raises(AuditInputError):
        plan_audit(m, [], cfg)


def test_plan_stage_with_given_outputs_certifies_on_all_samples() -> None:
    m = LaplaceSum()
    pairs = m.neighbor_pairs()[:1]
    given = [(np.zeros((500, 1)), np.ones((700, 1)))]
    plan = plan_audit(m, pairs, CONFIG, parameters=(("a", "b"),), selection_outputs=given)
    assert (plan.selection_samples, plan.certification_samples) == (500, CONFIG.num_samples)
    assert plan.key_parameters[0] == ("a", "b") and plan.key_parameters[1][0] == "selection_outputs"
    with pytest.raises(AuditInputError, match="selection_outputs"):
        plan_audit(m, pairs, CONFIG, selection_outputs=given * 2)


def test_probe_stage_lays_out_the_certification_split() -> None:
    m = LaplaceSum()
    plan = plan_audit(m, m.neighbor_pairs(), CONFIG)
    layout = probe_layout(m, plan, CONFIG)
    assert layout.chunk == 3000
    assert sum(layout.sizes) == plan.certification_samples
    assert layout.offsets == tuple(int(x) for x in np.cumsum((0, *layout.sizes))[:-1])
    assert layout.points[-1] == plan.certification_samples


def test_certify_test_takes_the_best_of_k_events_at_beta_over_k() -> None:
    """Two events certified in one test: each at β_t/2, the better one (more separated counts) reported."""
    m = LaplaceSum()
    weak = Selection(ThresholdEvent(threshold=0.0, upper=True), True, 0.1, "weak")
    strong = Selection(ThresholdEvent(threshold=1.0, upper=True), True, 0.2, "strong")
    sel = dataclasses.replace(weak, also=(strong,))
    counts = np.array([[600, 400], [300, 50]], dtype=np.int64)
    est, records, best = certify_test(sel, counts, 1000, 0.01, m.claim, EpsilonAt(m.claim.delta))
    assert best == 1 and [r["reported"] for r in records] == [False, True]
    assert est.bound_level == 0.005
    assert est.p_lower == float(cp_lower(300, 1000, 0.0025))
    assert est.q_upper == float(cp_upper(50, 1000, 0.0025))
    assert est.distinguisher == "strong"


def test_assemble_pair_from_hand_made_counts() -> None:
    """Assemble alone: an event seen on one side only is an infinite witness, hence a violation."""
    m = LaplaceSum()
    plan = plan_audit(m, m.neighbor_pairs()[:1], CONFIG)
    n = plan.certification_samples
    layout = ChunkLayout(chunk=n, sizes=(n,), offsets=(0,), points=(n,))
    selected = Selected(((Selection(ThresholdEvent(threshold=0.5, upper=True), True, math.inf, "hand"),),))
    counts = CertifiedCounts(
        counts=(np.array([[n // 2, 0]], dtype=np.int64),),
        prefix=(np.array([[[n // 2], [0]]], dtype=np.int64),),
    )
    outcome = assemble_pair(m, plan, layout, selected, counts, index=0)
    assert outcome.result.violation and outcome.result.estimate.infinite_witness
    assert outcome.result.estimate.p_count == n // 2 and outcome.result.estimate.q_count == 0
    assert outcome.result.trajectory == ((n, outcome.result.estimate.epsilon_lower_bound),)
    assert outcome.certified_events == ()


def test_stages_composed_by_hand_reproduce_run_audit() -> None:
    m = LaplaceSum()
    pairs = m.neighbor_pairs()
    plan = plan_audit(m, pairs, CONFIG)
    layout = probe_layout(m, plan, CONFIG)
    selected = select_events(
        m, plan, CONFIG, layout, distinguishers=default_distinguishers(), progress=_quiet(m)
    )
    assert [len(s) for s in selected.selections] == [len(o) for o in plan.objectives]
    counts = certify_counts(m, plan, CONFIG, layout, selected, progress=_quiet(m))
    assert all(c[:, 0].max() <= plan.certification_samples for c in counts.counts)
    by_hand = assemble(m, plan, CONFIG, layout, selected, counts, started=0.0, parameters=(), command="")
    direct = run_audit(m, pairs, CONFIG, show_progress=False)
    assert dataclasses.replace(by_hand, elapsed_seconds=0.0) == dataclasses.replace(
        direct, elapsed_seconds=0.0
    )
