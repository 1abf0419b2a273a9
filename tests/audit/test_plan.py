"""Sample-size planning (issue 7): the bisection is exact, the planned size reaches the target in
a real run (within the noise of pilot and run), and unreachable targets are flagged."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dpaudit.engine.bounds import epsilon_ceiling
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.runner.sizing import (
    plan,
    point_epsilon,
    projected_certified_epsilon,
    required_samples,
    total_samples_for,
)
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.reference import RandomizedResponse
from dpaudit.neighbors.base import Dataset, NeighborPair, Relation

ONE_RECORD = NeighborPair(
    dataset=Dataset(np.array([[0.0]])),
    neighbor=Dataset(np.array([[1.0]])),
    relation=Relation.REPLACE_ONE,
    description="flip the only record",
)


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0.05, 0.95),
    st.floats(0.05, 0.99),
    st.floats(0.1, 0.99),
    st.sampled_from([0.0, 1e-3]),
)
def test_required_samples_is_the_smallest(p: float, ratio: float, frac: float, delta: float) -> None:
    q = p * ratio
    # below a point ε of 0.01 the plan may legitimately exceed MAX_SAMPLES (None): e.g.
    # p = 0.10002, q = 0.99p, δ = 1e-3 has point ε ≈ 1e-5 and needs ≫ 10^13 samples
    assume(point_epsilon(p, q, delta=delta) >= 0.01)
    target = frac * point_epsilon(p, q, delta=delta)
    n = required_samples(p, q, target_epsilon=target, delta=delta, bound_level=0.05)
    assert n is not None

    def eps(k: int) -> float:
        return projected_certified_epsilon(p, q, k, delta=delta, bound_level=0.05)

    assert eps(n) >= target
    assert n == 1 or eps(n - 1) < target


def test_unreachable_and_infinite_witness() -> None:
    assert required_samples(0.3, 0.1, target_epsilon=math.log(3), delta=0.0, bound_level=0.05) is None
    assert required_samples(0.3, 0.1, target_epsilon=1.0, delta=0.3, bound_level=0.05) is None
    # q = 0: planned as an infinite witness, reachable at any target below the ceiling
    n = required_samples(0.5, 0.0, target_epsilon=8.0, delta=0.0, bound_level=0.05)
    assert n is not None and epsilon_ceiling(n, bound_level=0.05) >= 8.0


@pytest.mark.parametrize("n_cert", [1, 500, 1_000, 9_000, 10_000, 123_457, 1_800_000, 5_000_000])
def test_total_samples_for_matches_split(n_cert: int) -> None:
    cfg = AuditConfig()
    total = total_samples_for(n_cert, cfg)
    assert AuditConfig(num_samples=total).split()[1] >= n_cert
    assert total == 200 or AuditConfig(num_samples=total - 1).split()[1] < n_cert


def test_planned_size_reaches_target() -> None:
    """Randomized response (ε = 1) on one record: the only events are {0} and {1}, so the
    planned run certifies the pilot's event. Its expected bound at the planned size equals the
    target up to the pilot's error in ln(P/Q) (sd s_pilot = √((1−P)/P + (1−Q)/Q)/√n_pilot);
    each run's bound has sd s_run (same formula at the planned n). The mean of 20 runs must be
    within 4·√(s_run²/20 + s_pilot²) of the target (false failure ≈ 6e-5)."""
    m = RandomizedResponse(epsilon=1.0)
    target = 0.95
    pl = plan(m, [ONE_RECORD], target_epsilon=target, pilot_samples=200_000, seed=1)
    assert pl.reachable and not pl.exceeds_point_estimate
    assert pl.num_samples is not None and pl.certification_samples is not None
    best = pl.pairs[0]
    p, q, n = best.p_estimate, best.q_estimate, pl.certification_samples
    s_pilot = math.sqrt(((1 - p) / p + (1 - q) / q) / best.pilot_total)
    s_run = math.sqrt(((1 - p) / p + (1 - q) / q) / n)
    bounds = [
        run_audit(m, [ONE_RECORD], AuditConfig(num_samples=pl.num_samples, seed=100 + s)).epsilon_lower_bound
        for s in range(20)
    ]
    assert abs(float(np.mean(bounds)) - target) <= 4 * math.sqrt(s_run**2 / 20 + s_pilot**2)
    run = AuditConfig(num_samples=pl.num_samples)
    assert run.split()[1] >= n
    assert "needs about" in pl.describe() and f"--num-samples {pl.num_samples} " in pl.describe()


def test_target_above_point_estimate_is_flagged() -> None:
    """True ε = 1; the pilot's point estimate of ln(P/Q) has sd ≈ 0.02 at 2·10^4 samples, so a
    target of 1.3 is above it except with negligible probability."""
    m = RandomizedResponse(epsilon=1.0)
    pl = plan(m, [ONE_RECORD], target_epsilon=1.3, pilot_samples=20_000, seed=0)
    assert pl.exceeds_point_estimate and not pl.reachable
    assert pl.num_samples is None and pl.best_pair is None
    assert "No sample size suffices" in pl.describe()
    # the ceiling figures are still reported
    beta = pl.test_level
    k = pl.min_samples_for_claim
    assert k is not None
    assert epsilon_ceiling(k, bound_level=beta) > 1.0
    assert k == 1 or epsilon_ceiling(k - 1, bound_level=beta) <= 1.0
    assert pl.min_samples_for_target is not None and pl.min_samples_for_target >= k
    json.dumps(pl.to_dict())


def test_the_pilot_draws_from_its_own_stream() -> None:
    """The plan's pilot is the audit at `pilot_seed(seed)`, never at the run's own seed."""
    from dpaudit.engine.runner.sizing import pilot_seed

    m = RandomizedResponse(epsilon=1.0)
    pl = plan(m, [ONE_RECORD], target_epsilon=0.9, pilot_samples=20_000, seed=3)
    assert pilot_seed(3) != 3 and len({pilot_seed(s) for s in range(100)}) == 100
    at_pilot = run_audit(m, [ONE_RECORD], AuditConfig(num_samples=20_000, seed=pilot_seed(3)))
    at_run = run_audit(m, [ONE_RECORD], AuditConfig(num_samples=20_000, seed=3))
    assert pl.pilot_epsilon_lower_bound == at_pilot.epsilon_lower_bound
    assert at_pilot.pairs[0].estimate != at_run.pairs[0].estimate


@pytest.mark.parametrize("target", [0.0, -1.0, float("nan")])
def test_a_target_that_is_not_positive_is_refused(target: float) -> None:
    with pytest.raises(ValueError, match="> 0"):
        plan(RandomizedResponse(), [ONE_RECORD], target_epsilon=target)


def test_the_plan_states_the_time_the_run_will_take() -> None:
    """The estimate scales the pilot's wall-clock time by num_samples / pilot_samples, and the
    text gives it; an unreachable plan gives none."""
    m = RandomizedResponse(epsilon=1.0)
    pl = plan(m, [ONE_RECORD], target_epsilon=0.9, pilot_samples=20_000, seed=2)
    assert pl.reachable and pl.num_samples is not None and pl.estimated_seconds is not None
    assert pl.pilot_seconds > 0
    assert pl.estimated_seconds == pytest.approx(pl.pilot_seconds * pl.num_samples / 20_000)
    assert "that run takes about" in pl.describe()
    assert json.loads(json.dumps(pl.to_dict()))["estimated_seconds"] == pytest.approx(pl.estimated_seconds)
    far = plan(m, [ONE_RECORD], target_epsilon=5.0, pilot_samples=20_000, seed=2)
    assert far.estimated_seconds is None and "takes about" not in far.describe()
