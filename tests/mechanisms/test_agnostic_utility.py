"""Utility of the EM learner and of RelabelAndLearn at their theorems' α, β, against a fair coin.

Each test measures the excess empirical error of the released concept over 200 seeded runs (a
fresh η-noisy threshold dataset per run, one output per run), counts the runs whose excess
exceeds the theorem's bound, and asserts the count is at most the theorem's failure
probability times the number of runs plus 3.5 binomial standard deviations (false-failure
probability ≤ 3e-4 if the theorem's β were attained exactly; the learners' true failure rate
is far below β). The same criterion is then applied to a uniformly random threshold (a fair
coin over the class, whatever the data) and to a constant predictor, which must fail it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from dpaudit.mechanisms.agnostic._common import concept_class, error_counts, labelled
from dpaudit.mechanisms.agnostic.abms import RelabelAndLearn
from dpaudit.mechanisms.agnostic.em import EMLearner

D, ETA, TSTAR, RUNS = 16, 0.1, 6, 200
C = concept_class("thr", D)


def _noisy(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    x = rng.integers(0, D, n)
    return x, ((x >= TSTAR).astype(int) ^ (rng.random(n) < ETA)).astype(int)


def _excess(x: np.ndarray, y: np.ndarray, g: int) -> float:
    """error_S(g) − min_f error_S(f) on the records (x, y), as a fraction."""
    cells = np.zeros((1, D, 2))
    np.add.at(cells[0], (x, y), 1.0)
    errs = error_counts(C, cells)[0]
    return float((errs[g] - errs.min()) / x.size)


def _passes(failures: int, beta: float) -> bool:
    return failures <= beta * RUNS + 3.5 * math.sqrt(RUNS * beta * (1 - beta))


def _failures(
    learner: Callable[[np.ndarray, np.ndarray, np.random.Generator], int],
    n: int,
    scored: int,
    bound: float,
    rng: np.random.Generator,
) -> int:
    """Runs (of RUNS) whose excess on the first `scored` records exceeds `bound`."""
    count = 0
    for _ in range(RUNS):
        x, y = _noisy(n, rng)
        g = learner(x, y, rng)
        count += _excess(x[:scored], y[:scored], g) > bound
    return count


def _coin(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.integers(0, C.shape[0]))


def _constant(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> int:
    return 0  # threshold t = 0: always predicts 1


def test_em_learner_meets_prop_3_13_and_a_coin_does_not(rng: np.random.Generator) -> None:
    """Prop. 3.13(ii) (Alon, Beimel, Moran & Stemmer; Lemma 2.9 of Li, Wang & Ye): the EM
    outputs h with error_S(h) > min_f error_S(f) + Δ with probability ≤ |H|·exp(−εΔm/2).
    At ε = 1, |H| = 17 (THR_16), m = 200, β = 0.05: Δ = 2 ln(|H|/β)/(εm) = 0.058.
    Measured: 0 of 200 runs exceed Δ. A uniformly random threshold exceeds it in 75–85% of runs
    (only t ∈ {5, 6, 7} stay within Δ), the constant predictor in every run."""
    m, eps, beta = 200, 1.0, 0.05
    em = EMLearner(epsilon=eps, d=D)
    delta = 2 * math.log(C.shape[0] / beta) / (eps * m)

    def learner(x: np.ndarray, y: np.ndarray, g: np.random.Generator) -> int:
        return int(em.sample(labelled(x, y), 1, rng=g)[0])

    assert _passes(_failures(learner, m, m, delta, rng), beta)
    assert not _passes(_failures(_coin, m, m, delta, rng), beta)
    assert not _passes(_failures(_constant, m, m, delta, rng), beta)


def test_relabel_and_learn_meets_claim_5_4_and_a_coin_does_not(rng: np.random.Generator) -> None:
    """Claim 5.4 (Alon, Beimel, Moran & Stemmer): if |D| ≥ (2/α)ln(1/β) + (2VC/α)ln(e|S|/VC),
    A_Relabel's h has q(D, h) ≤ min_c q(D, c) + α|D| with probability ≥ 1 − β; 𝒜 (the EM
    learner, ε_A = 1) on S^h then outputs g with dis_S(g, h) ≤ 2 ln(|H|/β)/ε_A records with
    probability ≥ 1 − β (Prop. 3.13(ii), S^h is realisable by h). So err_D(g) − min ≤ α +
    2 ln(|H|/β)/(ε_A|D|) with probability ≥ 1 − 2β. At |D| = 400, |T| = 100 (VC = 1, β = 0.05):
    α = 0.051, bound 0.080. Measured: 0 of 200 runs exceed it; a uniformly random threshold
    exceeds it in 75–85% of runs, the constant predictor in every run."""
    size_d, size_t, beta = 400, 100, 0.05
    mech = RelabelAndLearn(d=D, size_d=size_d, size_t=size_t)
    n = size_d + size_t
    alpha = (2 * math.log(1 / beta) + 2 * math.log(math.e * n)) / size_d
    bound = alpha + 2 * math.log(C.shape[0] / beta) / (mech.epsilon_learner * size_d)

    def learner(x: np.ndarray, y: np.ndarray, g: np.random.Generator) -> int:
        return int(mech.sample(labelled(x, y), 1, rng=g)[0])

    assert _passes(_failures(learner, n, size_d, bound, rng), 2 * beta)
    assert not _passes(_failures(_coin, n, size_d, bound, rng), 2 * beta)
    assert not _passes(_failures(_constant, n, size_d, bound, rng), 2 * beta)
