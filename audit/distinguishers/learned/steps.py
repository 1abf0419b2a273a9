"""Reading a vector output as a training trajectory: the shared pieces of the learned
trajectory statistics (`trajectory`, `state_trajectory`; issue 35, item 2).

An output row of width W is read as T = W / d blocks of d coordinates (`structures`), either as
the T updates themselves or as T iterates whose consecutive differences are the updates
(`updates`); the learned direction is the mean over steps of the two sides' mean update
difference, and each side's updates are projected on it (`projected_sides`); the inclusion
mixture's per-step log-likelihood ratio log[(1 − q) + q·e^z] is summed over steps without
overflow (`mixture_log`). These are the parts of `MixtureLLR` (Nasr et al., "Tight Auditing of
Differentially Private Machine Learning", USENIX Security 2023, Section 4) that do not need the
canary to be known.
"""

from __future__ import annotations

import math

import numpy as np

from .fitted import Floats

__all__ = [
    "EVIDENCE",
    "MAX_BLOCK",
    "MAX_STRUCTURES",
    "MIN_STEPS",
    "Sides",
    "mixture_log",
    "projected_sides",
    "projected_updates",
    "structures",
    "updates",
    "variance_se",
]

EVIDENCE = 4.0
"""Excess variance must exceed this many standard errors for an inclusion mixture to be fitted."""
MAX_BLOCK = 8
"""Largest parameter dimension d a structure reads (T = W / d steps)."""
MIN_STEPS = 4
"""Fewest steps a structure reads (fewer is not a trajectory)."""
MAX_STRUCTURES = 8
"""Most (d, mode) structures fitted per proposal (smallest d first)."""
_EXP_MAX = 700.0


def structures(width: int) -> list[tuple[int, bool]]:
    """(d, iterates) for every d ≤ `MAX_BLOCK` dividing `width` with at least `MIN_STEPS` steps."""
    out = []
    for d in range(1, min(MAX_BLOCK, width // MIN_STEPS) + 1):
        if width % d == 0:
            out += [(d, False), (d, True)]
    return out[:MAX_STRUCTURES]


def updates(rows: Floats, d: int, iterates: bool) -> Floats:
    """(n, T, d) updates of the rows read with block size d."""
    u = rows.reshape(rows.shape[0], -1, d)
    if iterates:
        u = np.diff(u, axis=1, prepend=0.0)
    return u


def projected_updates(rows: Floats, d: int, iterates: bool, direction: Floats) -> Floats:
    """(n, T): each step's update projected on `direction`."""
    return np.asarray(updates(rows, d, iterates) @ direction, dtype=np.float64)


Sides = tuple[Floats, Floats, Floats]
"""(v, y_a, y_b) of `projected_sides`."""


def projected_sides(a: Floats, b: Floats, d: int, iterates: bool) -> Sides | None:
    """(v, y_a, y_b): the unit mean over steps of the sides' mean update difference, and each
    side's (n, T) updates projected on it (None if v is 0 or not finite)."""
    ua, ub = updates(a, d, iterates), updates(b, d, iterates)
    v = (ua.mean(axis=0) - ub.mean(axis=0)).mean(axis=0)
    norm = float(np.linalg.norm(v))
    if not math.isfinite(norm) or norm == 0.0:
        return None
    v = np.asarray(v / norm, dtype=np.float64)
    return v, np.asarray(ua @ v, dtype=np.float64), np.asarray(ub @ v, dtype=np.float64)


def mixture_log(z: Floats, rate: float) -> Floats:
    """Σ_t log[(1 − q) + q·exp(z_t)] per row (z_t itself where q ≥ 1), without overflow."""
    if rate >= 1.0:
        return np.asarray(z.sum(axis=1), dtype=np.float64)
    out = np.log1p(rate * np.expm1(np.minimum(z, _EXP_MAX)))
    big = z > _EXP_MAX
    if big.any():
        out[big] = z[big] + math.log(rate) + np.log1p((1.0 - rate) / rate * np.exp(-z[big]))
    return np.asarray(out.sum(axis=1), dtype=np.float64)


def variance_se(x: Floats, y: Floats) -> float:
    """Standard error of var(x) − var(y) (independent samples, any tails: from the squares)."""
    se2 = sum(float(((v - v.mean()) ** 2).var()) / v.size for v in (x, y))
    return math.sqrt(se2)
