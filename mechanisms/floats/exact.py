"""The correct counterparts of the `floats` twins: they must never be flagged.

- `SnappingLaplace`: Mironov's snapping mechanism (Mironov, "On significance of the least
  significant bits for differential privacy", CCS 2012, Section 5.2):
  clamp_B(round_Λ(clamp_B(f(D)) + S·λ·ln U*)), U* a full-precision uniform double, S a random
  sign, Λ the smallest power of two ≥ λ. For a sensitivity-1 f and λ < B < 2^46·λ the
  theorem of Section 5.2 states (1/λ + 2^-49·B/λ)-DP; its proof runs through the precision
  term (1 + 12Bη)/λ + 2^-49·B/λ² (η = 2^-53). Neither form dominates the other for every λ, so
  λ is solved so that *both* are ≤ ε (the larger λ): the claim holds under either reading.
  The function is rescaled by Δ = U − L (a power of two: exact scaling).
- `DiscreteLaplaceSum`: records clamped to [L, U] and rounded *one by one* to integers, summed
  exactly in int64 (sensitivity ⌈U − L⌉ however the floats round), plus discrete-Laplace noise
  (the fix of Casacuberta, Shoemate, Vadhan & Wagaman, CCS 2022: compute on integers).
- `DiscreteGaussianSum`: the same integer sum plus discrete Gaussian noise (Canonne, Kamath &
  Steinke, "The discrete Gaussian for differential privacy", NeurIPS 2020): Δ²/(2σ²)-zCDP
  (their concentrated-DP theorem for the discrete Gaussian), claimed as that zCDP curve with
  the headline (ε, δ) from the standard conversion ε = ρ + 2√(ρ ln 1/δ).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation
from ..analytic import discrete_epsilon
from ..base import ClaimCurve, CurveKind, PrivacyClaim
from .common import CKS, CSVW, MIRONOV, BoundedSum, claims, replace_pairs
from .samplers import discrete_gaussian, discrete_laplace, full_precision_uniform

ETA = 2.0**-53


def snapping_lambda(epsilon: float, bound: float) -> float:
    """The smallest λ with 1/λ + 2^-49·B/λ ≤ ε (the statement of Mironov 2012, Section 5.2) and
    (1 + 12Bη)/λ + 2^-49·B/λ² ≤ ε (the form with the precision term), unit sensitivity."""
    stated = (1.0 + 2.0**-49 * bound) / epsilon
    a = 1.0 + 12.0 * bound * ETA
    c = 2.0**-49 * bound
    precise = (a + math.sqrt(a * a + 4.0 * epsilon * c)) / (2.0 * epsilon)
    return max(stated, precise) * (1.0 + 1e-12)


@dataclass(frozen=True, slots=True, kw_only=True)
class SnappingLaplace(BoundedSum):
    """Mironov's snapping mechanism on the clamped sum (see the module docstring)."""

    epsilon: float = 1.0
    low: float = 0.0
    high: float = 1.0
    bound: float = 1024.0
    """B, in units of the sensitivity: outputs are clamped to [−B·Δ, B·Δ]."""
    name: str = "float_snapping"
    seedable: ClassVar[bool] = True
    floating_point: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"

    def __post_init__(self) -> None:
        BoundedSum.__post_init__(self)
        width = self.high - self.low
        if math.frexp(width)[0] != 0.5:
            raise ValueError("snapping rescales by Δ = high − low, which must be a power of two")
        lam = snapping_lambda(self.epsilon, self.bound)
        if not lam < self.bound < 2.0**46 * lam:
            raise ValueError("snapping needs λ < B < 2^46·λ (Mironov 2012, Section 5.2)")

    @property
    def sensitivity(self) -> float:
        return self.high - self.low

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return claims(self.epsilon, 0.0, MIRONOV + ", Section 5.2 (snapping mechanism)")

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        lam = snapping_lambda(self.epsilon, self.bound)
        grid = 2.0 ** math.ceil(math.log2(lam))
        f = float(np.clip(dataset.X[:, 0], self.low, self.high).sum()) / self.sensitivity
        f = min(max(f, -self.bound), self.bound)
        sign = rng.choice(np.array([-1.0, 1.0]), size=num_samples)
        y = f + sign * lam * np.log(full_precision_uniform(num_samples, rng=rng))
        snapped = np.clip(grid * np.rint(y / grid), -self.bound, self.bound)
        return snapped * self.sensitivity

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return replace_pairs(self.low, self.high)


class _IntegerSum(BoundedSum):
    """Records clamped to [low, high] and rounded one by one, summed exactly in int64."""

    __slots__ = ()
    low: float
    high: float

    @property
    def sensitivity(self) -> int:
        return math.ceil(self.high - self.low)

    @property
    def domain(self) -> Domain:
        return Domain(num_features=1, feature_low=self.low, feature_high=self.high, integer_features=True)

    def total(self, dataset: Dataset) -> int:
        return int(np.rint(np.clip(dataset.X[:, 0], self.low, self.high)).astype(np.int64).sum())

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return replace_pairs(self.low, self.high)


@dataclass(frozen=True, slots=True, kw_only=True)
class DiscreteLaplaceSum(_IntegerSum):
    """Integer sum + discrete Laplace(Δ/ε): ε-DP (Canonne, Kamath & Steinke 2020, Section 2)."""

    epsilon: float = 1.0
    low: float = 0.0
    high: float = 1.0
    name: str = "float_discrete_laplace"
    seedable: ClassVar[bool] = True
    floating_point: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return claims(self.epsilon, 0.0, CKS + ", discrete Laplace mechanism; integer sums as in " + CSVW)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        noise = discrete_laplace(self.sensitivity / self.epsilon, num_samples, rng=rng)
        return (self.total(dataset) + noise).astype(np.float64)

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        """Pure ε of the two laws (an upper bound on ε(δ) for δ > 0)."""
        return abs(self.total(pair.dataset) - self.total(pair.neighbor)) * self.epsilon / self.sensitivity


def zcdp_rho_for(epsilon: float, delta: float) -> float:
    """The ρ with ρ + 2√(ρ ln 1/δ) = ε."""
    root = -math.sqrt(math.log(1 / delta)) + math.sqrt(math.log(1 / delta) + epsilon)
    return root * root


@dataclass(frozen=True, slots=True, kw_only=True)
class DiscreteGaussianSum(_IntegerSum):
    """Integer sum + discrete Gaussian N_ℤ(0, σ²), σ = Δ/√(2ρ) (see the module docstring)."""

    epsilon: float = 1.0
    delta: float = 1e-5
    low: float = 0.0
    high: float = 1.0
    name: str = "float_discrete_gaussian"
    seedable: ClassVar[bool] = True
    floating_point: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"

    def __post_init__(self) -> None:
        BoundedSum.__post_init__(self)
        if not 0 < self.delta < 1:
            raise ValueError("need 0 < delta < 1")

    @property
    def rho(self) -> float:
        return zcdp_rho_for(self.epsilon, self.delta)

    @property
    def sigma(self) -> float:
        return self.sensitivity / math.sqrt(2 * self.rho)

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        curve = ClaimCurve(kind=CurveKind.ZCDP, parameter=self.rho)
        ref = CKS + ", discrete Gaussian mechanism: Δ²/(2σ²)-zCDP"
        return tuple(
            PrivacyClaim(epsilon=self.epsilon, delta=self.delta, relation=r, reference=ref, curve=curve)
            for r in (Relation.REPLACE_ONE, Relation.ADD_REMOVE_ONE)
        )

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        noise = discrete_gaussian(self.sigma, num_samples, rng=rng)
        return (self.total(dataset) + noise).astype(np.float64)

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        a, b = self.total(pair.dataset), self.total(pair.neighbor)
        width = int(40 * self.sigma) + abs(a - b) + 1
        k = np.arange(min(a, b) - width, max(a, b) + width + 1)
        p = np.exp(-((k - a) ** 2) / (2 * self.sigma**2))
        q = np.exp(-((k - b) ** 2) / (2 * self.sigma**2))
        return discrete_epsilon(p / p.sum(), q / q.sum(), delta)
