"""Synthetic vector-output mechanisms for the learned-distinguisher tests (issue 7).

`SpreadGaussian`: the release is θ(D) + N(0, I_d) with θ(D) = X[0] · μ/√d, so on the pair
X = 0 vs X = 1 (every coordinate) the mean moves by μ/√d in each of d coordinates: no single
coordinate carries more than a Gaussian shift of μ/√d, while the whole vector is the Gaussian
mechanism with μ = ‖θ − θ'‖ (its exact ε(δ) is `gaussian_epsilon(δ, μ)`).

`ScaleChange`: N(0, s²I_d) vs N(0, I_d): no mean shift, so linear scores see nothing; the
privacy loss is monotone in ‖x‖² and its exact ε(δ) follows from chi-square tails.

`ExactlyClaimed` (their base, also used by tests/audit/test_learned.py): the claim is the
mechanism's own exact ε at its δ, replace-one, so a valid audit can reach but never exceed it;
`one_record_pair` is the one-record replace pair they are audited on.

`CoordinateThresholds`: a distinguisher that proposes only per-coordinate thresholds (the
`ThresholdDistinguisher` also adds a mean-difference projection, which is a learned score).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, stats

from dpaudit.engine.distinguishers.selection import Candidates, Event, ThresholdDistinguisher
from dpaudit.mechanisms.analytic import gaussian_epsilon
from dpaudit.mechanisms.base import PrivacyClaim
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation


@dataclass(frozen=True, slots=True, kw_only=True)
class ExactlyClaimed:
    """A synthetic mechanism claiming exactly its true ε at `delta` (replace-one)."""

    delta: float = 1e-5
    seedable: ClassVar[bool] = True

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(
            epsilon=self.exact_epsilon(), delta=self.delta, relation=Relation.REPLACE_ONE, reference="test"
        )

    def exact_epsilon(self) -> float:
        raise NotImplementedError


def one_record_pair(
    record: NDArray[np.float64], other: NDArray[np.float64], description: str
) -> NeighborPair:
    """The replace-one pair of the one-record datasets `record` vs `other` (each of shape (1, d))."""
    return NeighborPair(
        dataset=Dataset(record),
        neighbor=Dataset(other),
        relation=Relation.REPLACE_ONE,
        description=description,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class SpreadGaussian(ExactlyClaimed):
    dimension: int = 20
    mu: float = 2.0
    name: str = "spread_gaussian"

    @property
    def domain(self) -> Domain:
        return Domain(num_features=self.dimension, feature_low=0.0, feature_high=1.0)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        shift = dataset.X[0] * (self.mu / math.sqrt(self.dimension))
        return shift + rng.standard_normal((num_samples, self.dimension))

    def pair(self) -> NeighborPair:
        d = self.dimension
        return one_record_pair(np.zeros((1, d)), np.ones((1, d)), "shift every coordinate by μ/√d")

    def exact_epsilon(self, delta: float | None = None) -> float:
        return gaussian_epsilon(self.delta if delta is None else delta, self.mu)


@dataclass(frozen=True, slots=True, kw_only=True)
class ScaleChange(ExactlyClaimed):
    dimension: int = 10
    scale: float = 1.3
    name: str = "scale_change"

    @property
    def domain(self) -> Domain:
        return Domain(num_features=1, feature_low=0.0, feature_high=1.0)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        return self.scale ** float(dataset.X[0, 0]) * rng.standard_normal((num_samples, self.dimension))

    def pair(self) -> NeighborPair:
        return one_record_pair(np.ones((1, 1)), np.zeros((1, 1)), "scale s vs 1")

    def delta_at(self, eps: float) -> float:
        """Exact δ(ε): optimal events {‖x‖² ≥ c} (P = scaled side) and {‖x‖² ≤ c} (reverse)."""
        d, s = self.dimension, self.scale
        slope = 0.5 * (1 - 1 / s**2)
        c_hi = (eps + d * math.log(s)) / slope
        fwd = stats.chi2.sf(c_hi / s**2, d) - math.exp(eps) * stats.chi2.sf(c_hi, d)
        c_lo = (d * math.log(s) - eps) / slope
        rev = stats.chi2.cdf(c_lo, d) - math.exp(eps) * stats.chi2.cdf(c_lo / s**2, d) if c_lo > 0 else 0.0
        return float(max(fwd, rev, 0.0))

    def exact_epsilon(self) -> float:
        if self.delta_at(0.0) <= self.delta:
            return 0.0
        hi = 1.0
        while self.delta_at(hi) > self.delta:
            hi *= 2
        return float(optimize.brentq(lambda e: self.delta_at(e) - self.delta, 0.0, hi, xtol=1e-10))


@dataclass(frozen=True, slots=True)
class CoordinateThresholds:
    """Per-coordinate tail thresholds only (no projections)."""

    name: str = "coordinates"

    def propose(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Candidates | None:
        base = ThresholdDistinguisher()
        parts = [base.propose(a[:, [j]], b[:, [j]]) for j in range(a.shape[1])]
        assert all(p is not None for p in parts)
        sizes = np.cumsum([0] + [p.counts_a.size for p in parts if p is not None])

        def make(i: int) -> Event:
            j = int(np.searchsorted(sizes, i, side="right") - 1)
            part = parts[j]
            assert part is not None
            return dataclasses.replace(part.make_event(i - int(sizes[j])), coordinate=j)  # type: ignore[type-var]

        return Candidates(
            np.concatenate([p.counts_a for p in parts if p is not None]),
            np.concatenate([p.counts_b for p in parts if p is not None]),
            make,
        )
