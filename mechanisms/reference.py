"""Textbook reference mechanisms with exactly known privacy (issue 2, item 3).

Record-level: a dataset is a list of records, neighbours differ in one record. Each
mechanism is vectorised over samples, carries its claim with a reference, registers the
worst-case pairs it is audited on, and has a white-box `exact_epsilon(pair, delta)` oracle
that tests and benchmarks use to check a certified bound never exceeds the truth.

References (none of these is from the five papers; they are the calibration set):
- Laplace mechanism: Dwork & Roth 2014, Thm 3.6.
- Gaussian mechanism: Balle & Wang 2018, Thm 8 (exact profile, see `analytic`).
- Randomized response: Warner 1965; Dwork & Roth 2014, Claim 3.5.
- Exponential mechanism: McSherry & Talwar 2007; Dwork & Roth 2014, Thm 3.10
  (sampled by Gumbel-max, which is report-noisy-max with Gumbel noise).
- Report noisy max with Laplace noise: Dwork & Roth 2014, Claim 3.9 (scale 2Δ/ε for
  non-monotone queries such as a histogram under replace-one).
- AboveThreshold (sparse vector): Dwork & Roth 2014, Thm 3.23; Lyu, Su & Li 2017, Alg. 1;
  also Bun & Fang, "Privately Learning Decision Lists and a Differentially Private Winnow",
  Lemma 4.3 (the paper's SVT primitive).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy import integrate

from ..neighbors.base import Dataset, Domain, NeighborPair, Relation
from .analytic import (
    discrete_epsilon,
    gaussian_epsilon,
    gaussian_mu_for,
    laplace_difference_sf,
    laplace_epsilon,
)
from .base import ClaimCurve, ClaimFromClaims, CurveKind, PrivacyClaim

TEXTBOOK = "textbook (not from the papers): "


def _pair(a: Any, b: Any, relation: Relation, description: str, *tags: str) -> NeighborPair:
    return NeighborPair(
        dataset=Dataset(np.asarray(a, float).reshape(len(a), -1)),
        neighbor=Dataset(np.asarray(b, float).reshape(len(b), -1)),
        relation=relation,
        description=description,
        tags=tags,
    )


class _BoundedSum:
    """Sensitivity of a sum of records in [low, high]: the range under replace-one, the largest
    magnitude under add/remove. Noise is calibrated to the larger, so one scale serves both."""

    __slots__ = ()
    low: float
    high: float

    def sensitivity(self, relation: Relation) -> float:
        if relation is Relation.ADD_REMOVE_ONE:
            return max(abs(self.low), abs(self.high))
        return self.high - self.low

    def calibration_sensitivity(self) -> float:
        return max(self.sensitivity(Relation.REPLACE_ONE), self.sensitivity(Relation.ADD_REMOVE_ONE))


class _Categories:
    """Records are category ids in {0, …, m−1}; the query is the vector of category counts."""

    __slots__ = ()
    num_candidates: int

    def counts(self, dataset: Dataset) -> NDArray[np.float64]:
        return np.bincount(dataset.X[:, 0].astype(int), minlength=self.num_candidates).astype(float)


class _DiscreteOracle:
    """White-box ε from the exact output distributions (`probabilities`) of both datasets."""

    __slots__ = ()

    def probabilities(self, dataset: Dataset) -> NDArray[np.float64]:
        raise NotImplementedError

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        return discrete_epsilon(self.probabilities(pair.dataset), self.probabilities(pair.neighbor), delta)


# --------------------------------------------------------------------------- Laplace
@dataclass(frozen=True, slots=True, kw_only=True)
class LaplaceSum(_BoundedSum, ClaimFromClaims):
    """Bounded sum of records in [low, high] plus Laplace(Δ/ε) noise.

    Sensitivity: Δ = high − low under replace-one, max(|low|, |high|) under add/remove.
    The noise is calibrated to the larger of the two, so both claims are ε-DP.
    """

    epsilon: float = 1.0
    low: float = 0.0
    high: float = 1.0
    name: str = "laplace_sum"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "continuous"
    reference: ClassVar[str] = TEXTBOOK + "Dwork & Roth 2014, Thm 3.6 (Laplace mechanism)"

    def __post_init__(self) -> None:
        if not self.epsilon > 0 or not self.low < self.high:
            raise ValueError("need epsilon > 0 and low < high")

    @property
    def scale(self) -> float:
        return self.calibration_sensitivity() / self.epsilon

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return tuple(
            PrivacyClaim(epsilon=self.epsilon, delta=0.0, relation=r, reference=self.reference)
            for r in (Relation.REPLACE_ONE, Relation.ADD_REMOVE_ONE)
        )

    @property
    def domain(self) -> Domain:
        return Domain(num_features=1, feature_low=self.low, feature_high=self.high, min_size=0)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        total = float(dataset.X.sum())
        return total + rng.laplace(0.0, self.scale, size=num_samples)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        lo, hi, n = self.low, self.high, 10
        return (
            _pair(
                [lo] * n,
                [lo] * (n - 1) + [hi],
                Relation.REPLACE_ONE,
                "replace one record low → high (full range)",
                "extreme",
            ),
            _pair(
                [lo] * (n - 1),
                [lo] * (n - 1) + [max((lo, hi), key=abs)],
                Relation.ADD_REMOVE_ONE,
                "add one record of largest magnitude",
                "extreme",
            ),
        )

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        shift = abs(pair.dataset.X.sum() - pair.neighbor.X.sum()) / self.scale
        return laplace_epsilon(shift, delta)


# --------------------------------------------------------------------------- Gaussian
@dataclass(frozen=True, slots=True, kw_only=True)
class GaussianSum(_BoundedSum, ClaimFromClaims):
    """Bounded sum plus N(0, σ²), σ = Δ/μ with μ from the analytic calibration to (ε, δ).

    The claim is (ε, δ) with the exact Balle–Wang profile, so the mechanism is tight: the
    realised δ(ε) equals the claimed δ on the full-range pair. It is also a curve claim: under
    relation r the release is exactly μ_r-GDP with μ_r = Δ_r/σ (Dong, Roth & Su 2022, Thm 2.7;
    Δ_r the sensitivity under r), whose profile ε(δ) passes through (ε, δ) when Δ_r is the
    calibration sensitivity and lies below it otherwise, so the audit compares it point by point.
    The curve is written min(Δ_r, calibration sensitivity)/σ (equal to Δ_r/σ here, since the
    calibration sensitivity is the larger of the Δ_r): a twin that calibrates to too small a
    sensitivity then still claims the GDP curve through its (ε, δ), as its author believes.
    """

    epsilon: float = 1.0
    delta: float = 1e-5
    low: float = 0.0
    high: float = 1.0
    name: str = "gaussian_sum"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "continuous"
    reference: ClassVar[str] = TEXTBOOK + "Balle & Wang 2018, Thm 8 (analytic Gaussian mechanism)"

    def __post_init__(self) -> None:
        if not self.epsilon > 0 or not 0 < self.delta < 1 or not self.low < self.high:
            raise ValueError("need epsilon > 0, 0 < delta < 1 and low < high")

    @property
    def sigma(self) -> float:
        return self.calibration_sensitivity() / gaussian_mu_for(self.epsilon, self.delta)

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return tuple(
            PrivacyClaim(
                epsilon=self.epsilon,
                delta=self.delta,
                relation=r,
                reference=self.reference,
                curve=ClaimCurve(
                    kind=CurveKind.GDP,
                    parameter=min(self.sensitivity(r), self.calibration_sensitivity()) / self.sigma,
                ),
            )
            for r in (Relation.REPLACE_ONE, Relation.ADD_REMOVE_ONE)
        )

    @property
    def domain(self) -> Domain:
        return Domain(num_features=1, feature_low=self.low, feature_high=self.high)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        return float(dataset.X.sum()) + rng.normal(0.0, self.sigma, size=num_samples)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        lo, hi, n = self.low, self.high, 10
        return (
            _pair(
                [lo] * n,
                [lo] * (n - 1) + [hi],
                Relation.REPLACE_ONE,
                "replace one record low → high (full range)",
                "extreme",
            ),
        )

    def mu(self, pair: NeighborPair) -> float:
        return abs(pair.dataset.X.sum() - pair.neighbor.X.sum()) / self.sigma

    def exact_epsilon(self, pair: NeighborPair, delta: float | None = None) -> float:
        d = self.delta if delta is None else delta
        return gaussian_epsilon(d, self.mu(pair)) if d > 0 else math.inf


# --------------------------------------------------------------------------- randomized response
@dataclass(frozen=True, slots=True, kw_only=True)
class RandomizedResponse(ClaimFromClaims):
    """Each record's bit is released, flipped with probability 1/(1 + e^ε).

    Output: the vector of released bits (samples, n). Replace-one changes one record, whose
    released bit has likelihood ratio exactly e^ε; the others are identically distributed.
    """

    epsilon: float = 1.0
    name: str = "randomized_response"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"
    reference: ClassVar[str] = TEXTBOOK + "Warner 1965; Dwork & Roth 2014, Claim 3.5"

    def __post_init__(self) -> None:
        if not self.epsilon > 0:
            raise ValueError("need epsilon > 0")

    @property
    def flip_probability(self) -> float:
        return 1.0 / (1.0 + math.exp(self.epsilon))

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return (PrivacyClaim(epsilon=self.epsilon, relation=Relation.REPLACE_ONE, reference=self.reference),)

    @property
    def domain(self) -> Domain:
        return Domain(num_features=1, feature_low=0, feature_high=1, integer_features=True, min_size=1)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        bits = dataset.X[:, 0].astype(np.int8)
        flips = rng.random((num_samples, bits.size)) < self.flip_probability
        return np.bitwise_xor(bits, flips.astype(np.int8))

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return (_pair([0, 0, 0], [1, 0, 0], Relation.REPLACE_ONE, "flip the first of three records"),)

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        p = self.flip_probability
        changed = int(np.sum(pair.dataset.X != pair.neighbor.X))
        if changed == 0:
            return 0.0
        # one changed record: the marginal of its bit is (1−p, p) vs (p, 1−p)
        return discrete_epsilon([1 - p, p], [p, 1 - p], delta)


# --------------------------------------------------------------------------- exponential mechanism
@dataclass(frozen=True, slots=True, kw_only=True)
class ExponentialMechanism(_Categories, _DiscreteOracle, ClaimFromClaims):
    """Select a category with probability ∝ exp(ε·u/(2Δ)), u = category counts, Δ = 1.

    Records are category ids in {0, …, m−1}. Counts have sensitivity 1 under replace-one
    and add/remove, so this is ε-DP under both (McSherry–Talwar). Sampled by Gumbel-max.
    """

    epsilon: float = 1.0
    num_candidates: int = 2
    name: str = "exponential_mechanism"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"
    reference: ClassVar[str] = TEXTBOOK + "McSherry & Talwar 2007; Dwork & Roth 2014, Thm 3.10"

    def __post_init__(self) -> None:
        if not self.epsilon > 0 or self.num_candidates < 2:
            raise ValueError("need epsilon > 0 and num_candidates ≥ 2")

    def weight(self) -> float:
        """Coefficient c in exp(c·u)."""
        return self.epsilon / 2

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return tuple(
            PrivacyClaim(epsilon=self.epsilon, relation=r, reference=self.reference)
            for r in (Relation.REPLACE_ONE, Relation.ADD_REMOVE_ONE)
        )

    @property
    def domain(self) -> Domain:
        return Domain(
            num_features=1, feature_low=0, feature_high=self.num_candidates - 1, integer_features=True
        )

    def probabilities(self, dataset: Dataset) -> NDArray[np.float64]:
        lw = self.weight() * self.counts(dataset)
        w = np.exp(lw - lw.max())
        return np.asarray(w / w.sum())

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        lw = self.weight() * self.counts(dataset)
        g = rng.gumbel(size=(num_samples, self.num_candidates))
        return np.argmax(lw + g, axis=1)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        # moving the lone record of category 0 onto the dominant category 1 drives the
        # normaliser ratio towards its worst case e^{ε/2}
        m = [0] + [1] * 4
        return (
            _pair(
                m,
                [1] * 5,
                Relation.REPLACE_ONE,
                "move the lone record of category 0 to the dominant category",
                "dominant",
            ),
            _pair(m[1:], m, Relation.ADD_REMOVE_ONE, "add a record to a minority category"),
        )


# --------------------------------------------------------------------------- report noisy max
@dataclass(frozen=True, slots=True, kw_only=True)
class ReportNoisyMax(_Categories, _DiscreteOracle, ClaimFromClaims):
    """argmax of category counts plus i.i.d. Laplace(b) noise, b = 2Δ/ε with Δ = 1.

    Under replace-one a histogram changes by ±1 in two coordinates (not monotone), so the
    noise scale 2/ε is what Dwork & Roth's Claim 3.9 argument needs for ε-DP.
    """

    epsilon: float = 1.0
    num_candidates: int = 2
    name: str = "report_noisy_max"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"
    reference: ClassVar[str] = TEXTBOOK + "Dwork & Roth 2014, Claim 3.9 (report noisy max)"

    def __post_init__(self) -> None:
        if not self.epsilon > 0 or self.num_candidates < 2:
            raise ValueError("need epsilon > 0 and num_candidates ≥ 2")

    @property
    def scale(self) -> float:
        return 2.0 / self.epsilon

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return (PrivacyClaim(epsilon=self.epsilon, relation=Relation.REPLACE_ONE, reference=self.reference),)

    @property
    def domain(self) -> Domain:
        return Domain(
            num_features=1, feature_low=0, feature_high=self.num_candidates - 1, integer_features=True
        )

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        noisy = self.counts(dataset) + rng.laplace(0.0, self.scale, size=(num_samples, self.num_candidates))
        return np.argmax(noisy, axis=1)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return (
            _pair(
                [0, 1, 1, 1],
                [1, 1, 1, 1],
                Relation.REPLACE_ONE,
                "move a record from the trailing to the leading category (gap 2 → 4)",
                "tail",
            ),
        )

    def probabilities(self, dataset: Dataset) -> NDArray[np.float64]:
        if self.num_candidates != 2:
            raise NotImplementedError("exact output distribution implemented for 2 candidates")
        u = self.counts(dataset)
        p0 = laplace_difference_sf(u[1] - u[0], self.scale)
        return np.array([p0, 1 - p0])


# --------------------------------------------------------------------------- AboveThreshold
@dataclass(frozen=True, slots=True, kw_only=True)
class AboveThreshold(_DiscreteOracle, ClaimFromClaims):
    """Sparse vector with one ⊤: first query j with q_j + Lap(4/ε) ≥ T + Lap(2/ε).

    Records are 0/1 vectors of length m; query j counts records with a 1 in column j
    (sensitivity 1 under replace-one and add/remove). Output: j, or m if no query fires.
    Only the index is released, never a noisy answer (Lyu–Su–Li Alg. 1 with c = 1).
    """

    epsilon: float = 1.0
    threshold: float = 0.5
    num_queries: int = 2
    name: str = "above_threshold"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"
    reference: ClassVar[str] = (
        TEXTBOOK + "Dwork & Roth 2014, Thm 3.23; Lyu, Su & Li 2017, Alg. 1; Bun & Fang, Privately Learning "
        "Decision Lists and a Differentially Private Winnow, Lemma 4.3"
    )

    def __post_init__(self) -> None:
        if not self.epsilon > 0 or self.num_queries < 1:
            raise ValueError("need epsilon > 0 and num_queries ≥ 1")

    @property
    def threshold_scale(self) -> float:
        return 2.0 / self.epsilon

    @property
    def query_scale(self) -> float | None:
        return 4.0 / self.epsilon

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return tuple(
            PrivacyClaim(epsilon=self.epsilon, relation=r, reference=self.reference)
            for r in (Relation.REPLACE_ONE, Relation.ADD_REMOVE_ONE)
        )

    @property
    def domain(self) -> Domain:
        return Domain(num_features=self.num_queries, feature_low=0, feature_high=1, integer_features=True)

    def answers(self, dataset: Dataset) -> NDArray[np.float64]:
        return np.asarray(dataset.X.sum(axis=0), dtype=float)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        q = self.answers(dataset)
        rho = rng.laplace(0.0, self.threshold_scale, size=(num_samples, 1))
        noisy = (
            q
            if self.query_scale is None
            else q + rng.laplace(0.0, self.query_scale, size=(num_samples, self.num_queries))
        )
        above = noisy >= self.threshold + rho
        fired = above.any(axis=1)
        return np.where(fired, np.argmax(above, axis=1), self.num_queries)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return (
            (
                _pair(
                    [[0, 1]] * 1,
                    [[1, 0]] * 1,
                    Relation.REPLACE_ONE,
                    "one record moves its 1 from the second query to the first",
                    "order",
                ),
            )
            if self.num_queries == 2
            else ()
        )

    def probabilities(self, dataset: Dataset) -> NDArray[np.float64]:
        """Exact output distribution by quadrature over the threshold noise."""
        q, T, m = self.answers(dataset), self.threshold, self.num_queries
        bt = self.threshold_scale

        def dens(r: float) -> float:
            return math.exp(-abs(r) / bt) / (2 * bt)

        def lap_cdf(x: float, b: float) -> float:
            return 0.5 * math.exp(x / b) if x < 0 else 1 - 0.5 * math.exp(-x / b)

        bq = self.query_scale
        assert bq is not None

        def out_prob(j: int, r: float) -> float:
            below = 1.0
            for i in range(min(j, m)):
                below *= lap_cdf(T + r - q[i], bq)
            return below if j == m else below * (1 - lap_cdf(T + r - q[j], bq))

        kinks = sorted({0.0, *(float(x - T) for x in q)})
        lim = 80 * max(bt, bq)
        edges = [-lim, *kinks, lim]
        probs = []
        for j in range(m + 1):
            total = 0.0
            for lo, hi in itertools.pairwise(edges):
                total += integrate.quad(
                    lambda r, j=j: dens(r) * out_prob(j, r), lo, hi, epsabs=1e-13, epsrel=1e-11, limit=200
                )[0]
            probs.append(total)
        return np.asarray(probs)
