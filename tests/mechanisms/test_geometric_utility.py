"""Utility of the private disjunction learner (002 Thm 1.3 / 3.6, SCL(OR) over literals, preset conj-small).

Target: x_1 ∨ x_4 ∨ x_8 over d_b = 16 bits, each bit 1 independently with probability 0.2, so the
labels are balanced (P[y = 0] = 0.8³ = 0.512) and a constant predictor errs on ≈ 49 %. The
learner's released ids h_1..h_T are literals and its hypothesis is their OR (post-processing);
its population error is measured on 20 000 fresh points. Criterion (the theorem's (α, β) at the
preset: α = 0.1, β = 0.1): the number of runs with error > α is at most β·RUNS plus 3.5 binomial
standard deviations. Measured (n = 4000): 0 of 200 runs above α (error exactly 0: every chosen
literal is a target literal); at n = 1500 one run of 50 reached 0.10, at n = 400 most runs err by
0.25–0.5 (ε̂ = 0.057 needs ≈ 10/ε̂ negatives per wrong literal to suppress it). The constant
predictor and a uniformly random 3-literal disjunction fail the same criterion.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dpaudit.mechanisms.geometric.learners import DisjunctionLearner
from dpaudit.neighbors.base import Dataset

TARGET = (0, 3, 7)
N, DATASETS, RUNS_PER, TEST = 4000, 10, 20, 20_000
RUNS = DATASETS * RUNS_PER


def _draw(n: int, d: int, rng: np.random.Generator) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    X = (rng.random((n, d)) < 0.2).astype(np.float64)
    return X, np.asarray(X[:, list(TARGET)].any(axis=1), dtype=bool)


def _or_of(m: DisjunctionLearner, ids: NDArray[np.intp], X: NDArray[np.float64]) -> NDArray[np.bool_]:
    """(runs, len(X)) predictions of h_1 ∨ … ∨ h_T (ids index `hypothesis_labels`' rows)."""
    lab = m.hypothesis_labels(X).astype(bool)
    pred = np.zeros((ids.shape[0], X.shape[0]), dtype=bool)
    for j in range(ids.shape[1]):
        pred |= lab[ids[:, j]]
    return pred


def _passes(failures: int, beta: float) -> bool:
    return failures <= beta * RUNS + 3.5 * math.sqrt(RUNS * beta * (1 - beta))


def test_disjunction_learner_meets_alpha_beta_and_trivial_baselines_do_not() -> None:
    rng = np.random.default_rng(2002)
    m = DisjunctionLearner()
    d, T, alpha, beta = m.num_variables, m.T, m.alpha, m.beta
    Xt, yt = _draw(TEST, d, rng)
    errs, const_errs, random_errs = [], [], []
    for _ in range(DATASETS):
        X, y = _draw(N, d, rng)
        out = m.sample(Dataset(X, y.astype(np.float64)), RUNS_PER, rng=rng)
        ids = out[:, :T].astype(np.intp)
        assert ids.min() >= 0  # always exactly T iterations
        # the released h_fin bits on the probe set are the same OR (the ids are the hypothesis)
        probe = m.probe_points()
        np.testing.assert_array_equal(out[:, T:], _or_of(m, ids, probe).astype(np.float64))
        errs += list(np.mean(_or_of(m, ids, Xt) != yt[None, :], axis=1))
        const_errs.append(float(np.mean(yt != (np.mean(y) >= 0.5))))  # majority label of the sample
        rand = rng.integers(0, 2 * d, size=(RUNS_PER, 3))  # a uniformly random 3-literal disjunction
        random_errs += list(np.mean(_or_of(m, rand, Xt) != yt[None, :], axis=1))
    fails = sum(e > alpha for e in errs)
    assert _passes(fails, beta), (fails, sorted(errs)[-5:])
    assert not _passes(sum(e > alpha for e in const_errs) * RUNS_PER, beta)
    assert not _passes(sum(e > alpha for e in random_errs), beta)
