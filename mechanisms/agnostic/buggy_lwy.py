"""Buggy twins of the [LWY] learners (001_1feb349034a6773a.txt; spec seeds-000-001.md §6).

Each twin subclasses the correct mechanism, overrides one method and keeps the correct
claim (PROVED: the explicit Lemma 3.1 / Thm 4.2 bound; STATED: the nominal ε). True ε values
are exact (`exact_epsilon`, enumeration over every T) on the twin's worst registered pair,
at the twin's default parameters; "MC" marks values measured by the audit instead.

| twin | bug (spec id) | exact ε (max over pairs) | proved claim | verdict |
|---|---|---|---|---|
| agnostic_learner_first_k | T = first ⌈εn⌉ records (B000-6) | 1.113 | 0.485 | violation |
| agnostic_learner_poisson_t | Poisson(ε) T, random size (B001-4) | 0.372 | 3.432 | nominal only |
| agnostic_learner_release_relabelled | also releases T^h (B001-1) | ∞ | 3.432 | violation |
| agnostic_learner_no_half | both EMs without /2 (B000-3) | 0.791 | 3.432 | nominal only |
| agnostic_learner_patterns_from_all | H from T∪W (B001-2) | 0.985 | 3.432 | nominal only |
| agnostic_learner_half_split | |T| = ⌊n/2⌋ (B001-3) | 0.503 | 3.432 | nominal only |
| private_prediction_all_queries | all d queries, one run (B001-7) | no oracle | 2.810 | not flagged |
| private_prediction_overlapping | overlapping portions (B001-10) | no oracle | 2.810 | not flagged |

(The correct agnostic_learner itself reaches exact 0.424 > nominal 1/3 at n = 13, k = 5.)
"Nominal only": above the nominal ε (STATED claim) but below the proved bound — reported as
a finding, not a violation; registered with detectable=False. "Not flagged": the leak is
real (composition over queries / vote sensitivity n') but the default distinguishers do not
certify it above the proved bound at 10^5 samples.

Re-check of private_prediction_all_queries (issue 4 follow-up). The only extra leak over the
one-query mechanism is that d bits with fresh aggregator coins read out the vote vector c(·)
(h is shared, so A_Relabel's part does not compose). The changed record reaches the votes only
in the in-T branch (probability k/n = 1/3) and moves one portion, i.e. c(q) by ≤ 1 per query,
so the realised ratio is about (1 − π) + π·L with π ≈ 0.2 and L the likelihood ratio of a
±1 shift of c: L is large only in the tails of c's distribution (probability ≪ 10^-5), and
reaching e^{2.81} ≈ 16.6 needs L ≳ 75. Measured: a pair built for it (n = 102: 37 negatives
at x = 14, 65 positives at x = 15; one negative moves to (0, 0), flipping a portion's vote at
the 14 queries 1..14 with c ≈ r/2 − 1) certifies 0.297 at 10^6 samples per side (187 s),
and the registered pairs certify ≤ 0 at 5·10^4. Not detectable black-box at ≤ 10^6 with
the histogram/threshold distinguishers; the pair is not registered, detectable stays False.

Exact values are recomputed by `benchmarks/agnostic.py`; nothing here is used by code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mechanisms.agnostic._common import (
    F64,
    cell_counts,
    cells_of,
    draw_categorical,
    log_binom,
    multiset_compositions,
    subset_distribution,
)
from mechanisms.agnostic.lwy import AgnosticLearner, PrivatePrediction
from mechanisms.analytic import discrete_epsilon
from neighbors.base import Dataset, NeighborPair


@dataclass(frozen=True, slots=True, kw_only=True)
class AgnosticFirstK(AgnosticLearner):
    """T = the first ⌈εn⌉ records: a deterministic subset, so a change at index 0 always
    lands in T and the k/(n−k) dilution of Lemma 3.1 never happens."""

    epsilon: float = 0.02
    min_n: int = 500
    max_n: int = 500
    name: str = "agnostic_learner_first_k"

    def draw_t(self, cells: NDArray[np.int64], num: int, rng: np.random.Generator) -> F64:
        k = self.subset_size(cells.size)
        return np.repeat(cell_counts(cells[:k], self.d)[None], num, axis=0)

    def t_law(self, cells: NDArray[np.int64]) -> tuple[F64, F64]:
        return np.ones(1), cell_counts(cells[: self.subset_size(cells.size)], self.d)[None]


@dataclass(frozen=True, slots=True, kw_only=True)
class AgnosticPoissonT(AgnosticLearner):
    """Each record joins T independently with probability ε: |T| is random (can be 0 or 1),
    so the proof's |W|/|T| ≤ (1−ε)/ε step fails."""

    name: str = "agnostic_learner_poisson_t"

    def draw_t(self, cells: NDArray[np.int64], num: int, rng: np.random.Generator) -> F64:
        mask = rng.random((num, cells.size)) < self.epsilon
        counts = np.zeros((num, 2 * self.d))
        for j, c in enumerate(cells):
            counts[:, c] += mask[:, j]
        return counts.reshape(num, self.d, 2)

    def t_law(self, cells: NDArray[np.int64]) -> tuple[F64, F64]:
        n = cells.size
        ws, cs = [], []
        for size in range(n + 1):
            w, c = subset_distribution(cells, self.d, size)
            logp = size * np.log(self.epsilon) + (n - size) * np.log1p(-self.epsilon)
            ws.append(w * np.exp(logp + log_binom(n, size)))
            cs.append(c)
        return np.concatenate(ws), np.concatenate(cs)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgnosticReleaseRelabelled(AgnosticLearner):
    """Releases T^h (cell counts of the relabelled subsample) next to 𝒜's output: reveals
    which points were sampled, so a record absent from one dataset can appear (ε = ∞)."""

    name: str = "agnostic_learner_release_relabelled"

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        cells = cells_of(dataset, self.d)
        total = cell_counts(cells, self.d)
        C = self.matrix
        cT = self.draw_t(cells, num_samples, rng)
        ph, dis = self.relabel_probabilities(cT, total[None] - cT)
        h = draw_categorical(ph, rng)
        pg = self.learner_given_h(dis)[np.arange(num_samples), h]
        g = draw_categorical(pg, rng)
        tx = cT.sum(axis=2)
        relab = np.zeros((num_samples, self.d, 2))
        relab[..., 1] = tx * C[h]
        relab[..., 0] = tx * (1 - C[h])
        return np.column_stack([g, relab.reshape(num_samples, -1)]).astype(np.int64)

    def _law(self, dataset: Dataset) -> dict[tuple[int, ...], float]:
        cells = cells_of(dataset, self.d)
        total = cell_counts(cells, self.d)
        C = self.matrix
        law: dict[tuple[int, ...], float] = {}
        weights, cT = self.t_law(cells)
        ph, dis = self.relabel_probabilities(cT, total[None] - cT)
        pg = self.learner_given_h(dis)
        for b in range(len(weights)):
            tx = cT[b].sum(axis=1)
            for h in np.flatnonzero(ph[b] > 0):
                relab = np.stack([tx * (1 - C[h]), tx * C[h]], axis=1).astype(int).ravel()
                for g in range(C.shape[0]):
                    key = (g, *relab.tolist())
                    law[key] = law.get(key, 0.0) + weights[b] * ph[b, h] * pg[b, h, g]
        return law

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        a, b = self._law(pair.dataset), self._law(pair.neighbor)
        keys = sorted(set(a) | set(b))
        return discrete_epsilon([a.get(k, 0.0) for k in keys], [b.get(k, 0.0) for k in keys], delta)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgnosticNoHalf(AgnosticLearner):
    """Both exponential mechanisms without their factor 1/2."""

    name: str = "agnostic_learner_no_half"

    def relabel_coefficient(self) -> float:
        return self.epsilon

    def learner_coefficient(self) -> float:
        return self.epsilon_learner


@dataclass(frozen=True, slots=True, kw_only=True)
class AgnosticPatternsFromAll(AgnosticLearner):
    """Candidate set H from the patterns on T∪W (every point of S) instead of T only."""

    name: str = "agnostic_learner_patterns_from_all"

    def pattern_support(self, cT: F64, cW: F64) -> NDArray[np.bool_]:
        return np.asarray((cT + cW).sum(axis=2) > 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgnosticHalfSplit(AgnosticLearner):
    """|T| = ⌊n/2⌋ regardless of ε (the claim still uses k = ⌈εn⌉)."""

    name: str = "agnostic_learner_half_split"

    def draw_t(self, cells: NDArray[np.int64], num: int, rng: np.random.Generator) -> F64:
        from mechanisms.agnostic._common import random_subsets

        idx = random_subsets(cells.size, cells.size // 2, num, rng)
        return cell_counts(cells[idx], self.d)

    def t_law(self, cells: NDArray[np.int64]) -> tuple[F64, F64]:
        return subset_distribution(cells, self.d, cells.size // 2)


@dataclass(frozen=True, slots=True, kw_only=True)
class PredictionAllQueries(PrivatePrediction):
    """Answers every query x ∈ {0..d−1} from one run (same T, h and g_i; fresh aggregator
    coins per query) while claiming the single-query bound: privacy composes over queries."""

    name: str = "private_prediction_all_queries"

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        return self.aggregate(self.run(dataset, num_samples, rng), rng)

    def probabilities(self, dataset: Dataset) -> F64:
        raise NotImplementedError("the d-bit release needs the joint law of all d vote counts")

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        raise NotImplementedError("no exact oracle for the all-queries release")


@dataclass(frozen=True, slots=True, kw_only=True)
class PredictionBootstrap(PrivatePrediction):
    """Overlapping portions (windows i..i+n'−1 of T's random order instead of disjoint
    blocks): one example sits in up to n' portions, so the vote count's sensitivity is n'."""

    name: str = "private_prediction_overlapping"

    def portion_indices(self, order: NDArray[np.int64], k: int) -> NDArray[np.int64]:
        r = self.num_portions
        size = k // r
        # sliding windows over T's random order: each example sits in n' portions
        pos = (np.arange(r)[:, None] + np.arange(size)[None, :]) % k  # overlapping windows
        return order[:, pos]

    def probabilities(self, dataset: Dataset) -> F64:
        raise NotImplementedError("the vote generating function assumes disjoint portions")

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        raise NotImplementedError("no exact oracle for overlapping portions")


__all__ = [
    "AgnosticFirstK",
    "AgnosticHalfSplit",
    "AgnosticNoHalf",
    "AgnosticPatternsFromAll",
    "AgnosticPoissonT",
    "AgnosticReleaseRelabelled",
    "PredictionAllQueries",
    "PredictionBootstrap",
    "multiset_compositions",
]
