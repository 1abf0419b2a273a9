"""Blind user mechanisms: buggy / correct pairs written as a user would, with no registered pairs.

Each mechanism is `from_callable(batch_fn=…)` with a claim and a domain only (no `pairs=`), so
`dpaudit run tests.blind_mechanisms:NAME` searches its domain blind. `ROWS` lists every one with
its true ε at the claim's δ (computed below, next to the mechanism) and whether it is buggy (true
ε above the claim). `benchmarks/blind.py` audits them all; `tests/quality/test_blind.py` a subset.

Bug classes (each with its correct counterpart):

- **threshold branch** (t ∈ {3, 5, 10, 20}; a box of one feature in [0, 1], v = 0.5, and an
  integer record space {0, …, 10}, v = 5): a noisy count of the records with x ≥ v released only
  when the *true* count reaches t, else the sentinel −1. True ε = ∞ (the pair moving the count
  from t to t − 1 changes the support). Correct: the branch on the *noisy* count (post-processing
  of one Laplace count, ε = 1).
- **region gate** (issue 35; t ∈ {3, 5, 10}): the same branch on the true count of records in a
  region the extremes miss: an interior band 0.4 ≤ x < 0.6 of a feature in [0, 1], and a mixed
  corner x₀ ≥ 0.5 and x₁ < 0.5 of a box [0, 1]². True ε = ∞. Correct: the branch on the noisy
  count (ε = 1).
- **mean with its own size**: under add/remove, mean + Lap(1/(n ε)): the noise scale depends
  on the private n, so the two sides' Laplace laws have different scales (ε = ∞ at δ = 0).
  Correct: sum / N + Lap(1/(N ε)) with the public bound N.
- **k-ary randomized response with the binary keep probability** (k = 4): keep with
  e^ε / (1 + e^ε) instead of e^ε / (e^ε + k − 1): ε = ln(p (k − 1) / (1 − p)) = 1 + ln 3.
- **sum ignoring negative values**: records in [−1, 1], Laplace scale 1/ε as if the sensitivity
  were max |x| = 1; under replace-one it is 2 (ε = 2). Correct: scale 2/ε.
- **small-cell suppression on true counts**: a 3-category histogram with Lap(2/ε) per cell (L1
  sensitivity 2 under replace-one) whose cells with a true count below 5 are released as 0
  (ε = ∞). Correct: suppression on the noisy count (ε = 1).
- **skip the update if the batch is empty**: a Poisson(½) batch's noisy sum, but the exact 0 when
  the batch is empty (add/remove: the empty dataset always skips, one record half the time:
  ε = ∞). Correct: the noise is added always (ε = 1).
- **Gaussian sum with the wrong range**: σ calibrated (analytic Gaussian, Balle & Wang 2018) for
  records in [0, 1] on records in [0, 2] (ε(10⁻⁵) of sensitivity 2). Correct: σ for range 2.
- **Gaussian mean with its own size** (issue 35; add/remove, records in [0, 1]³): the mean vector
  plus N(0, σ²I) with σ = √3 / (n μ) calibrated (analytic Gaussian) with the private n: the two
  sides' Gaussians differ in *scale* (same records, n = 1 vs n = 2: σ halves), which no threshold
  on a linear score separates and the learned quadratic discriminant does. Its truth is the exact
  ε(10⁻⁵) of that scale-only pair (a lower bound on the mechanism's). Correct: the sum / N with the
  public N and σ = √3 / (N μ) (ε = 1 at δ = 10⁻⁵ exactly).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.mechanisms.analytic import gaussian_epsilon, gaussian_mu_for
from dpaudit.mechanisms.base import CallableMechanism, PrivacyClaim, from_callable
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation
from dpaudit.neighbors.records import RecordSpace

EPSILON = 1.0
SENTINEL = -1.0
THRESHOLDS = (3, 5, 10, 20)
BOX = Domain(num_features=1, feature_low=0.0, feature_high=1.0)
INTEGER = Domain.over(RecordSpace.integer(1, low=0, high=10))
REPLACE = PrivacyClaim(epsilon=EPSILON, relation=Relation.REPLACE_ONE, reference="user's claim")
ADD_REMOVE = PrivacyClaim(epsilon=EPSILON, relation=Relation.ADD_REMOVE_ONE, reference="user's claim")
Batch = Callable[[Dataset, int, np.random.Generator], Any]


@dataclass(frozen=True, slots=True)
class Row:
    """One blind mechanism: its name, the mechanism, its true ε at the claim's δ, buggy or not, and
    (some rows) the hand-written pairs a user who knew the bug would register: `benchmarks/blind.py
    --registered` audits them too and prints blind / registered (issue 35, item 4)."""

    name: str
    mechanism: CallableMechanism
    truth: float
    buggy: bool
    registered: tuple[NeighborPair, ...] = ()


def _mechanism(name: str, batch: Batch, claim: PrivacyClaim, domain: Domain) -> CallableMechanism:
    return from_callable(name=name, claim=claim, domain=domain, batch_fn=batch)


# --- threshold branch ---------------------------------------------------------------------------


def threshold_branch(t: int, v: float) -> Batch:
    """Buggy: Laplace count of x ≥ v released only when the true count reaches t."""

    def batch(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
        count = int(np.count_nonzero(ds.X[:, 0] >= v))
        if count < t:
            return np.full(m, SENTINEL)
        return count + rng.laplace(0.0, 1.0 / EPSILON, size=m)

    return batch


def threshold_noisy(t: int, v: float) -> Batch:
    """Correct: the branch reads the noisy count (post-processing)."""

    def batch(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
        noisy = np.count_nonzero(ds.X[:, 0] >= v) + rng.laplace(0.0, 1.0 / EPSILON, size=m)
        return np.where(noisy >= t, noisy, SENTINEL)

    return batch


def _threshold_rows() -> list[Row]:
    rows = []
    for domain, where, v in ((BOX, "box", 0.5), (INTEGER, "int", 5.0)):
        for t in THRESHOLDS:
            name = f"threshold_{where}_t{t}"
            rows.append(Row(name, _mechanism(name, threshold_branch(t, v), REPLACE, domain), math.inf, True))
            name = f"noisy_threshold_{where}_t{t}"
            rows.append(Row(name, _mechanism(name, threshold_noisy(t, v), REPLACE, domain), EPSILON, False))
    return rows


# --- gate on the count in a region the extremes miss (issue 35) ---------------------------------

REGION_THRESHOLDS = (3, 5, 10)
BAND = (0.4, 0.6)
BOX2 = Domain(num_features=2, feature_low=0.0, feature_high=1.0)
Region = Callable[[Dataset], int]


def _in_band(ds: Dataset) -> int:
    x = ds.X[:, 0]
    return int(np.count_nonzero((x >= BAND[0]) & (x < BAND[1])))


def _in_mixed_corner(ds: Dataset) -> int:
    return int(np.count_nonzero((ds.X[:, 0] >= 0.5) & (ds.X[:, 1] < 0.5)))


def region_gate(t: int, region: Region, noisy: bool) -> Batch:
    """A Laplace count of the region released when the true count (buggy) or the noisy count
    (correct) reaches t, else the sentinel."""

    def batch(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
        count = region(ds)
        out = count + rng.laplace(0.0, 1.0 / EPSILON, size=m)
        return np.where((out if noisy else np.full(m, count)) >= t, out, SENTINEL)

    return batch


def _region_rows() -> list[Row]:
    rows = []
    for where, region, domain in (("band", _in_band, BOX), ("mixed_corner", _in_mixed_corner, BOX2)):
        for t in REGION_THRESHOLDS:
            name = f"gate_{where}_t{t}"
            rows.append(
                Row(name, _mechanism(name, region_gate(t, region, False), REPLACE, domain), math.inf, True)
            )
            name = f"noisy_gate_{where}_t{t}"
            rows.append(
                Row(name, _mechanism(name, region_gate(t, region, True), REPLACE, domain), EPSILON, False)
            )
    return rows


# --- mean whose noise uses the dataset's own size (add/remove) ----------------------------------

PUBLIC_N = 64


def _mean_own_size(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
    n = max(ds.n, 1)
    return ds.X[:, 0].sum() / n + rng.laplace(0.0, 1.0 / (n * EPSILON), size=m)


def _mean_public_size(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
    return ds.X[:, 0].sum() / PUBLIC_N + rng.laplace(0.0, 1.0 / (PUBLIC_N * EPSILON), size=m)


# --- k-ary randomized response ------------------------------------------------------------------

K = 4
CATEGORIES = Domain.over(RecordSpace.categorical(K), min_size=1, max_size=8)


def _rr(keep: float) -> Batch:
    def batch(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
        x = ds.X[:, 0].astype(np.int64)
        flip = rng.random((m, x.size)) >= keep
        other = (x + rng.integers(1, K, size=(m, x.size))) % K  # uniform over the other k − 1
        return np.where(flip, other, x).astype(float)

    return batch


BINARY_KEEP = math.exp(EPSILON) / (1.0 + math.exp(EPSILON))
K_ARY_KEEP = math.exp(EPSILON) / (math.exp(EPSILON) + K - 1)


def rr_epsilon(keep: float) -> float:
    """ε of k-ary randomized response keeping the value with probability `keep`."""
    return math.log(keep * (K - 1) / (1.0 - keep))


# --- sum whose sensitivity ignores negative values ----------------------------------------------

SIGNED = Domain(num_features=1, feature_low=-1.0, feature_high=1.0)


def _signed_sum(sensitivity: float) -> Batch:
    def batch(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
        return ds.X[:, 0].sum() + rng.laplace(0.0, sensitivity / EPSILON, size=m)

    return batch


# --- small-cell suppression ---------------------------------------------------------------------

CELLS = 3
SMALL = 5
CELL_DOMAIN = Domain.over(RecordSpace.categorical(CELLS))


def _cells(ds: Dataset) -> Any:
    return np.bincount(ds.X[:, 0].astype(np.int64), minlength=CELLS).astype(float)


def _suppress_true(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
    counts = _cells(ds)
    noisy = counts + rng.laplace(0.0, 2.0 / EPSILON, size=(m, CELLS))
    return np.where(counts >= SMALL, noisy, 0.0)


def _suppress_noisy(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
    noisy = _cells(ds) + rng.laplace(0.0, 2.0 / EPSILON, size=(m, CELLS))
    return np.where(noisy >= SMALL, noisy, 0.0)


# --- skip the update if the batch is empty (add/remove) -----------------------------------------


def _poisson_batch(ds: Dataset, m: int, rng: np.random.Generator) -> tuple[Any, Any]:
    kept = rng.random((m, ds.n)) < 0.5
    return kept @ ds.X[:, 0], kept.any(axis=1)


def _skip_empty(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
    total, nonempty = _poisson_batch(ds, m, rng)
    return np.where(nonempty, total + rng.laplace(0.0, 1.0 / EPSILON, size=m), 0.0)


def _always_noise(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
    total, _ = _poisson_batch(ds, m, rng)
    return total + rng.laplace(0.0, 1.0 / EPSILON, size=m)


# --- Gaussian sum with the wrong value range ----------------------------------------------------

DELTA = 1e-5
WIDE = Domain(num_features=1, feature_low=0.0, feature_high=2.0)
GAUSS = PrivacyClaim(epsilon=EPSILON, delta=DELTA, relation=Relation.REPLACE_ONE, reference="user's claim")
MU = gaussian_mu_for(EPSILON, DELTA)  # sensitivity / σ reaching (ε, δ) exactly


def _gaussian(value_range: float) -> Batch:
    sigma = value_range / MU

    def batch(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
        return ds.X[:, 0].sum() + rng.normal(0.0, sigma, size=m)

    return batch


# --- Gaussian mean whose σ uses the dataset's own size (add/remove, vector output) ----------------

CUBE = Domain(num_features=3, feature_low=0.0, feature_high=1.0)
GAUSS_ADD_REMOVE = PrivacyClaim(
    epsilon=EPSILON, delta=DELTA, relation=Relation.ADD_REMOVE_ONE, reference="user's claim"
)
ROOT3 = math.sqrt(3.0)  # L2 norm of the largest record of [0, 1]³


def _gaussian_mean_own_size(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
    n = max(ds.n, 1)
    return ds.X.sum(axis=0) / n + rng.normal(0.0, ROOT3 / (n * MU), size=(m, 3))


def _gaussian_mean_public_size(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
    return ds.X.sum(axis=0) / PUBLIC_N + rng.normal(0.0, ROOT3 / (PUBLIC_N * MU), size=(m, 3))


def scale_epsilon(delta: float, ratio: float, dim: int) -> float:
    """Exact ε(δ) between N(0, I_dim) and N(0, ratio⁻² I_dim) (ratio > 1), both directions: the
    privacy loss is monotone in ‖x‖², a χ²_dim variable on either side."""
    from scipy import stats

    s1, s2 = 1.0, 1.0 / ratio

    def delta_of(eps: float) -> float:
        # P = N(0, s1²) vs Q = N(0, s2²): L = dim·ln(s2/s1) + r/2·(1/s2² − 1/s1²), increasing in r = ‖x‖²
        k, c = 0.5 * (1 / s2**2 - 1 / s1**2), dim * math.log(s2 / s1)
        r_pq = max((eps - c) / k, 0.0)  # {L_PQ > ε} = {r > r_pq}
        d_pq = stats.chi2.sf(r_pq / s1**2, dim) - math.exp(eps) * stats.chi2.sf(r_pq / s2**2, dim)
        r_qp = (-eps - c) / k  # {L_QP > ε} = {r < r_qp}
        d_qp = 0.0
        if r_qp > 0:
            d_qp = stats.chi2.cdf(r_qp / s2**2, dim) - math.exp(eps) * stats.chi2.cdf(r_qp / s1**2, dim)
        return float(max(d_pq, d_qp, 0.0))

    lo, hi = 0.0, 1.0
    while delta_of(hi) > delta:
        hi *= 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if delta_of(mid) > delta else (lo, mid)
    return hi


OWN_SIZE_TRUTH = scale_epsilon(DELTA, 2.0, 3)  # n = 1 vs n = 2: σ halves


def _other_rows() -> list[Row]:
    spec = [
        ("mean_own_size", _mean_own_size, ADD_REMOVE, BOX, math.inf),
        ("mean_public_size", _mean_public_size, ADD_REMOVE, BOX, EPSILON),
        ("rr_binary_keep", _rr(BINARY_KEEP), REPLACE, CATEGORIES, rr_epsilon(BINARY_KEEP)),
        ("rr_k_ary_keep", _rr(K_ARY_KEEP), REPLACE, CATEGORIES, rr_epsilon(K_ARY_KEEP)),
        ("sum_ignores_negatives", _signed_sum(1.0), REPLACE, SIGNED, 2.0 * EPSILON),
        ("sum_signed_sensitivity", _signed_sum(2.0), REPLACE, SIGNED, EPSILON),
        ("suppress_true_counts", _suppress_true, REPLACE, CELL_DOMAIN, math.inf),
        ("suppress_noisy_counts", _suppress_noisy, REPLACE, CELL_DOMAIN, EPSILON),
        ("skip_empty_batch", _skip_empty, ADD_REMOVE, BOX, math.inf),
        ("always_noise_batch", _always_noise, ADD_REMOVE, BOX, math.log1p(0.5 * math.expm1(EPSILON))),
        ("gaussian_narrow_range", _gaussian(1.0), GAUSS, WIDE, gaussian_epsilon(DELTA, 2.0 * MU)),
        ("gaussian_full_range", _gaussian(2.0), GAUSS, WIDE, gaussian_epsilon(DELTA, MU)),
        ("gaussian_mean_own_size", _gaussian_mean_own_size, GAUSS_ADD_REMOVE, CUBE, OWN_SIZE_TRUTH),
        ("gaussian_mean_public_size", _gaussian_mean_public_size, GAUSS_ADD_REMOVE, CUBE, EPSILON),
    ]
    return [
        Row(
            name,
            _mechanism(name, batch, claim, domain),
            truth,
            truth > claim.epsilon + 1e-9,
            REGISTERED.get(name, ()),
        )
        for name, batch, claim, domain, truth in spec
    ]


def _pair(x: Any, x_prime: Any, relation: Relation, description: str) -> NeighborPair:
    return NeighborPair(
        dataset=Dataset(np.asarray(x, dtype=float)),
        neighbor=Dataset(np.asarray(x_prime, dtype=float)),
        relation=relation,
        description=description,
    )


_HALF = [[0.5, 0.5, 0.5]]
REGISTERED: dict[str, tuple[NeighborPair, ...]] = {
    # the worst pairs as a user who knew the bug would write them (the blind route's reference)
    "mean_own_size": (_pair([[1.0]], [[1.0], [0.0]], Relation.ADD_REMOVE_ONE, "n = 1 vs n = 2"),),
    "mean_public_size": (_pair([[1.0]], np.zeros((0, 1)), Relation.ADD_REMOVE_ONE, "x = 1 vs none"),),
    "sum_ignores_negatives": (_pair([[1.0]], [[-1.0]], Relation.REPLACE_ONE, "x = 1 vs x = -1"),),
    "sum_signed_sensitivity": (_pair([[1.0]], [[-1.0]], Relation.REPLACE_ONE, "x = 1 vs x = -1"),),
    "gaussian_narrow_range": (_pair([[2.0]], [[0.0]], Relation.REPLACE_ONE, "x = 2 vs x = 0"),),
    "gaussian_full_range": (_pair([[2.0]], [[0.0]], Relation.REPLACE_ONE, "x = 2 vs x = 0"),),
    "gaussian_mean_own_size": (_pair(_HALF, _HALF * 2, Relation.ADD_REMOVE_ONE, "n = 1 vs n = 2"),),
    "gaussian_mean_public_size": (
        _pair([[1.0, 1.0, 1.0]], np.zeros((0, 3)), Relation.ADD_REMOVE_ONE, "x = 1 vs none"),
    ),
}


ROWS: tuple[Row, ...] = (*_threshold_rows(), *_region_rows(), *_other_rows())
BY_NAME = {row.name: row for row in ROWS}
globals().update({row.name: row.mechanism for row in ROWS})  # `dpaudit run tests.blind_mechanisms:NAME`
