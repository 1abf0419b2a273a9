"""Certified bounds from event counts (docs/DESIGN.md, "Statistics").

Core reduction: (ε, δ)-DP implies, for every event S and both orders of a neighbour pair,

    P[M(D) ∈ S] ≤ e^ε · P[M(D') ∈ S] + δ.

With independent one-sided Clopper–Pearson bounds p_lo ≤ P and q_hi ≥ Q, each failing with
probability ≤ β/2, the union bound gives, with probability ≥ 1 − β,

    ε ≥ ln((p_lo − δ) / q_hi)         (epsilon_lower_bound)
    δ ≥ p_lo − e^ε · q_hi             (delta_lower_bound at a given ε)

Both follow from the same pair of intervals, so they hold *simultaneously* at 1 − β.

One-sided Clopper–Pearson at level β: the lower bound is the β-quantile of
Beta(k, n − k + 1) (0 when k = 0) and the upper bound the (1 − β)-quantile of
Beta(k + 1, n − k) (1 when k = n). When the event never occurs on the Q side (k = 0), the
upper bound is 1 − β^(1/n): the *infinite-witness* case, whose bound is finite only because n
is. The largest ε any event can certify with n samples per side is therefore
ln(((β/2)^(1/n) − δ) / (1 − (β/2)^(1/n))) ≈ ln(n / ln(2/β)).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise ValueError(f"failure probability must be in (0, 1), got {level}")


def cp_lower(k: ArrayLike, n: ArrayLike, level: float) -> NDArray[np.float64]:
    """One-sided Clopper–Pearson lower bound: P[p < cp_lower] ≤ beta.

    Accepts real-valued k (used to *project* bounds at a larger n); exact for integer k.
    """
    _check_level(level)
    k_arr = np.asarray(k, dtype=float)
    n_arr = np.broadcast_to(np.asarray(n, dtype=float), k_arr.shape)
    out = np.zeros(np.broadcast(k_arr, n_arr).shape)
    pos = k_arr > 0
    if np.any(pos):
        kk, nn = np.broadcast_arrays(k_arr, n_arr)
        out[pos] = distinct_betaincinv(kk[pos], nn[pos] - kk[pos] + 1.0, level)
    return out


def cp_upper(k: ArrayLike, n: ArrayLike, level: float) -> NDArray[np.float64]:
    """One-sided Clopper–Pearson upper bound: P[p > cp_upper] ≤ beta."""
    _check_level(level)
    k_arr = np.asarray(k, dtype=float)
    n_arr = np.broadcast_to(np.asarray(n, dtype=float), k_arr.shape)
    out = np.ones(np.broadcast(k_arr, n_arr).shape)
    kk, nn = np.broadcast_arrays(k_arr, n_arr)
    below = kk < nn
    if np.any(below):
        out[below] = distinct_betaincinv(kk[below] + 1.0, nn[below] - kk[below], 1.0 - level)
    return out


DISTINCT_MIN = 32
"""Arrays at least this long are evaluated on their distinct (a, b) pairs only (`distinct_betaincinv`)."""
MEMO_MAX = 1 << 17
"""Values of the inverse incomplete beta kept across calls (`distinct_betaincinv`), about 25 MB at
most; the memo is emptied when it would grow past this."""
_MEMO: dict[tuple[float, float, float], float] = {}


def distinct_betaincinv(a: NDArray[np.float64], b: NDArray[np.float64], y: float) -> NDArray[np.float64]:
    """`scipy.special.betaincinv(a, b, y)` for 1-D `a`, `b` of one length, evaluated once per
    distinct pair (a, b) and scattered back, and looked up in a memo of the values already
    computed: the same values bit for bit (an elementwise function of its arguments), at a
    fraction of the cost where counts repeat. They do in the search's ranking: thousands of
    candidate events ranked on a few dozen samples take a few distinct counts, call after call,
    and the inverse incomplete beta costs ~10 µs per element."""
    back = None
    if a.size >= DISTINCT_MIN:
        pairs, back = np.unique(a + 1j * b, return_inverse=True)  # complex: sorted by (a, b)
        a, b = pairs.real, pairs.imag
    keys = [(x, z, y) for x, z in zip(a.tolist(), b.tolist(), strict=True)]
    values = [_MEMO.get(k) for k in keys]
    missing = [i for i, v in enumerate(values) if v is None]
    if missing:
        computed = np.asarray(special.betaincinv(a[missing], b[missing], y), dtype=float).tolist()
        if len(_MEMO) + len(missing) > MEMO_MAX:
            _MEMO.clear()
        for i, v in zip(missing, computed, strict=True):
            values[i] = _MEMO[keys[i]] = v
    out = np.array(values, dtype=float)
    return out if back is None else out[back.reshape(-1)]


def epsilon_from_bounds(p_lo: ArrayLike, q_hi: ArrayLike, *, delta: float) -> NDArray[np.float64]:
    """ln((p_lo − δ)/q_hi), −inf where p_lo ≤ δ (no evidence)."""
    p = np.asarray(p_lo, dtype=float) - delta
    q = np.asarray(q_hi, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, np.log(np.maximum(p, 1e-300)) - np.log(q), -np.inf)


def delta_from_bounds(p_lo: ArrayLike, q_hi: ArrayLike, *, epsilon: float) -> NDArray[np.float64]:
    """max(0, p_lo − e^ε q_hi): a lower bound on the realised δ at ε."""
    return np.maximum(0.0, np.asarray(p_lo, dtype=float) - math.exp(epsilon) * np.asarray(q_hi))


def epsilon_lower_bound(
    *, p_count: int, p_total: int, q_count: int, q_total: int, delta: float, bound_level: float
) -> float:
    """Certified ε lower bound from event counts (fails with probability ≤ bound_level)."""
    half = bound_level / 2
    p_lo = cp_lower(p_count, p_total, half)
    q_hi = cp_upper(q_count, q_total, half)
    return float(epsilon_from_bounds(p_lo, q_hi, delta=delta))


def delta_lower_bound(
    *, p_count: int, p_total: int, q_count: int, q_total: int, epsilon: float, bound_level: float
) -> float:
    """Certified lower bound on δ at `epsilon` from event counts."""
    half = bound_level / 2
    p_lo = cp_lower(p_count, p_total, half)
    q_hi = cp_upper(q_count, q_total, half)
    return float(delta_from_bounds(p_lo, q_hi, epsilon=epsilon))


def epsilon_ceiling(num_samples: int, *, bound_level: float, delta: float = 0.0) -> float:
    """The largest ε any event can certify with `num_samples` per side.

    Reached by an event seen in every sample on one side and never on the other:
    ln(((β/2)^(1/n) − δ) / (1 − (β/2)^(1/n))) ≈ ln(n / ln(2/β)) for δ = 0.
    """
    if num_samples < 1:
        raise ValueError("num_samples must be ≥ 1")
    _check_level(bound_level)
    half = bound_level / 2
    p_lo = half ** (1.0 / num_samples)
    q_hi = -math.expm1(math.log(half) / num_samples)
    return math.log(p_lo - delta) - math.log(q_hi) if p_lo > delta else -math.inf


def projected_bounds(
    p_count: ArrayLike,
    q_count: ArrayLike,
    *,
    selection_total_p: ArrayLike,
    selection_total_q: ArrayLike,
    certify_total_p: int,
    certify_total_q: int,
    bound_level: float,
    pessimism: float = 0.01,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Predict the certified (p_lo, q_hi) an event would get on fresh samples, from selection counts.

    Used only to *choose* events on the selection split (the choice does not affect validity).
    The selection frequencies are shaded by a one-sided `pessimism`-level Clopper–Pearson
    bound, against the winner's curse over many candidates and so that an event seen 0 or 1
    times on the Q side is not mistaken for an infinite witness; the certified bounds are then
    computed at the certification sample size with real-valued counts.
    """
    p_est = cp_lower(p_count, selection_total_p, pessimism)
    q_est = cp_upper(q_count, selection_total_q, pessimism)
    half = bound_level / 2
    p_lo = cp_lower(p_est * certify_total_p, certify_total_p, half)
    q_hi = cp_upper(q_est * certify_total_q, certify_total_q, half)
    return p_lo, q_hi


def projected_epsilon(
    p_count: ArrayLike,
    q_count: ArrayLike,
    *,
    selection_total_p: int,
    selection_total_q: int,
    certify_total_p: int,
    certify_total_q: int,
    delta: float,
    bound_level: float,
    pessimism: float = 0.01,
) -> NDArray[np.float64]:
    """The certified ε at `delta` that `projected_bounds` predicts."""
    p_lo, q_hi = projected_bounds(
        p_count,
        q_count,
        selection_total_p=selection_total_p,
        selection_total_q=selection_total_q,
        certify_total_p=certify_total_p,
        certify_total_q=certify_total_q,
        bound_level=bound_level,
        pessimism=pessimism,
    )
    return epsilon_from_bounds(p_lo, q_hi, delta=delta)
