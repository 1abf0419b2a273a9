"""True privacy of DP-SGD canary pairs: numerical integration and Monte Carlo over the exact
privacy loss.

- `binomial_mixture_epsilon`: the gradient canary seen through the last iterate or the
  canary score. On a zero-gradient rest the released statistic along the canary's direction
  is K·a + N(0, T·τ²) on one side and K·b + N(0, T·τ²) on the other, K ~ Binomial(T, q): a
  one-dimensional law whose ε(δ) = max over both orders of the hockey-stick divergence is
  integrated on a grid (exact up to the grid, far finer than any audit).
- `GaussianMixtureStep` + `monte_carlo_epsilon`: when every step of a pair releases, on each
  side, an isotropic Gaussian mixture that does not depend on the earlier steps (a gradient
  model: gradients are constant in θ), the privacy loss L = Σ_t ln p(y_t)/q(y_t) is exact per
  draw, and δ(ε) = E_P[(1 − e^{ε − L})₊] (the hockey-stick divergence as an expectation of the
  privacy loss; e.g. Balle & Wang, "Improving the Gaussian Mechanism for Differential Privacy",
  ICML 2018, Thm 5) is estimated by its sample mean on both orders. Used to measure the buggy
  twins' true ε (their docstrings) and to check which pair dp_accounting's REPLACE_ONE is.
- `shuffled_epsilon`: the same for fixed-size shuffled batches (one canary position per epoch),
  Chua, Ghazi et al., "How Private are DP-SGD Implementations?", ICML 2024.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, stats
from scipy.special import logsumexp

F64 = NDArray[np.float64]


def _hockey(p: F64, q: F64, eps: float, dx: float) -> float:
    return float(np.sum(np.maximum(p - math.exp(eps) * q, 0.0)) * dx)


def binomial_mixture_epsilon(
    *, steps: int, sample_rate: float, noise_sd: float, shift_a: float, shift_b: float, delta: float
) -> float:
    """ε(δ) of Σ_t (B_t·a + Z_t) vs Σ_t (B_t·b + Z_t), B_t ~ Bernoulli(q), Z_t ~ N(0, τ²)."""
    k = np.arange(steps + 1)
    w = stats.binom.pmf(k, steps, sample_rate)
    s = noise_sd * math.sqrt(steps)
    lo = min(0.0, steps * shift_a, steps * shift_b) - 14 * s
    hi = max(0.0, steps * shift_a, steps * shift_b) + 14 * s
    x = np.linspace(lo, hi, 400_001)
    dx = float(x[1] - x[0])

    def density(shift: float) -> F64:
        return np.asarray(w @ stats.norm.pdf(x[None, :], loc=(k * shift)[:, None], scale=s), dtype=np.float64)

    p, q = density(shift_a), density(shift_b)

    def one_way(a: F64, b: F64) -> float:
        if _hockey(a, b, 0.0, dx) <= delta:
            return 0.0
        top = 1.0
        while _hockey(a, b, top, dx) > delta:
            top *= 2.0
        return float(optimize.brentq(lambda e: _hockey(a, b, e, dx) - delta, 0.0, top, xtol=1e-6))

    return max(one_way(p, q), one_way(q, p))


@dataclass(frozen=True, slots=True, kw_only=True)
class GaussianMixtureStep:
    """One step's release on one side: Σ_j w_j·N(μ_j, s_j²·I_d)."""

    weights: tuple[float, ...]
    means: tuple[tuple[float, ...], ...]
    sds: tuple[float, ...]

    def arrays(self) -> tuple[F64, F64, F64]:
        w = np.asarray(self.weights, dtype=np.float64)
        return w / w.sum(), np.asarray(self.means, dtype=np.float64), np.asarray(self.sds, dtype=np.float64)

    def sample(self, rng: np.random.Generator, size: int) -> F64:
        w, mu, sd = self.arrays()
        j = rng.choice(len(w), size=size, p=w)
        return np.asarray(mu[j] + sd[j, None] * rng.standard_normal((size, mu.shape[1])), dtype=np.float64)

    def log_density(self, y: F64) -> F64:
        w, mu, sd = self.arrays()
        d = mu.shape[1]
        sq = ((y[:, None, :] - mu[None, :, :]) ** 2).sum(axis=2)  # (size, J)
        terms = (
            np.log(np.maximum(w, 1e-300))
            - sq / (2 * sd**2)
            - d * np.log(sd)
            - 0.5 * d * math.log(2 * math.pi)
        )
        return np.asarray(logsumexp(terms, axis=1), dtype=np.float64)


def epsilon_from_losses(loss_p: F64, loss_q: F64, delta: float) -> float:
    """ε(δ) from privacy-loss draws on both orders (loss_p = ln p/q under P, loss_q = ln q/p
    under Q): the smallest ε with E[(1 − e^{ε − L})₊] ≤ δ on both."""

    def one_way(loss: F64) -> float:
        def excess(eps: float) -> float:
            return float(np.mean(np.maximum(0.0, -np.expm1(eps - loss)))) - delta

        if excess(0.0) <= 0:
            return 0.0
        top = max(1.0, float(loss.max()))
        return float(optimize.brentq(excess, 0.0, top, xtol=1e-6))

    return max(one_way(loss_p), one_way(loss_q))


def monte_carlo_epsilon(
    p: GaussianMixtureStep,
    q: GaussianMixtureStep,
    *,
    steps: int,
    runs: int,
    delta: float,
    rng: np.random.Generator,
    block: int = 50_000,
) -> float:
    """ε(δ) of `steps` independent releases of `p` vs `q`, by Monte Carlo over the exact loss."""
    losses: list[F64] = []
    for first, second in ((p, q), (q, p)):
        parts = []
        for start in range(0, runs, block):
            size = min(block, runs - start)
            total = np.zeros(size)
            for _ in range(steps):
                y = first.sample(rng, size)
                total += first.log_density(y) - second.log_density(y)
            parts.append(total)
        losses.append(np.concatenate(parts))
    return epsilon_from_losses(losses[0], losses[1], delta)


def shuffled_epsilon(
    *,
    steps: int,
    batches_per_epoch: int,
    noise_sd: float,
    shift_a: float,
    shift_b: float,
    runs: int,
    delta: float,
    rng: np.random.Generator,
) -> float:
    """ε(δ) of shuffled fixed-size batches on a zero-gradient rest: in each epoch the canary
    lands in exactly one of K batches (uniformly), shifting that step's release along its
    direction by a (one side) or b (the other); Monte Carlo over the exact loss."""
    k_full = batches_per_epoch
    epochs = [min(k_full, steps - e * k_full) for e in range(math.ceil(steps / k_full))]
    tau2 = noise_sd * noise_sd

    def log_side(y: F64, shift: float) -> F64:
        # log Σ_k (1/K)·exp((shift·y_k − shift²/2)/τ²) over released slots, + unreleased slots
        released = y.shape[1]
        terms = (shift * y - 0.5 * shift * shift) / tau2
        if released < k_full:
            terms = np.column_stack([terms, np.full(len(y), math.log(k_full - released))])
        return np.asarray(logsumexp(terms, axis=1), dtype=np.float64)

    losses = []
    for a, b in ((shift_a, shift_b), (shift_b, shift_a)):
        total = np.zeros(runs)
        for released in epochs:
            y = noise_sd * rng.standard_normal((runs, released))
            slot = rng.integers(0, k_full, size=runs)
            hit = slot < released
            y[np.flatnonzero(hit), slot[hit]] += a
            total += log_side(y, a) - log_side(y, b)
        losses.append(total)
    return epsilon_from_losses(losses[0], losses[1], delta)
