"""The broken sparse-vector variants of Lyu, Su & Li 2017 (VLDB), Figure 1: SVT3–SVT6.

Each keeps the ε-DP claim its authors made and changes one line of SVT1 (`counting.svt`):
SVT3 (Roth 2011 lecture notes) releases the noisy answer qᵢ + νᵢ at each ⊤ with νᵢ =
Lap(cΔ/ε₂): ∞-DP over unboundedly many queries (their Section 3.3); SVT4 (Lee & Clifton 2014)
uses ε₁ = ε/4 and νᵢ = Lap(Δ/ε₂): ((1 + 6c)/4)·ε-DP (their Theorem 6); SVT5 (Stoddard et al.
2014) adds no noise to the queries and never halts: ∞-DP; SVT6 (Chen et al. 2015) adds
νᵢ = Lap(Δ/ε₂) and never halts: ∞-DP. Over the m queries audited the true ε is finite for
SVT4 and SVT6 (`exact_epsilon`), infinite for SVT5 on most pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .svt import SparseVector


@dataclass(frozen=True, slots=True, kw_only=True)
class SparseVectorNoisyAnswers(SparseVector):
    """SVT3: ⊤ releases qᵢ + νᵢ, νᵢ = Lap(cΔ/ε₂) (Lyu, Su & Li 2017, Alg. 3)."""

    name: str = "svt3_noisy_answers"
    output_kind: ClassVar[str] = "continuous"
    variant: ClassVar[str] = "Alg. 3 (SVT3, Roth 2011)"
    releases_answers: ClassVar[bool] = True

    @property
    def query_scale(self) -> float:
        return self.cutoff / (self.epsilon - self.epsilon_threshold)


@dataclass(frozen=True, slots=True, kw_only=True)
class SparseVectorQuarterThreshold(SparseVector):
    """SVT4: ε₁ = ε/4, νᵢ = Lap(Δ/ε₂) (Lyu, Su & Li 2017, Alg. 4): ((1 + 6c)/4)·ε-DP."""

    name: str = "svt4_small_query_noise"
    variant: ClassVar[str] = "Alg. 4 (SVT4, Lee & Clifton 2014)"
    first_share: ClassVar[float] = 0.25

    @property
    def query_scale(self) -> float:
        return 1.0 / (self.epsilon - self.epsilon_threshold)


@dataclass(frozen=True, slots=True, kw_only=True)
class SparseVectorNoQueryNoise(SparseVector):
    """SVT5: no query noise, no ⊤ limit (Lyu, Su & Li 2017, Alg. 5): ∞-DP."""

    name: str = "svt5_no_query_noise"
    variant: ClassVar[str] = "Alg. 5 (SVT5, Stoddard et al. 2014)"
    unbounded: ClassVar[bool] = True

    @property
    def query_scale(self) -> float:
        return 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class SparseVectorUnbounded(SparseVector):
    """SVT6: νᵢ = Lap(Δ/ε₂), no ⊤ limit (Lyu, Su & Li 2017, Alg. 6): ∞-DP over unboundedly
    many queries."""

    name: str = "svt6_unbounded"
    variant: ClassVar[str] = "Alg. 6 (SVT6, Chen et al. 2015)"
    unbounded: ClassVar[bool] = True

    @property
    def query_scale(self) -> float:
        return 1.0 / (self.epsilon - self.epsilon_threshold)
