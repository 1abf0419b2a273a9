"""The sparse vector technique and its published variants (Lyu, Su & Li 2017, VLDB).

Lyu, Su & Li, "Understanding the Sparse Vector Technique for Differential Privacy", Figure 1
and Section 3 (Δ = 1 for counting queries; ε₁ + ε₂ = ε):

| variant | ε₁  | threshold ρ | query noise νᵢ | ⊤ output | ⊤ limit | true privacy                  |
|---------|-----|-------------|----------------|----------|---------|-------------------------------|
| SVT1    | ε/2 | Lap(Δ/ε₁)   | Lap(2cΔ/ε₂)    | ⊤        | c       | ε-DP (Thm 2)                  |
| SVT3    | ε/2 | Lap(Δ/ε₁)   | Lap(cΔ/ε₂)     | qᵢ + νᵢ  | c       | ∞-DP (Roth 2011)              |
| SVT4    | ε/4 | Lap(Δ/ε₁)   | Lap(Δ/ε₂)      | ⊤        | c       | (1+6c)/4·ε (Lee, Clifton 2014) |
| SVT5    | ε/2 | Lap(Δ/ε₁)   | none           | ⊤        | ∞       | ∞-DP (Stoddard et al. 2014)   |
| SVT6    | ε/2 | Lap(Δ/ε₁)   | Lap(Δ/ε₂)      | ⊤        | ∞       | ∞-DP (Chen et al. 2015)       |

Each variant is audited under the claim its authors made (ε-DP, replace-one and add/remove:
counting queries have sensitivity 1 under both); SVT3–SVT6 are the twins of SVT1 whose true
privacy is worse. Over m queries the ∞ of SVT3, SVT5 and SVT6 is a finite ε growing with m
(SVT5: an infinite witness on most pairs; SVT6: up to ε₁ + m·ε₂ on one-above-rest-below).

Records: `records="binary"` (default; each record a 0/1 vector, query j counts the 1s in
column j), `"one_hot"` (each record in one of m cells) or `"histogram"` (each record the index
of one of m ordered bins); the queries are the m counts. The release is one row per sample:
for each query 1 (⊤), 0 (⊥) or −1 (not answered: after the c-th ⊤), and for SVT3 the m noisy
answers released at ⊤ positions (0 elsewhere) after them. Vectorised over samples: each query
is one numpy operation on a (num_samples,) array. `exact_epsilon` (all variants but SVT3) sums
over every output pattern the quadrature ∫ f_ρ(r) Πᵢ P(oᵢ | r) dr, split at the kinks of the
integrand (Gauss–Legendre on each piece).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation
from ...neighbors.records import RecordSpace
from ..analytic import discrete_epsilon
from ..base import ClaimFromClaims, PrivacyClaim

REFERENCE = (
    "Lyu, Su & Li, Understanding the Sparse Vector Technique for Differential Privacy (VLDB 2017), Figure 1"
)
RECORD_KINDS = ("binary", "one_hot", "histogram")
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(96)


@dataclass(frozen=True, slots=True, kw_only=True)
class SparseVector(ClaimFromClaims):
    """SVT1 (Lyu, Su & Li 2017, Alg. 1): ρ = Lap(Δ/ε₁), νᵢ = Lap(2cΔ/ε₂), ⊤ if qᵢ + νᵢ ≥ T + ρ,
    halt after c ⊤s; ε-DP (their Theorem 2). See the module docstring for the twins."""

    epsilon: float = 1.0
    threshold: float = 0.5
    num_queries: int = 5
    cutoff: int = 1
    records: str = "binary"
    name: str = "svt1"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"
    variant: ClassVar[str] = "Alg. 1 (SVT1)"
    first_share: ClassVar[float] = 0.5
    """ε₁ / ε."""
    unbounded: ClassVar[bool] = False
    releases_answers: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if not self.epsilon > 0 or self.num_queries < 1 or self.cutoff < 1:
            raise ValueError("need epsilon > 0, num_queries ≥ 1 and cutoff ≥ 1")
        if self.records not in RECORD_KINDS:
            raise ValueError(f"records must be one of {', '.join(RECORD_KINDS)}")

    # ---------------------------------------------------------------- noise scales
    @property
    def epsilon_threshold(self) -> float:
        return self.first_share * self.epsilon

    @property
    def threshold_scale(self) -> float:
        return 1.0 / self.epsilon_threshold

    @property
    def query_scale(self) -> float:
        """Scale of νᵢ (0: no query noise)."""
        return 2.0 * self.cutoff / (self.epsilon - self.epsilon_threshold)

    # ---------------------------------------------------------------- contract
    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return tuple(
            PrivacyClaim(epsilon=self.epsilon, relation=r, reference=f"{REFERENCE}, {self.variant}")
            for r in (Relation.REPLACE_ONE, Relation.ADD_REMOVE_ONE)
        )

    @property
    def record_space(self) -> RecordSpace:
        m = self.num_queries
        return {
            "binary": RecordSpace.binary(m),
            "one_hot": RecordSpace.one_hot(m),
            "histogram": RecordSpace.histogram(m),
        }[self.records]

    @property
    def domain(self) -> Domain:
        return Domain.over(self.record_space)

    def answers(self, dataset: Dataset) -> NDArray[np.float64]:
        """The m counting queries (sensitivity 1 under replace-one and add/remove)."""
        if self.records == "histogram":
            cells = dataset.X[:, 0].astype(np.int64)
            return np.bincount(cells, minlength=self.num_queries).astype(float)[: self.num_queries]
        return np.asarray(dataset.X.sum(axis=0), dtype=float)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        q, m = self.answers(dataset), self.num_queries
        rho = rng.laplace(0.0, self.threshold_scale, size=num_samples)
        status = np.full((num_samples, m), -1.0)
        values = np.zeros((num_samples, m))
        tops = np.zeros(num_samples, dtype=np.int64)
        for j in range(m):
            live = tops < self.cutoff if not self.unbounded else np.ones(num_samples, dtype=bool)
            noisy = q[j] + (rng.laplace(0.0, self.query_scale, size=num_samples) if self.query_scale else 0.0)
            top = noisy >= self.threshold + rho
            status[:, j] = np.where(live, top.astype(float), -1.0)
            values[:, j] = np.where(live & top, noisy, 0.0)
            tops += live & top
        return np.hstack([status, values]) if self.releases_answers else status

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        """Half-half, alone (the x-shape of Ding et al. 2018): the one record moves from the
        second half of the queries to the first (binary records), or from the last cell to the
        first (one-hot, histogram); the worst case of SVT1 among the counting templates."""
        space, m = self.record_space, self.num_queries
        if self.records == "binary":
            r_new = np.zeros(m)
            r_new[: max(m // 2, 1)] = 1.0
            r_old = 1.0 - r_new
        else:
            r_old, r_new = space.unit(m - 1), space.unit(0)
        return (
            NeighborPair(
                dataset=Dataset(r_old.reshape(1, -1)),
                neighbor=Dataset(r_new.reshape(1, -1)),
                relation=Relation.REPLACE_ONE,
                description="x-shape: the only record moves from the last queries to the first",
                tags=("counting",),
            ),
        )

    # ---------------------------------------------------------------- white-box oracle
    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        if self.releases_answers:
            raise NotImplementedError("no closed form for a release of noisy answers")
        return discrete_epsilon(self.probabilities(pair.dataset), self.probabilities(pair.neighbor), delta)

    def patterns(self) -> list[tuple[int, ...]]:
        """Every possible status vector, in a fixed order."""
        out = []
        for bits in itertools.product((0, 1), repeat=self.num_queries):
            status, tops = [], 0
            for b in bits:
                if not self.unbounded and tops >= self.cutoff:
                    status.append(-1)
                    continue
                status.append(b)
                tops += b
            out.append(tuple(status))
        return list(dict.fromkeys(out))

    def probabilities(self, dataset: Dataset) -> NDArray[np.float64]:
        """P(status vector) for every pattern of `patterns()`."""
        q, T = self.answers(dataset), self.threshold
        b_rho, b_nu = self.threshold_scale, self.query_scale
        lim = 60.0 * max(b_rho, b_nu)
        kinks = sorted({0.0, *(float(x - T) for x in q)})
        edges = np.array([-lim, *[k for k in kinks if -lim < k < lim], lim])
        lo, hi = edges[:-1, None], edges[1:, None]
        r = ((hi - lo) * _NODES[None, :] + (hi + lo)) / 2  # (pieces, nodes)
        w = (hi - lo) * _WEIGHTS[None, :] / 2
        dens = np.exp(-np.abs(r) / b_rho) / (2 * b_rho) * w
        # P(query i fires | ρ = r) = P(νᵢ ≥ T + r − qᵢ)
        x = T + r[None, :, :] - q[:, None, None]
        if b_nu > 0:
            fire = np.where(
                x < 0, 1 - 0.5 * np.exp(np.minimum(x, 0) / b_nu), 0.5 * np.exp(-np.maximum(x, 0) / b_nu)
            )
        else:
            fire = (x <= 0).astype(float)
        probs = []
        for pattern in self.patterns():
            term = dens.copy()
            for i, s in enumerate(pattern):
                if s >= 0:
                    term = term * (fire[i] if s == 1 else 1 - fire[i])
            probs.append(float(term.sum()))
        p = np.asarray(probs)
        return p / p.sum()
