"""Buggy twins of the [LWY] learners (001_1feb349034a6773a.txt; spec seeds-000-001.md §6).

Each twin subclasses the correct mechanism, overrides one method and keeps the correct
claim (PROVED: the explicit Lemma 3.1 / Thm 4.2 bound; STATED: the nominal ε). True ε values
are exact (`exact_epsilon`, enumeration over every T) on the twin's worst registered pair,
at the twin's default parameters; "MC" marks values measured by the audit instead.

| twin | host / preset | exact ε (max over registered pairs) | proved claim | verdict |
|---|---|---|---|---|
| agnostic_learner_first_k (B000-6) | small_eps: ε = 0.02, n = 500 | 1.113 | 0.485 | violation |
| agnostic_learner_patterns_from_all (B001-2) | small_eps: ε = 0.02, n = 500 | 1.088 | 0.485 | violation |
| agnostic_learner_half_split (B001-3) | small_eps: ε = 0.02, n = 500 | 0.639 | 0.485 | violation |
| agnostic_learner_release_relabelled (B001-1) | ε = 1/3, n = 3..13 | ∞ | 3.432 | violation |
| private_prediction_overlapping (B001-10) | ε = 1/3, n = 600 (n' = 11) | MC 3.86 | 2.783 | violation |
| agnostic_learner_poisson_t (B001-4) | ε = 1/3, n = 3..13 | 0.372 | 3.432 | not detectable |
| agnostic_learner_no_half (B000-3) | ε = 1/3, n = 3..13 | 0.791 | 3.432 | not detectable |
| private_prediction_all_queries (B001-7) | ε = 1/3, n = 102..103 | no oracle | 2.810 | not detectable |

There is no STATED claim any more (lwy.py: Lemma 3.1 states O(ε) for the algorithm built; its
only numeric form is the proof's bound, the PROVED claim), so "exceeds nominal" findings are
gone. "Not detectable": the argument is in the twin's docstring.

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

from dpaudit.mechanisms.agnostic._common import (
    F64,
    cell_counts,
    cells_of,
    draw_categorical,
    log_binom,
    multiset_compositions,
    replace_pair,
    subset_distribution,
)
from dpaudit.mechanisms.agnostic.lwy import AgnosticLearner, PrivatePrediction
from dpaudit.mechanisms.analytic import law_epsilon
from dpaudit.neighbors.base import Dataset, NeighborPair


def _boundary_pairs(m: AgnosticLearner) -> tuple[NeighborPair, ...]:
    """The host's in-T pairs "one boundary point among n−1 duplicates → a fresh boundary point
    with the opposite label" (3 distinct cells, so the exact oracle stays cheap even at
    |T| = n/2): the pairs on which the re-hosted twins exceed the proved claim."""
    return tuple(p for p in AgnosticLearner.neighbor_pairs(m) if {"duplicates", "boundary"} <= set(p.tags))


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
    so the proof's |W|/|T| ≤ (1−ε)/ε step fails.

    Not detectable (detectable=False), by this argument checked with the exact oracle:
    (i) the changed record is in T with probability ε ≤ k/n = ⌈εn⌉/n, the weight the claim
    already pays for the in-T branch; (ii) given it is in T, |T| = 1 + Bin(n−1, ε), and the
    relabelling EM's in-T score shift is (ε/2)(|W|/|T| + 1) ≤ εn/(2|T|), so the extra factor
    over the proof's e^{1/2} is e^{εn/(2|T|) − 1/2}, large only for |T| ≪ εn, whose probability
    is ≤ e^{−εn}(εn)^{j−1}/(j−1)! at |T| = j: at |T| = 1 the product is e^{−εn/2} ≤ 1. So the
    in-T ratio stays within a small constant of the correct mechanism's, which itself sits far
    below 4e^{1+ε_𝒜} (the correct learner realises ≤ 0.3 of the claim on every preset tried).
    The W-branch is the correct one (given T, the relabelling EM is ε-DP). Oracle search:
    ε ∈ {0.02, 0.05, 0.1, 0.2, 1/3} × n ∈ {10, 20, 40, 80} × ε_𝒜 ∈ {1, 6}, the host's
    pair families with ≤ 3 cells: the largest exact ε / claim is 0.25 (e.g. 0.691 vs 2.800 at
    ε = 1/3, n = 80; 0.496 vs 2.851 at n = 20); at the default preset 0.372 vs 3.432; at
    small_eps 0.032 vs 0.485. This is evidence over those presets, not a proof for every pair.
    """

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
        return law_epsilon(self._law(pair.dataset), self._law(pair.neighbor), delta)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgnosticNoHalf(AgnosticLearner):
    """Both exponential mechanisms without their factor 1/2.

    Not detectable (detectable=False). The bug is the correct mechanism with relabelling
    coefficient ε (not ε/2) and learner coefficient ε_𝒜 (not ε_𝒜/2), at the same k = ⌈εn⌉.
    W-branch (record not in T): the relabelling EM becomes 2ε-DP, p1(I) ≤ e^{2ε} p2(I); this
    can never exceed the claim, since k/(n−k) ≥ ε/(1−ε) ≥ ε and
    e^{2ε} − e^{ε} ≤ ε·e^{2ε} < 4e^{1+ε_𝒜}·ε for ε < 1. In-T branch: the proof's factor grows
    from 4e^{1+ε_𝒜} to 4e^{2+2ε_𝒜}, so the proof no longer covers it, but a violation needs
    the realised in-T likelihood ratio to exceed 4e^{1+ε_𝒜}, and the oracle finds it far below:
    search over ε ∈ {0.05, 0.1, 1/3} × n ∈ {10, 20, 40} × ε_𝒜 ∈ {1, 3, 6, 10} on the host's
    worst pair families gives a largest exact ε / claim of 0.30 (0.864 vs 2.851 at ε = 1/3,
    n = 20, ε_𝒜 = 1; 0.967 vs 7.768 at ε_𝒜 = 6, n = 40); default preset 0.791 vs 3.432;
    small_eps preset 0.079 vs 0.485. Larger ε_𝒜 raises the claim faster than the leak (the
    leak saturates: 0.426 and 0.436 at n = 10, ε = 0.05 for ε_𝒜 = 6 and 10). No
    black-box audit of these pairs can certify more than the exact ε; this is evidence over
    the presets searched, not a proof that no pair exists.
    """

    name: str = "agnostic_learner_no_half"

    def relabel_coefficient(self) -> float:
        return self.epsilon

    def learner_coefficient(self) -> float:
        return self.epsilon_learner


@dataclass(frozen=True, slots=True, kw_only=True)
class AgnosticPatternsFromAll(AgnosticLearner):
    """Candidate set H from the patterns on T∪W (every point of S) instead of T only.

    Hosted on agnostic_learner_small_eps (ε = 0.02, n = 500, k = 10; proved claim 0.485):
    on the duplicates/boundary pairs the fresh point (d−1, 0) adds patterns to H whether or not
    it is sampled into T, so the W-branch (probability 1 − k/n) leaks too. Exact ε = 1.088 on
    both registered pairs (> 0.485). On the ε = 1/3 host (claim 3.432) it reached only 0.985."""

    epsilon: float = 0.02
    min_n: int = 500
    max_n: int = 500
    name: str = "agnostic_learner_patterns_from_all"

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return _boundary_pairs(self)

    def pattern_support(self, cT: F64, cW: F64) -> NDArray[np.bool_]:
        return np.asarray((cT + cW).sum(axis=2) > 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgnosticHalfSplit(AgnosticLearner):
    """|T| = ⌊n/2⌋ regardless of ε (the claim still uses k = ⌈εn⌉).

    Hosted on agnostic_learner_small_eps (ε = 0.02, n = 500; the claim uses k = 10, 0.485):
    the changed record lands in T with probability 1/2 instead of k/n = 0.02, and |W|/|T| = 1
    makes the relabelling EM's in-T score shift tiny, but the EM learner on T^h (250 records)
    still sees the fresh point. Exact ε = 0.639 on both registered pairs (> 0.485); on the
    ε = 1/3 host (claim 3.432) it reached only 0.503."""

    epsilon: float = 0.02
    min_n: int = 500
    max_n: int = 500
    name: str = "agnostic_learner_half_split"

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return _boundary_pairs(self)

    def draw_t(self, cells: NDArray[np.int64], num: int, rng: np.random.Generator) -> F64:
        from dpaudit.mechanisms.agnostic._common import random_subsets

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

    min_n: int = 600
    max_n: int = 600
    name: str = "private_prediction_overlapping"

    # Preset n = 600 (k = 200, r = 17, n' = 11; proved claim ln(e^{1/3} + 4e²·200/400) = 2.783)
    # instead of the host's n = 102 (n' = 2, where a shift of ≤ 2 votes stays under 2.81).
    # Pair: 300 × (0,0) and 300 × (15,1); one (0,0) moves to (8,0) = the query. Every h
    # consistent with the neighbour has t ∈ 9..15, so the moved record is relabelled negative
    # and every window holding it votes 0 at the query (the first consistent threshold jumps
    # from 1 to 9), i.e. c drops from r = 17 by up to n' = 11 and Pr[0] = σ(r/2 − c) goes from
    # σ(−8.5) ≈ 2e-4 to up to σ(2.5) ≈ 0.92. No exact oracle (the vote generating function
    # assumes disjoint portions); Monte Carlo, 2·10^5 per side: Pr[0] = 1.9e-4 vs 9.0e-3,
    # ε ≈ 3.86 > 2.783. The correct mechanism (disjoint portions: c moves by 1) on the same
    # pair: exact ε = 0.237.

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        n = self.min_n
        xs, ys = [0] * (n // 2) + [self.d - 1] * (n - n // 2), [0] * (n // 2) + [1] * (n - n // 2)
        return (
            replace_pair(
                xs,
                ys,
                0,
                (self.query, 0),
                f"n={n}, k={self.subset_size(n)}: a negative at 0 moves onto the query (forced "
                f"negative by h): every overlapping window holding it votes 0",
                "in-T",
                "overlap",
            ),
        )

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
