"""Counting queries: the sparse vector technique (Lyu, Su & Li, "Understanding the Sparse Vector
Technique for Differential Privacy", VLDB 2017, Figure 1): SVT1 (Alg. 1, ε-DP) and the twins
SVT3–SVT6 (Algs. 3–6) under the ε-DP claims their authors made."""

from __future__ import annotations

from ..registry import RegistryEntry
from .svt import SparseVector
from .variants import (
    SparseVectorNoisyAnswers,
    SparseVectorNoQueryNoise,
    SparseVectorQuarterThreshold,
    SparseVectorUnbounded,
)

FAMILY = "svt"

__all__ = [
    "FAMILY",
    "REGISTRY_ENTRIES",
    "SparseVector",
    "SparseVectorNoQueryNoise",
    "SparseVectorNoisyAnswers",
    "SparseVectorQuarterThreshold",
    "SparseVectorUnbounded",
]


def _twin(name: str, factory: type, bug: str) -> RegistryEntry:
    return RegistryEntry.twin(name, factory, family=FAMILY, of="svt1", bug=bug)


REGISTRY_ENTRIES: tuple[RegistryEntry, ...] = (
    RegistryEntry(
        name="svt1",
        factory=SparseVector,
        family=FAMILY,
        summary="sparse vector, Lyu-Su-Li Alg. 1: Lap(1/ε₁) threshold, Lap(2c/ε₂) queries, c ⊤s (ε-DP)",
        default_num_samples=1_000_000,
    ),
    _twin(
        "svt3_noisy_answers",
        SparseVectorNoisyAnswers,
        "Alg. 3 (Roth 2011): releases the noisy answer at each ⊤ (∞-DP over unbounded queries)",
    ),
    _twin(
        "svt4_small_query_noise",
        SparseVectorQuarterThreshold,
        "Alg. 4 (Lee & Clifton 2014): ε₁ = ε/4, Lap(1/ε₂) query noise (true ε = (1 + 6c)/4·ε)",
    ),
    _twin(
        "svt5_no_query_noise",
        SparseVectorNoQueryNoise,
        "Alg. 5 (Stoddard et al. 2014): no query noise, no ⊤ limit (ε = ∞)",
    ),
    _twin(
        "svt6_unbounded",
        SparseVectorUnbounded,
        "Alg. 6 (Chen et al. 2015): Lap(1/ε₂) query noise, no ⊤ limit (true ε grows with the queries)",
    ),
)
