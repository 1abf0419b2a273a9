"""The generic private realizable learner: the exponential mechanism over a finite class.

Papers: Alon, Beimel, Moran & Stemmer, Closure Properties for Private Classification and Online
Prediction, Section 3.2, Alg. 1 and Prop. 3.13 (the learner of Kasiviswanathan et al. that they
plug in as "any private learner"); Li, Wang & Ye, Private Realizable-to-Agnostic Transformation
with Near-Optimal Sample Complexity, Section 2, Lemma 2.9 (the same EM).

Algorithm. Input: labelled S ∈ ({0..d−1} × {0,1})^m and a finite class C (a 0/1 matrix, see
`_common.concept_class`). Output h ∈ C with Pr[h] ∝ exp(−ε·q(S, h)/2), q(S, h) = the number
of errors of h on S. The released output is the row index of h in C (discrete).

Claim derivation. q has sensitivity 1 under replace-one (one record changes every error
count by at most 1), so the EM with exp(−ε·q/2) is ε-DP (McSherry–Talwar; [ABMS] Prop. 3.13(i),
[LWY] Lemma 2.9). Pure: δ = 0. Relabel-one is a special case of replace-one.

Utility ([ABMS] Prop. 3.13(ii)): Pr[q(S, h) ≥ min_f q(S, f) + t] ≤ |C|·exp(−ε t/2); the unit
tests check it exactly and by sampling.

Worst pair: THR on 64 points, S = {(0, 1)} vs {(0, 0)}: exact ε = 0.984 at ε = 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation
from ..analytic import discrete_epsilon
from ..base import ClaimFromClaims, PrivacyClaim
from ._common import (
    F64,
    PAPER_000,
    PAPER_001,
    cell_counts,
    cells_of,
    concept_class,
    error_counts,
    learner_domain,
    replace_pair,
    softmax,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class EMLearner(ClaimFromClaims):
    """EM learner over a finite class (thr | point | interval | all | down_thr) on {0..d−1}."""

    epsilon: float = 1.0
    concept: str = "thr"
    d: int = 64
    name: str = "em_learner"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"

    def __post_init__(self) -> None:
        if not self.epsilon > 0 or self.d < 1:
            raise ValueError("need epsilon > 0 and d ≥ 1")
        concept_class(self.concept, self.d)  # validates the class name and size

    @property
    def matrix(self) -> NDArray[np.int8]:
        return concept_class(self.concept, self.d)

    def coefficient(self) -> float:
        """c in exp(−c·q): ε/2 for the EM with a sensitivity-1 score."""
        return self.epsilon / 2

    @property
    def headline_claim(self) -> PrivacyClaim:
        return PrivacyClaim(
            epsilon=self.epsilon,
            relation=Relation.REPLACE_ONE,
            reference=f"{PAPER_000}, Prop. 3.13; {PAPER_001}, Lemma 2.9",
            note="exponential mechanism with the error count (sensitivity 1)",
        )

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return (self.headline_claim,)

    @property
    def domain(self) -> Domain:
        return learner_domain(self.d, 0, None)

    def probabilities(self, dataset: Dataset) -> F64:
        C = self.matrix
        if dataset.n == 0:
            return np.full(C.shape[0], 1.0 / C.shape[0])
        q = error_counts(C, cell_counts(cells_of(dataset, self.d), self.d)[None])[0]
        return softmax(-self.coefficient() * q)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        p = self.probabilities(dataset)
        return rng.choice(p.size, size=num_samples, p=p).astype(np.int64)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        d = self.d
        clean_x = [0, d // 4, d // 2, d // 2, (3 * d) // 4, d - 1]
        clean_y = [0, 0, 1, 1, 1, 1]
        return (
            replace_pair([0], [1], 0, (0, 0), "relabel the only record, at the left boundary", "boundary"),
            replace_pair(
                clean_x,
                clean_y,
                3,
                (0, 1),
                "move a positive record to the left boundary (surprising label)",
                "boundary",
            ),
        )

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        return discrete_epsilon(self.probabilities(pair.dataset), self.probabilities(pair.neighbor), delta)
