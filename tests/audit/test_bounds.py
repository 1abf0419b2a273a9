from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from dpaudit.engine.bounds import (
    cp_lower,
    cp_upper,
    delta_lower_bound,
    epsilon_ceiling,
    epsilon_lower_bound,
    projected_epsilon,
)


@pytest.mark.parametrize(("k", "n"), [(0, 10), (1, 10), (5, 10), (10, 10), (37, 1000), (999_000, 1_000_000)])
@pytest.mark.parametrize("beta", [0.001, 0.025, 0.1])
def test_one_sided_cp_matches_statsmodels_two_sided_at_double_level(k: int, n: int, beta: float) -> None:
    # statsmodels' "beta" interval is two-sided: each side has level alpha/2, so alpha = 2β.
    lo, hi = proportion_confint(k, n, alpha=2 * beta, method="beta")
    assert cp_lower(k, n, beta) == pytest.approx(lo, abs=1e-12)
    assert cp_upper(k, n, beta) == pytest.approx(hi, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10_000), st.data())
def test_cp_bounds_monotone_in_count(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(0, n - 1))
    assert cp_lower(k, n, 0.05) <= cp_lower(k + 1, n, 0.05)
    assert cp_upper(k, n, 0.05) <= cp_upper(k + 1, n, 0.05)
    assert cp_lower(k, n, 0.05) <= k / n <= cp_upper(k, n, 0.05)


@settings(max_examples=200, deadline=None)
@given(st.integers(100, 100_000), st.data())
def test_epsilon_bound_monotone(n: int, data: st.DataObject) -> None:
    kp = data.draw(st.integers(1, n - 1))
    kq = data.draw(st.integers(0, n - 1))
    args = dict(p_total=n, q_total=n, delta=0.0, bound_level=0.05)
    e = epsilon_lower_bound(p_count=kp, q_count=kq, **args)
    assert epsilon_lower_bound(p_count=kp + 1, q_count=kq, **args) >= e
    if kq > 0:
        assert epsilon_lower_bound(p_count=kp, q_count=kq - 1, **args) >= e
    # δ bound at ε is nonnegative and positive exactly when the ε bound exceeds ε
    for eps in (0.0, 0.5, 1.0):
        d = delta_lower_bound(p_count=kp, p_total=n, q_count=kq, q_total=n, epsilon=eps, bound_level=0.05)
        assert d >= 0
        assert (d > 0) == (e > eps) or math.isclose(e, eps, abs_tol=1e-9)


def test_infinite_witness_and_ceiling() -> None:
    n, beta = 1_000_000, 0.05
    half = beta / 2
    # an event never seen on Q: q_hi = 1 − (β/2)^(1/n)
    assert cp_upper(0, n, half) == pytest.approx(1 - half ** (1 / n), rel=1e-9)
    e = epsilon_lower_bound(p_count=n, p_total=n, q_count=0, q_total=n, delta=0.0, bound_level=beta)
    assert e == pytest.approx(epsilon_ceiling(n, bound_level=beta), rel=1e-9)
    assert epsilon_ceiling(n, bound_level=beta) == pytest.approx(math.log(n / math.log(2 / beta)), abs=1e-3)
    assert epsilon_ceiling(100, bound_level=beta, delta=0.9) < epsilon_ceiling(100, bound_level=beta)


def test_cp_coverage_simulation(rng: np.random.Generator) -> None:
    # 20,000 binomial draws; P[cp_lower > p] ≤ β for each. We test the count against
    # Binomial(20000, β) with a one-sided test at level 1e-4 (false-failure probability ≤ 1e-4).
    beta, reps = 0.05, 20_000
    for n, p in [(50, 0.1), (1000, 0.003), (200, 0.5)]:
        k = rng.binomial(n, p, size=reps)
        misses = int(np.sum(cp_lower(k, n, beta) > p))
        assert stats.binom.sf(misses - 1, reps, beta) > 1e-4, (n, p, misses)
        misses_hi = int(np.sum(cp_upper(k, n, beta) < p))
        assert stats.binom.sf(misses_hi - 1, reps, beta) > 1e-4, (n, p, misses_hi)


def test_projection_prefers_well_sampled_events() -> None:
    common = dict(
        selection_total_p=100_000,
        selection_total_q=100_000,
        certify_total_p=900_000,
        certify_total_q=900_000,
        delta=0.0,
        bound_level=0.05,
    )
    # equal selection ratios e: the event with 100x more mass projects a higher certified bound
    big, small = projected_epsilon(np.array([50_000.0, 500.0]), np.array([18_394.0, 184.0]), **common)
    assert big > small
    # a zero on the Q side is shaded, not treated as an infinite witness
    assert projected_epsilon(np.array([3.0]), np.array([0.0]), **common)[0] < 5
