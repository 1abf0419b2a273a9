"""Realizable private prediction on its own: Li, Wang & Ye, Lemma 4.1 (after Dwork & Feldman 2018).

Paper: Li, Wang & Ye, Private Realizable-to-Agnostic Transformation with Near-Optimal Sample
Complexity, Section 4, Lemma 4.1.

Algorithm (Lemma 4.1 with a concrete aggregator)
---------------------------------------------------------
Input: a realizable S ∈ ({0..d−1} × {0,1})^n and one query x. r = ⌈6 ln(4/α)/ε⌉ disjoint
portions of n' = ⌊n/r⌋ consecutive records (portion i = records [i·n', (i+1)·n'); a remainder is
unused). 𝒜' on a portion = the first concept of C consistent with it (THR: the smallest
consistent t; the class's first row if none is consistent, which cannot happen on realizable
data). Votes c = Σ_i g_i(x). Aggregator: EM over the labels {0, 1} with score = votes,
Pr[1] = e^{εc/2}/(e^{εc/2} + e^{ε(r−c)/2}) = σ(ε(c − r/2)). Output: one bit.

This is the 1-DP prediction mechanism Thm 4.2 plugs into A_Agnostic (`lwy.PrivatePrediction`
runs it on randomly ordered portions of T^h); here it runs alone on the raw input, with a fixed
positional partition — any data-independent partition into disjoint portions is what the
lemma needs ("r instances of 𝒜' on disjoint portions").

Claim (PROVED = STATED, Lemma 4.1: "the aggregation mechanism is ε-DP")
-------------------------------------------------------------------------
Replace-one changes one record, hence one portion, hence one g_i(x) and c by ≤ 1; each label's
score (c for 1, r − c for 0) has sensitivity 1, so the EM with exp(ε·score/2) is ε-DP and so is
the whole mechanism (the portions' learners are deterministic). Pure, δ = 0.

Exact oracle: the output is Bernoulli(σ(ε(c(S) − r/2))) with c(S) deterministic, so
`exact_epsilon` is the exact ε of two Bernoulli laws.

Buggy twin (`RealizablePredictionOverlapping`): portion i = blocks i and i+1 (cyclic),
so every record sits in two portions and one change moves c by up to 2: the exact ε on the
registered pairs is 1.89 and 1.98 > the claimed 1 (ε = 1, r = 16).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation
from ..analytic import discrete_epsilon
from ..base import ClaimFromClaims, ClaimKind, PrivacyClaim
from ._common import F64, PAPER_001, concept_class, labelled, learner_domain


@dataclass(frozen=True, slots=True, kw_only=True)
class RealizablePrediction(ClaimFromClaims):
    """Lemma 4.1: r disjoint portions, first consistent concept each, ε-DP vote aggregator."""

    epsilon: float = 1.0
    alpha: float = 0.3
    portion_size: int = 2
    query: int = 8
    concept: str = "thr"
    d: int = 16
    name: str = "realizable_prediction"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"

    def __post_init__(self) -> None:
        if not self.epsilon > 0 or not 0 < self.alpha < 1 or self.portion_size < 1:
            raise ValueError("need epsilon > 0, 0 < alpha < 1, portion_size ≥ 1")
        if not 0 <= self.query < self.d:
            raise ValueError("need 0 ≤ query < d")
        concept_class(self.concept, self.d)

    @property
    def matrix(self) -> NDArray[np.int8]:
        return concept_class(self.concept, self.d)

    @property
    def num_portions(self) -> int:
        """r = ⌈6 ln(4/α)/ε⌉ (Lemma 4.1); 16 at α = 0.3, ε = 1."""
        return math.ceil(6 * math.log(4 / self.alpha) / self.epsilon)

    @property
    def n(self) -> int:
        return self.num_portions * self.portion_size

    @property
    def headline_claim(self) -> PrivacyClaim:
        return PrivacyClaim(
            epsilon=self.epsilon,
            relation=Relation.REPLACE_ONE,
            reference=f"{PAPER_001}, Lemma 4.1 (aggregator: EM over the labels, score = votes)",
            kind=ClaimKind.PROVED,
            note="one change moves one portion's vote: c by ≤ 1, EM with exp(ε·score/2)",
        )

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return (self.headline_claim,)

    @property
    def domain(self) -> Domain:
        return learner_domain(self.d, self.n, self.n)

    def portions(self, n: int) -> NDArray[np.int64]:
        """Record indices of the r portions (r, n'): disjoint consecutive blocks."""
        size = n // self.num_portions
        return np.arange(self.num_portions * size, dtype=np.int64).reshape(self.num_portions, size)

    def votes(self, dataset: Dataset) -> int:
        assert dataset.y is not None
        C = self.matrix
        x = dataset.X[:, 0].astype(np.int64)
        y = dataset.y.astype(np.int8)
        idx = self.portions(dataset.n)
        cons = np.all(C[:, x[idx]] == y[idx][None], axis=2)  # (|C|, r)
        first = np.argmax(cons, axis=0)
        return int(C[first, self.query].sum())

    def p_one(self, dataset: Dataset) -> float:
        z = self.epsilon * (self.votes(dataset) - self.num_portions / 2)
        return 1.0 / (1.0 + math.exp(-z))

    def probabilities(self, dataset: Dataset) -> F64:
        p = self.p_one(dataset)
        return np.array([1.0 - p, p])

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        return (rng.random(num_samples) < self.p_one(dataset)).astype(np.int64)

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        return discrete_epsilon(self.probabilities(pair.dataset), self.probabilities(pair.neighbor), delta)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        """Votes far below r/2 (σ's log-ratio is steepest there): blocks holding a negative at
        the query vote 0 (THR: the smallest consistent t exceeds every negative). A negative at
        the query moves left (its block's vote flips to 1), for blocks chosen so that with
        cyclic overlapping portions the change flips two votes."""
        r, s, q = self.num_portions, self.portion_size, self.query
        pairs = []
        presets: tuple[tuple[tuple[int, ...], int], ...] = (
            ((0, 2, 4, 6, 8, 10), 10),
            ((0, 2, 4, 6, 8, 10, 12), 12),
            ((0, 1), 1),
        )
        for blocks, moved in presets:
            bad = tuple(b for b in blocks if b < r)
            xs, ys = [], []
            for blk in range(r):
                for j in range(s):
                    if j == 0 and blk in bad:
                        xs.append(q)
                        ys.append(0)
                    else:
                        xs.append(min(q + 2 + j, self.d - 1))
                        ys.append(1)
            xs2 = list(xs)
            xs2[moved * s] = max(q - 4, 0)
            pairs.append(
                NeighborPair(
                    dataset=labelled(xs, ys),
                    neighbor=labelled(xs2, ys),
                    relation=Relation.REPLACE_ONE,
                    description=(
                        f"negatives ({q},0) head blocks {bad}; the one in block {moved} moves to "
                        f"({max(q - 4, 0)},0): that block's vote at the query flips to 1"
                    ),
                    tags=("vote-flip",),
                )
            )
        return tuple(pairs)


@dataclass(frozen=True, slots=True, kw_only=True)
class RealizablePredictionOverlapping(RealizablePrediction):
    """Twin: portion i = blocks i and i+1 (cyclic): each record in two portions."""

    name: str = "realizable_prediction_overlapping"

    def portions(self, n: int) -> NDArray[np.int64]:
        blocks = RealizablePrediction.portions(self, n)
        return np.concatenate([blocks, np.roll(blocks, -1, axis=0)], axis=1)
