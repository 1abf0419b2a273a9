"""Float mechanisms written the naive way (the buggy twins of the `floats` family).

- `NaiveFloatLaplace`: `f(D) + rng.laplace(0, Δ/ε)` over doubles. Mironov (CCS 2012, Section 3)
  shows the set of doubles it can release depends on f(D): on f = 0 vs f = 1 the outputs in
  (−1/2, 1/2) that are not multiples of 2^-53 occur only from D. True ε = ∞.
- `NaiveFloatGaussian`: `f(D) + rng.normal(0, σ)`, the same failure for Gaussian noise.
- `RoundedSumDiscreteLaplace`: the float sum of clamped records rounded to the integer grid, then
  exact discrete-Laplace noise calibrated to the declared sensitivity U − L. Rounding the *sum*
  (Casacuberta, Shoemate, Vadhan & Wagaman, CCS 2022: a sensitivity computed over the reals does
  not bound the rounded float computation) makes the real sensitivity ⌈U − L⌉ + 1: on
  {1, 1/2} vs {0, 1/2} the rounded sums are 2 and 0 (ties to even). True ε = 2ε.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, NeighborPair
from ..analytic import gaussian_mu_for
from ..base import PrivacyClaim
from .common import (
    CSVW,
    MIRONOV,
    NAIVE,
    BoundedSum,
    claims,
    clamped_sum,
    pair,
    replace_pairs,
)
from .samplers import discrete_laplace


def _inf_unless_equal(pair: NeighborPair, low: float, high: float) -> float:
    same = clamped_sum(pair.dataset, low, high) == clamped_sum(pair.neighbor, low, high)
    return 0.0 if same else math.inf


@dataclass(frozen=True, slots=True, kw_only=True)
class NaiveFloatLaplace(BoundedSum):
    """`clamp-sum(D) + rng.laplace(0, (U − L)/ε)` over doubles (see the module docstring)."""

    epsilon: float = 1.0
    low: float = 0.0
    high: float = 1.0
    name: str = "float_laplace_naive"
    seedable: ClassVar[bool] = True
    floating_point: ClassVar[bool] = True
    output_kind: ClassVar[str] = "continuous"

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return claims(self.epsilon, 0.0, NAIVE + "Dwork & Roth 2014, Thm 3.6; refuted by " + MIRONOV)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        scale = (self.high - self.low) / self.epsilon
        return clamped_sum(dataset, self.low, self.high) + rng.laplace(0.0, scale, size=num_samples)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return replace_pairs(self.low, self.high)

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        """∞ when the sums differ: the supports differ in their low bits (Mironov, Section 3)."""
        return _inf_unless_equal(pair, self.low, self.high)


@dataclass(frozen=True, slots=True, kw_only=True)
class NaiveFloatGaussian(BoundedSum):
    """`clamp-sum(D) + rng.normal(0, σ)`, σ the analytic Gaussian calibration to (ε, δ)."""

    epsilon: float = 1.0
    delta: float = 1e-5
    low: float = 0.0
    high: float = 1.0
    name: str = "float_gaussian_naive"
    seedable: ClassVar[bool] = True
    floating_point: ClassVar[bool] = True
    output_kind: ClassVar[str] = "continuous"

    def __post_init__(self) -> None:
        BoundedSum.__post_init__(self)
        if not 0 < self.delta < 1:
            raise ValueError("need 0 < delta < 1")

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        ref = NAIVE + "Balle & Wang 2018, Thm 8; refuted as in " + MIRONOV
        return claims(self.epsilon, self.delta, ref)

    @property
    def sigma(self) -> float:
        return (self.high - self.low) / gaussian_mu_for(self.epsilon, self.delta)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        return clamped_sum(dataset, self.low, self.high) + rng.normal(0.0, self.sigma, size=num_samples)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return replace_pairs(self.low, self.high)

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        return _inf_unless_equal(pair, self.low, self.high)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundedSumDiscreteLaplace(BoundedSum):
    """rint(float sum of records clamped to [L, U]) + discrete Laplace(⌈U − L⌉/ε): the declared
    sensitivity ignores the rounding of the sum (see the module docstring). Registers no pair:
    the audit finds one among the templates (`neighbors.float_templates`)."""

    epsilon: float = 1.0
    low: float = 0.0
    high: float = 1.0
    name: str = "float_sum_rounding"
    seedable: ClassVar[bool] = True
    floating_point: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"

    @property
    def declared_sensitivity(self) -> float:
        return float(math.ceil(self.high - self.low))

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        ref = "declared sensitivity ⌈U − L⌉ of the rounded float sum, refuted as in " + CSVW
        return claims(self.epsilon, 0.0, ref)

    def release(self, dataset: Dataset) -> float:
        return float(np.rint(clamped_sum(dataset, self.low, self.high)))

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        noise = discrete_laplace(self.declared_sensitivity / self.epsilon, num_samples, rng=rng)
        return self.release(dataset) + noise.astype(np.float64)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return ()

    def documented_pair(self) -> NeighborPair:
        """The pair of the module docstring (not registered: the templates must find it)."""
        mid = 0.5 * (self.low + self.high)
        return pair([self.high, mid], [self.low, mid], "rounded sums 2 vs 0", "rounding")

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        """Pure ε of the two discrete-Laplace laws (an upper bound on ε(δ) for δ > 0)."""
        shift = abs(self.release(pair.dataset) - self.release(pair.neighbor))
        return shift * self.epsilon / self.declared_sensitivity
