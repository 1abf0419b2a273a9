"""Utility of the private decision-list learner for k-decision lists (003 Cor. A.8, k = 2).

Learner: `PrivateDecisionList` with F = the conjunctions of ≤ 2 literals over d = 5 variables
(negations allowed: 50 features, 51 exponential-mechanism steps), ε0 = 1 (c = ½). Target, a
2-decision list: (x_1 ∧ x_2 → 1), (¬x_3 ∧ x_4 → 0), (x_5 → 1), else 0 (17 of 32 points positive).
Examples are uniform on {0,1}^5 and the release is the list's full truth table, so the
population error is the fraction of the 32 points it gets wrong. Criterion (α = β = 0.1): at most
β·RUNS + 3.5 binomial standard deviations of the runs err by more than α. Measured at n = 1000:
0 of 200 runs above α (every run exact); at n = 200, 8 of 100 runs erred by 0.094, none above α.
The majority-label constant (error 0.469) and the learner with no privacy budget to spend
(ε0 = 10⁻⁶, an essentially uniformly random list: errors 0.22–0.8, median 0.5, 200 of 200 runs
above α) fail the same criterion.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dpaudit.mechanisms.decision_lists.rivest import PrivateDecisionList
from dpaudit.neighbors.base import Dataset

D, N, DATASETS, RUNS_PER, ALPHA, BETA = 5, 1000, 10, 20, 0.1, 0.1
RUNS = DATASETS * RUNS_PER


def _target(X: NDArray[np.float64]) -> NDArray[np.float64]:
    out = np.zeros(len(X))
    done = np.zeros(len(X), dtype=bool)
    for cond, b in (
        ((X[:, 0] == 1) & (X[:, 1] == 1), 1.0),
        ((X[:, 2] == 0) & (X[:, 3] == 1), 0.0),
        (X[:, 4] == 1, 1.0),
    ):
        out[cond & ~done] = b
        done |= cond
    return out


def _errors(m: PrivateDecisionList, rng: np.random.Generator) -> tuple[list[float], list[float]]:
    """Per-run population errors of the learner and of the sample's majority-label constant."""
    truth = _target(m.probe)
    errs, const = [], []
    for _ in range(DATASETS):
        X = rng.integers(0, 2, (N, D)).astype(np.float64)
        y = _target(X)
        out = m.sample(Dataset(X, y), RUNS_PER, rng=rng)
        errs += list(np.mean(out != truth[None, :], axis=1))
        const += [float(np.mean(truth != float(y.mean() >= 0.5)))] * RUNS_PER
    return errs, const


def _passes(errs: list[float]) -> bool:
    fails = sum(e > ALPHA for e in errs)
    return fails <= BETA * RUNS + 3.5 * math.sqrt(RUNS * BETA * (1 - BETA))


def test_k_decision_list_learner_meets_alpha_beta_and_trivial_baselines_do_not() -> None:
    rng = np.random.default_rng(3003)
    m = PrivateDecisionList(num_features=D, k=2, negations=True, epsilon0=1.0, max_size=N)
    assert m.probe.shape == (2**D, D) and m.num_steps == 51
    errs, const = _errors(m, rng)
    assert _passes(errs), sorted(errs)[-5:]
    assert not _passes(const)
    uniform = PrivateDecisionList(num_features=D, k=2, negations=True, epsilon0=1e-6, max_size=N)
    assert not _passes(_errors(uniform, rng)[0])
