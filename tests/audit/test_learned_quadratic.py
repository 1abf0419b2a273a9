"""The learned quadratic discriminant (`engine.learned.quadratic`, issue 35 item 2)."""

from __future__ import annotations

import json
import math

import numpy as np
from scipy import stats

from dpaudit.api import audit
from dpaudit.engine.distinguishers.learned import QuadraticDistinguisher, QuadraticEvent
from dpaudit.engine.distinguishers.learned.quadratic import fit_quadratic
from dpaudit.engine.distinguishers.selection import BASE_DISTINGUISHERS
from dpaudit.engine.events import event_from_spec
from dpaudit.engine.runner import run_audit
from dpaudit.engine.types import AuditConfig, Verdict
from dpaudit.neighbors.base import Dataset, NeighborPair, Relation
from tests.blind_mechanisms import BY_NAME

DIM, SD_A, SD_B = 3, 1.0, 2.0


def _sides(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    return rng.normal(0.0, SD_A, (n, DIM)), rng.normal(0.0, SD_B, (n, DIM))


def _optimal_advantage() -> float:
    """max_E P_b(E) − P_a(E) for N(0, I) vs N(0, 4I) in 3-D: the total variation distance, attained
    by the likelihood-ratio event {‖x‖² ≥ r²} with r² = 2·d·ln(SD_B / SD_A) / (1/SD_A² − 1/SD_B²)."""
    r2 = 2 * DIM * math.log(SD_B / SD_A) / (1 / SD_A**2 - 1 / SD_B**2)
    return float(stats.chi2.sf(r2 / SD_B**2, DIM) - stats.chi2.sf(r2 / SD_A**2, DIM))


def test_a_change_of_scale_is_separated_nearly_as_well_as_by_the_true_llr() -> None:
    a, b = _sides(20_000, np.random.default_rng(0))
    cands = QuadraticDistinguisher().propose(a, b)
    assert cands is not None
    # the event with the largest selection advantage (held-out counts), judged on fresh samples
    best = cands.make_event(int(np.argmax(np.abs(cands.counts_b - cands.counts_a))))
    assert isinstance(best, QuadraticEvent)
    fa, fb = _sides(200_000, np.random.default_rng(1))
    advantage = abs(best.indicator(fb).mean() - best.indicator(fa).mean())
    optimal = _optimal_advantage()
    assert optimal > 0.4  # a clear separation that no linear threshold achieves
    assert advantage > optimal - 0.02, (advantage, optimal)
    # the fitted scales are the true ones
    assert np.allclose(best.var_a, SD_A**2, rtol=0.05) and np.allclose(best.var_b, SD_B**2, rtol=0.05)


def test_equal_distributions_propose_nothing_or_nothing_useful() -> None:
    hits = 0
    for seed in range(10):
        rng = np.random.default_rng(100 + seed)
        a, b = rng.normal(size=(4_000, DIM)), rng.normal(size=(4_000, DIM))
        cands = QuadraticDistinguisher().propose(a, b)
        if cands is None:
            continue
        hits += 1
        best = cands.make_event(int(np.argmax(np.abs(cands.counts_b - cands.counts_a))))
        fa, fb = rng.normal(size=(100_000, DIM)), rng.normal(size=(100_000, DIM))
        assert abs(best.indicator(fb).mean() - best.indicator(fa).mean()) < 0.01
    assert hits <= 2  # the gate (variances differing by 4 standard errors) almost never opens


def test_a_shift_without_a_change_of_scale_is_left_to_the_linear_statistics() -> None:
    rng = np.random.default_rng(5)
    a, b = rng.normal(0.0, 1.0, (4_000, DIM)), rng.normal(1.0, 1.0, (4_000, DIM))
    assert fit_quadratic(a, b) is None


def test_the_event_round_trips_through_its_spec_and_restatistics_identically() -> None:
    a, b = _sides(2_000, np.random.default_rng(2))
    cands = QuadraticDistinguisher().propose(a, b)
    assert cands is not None
    ev = cands.make_event(3)
    assert isinstance(ev, QuadraticEvent)
    spec = ev.to_spec()
    assert spec["type"] == "quadratic-llr"
    back = event_from_spec(json.loads(json.dumps(spec)))
    assert back == ev
    x = np.random.default_rng(3).normal(size=(500, DIM))
    assert np.array_equal(back.indicator(x), ev.indicator(x))
    assert "quadratic-llr" in ev.describe()


def test_not_applicable_to_scalar_wide_or_constant_outputs() -> None:
    rng = np.random.default_rng(4)
    d = QuadraticDistinguisher()
    assert d.propose(rng.normal(size=(500, 1)), rng.normal(0, 3, size=(500, 1))) is None
    assert d.propose(rng.normal(size=(500, 40)), rng.normal(0, 3, size=(500, 40))) is None
    # a side constant on a coordinate: the floored variance keeps the statistic finite
    a = np.column_stack([rng.normal(size=2_000), np.zeros(2_000)])
    b = np.column_stack([rng.normal(size=2_000), rng.normal(size=2_000)])
    cands = d.propose(a, b)
    assert cands is not None and np.all(np.isfinite(cands.counts_a))


# --- end to end: a Gaussian mechanism whose σ uses the dataset's own size (tests/blind_mechanisms.py)


def _scale_pair() -> NeighborPair:
    """The scale-only pair: the same record, n = 1 vs n = 2 (σ halves, the mean is unchanged)."""
    x = np.array([[0.5, 0.5, 0.5]])
    return NeighborPair(
        dataset=Dataset(x),
        neighbor=Dataset(np.vstack([x, x])),
        relation=Relation.ADD_REMOVE_ONE,
        description="n = 1 vs n = 2",
    )


def test_the_quadratic_event_certifies_a_change_of_scale_on_fresh_samples() -> None:
    row = BY_NAME["gaussian_mean_own_size"]
    config = AuditConfig(num_samples=100_000, seed=0)
    base = run_audit(row.mechanism, [_scale_pair()], config, distinguishers=BASE_DISTINGUISHERS)
    quadratic = (*BASE_DISTINGUISHERS, QuadraticDistinguisher())
    with_q = run_audit(row.mechanism, [_scale_pair()], config, distinguishers=quadratic)
    assert with_q.violation and with_q.pairs[0].event_spec is not None
    assert with_q.pairs[0].event_spec["type"] == "quadratic-llr"  # chosen on selection, certified fresh
    assert with_q.epsilon_lower_bound > base.epsilon_lower_bound + 1.0, (
        with_q.epsilon_lower_bound,
        base.epsilon_lower_bound,
    )
    assert with_q.epsilon_lower_bound <= row.truth


def test_blind_audit_flags_the_own_size_sigma_and_passes_the_public_one() -> None:
    buggy = audit(BY_NAME["gaussian_mean_own_size"].mechanism, seed=0)
    assert buggy.verdict is Verdict.VIOLATION_FOUND, buggy.epsilon_lower_bound
    correct = audit(BY_NAME["gaussian_mean_public_size"].mechanism, seed=0)
    assert correct.verdict is not Verdict.VIOLATION_FOUND, correct.epsilon_lower_bound
