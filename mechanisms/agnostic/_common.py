"""Shared pieces of the 000/001 learners: finite classes, the exponential mechanism, subsets.

Finite classes are 0/1 matrices C of shape (|C|, d) over the domain X = {0, …, d−1}.
A hypothesis is released as its row index in C (a discrete output
the histogram distinguisher can work with), or, for composed learners, as a short vector of
indices.

Datasets are one integer feature x ∈ {0..d−1} and a label y ∈ {0, 1}. Inside the learners a
multiset of records is represented by its cell counts `c[x, y]` (shape (d, 2)), which is all
any of the papers' algorithms read once the split is fixed (the EM scores are error counts
or normalised error rates; the pattern set depends only on the support).

The exponential mechanism is always computed in log space (subtract the maximum before
exponentiating), so no underflow fallback is needed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation, Subsampling, SubsamplingKind

Array = NDArray[Any]
F64 = NDArray[np.float64]

PAPER_000 = (
    "Alon, Beimel, Moran & Stemmer, Closure Properties for Private Classification and Online Prediction"
)
PAPER_001 = "Li, Wang & Ye, Private Realizable-to-Agnostic Transformation with Near-Optimal Sample Complexity"

CLASS_NAMES = ("thr", "point", "interval", "all", "down_thr")


# --------------------------------------------------------------------------- classes
def concept_class(kind: str, d: int) -> NDArray[np.int8]:
    """0/1 matrix of a finite class on X = {0..d−1} (rows ordered; row order matters only for
    the deterministic "first consistent concept" rules).

    thr: 1[x ≥ t], t = 0..d (d+1 rows, row t).       down_thr: 1[x ≤ b], b = −1..d−1 (row b+1).
    point: 1[x = j], j = 0..d−1, then all-zero.      interval: empty, then [a, b], a ≤ b.
    all: every function on the d points (2^d rows; d ≤ 6).
    """
    x = np.arange(d)
    if kind == "thr":
        return (x[None, :] >= np.arange(d + 1)[:, None]).astype(np.int8)
    if kind == "down_thr":
        return (x[None, :] <= np.arange(-1, d)[:, None]).astype(np.int8)
    if kind == "point":
        return np.vstack([np.eye(d, dtype=np.int8), np.zeros((1, d), np.int8)])
    if kind == "interval":
        rows = [np.zeros(d, np.int8)]
        rows += [((x >= a) & (x <= b)).astype(np.int8) for a in range(d) for b in range(a, d)]
        return np.vstack(rows)
    if kind == "all":
        if d > 6:
            raise ValueError("class 'all' is limited to d ≤ 6 points")
        return ((np.arange(2**d)[:, None] >> x[None, :]) & 1).astype(np.int8)
    raise ValueError(f"unknown concept class {kind!r} (choose from {', '.join(CLASS_NAMES)})")


def vc_dimension(kind: str, d: int) -> int:
    return {"thr": 1, "down_thr": 1, "point": 1, "interval": 2, "all": d}[kind]


# --------------------------------------------------------------------------- exponential mechanism
def softmax(logits: F64, axis: int = -1) -> F64:
    """Normalised exp(logits) along `axis`, computed stably (−inf logits get probability 0)."""
    m = np.max(logits, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    w = np.exp(logits - m)
    return np.asarray(w / w.sum(axis=axis, keepdims=True))


def draw_categorical(probs: F64, rng: np.random.Generator) -> NDArray[np.int64]:
    """One index per row of `probs` (B, K), by inverse CDF with one uniform per row."""
    cdf = np.cumsum(probs, axis=1)
    u = rng.random((probs.shape[0], 1)) * cdf[:, -1:]
    return np.minimum((cdf <= u).sum(axis=1), probs.shape[1] - 1).astype(np.int64)


def distinct_rows(counts: F64) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(index of each distinct row's first occurrence, row → its distinct row) for a matrix of
    small non-negative integer counts: rows packed into one int64 key (mixed radix over the
    columns that are ever non-zero) when it fits, else `np.unique(axis=0)` (slow on many rows)."""
    cols = np.flatnonzero(counts.any(axis=0))
    sub = counts[:, cols].astype(np.int64)
    base = int(sub.max(initial=0)) + 1
    if cols.size * math.log2(base) < 62:
        key = sub @ (base ** np.arange(cols.size, dtype=np.int64))
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(sub, axis=0, return_index=True, return_inverse=True)
    return first, inverse.ravel()


def error_counts(C: NDArray[np.int8], counts: F64) -> F64:
    """Error counts of every concept on a multiset given by cell counts (B, d, 2) → (B, |C|)."""
    c0, c1 = counts[..., 0], counts[..., 1]
    Cf = C.astype(np.float64)
    return np.asarray(c0 @ Cf.T + c1 @ (1.0 - Cf).T)


def pattern_multiplicity(C: NDArray[np.int8], support: NDArray[np.bool_]) -> NDArray[np.int64]:
    """For each row b and concept c: how many concepts share c's pattern on support[b] (B, |C|).

    The pattern set Π_C(P) keeps one representative per labelling of P (000 Section 5,
    Alg. 2; 001 Alg. 1 line 2); an EM over patterns is an EM over concepts with weights divided by
    this multiplicity, which is what the learners below do.
    """
    d = C.shape[1]
    if d > 62:
        raise ValueError("pattern keys need d ≤ 62")
    bits = np.int64(1) << np.arange(d, dtype=np.int64)
    keys = (support.astype(np.int64) * bits[None, :]) @ C.astype(np.int64).T  # (B, |C|)
    return np.asarray((keys[:, :, None] == keys[:, None, :]).sum(axis=2), dtype=np.int64)


# --------------------------------------------------------------------------- data helpers
def cells_of(dataset: Dataset, d: int) -> NDArray[np.int64]:
    """Record i ↦ cell 2·x_i + y_i."""
    assert dataset.y is not None
    x = dataset.X[:, 0].astype(np.int64)
    return np.asarray(2 * x + dataset.y.astype(np.int64))


def cell_counts(cells: NDArray[np.int64], d: int) -> F64:
    """Counts (d, 2) of a 1-D array of cells, or (B, d, 2) of a (B, m) array."""
    if cells.ndim == 1:
        return np.bincount(cells, minlength=2 * d).astype(np.float64).reshape(d, 2)
    B = cells.shape[0]
    flat = (cells + 2 * d * np.arange(B)[:, None]).ravel()
    return np.bincount(flat, minlength=2 * d * B).astype(np.float64).reshape(B, d, 2)


def ceil_fraction(epsilon: float, n: int) -> int:
    """k = ⌈ε·n⌉ computed exactly.

    ε is read as the rational it denotes: the closest fraction with denominator ≤ 10^6
    (1/3 for 0.333…, 1/10 for 0.1, 83/1000 for 0.083), so that float noise never rounds
    2.0000001 up to 3 nor 1.9999999 up to 2.
    """
    r = Fraction(epsilon).limit_denominator(10**6)
    return math.ceil(r * n)


def random_subsets(n: int, k: int, num: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """`num` independent uniform random k-subsets of range(n) in uniformly random order (num, k)."""
    if k == 0:
        return np.zeros((num, 0), np.int64)
    keys = rng.random((num, n))
    if k == n:
        return np.asarray(np.argsort(keys, axis=1), np.int64)
    idx = np.argpartition(keys, k - 1, axis=1)[:, :k]
    # argpartition leaves the k smallest unordered; sort them by key for a uniform order
    order = np.argsort(np.take_along_axis(keys, idx, axis=1), axis=1)
    return np.asarray(np.take_along_axis(idx, order, axis=1), np.int64)


def multiset_compositions(mult: NDArray[np.int64], k: int) -> Iterator[NDArray[np.int64]]:
    """Every vector c with 0 ≤ c_r ≤ mult_r and Σ c = k (sub-multisets of size k)."""
    R = len(mult)
    tail = np.concatenate([np.cumsum(mult[::-1])[::-1], [0]])

    def rec(r: int, left: int, cur: list[int]) -> Iterator[NDArray[np.int64]]:
        if r == R:
            if left == 0:
                yield np.asarray(cur, np.int64)
            return
        lo = max(0, left - int(tail[r + 1]))
        for c in range(lo, min(int(mult[r]), left) + 1):
            cur.append(c)
            yield from rec(r + 1, left - c, cur)
            cur.pop()

    yield from rec(0, k, [])


def log_binom(n: Array | int, k: Array | int) -> F64:
    from scipy.special import gammaln

    n_ = np.asarray(n, np.float64)
    k_ = np.asarray(k, np.float64)
    return np.asarray(gammaln(n_ + 1) - gammaln(k_ + 1) - gammaln(n_ - k_ + 1))


def subset_distribution(cells: NDArray[np.int64], d: int, k: int) -> tuple[F64, F64]:
    """Exact law of the cell counts of a uniform k-subset of the records (without replacement).

    Returns (weights (B,), counts (B, d, 2)): one row per distinct sub-multiset, weighted by
    Π_r C(m_r, c_r) / C(n, k) (multivariate hypergeometric).
    """
    uniq, mult = np.unique(cells, return_counts=True)
    comps = np.array(list(multiset_compositions(mult.astype(np.int64), k)), dtype=np.int64)
    if comps.size == 0:
        comps = np.zeros((1, len(uniq)), np.int64)
    logw = log_binom(mult[None, :], comps).sum(axis=1) - log_binom(len(cells), k)
    counts = np.zeros((comps.shape[0], 2 * d))
    counts[:, uniq] = comps
    return np.exp(logw), counts.reshape(-1, d, 2)


def with_replacement_distribution(values: NDArray[np.int64], m: int) -> tuple[F64, NDArray[np.int64]]:
    """Exact law of the value counts of m draws with replacement from `values` (Lemma 3.12).

    Returns (weights (B,), counts (B, len(unique))) with multinomial weights, and the
    unique values via the caller's np.unique ordering.
    """
    from scipy.special import gammaln

    _, mult = np.unique(values, return_counts=True)
    R = len(mult)
    comps = np.array(list(multiset_compositions(np.full(R, m, np.int64), m)), dtype=np.int64)
    p = mult / mult.sum()
    with np.errstate(divide="ignore"):
        logw = gammaln(m + 1) - gammaln(comps + 1).sum(1) + (comps * np.log(p)[None, :]).sum(1)
    return np.exp(logw), comps


# --------------------------------------------------------------------------- pairs and domains
def labelled(xs: list[int] | Array, ys: list[int] | Array) -> Dataset:
    return Dataset(np.asarray(xs, float).reshape(-1, 1), np.asarray(ys, float))


def replace_pair(
    xs: list[int],
    ys: list[int],
    index: int,
    new: tuple[int, int],
    description: str,
    *tags: str,
) -> NeighborPair:
    """Replace record `index` of (xs, ys) by `new` = (x', y'): a replace-one (or relabel-one) pair."""
    xs2, ys2 = list(xs), list(ys)
    xs2[index], ys2[index] = new
    relation = Relation.RELABEL_ONE if xs2[index] == xs[index] else Relation.REPLACE_ONE
    return NeighborPair(
        dataset=labelled(xs, ys),
        neighbor=labelled(xs2, ys2),
        relation=relation,
        description=description,
        tags=tags,
    )


def learner_domain(
    d: int, min_size: int, max_size: int | None, subsampling: Subsampling | None = None
) -> Domain:
    return Domain(
        num_features=1,
        feature_low=0.0,
        feature_high=float(d - 1),
        integer_features=True,
        labels=(0.0, 1.0),
        min_size=min_size,
        max_size=max_size,
        ordered=True,
        subsampling=subsampling or Subsampling(kind=SubsamplingKind.NONE),
    )


def relabel_learn_epsilon(epsilon_learner: float) -> float:
    """ε of "relabel with the EM, then run 𝒜" (000 Lemma 5.3; 001 Claim 3.5).

    Both proofs end in Pr_1[O] ≤ 4e·(e^{ε_𝒜}·Pr_2[O] + δ_𝒜): the EM shift e^{1/2} twice and at most
    two pattern extensions twice. So ε = ε_𝒜 + 1 + 2 ln 2 (3.386 at ε_𝒜 = 1), δ = 4e·δ_𝒜.
    """
    return epsilon_learner + 1 + 2 * math.log(2)
