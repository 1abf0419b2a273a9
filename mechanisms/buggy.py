"""Buggy twins of the reference mechanisms: the mistakes real DP code makes.

Each twin keeps its correct sibling's claim (that is the bug: the claim no longer holds)
and documents its true ε on the registered pair, which `exact_epsilon` computes exactly, so
tests can check the audit flags it with a bound close to the truth.

| twin | bug | true ε on the registered pair (claim ε = 1) |
|---|---|---|
| laplace_sum_range_bug | replace-one sensitivity max|x| = 1 for records in [−1, 1] (range 2) | 2 |
| gaussian_sum_range_bug | same sensitivity bug, Gaussian calibrated to (1, 1e-5) | 2.155 at δ = 1e-5 |
| randomized_response_half_flip | randomise w.p. 1/(1+e^ε), not 2/(1+e^ε) | ln(1 + 2e^ε) = 1.862 |
| exponential_mechanism_no_half | weights exp(ε·u) instead of exp(ε·u/2) | 1.958 |
| report_noisy_max_half_scale | Laplace(1/ε) for a non-monotone histogram (needs 2/ε) | 1.590 |
| above_threshold_no_query_noise | query answers compared without noise (Lyu–Su–Li's ∞-DP variant) | ∞ |
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from ..neighbors.base import Dataset
from .reference import (
    AboveThreshold,
    ExponentialMechanism,
    GaussianSum,
    LaplaceSum,
    RandomizedResponse,
    ReportNoisyMax,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class LaplaceSumRangeBug(LaplaceSum):
    """Calibrates to max|x| for every relation; for records in [−1, 1] replace-one needs 2."""

    low: float = -1.0
    name: str = "laplace_sum_range_bug"

    def calibration_sensitivity(self) -> float:
        return max(abs(self.low), abs(self.high))


@dataclass(frozen=True, slots=True, kw_only=True)
class GaussianSumRangeBug(GaussianSum):
    """The same sensitivity bug with analytic Gaussian noise."""

    low: float = -1.0
    name: str = "gaussian_sum_range_bug"

    def calibration_sensitivity(self) -> float:
        return max(abs(self.low), abs(self.high))


@dataclass(frozen=True, slots=True, kw_only=True)
class RandomizedResponseHalfFlip(RandomizedResponse):
    """Randomise-then-coin form with the factor 2 dropped: flip prob. 1/(2(1 + e^ε))."""

    name: str = "randomized_response_half_flip"

    @property
    def flip_probability(self) -> float:
        return 0.5 / (1.0 + math.exp(self.epsilon))


@dataclass(frozen=True, slots=True, kw_only=True)
class ExponentialMechanismNoHalf(ExponentialMechanism):
    """exp(ε·u) instead of exp(ε·u/2): up to 2ε for a non-monotone change."""

    name: str = "exponential_mechanism_no_half"

    def weight(self) -> float:
        return self.epsilon


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportNoisyMaxHalfScale(ReportNoisyMax):
    """Laplace(1/ε): correct only for monotone queries, not a histogram under replace-one."""

    name: str = "report_noisy_max_half_scale"

    @property
    def scale(self) -> float:
        return 1.0 / self.epsilon


@dataclass(frozen=True, slots=True, kw_only=True)
class AboveThresholdNoQueryNoise(AboveThreshold):
    """Compares exact answers with the noisy threshold: outputs with zero probability on
    one side exist, so ε = ∞ (an infinite witness)."""

    name: str = "above_threshold_no_query_noise"
    output_kind: ClassVar[str] = "discrete"

    @property
    def query_scale(self) -> float | None:
        return None

    def probabilities(self, dataset: Dataset) -> NDArray[np.float64]:
        q, T, b = self.answers(dataset), self.threshold, self.threshold_scale

        def cdf(x: float) -> float:
            return 0.5 * math.exp(x / b) if x < 0 else 1 - 0.5 * math.exp(-x / b)

        probs = []
        running = -math.inf
        for j in range(self.num_queries):
            # out = j iff max_{i<j} q_i < T + ρ ≤ q_j
            lo, hi = running - T, q[j] - T
            probs.append(max(0.0, cdf(hi) - (cdf(lo) if math.isfinite(lo) else 0.0)))
            running = max(running, q[j])
        probs.append(1 - cdf(running - T))
        return np.asarray(probs)
