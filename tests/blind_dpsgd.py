"""Blind DP-SGD loops (issue 35): a user's own training code, claimed with its accountant, no pairs.

Two numpy loops, each `from_callable(batch_fn=…)` with `dpaudit.accountant_claim` and a domain
only (no `pairs=`, no `statistics=`), so `dpaudit run tests.blind_dpsgd:NAME` audits them blind:

- `readme_*`: the README's "Auditing DP-SGD" logistic regression (2 features in [−3, 3], labels
  {0, 1}; Poisson rate Q, per-example clipping to CLIP, Gaussian noise SIGMA·CLIP on the sum;
  every noisy update released), in its correct form and with its two bugs: half the noise
  (`readme_half_noise`), and clipping each coordinate to CLIP instead of the norm, so a record's
  gradient norm reaches CLIP·√2 (`readme_clip_coordinates`).
- `gd1d_*`: a 1-D noisy gradient descent on the squared loss (θ − x)²/2, x ∈ [−10, 10], gradients
  clipped to CLIP, every iterate θ_1 … θ_T released (the differences are the noisy updates), with
  the same two bugs (`gd1d_half_noise`; `gd1d_clip_sqrt2`: the clip is CLIP·√2).

The claim is the accountant's curve for (SIGMA, Q, STEPS) under add/remove one record, as the
README's example. `ROWS` lists (name, mechanism, buggy).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import dpaudit
from dpaudit.mechanisms.base import CallableMechanism

SIGMA, Q, STEPS, CLIP, LR = 1.0, 0.1, 20, 1.0, 0.5
Batch = Callable[[dpaudit.Dataset, int, np.random.Generator], Any]


def readme_train(noise: float, per_coordinate: bool) -> Batch:
    """The README's loop; `noise` multiplies SIGMA·CLIP, `per_coordinate` clips each coordinate."""

    def train(ds: dpaudit.Dataset, runs: int, rng: np.random.Generator) -> np.ndarray:
        X, sign = ds.X, 2.0 * ds.y - 1.0
        theta = np.zeros((runs, X.shape[1]))
        updates = np.empty((runs, STEPS, X.shape[1]))
        for t in range(STEPS):
            slope = -sign / (1.0 + np.exp((theta @ X.T) * sign))
            grads = slope[:, :, None] * X[None]
            if per_coordinate:
                grads = np.clip(grads, -CLIP, CLIP)
            else:
                norms = np.linalg.norm(grads, axis=2, keepdims=True)
                grads = grads / np.maximum(1.0, norms / CLIP)
            batch = rng.random((runs, len(X))) < Q
            updates[:, t] = (batch[:, :, None] * grads).sum(axis=1) + rng.normal(
                0.0, noise * SIGMA * CLIP, theta.shape
            )
            theta = theta - LR * updates[:, t]
        return updates.reshape(runs, -1)

    return train


def gd1d_train(noise: float, clip: float) -> Batch:
    """1-D noisy gradient descent on (θ − x)²/2 with every iterate released."""

    def train(ds: dpaudit.Dataset, runs: int, rng: np.random.Generator) -> np.ndarray:
        x = ds.X[:, 0]
        theta = np.zeros(runs)
        out = np.empty((runs, STEPS))
        for t in range(STEPS):
            grads = np.clip(theta[:, None] - x[None, :], -clip, clip)
            batch = rng.random((runs, x.size)) < Q
            theta = theta - LR * ((batch * grads).sum(axis=1) + rng.normal(0.0, noise * SIGMA * CLIP, runs))
            out[:, t] = theta
        return out

    return train


CLAIM = dpaudit.accountant_claim(
    noise_multiplier=SIGMA, sample_rate=Q, steps=STEPS, relation=dpaudit.Relation.ADD_REMOVE_ONE
)
README_DOMAIN = dpaudit.Domain(num_features=2, feature_low=-3.0, feature_high=3.0, labels=(0.0, 1.0))
GD1D_DOMAIN = dpaudit.Domain(num_features=1, feature_low=-10.0, feature_high=10.0)


def _row(name: str, batch: Batch, domain: dpaudit.Domain, buggy: bool) -> tuple[str, CallableMechanism, bool]:
    mech = dpaudit.from_callable(
        batch_fn=batch,
        name=name,
        claim=CLAIM,
        domain=domain,
        threat_model="all iterates: every noisy update is released",
    )
    return name, mech, buggy


ROWS: tuple[tuple[str, CallableMechanism, bool], ...] = (
    _row("readme_correct", readme_train(1.0, False), README_DOMAIN, False),
    _row("readme_half_noise", readme_train(0.5, False), README_DOMAIN, True),
    _row("readme_clip_coordinates", readme_train(1.0, True), README_DOMAIN, True),
    _row("gd1d_correct", gd1d_train(1.0, CLIP), GD1D_DOMAIN, False),
    _row("gd1d_half_noise", gd1d_train(0.5, CLIP), GD1D_DOMAIN, True),
    _row("gd1d_clip_sqrt2", gd1d_train(1.0, CLIP * math.sqrt(2.0)), GD1D_DOMAIN, True),
)
globals().update({name: mech for name, mech, _ in ROWS})  # `dpaudit run tests.blind_dpsgd:NAME`
