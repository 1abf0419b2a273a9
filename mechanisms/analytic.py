"""Exact privacy profiles used as claims and as white-box oracles.

- Gaussian mechanism, Balle & Wang (ICML 2018), Thm 8: adding N(0, σ²) to a query with
  sensitivity Δ gives, with μ = Δ/σ, the exact profile
      δ(ε) = Φ(−ε/μ + μ/2) − e^ε · Φ(−ε/μ − μ/2).
  `gaussian_mu_for` inverts it for μ (the "analytic Gaussian mechanism" calibration).
- Laplace mechanism with shift s = |Δf|/b: δ(ε) = max(0, 1 − e^{(ε − s)/2}) for ε < s
  (the privacy-loss variable is supported on [−s, s] with an atom at s of mass 1/2).
- Discrete outputs: for distributions P, Q on the same finite set,
      δ(ε) = max(Σ (P − e^ε Q)_+, Σ (Q − e^ε P)_+),
  and ε(δ) is the smallest ε with δ(ε) ≤ δ (∞ when supports differ and δ is smaller than
  the mass outside the common support).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, special


def _log_ndtr(x: float) -> float:
    return float(special.log_ndtr(x))


def gaussian_delta(epsilon: float, mu: float) -> float:
    """Exact δ(ε) of the Gaussian mechanism with μ = Δ/σ (Balle–Wang Thm 8)."""
    if mu <= 0:
        return 0.0
    a = _log_ndtr(-epsilon / mu + mu / 2)
    b = epsilon + _log_ndtr(-epsilon / mu - mu / 2)
    if b >= a:
        return 0.0
    return float(math.exp(a) * -math.expm1(b - a))


def gaussian_epsilon(delta: float, mu: float) -> float:
    """Smallest ε with δ(ε) ≤ delta for the Gaussian mechanism with parameter μ."""
    if not 0 < delta < 1:
        raise ValueError("delta must be in (0, 1)")
    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(hi, mu) > delta:
        hi *= 2
    return float(optimize.brentq(lambda e: gaussian_delta(e, mu) - delta, 0.0, hi, xtol=1e-12))


def gaussian_mu_for(epsilon: float, delta: float) -> float:
    """The largest μ = Δ/σ whose exact profile satisfies δ(ε) ≤ delta."""
    if epsilon <= 0 or not 0 < delta < 1:
        raise ValueError("need epsilon > 0 and 0 < delta < 1")
    hi = 1.0
    while gaussian_delta(epsilon, hi) < delta:
        hi *= 2
    return float(optimize.brentq(lambda m: gaussian_delta(epsilon, m) - delta, 1e-9, hi, xtol=1e-14))


def laplace_epsilon(shift: float, delta: float = 0.0) -> float:
    """Exact ε(δ) of Laplace noise for a query shift s = |Δf|/b (in units of the scale)."""
    s = abs(shift)
    if delta <= 0:
        return s
    return max(0.0, s + 2 * math.log1p(-delta)) if delta < 1 else 0.0


def discrete_delta(p: ArrayLike, q: ArrayLike, epsilon: float) -> float:
    P, Q = np.asarray(p, float), np.asarray(q, float)
    e = math.exp(epsilon)
    return float(max(np.maximum(P - e * Q, 0).sum(), np.maximum(Q - e * P, 0).sum()))


def discrete_epsilon(p: ArrayLike, q: ArrayLike, delta: float = 0.0) -> float:
    """Exact ε(δ) between two distributions on a finite set (both orders)."""
    P, Q = np.asarray(p, float), np.asarray(q, float)
    if delta <= 0:
        both = (P > 0) & (Q > 0)
        if np.any((P > 0) != (Q > 0)):
            return math.inf
        return float(np.max(np.abs(np.log(P[both]) - np.log(Q[both])))) if both.any() else 0.0
    if discrete_delta(P, Q, 0.0) <= delta:
        return 0.0
    if discrete_delta(P, Q, 700.0) > delta:
        return math.inf
    return float(optimize.brentq(lambda e: discrete_delta(P, Q, e) - delta, 0.0, 700.0, xtol=1e-12))


def law_epsilon(
    a: Mapping[tuple[int, ...], float], b: Mapping[tuple[int, ...], float], delta: float = 0.0
) -> float:
    """`discrete_epsilon` of two output laws given as {output: probability} (missing = 0)."""
    keys = sorted(set(a) | set(b))
    return discrete_epsilon([a.get(k, 0.0) for k in keys], [b.get(k, 0.0) for k in keys], delta)


def sample_law(
    law: Mapping[tuple[int, ...], float], num_samples: int, *, rng: np.random.Generator
) -> NDArray[np.int64]:
    """`num_samples` draws (rows) from a finite law over integer-tuple outputs."""
    keys = list(law)
    p = np.array([law[k] for k in keys])
    idx = rng.choice(len(keys), size=num_samples, p=p / p.sum())
    return np.asarray(keys, dtype=np.int64)[idx]


def laplace_difference_sf(c: float, b: float) -> float:
    """P[L1 − L2 > c] for independent L1, L2 ~ Laplace(b) (density (1+|z|/b)e^{−|z|/b}/(4b))."""
    z = abs(c) / b
    tail = math.exp(-z) * (2 + z) / 4
    return tail if c >= 0 else 1 - tail
