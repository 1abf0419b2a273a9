"""The state-dependent learned trajectory likelihood ratio (`engine.learned.state_trajectory`,
issue 35): a subsampled record whose gradient decays once the model has learned it."""

from __future__ import annotations

import math

import numpy as np

from dpaudit.engine.distinguishers.learned.state_trajectory import (
    StateTrajectoryEvent,
    fit_state_model,
    state_llr,
)
from dpaudit.engine.distinguishers.learned.trajectory import fit_model, llr
from dpaudit.engine.events import event_from_spec

Q, SIGMA, STEPS, LR = 0.1, 1.0, 20, 0.5


def _loop(n: int, canary: bool, rng: np.random.Generator) -> np.ndarray:
    """1-D noisy GD on a logistic-style record: its clipped gradient is 1 until θ passes 0.5, then
    decays as e^{−4(θ − 0.5)} (the model has learned it); every update released."""
    theta, out = np.zeros(n), np.empty((n, STEPS))
    for t in range(STEPS):
        g = np.minimum(1.0, np.exp(-4.0 * (theta - 0.5)))
        u = rng.normal(0.0, SIGMA, n) + (canary * (rng.random(n) < Q)) * g
        out[:, t], theta = u, theta + LR * u
    return out


def _sides(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return _loop(n, True, rng), _loop(n, False, rng)


def _held_out_epsilon(sa: np.ndarray, sb: np.ndarray, delta: float = 1e-2) -> float:
    """max over upper thresholds of log((P_a − δ)/P_b): a point estimate on held-out statistics."""
    best = 0.0
    for t in np.quantile(sa, np.linspace(0.5, 0.995, 200)):
        pa, pb = float((sa >= t).mean()), float((sb >= t).mean())
        if pa > delta and pb > 0:
            best = max(best, math.log((pa - delta) / pb))
    return best


def test_the_fit_finds_the_rate_and_a_shift_that_decays_with_the_state() -> None:
    a, b = _sides(5_000, 0)
    m = fit_state_model(a, b, 1, iterates=False)
    assert m is not None and abs(m.rate - Q) < 0.05
    assert m.knots == tuple(sorted(m.knots)) and len(m.knots) >= 4
    # low states (θ not yet past 0.5): shift ≈ 1; the highest state's shift is well below it
    assert m.shifts[0] > 0.6 and m.shifts[-1] < 0.5 * m.shifts[0]
    assert event_from_spec(m.to_spec()) == m
    assert "state-trajectory-llr" in m.describe()


def test_it_is_more_powerful_than_the_constant_shift_model_when_the_gradient_decays() -> None:
    a, b = _sides(5_000, 1)
    state, const = fit_state_model(a, b, 1, iterates=False), fit_model(a, b, 1, iterates=False)
    assert state is not None and const is not None
    ea, eb = _sides(40_000, 2)
    eps_state = _held_out_epsilon(state_llr(ea, state), state_llr(eb, state))
    eps_const = _held_out_epsilon(llr(ea, const), llr(eb, const))
    assert eps_state > eps_const + 0.1, (eps_state, eps_const)


def test_silent_without_an_inclusion_mixture() -> None:
    """A plain Gaussian shift (no excess variance around the bins' means) is the linear statistics'
    case: no model."""
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.3, 1.0, (5_000, STEPS)), rng.normal(0.0, 1.0, (5_000, STEPS))
    assert fit_state_model(a, b, 1, iterates=False) is None
    assert fit_state_model(b, b, 1, iterates=False) is None


def test_threshold_copies_keep_the_model() -> None:
    a, b = _sides(5_000, 4)
    m = fit_state_model(a, b, 1, iterates=False)
    assert isinstance(m, StateTrajectoryEvent)
    x = np.concatenate([a[:100], b[:100]])
    e = StateTrajectoryEvent.from_spec({**m.to_spec(), "threshold": 1.5, "upper": False})
    assert np.array_equal(e.indicator(x), state_llr(x, m) <= 1.5)


def test_silent_on_a_stationary_mixture() -> None:
    """A subsampled step whose shift never changes (the accountant's gradient canary) is the
    constant-shift model's: the χ² test finds no state dependence and no state model is fitted."""
    rng = np.random.default_rng(5)
    n = 5_000
    a = rng.normal(0.0, SIGMA, (n, STEPS)) + (rng.random((n, STEPS)) < Q)
    b = rng.normal(0.0, SIGMA, (n, STEPS))
    assert fit_state_model(a, b, 1, iterates=False) is None
    assert fit_model(a, b, 1, iterates=False) is not None
