"""The exact per-step output laws of the buggy twins' registered pairs, for Monte Carlo over the
exact privacy loss (`exact.monte_carlo_epsilon`, `exact.shuffled_epsilon`).

For a gradient model the gradients are constant in θ, so every step releases, on each side, the
same isotropic Gaussian mixture independently of the earlier steps: a mixture over the number
k ~ Binomial(m, rate) of rest records drawn and the canary's inclusion c ~ Bernoulli(rate),
each component N(μ(k, c), s(k, c)²·I_d). `true_epsilon` measures a twin's true ε(δ) on its
registered pair from these laws (Chua, Ghazi et al., "How Private are DP-SGD Implementations?",
ICML 2024, measure shuffling the same way).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .exact import GaussianMixtureStep, monte_carlo_epsilon, shuffled_epsilon
from .reference import DPSGD
from .twins import (
    ClipAfterSum,
    RealisedBatchNormaliser,
    ShuffledBatches,
    TrueSizeNormaliser,
)


def _unit(dim: int, value: float) -> tuple[float, ...]:
    return tuple(value if i == 0 else 0.0 for i in range(dim))


def _mixture(mech: DPSGD, *, canary: bool) -> GaussianMixtureStep:
    """One step's release on the side with (or without) the canary, along e₁ (and the rest's
    axis), for the twins whose rest is m identical records."""
    q, m, cn, d = mech.inclusion_rate, mech.rest_size, mech.clip_norm, mech.dim
    sd = mech.noise_scale
    weights, means, sds = [], [], []
    for k in range(m + 1):
        pk = float(stats.binom.pmf(k, m, q))
        if pk < 1e-12:
            continue
        for c, pc in ((0, 1 - q), (1, q)) if canary else ((0, 1.0),):
            rest = -k * cn if mech.rest == "opposed" else 0.0
            total = c * mech.canary_scale * cn + rest
            if isinstance(mech, ClipAfterSum):
                total = float(np.sign(total) * min(abs(total), cn))
                norm = mech.batch_size
            elif isinstance(mech, RealisedBatchNormaliser):
                norm = max(k + c, 1)
            else:
                norm = mech.batch_size
            weights.append(pk * pc)
            means.append(_unit(d, total / norm))
            sds.append(sd / norm)
    return GaussianMixtureStep(weights=tuple(weights), means=tuple(means), sds=tuple(sds))


def step_laws(mech: DPSGD) -> tuple[GaussianMixtureStep, GaussianMixtureStep]:
    """(with the canary, without) per-step laws of an add/remove twin's registered pair."""
    if isinstance(mech, TrueSizeNormaliser):
        q, cn, d = mech.sample_rate, mech.clip_norm, mech.dim
        big, small = q * (mech.rest_size + 1), q * max(mech.rest_size, 1)
        with_canary = GaussianMixtureStep(
            weights=(1 - q, q),
            means=(_unit(d, 0.0), _unit(d, cn / big)),
            sds=(mech.noise_scale / big,) * 2,
        )
        without = GaussianMixtureStep(weights=(1.0,), means=(_unit(d, 0.0),), sds=(mech.noise_scale / small,))
        return with_canary, without
    return _mixture(mech, canary=True), _mixture(mech, canary=False)


def true_epsilon(mech: DPSGD, *, delta: float, runs: int, rng: np.random.Generator) -> float:
    """A twin's true ε(δ) on its registered pair, by Monte Carlo over the exact privacy loss."""
    if isinstance(mech, ShuffledBatches):
        n = mech.rest_size + 1
        size = max(1, round(mech.sample_rate * n))
        shift = mech.clip_norm / mech.batch_size
        return shuffled_epsilon(
            steps=mech.iterations,
            batches_per_epoch=n // size,
            noise_sd=mech.noise_scale / mech.batch_size,
            shift_a=shift,
            shift_b=-shift,
            runs=runs,
            delta=delta,
            rng=rng,
        )
    p, q = step_laws(mech)
    return monte_carlo_epsilon(p, q, steps=mech.iterations, runs=runs, delta=delta, rng=rng, block=20_000)
