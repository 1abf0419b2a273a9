"""An anytime-valid Clopper–Pearson confidence sequence on an event's two proportions.

The certification of a fixed event S (chosen on the selection split, before any certification
sample is drawn) looks at its counts at a finite, increasing schedule of prefix sizes
n_1 < n_2 < … < n_J = N (the cap, `--num-samples`' certification split), doubling towards the
cap (`look_schedule`). Look j spends the share w_j of the test's failure probability, with
Σ_j w_j ≤ 1: the cap's look w_J = 1/2, the one before it 1/4, …, w_j = 2^-(J-j+1) (most of
the error budget where the power is, at the cap; a clear violation is certified early at a
smaller share). At look j the one-sided bounds are

    p_lo_j = cp_lower(k_p(n_j), n_j, w_j·β/2),   q_hi_j = cp_upper(k_q(n_j), n_j, w_j·β/2).

Theorem (union bound over looks; Clopper–Pearson 1934 at each fixed n). Each p_lo_j is a
one-sided Clopper–Pearson bound on n_j i.i.d. Bernoulli(P(S)) trials, so P(p_lo_j > P(S)) ≤
w_j·β/2; hence P(∃ j: p_lo_j > P(S)) ≤ Σ_j w_j·β/2 ≤ β/2, and likewise for the q_hi_j. With
probability ≥ 1 − β every interval of every look holds at once, so for ANY stopping time τ (a
rule that looks at the counts so far, e.g. "stop when a violation is certified, or when the
claim can no longer be reached at the cap") the bounds at look τ hold: the certificate is as
valid as a fixed-n one, whatever made the audit stop. The schedule is fixed by N alone before
sampling (never by the data), which the union bound needs.

Futility (`optimistic_counts`) never affects validity (stopping early only reports a valid bound
at a smaller n); it can cost power, and is shaded so that it rarely does: the cap's counts are
projected from the counts so far with an optimistic rate (a one-sided Clopper–Pearson bound at
`optimism`) plus an upper deviation of the remaining draws; the audit stops for futility only
when even that projection certifies no violation at the cap's level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from ..bounds import cp_lower, cp_upper

FIRST_LOOK = 256
"""The smallest prefix the schedule looks at (samples per side)."""
MAX_LOOKS = 12
"""At most this many looks (the first one is then ≥ N / 2^11)."""
OPTIMISM = 1e-4
"""One-sided level of the optimistic rates and deviations in the futility projection."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LookSchedule:
    """Prefix sizes (certification samples per side) at which the sequence looks, increasing,
    the last one the cap, and each look's share of the failure probability (Σ ≤ 1)."""

    looks: tuple[int, ...]
    shares: tuple[float, ...]

    @property
    def cap(self) -> int:
        return self.looks[-1]

    def level(self, j: int, test_level: float) -> float:
        """The failure probability look j may spend out of `beta`."""
        return test_level * self.shares[j]


def look_schedule(cap: int, *, first: int = FIRST_LOOK, max_looks: int = MAX_LOOKS) -> LookSchedule:
    """Looks at ⌈cap / 2^r⌉ for r = J−1, …, 0 (each at least `first`, at most `max_looks`),
    with shares 2^-(r+1): 1/2 at the cap, 1/4 at the look before, …; Σ = 1 − 2^-J < 1."""
    if cap < 1:
        raise ValueError(f"the cap must be ≥ 1 sample, got {cap}")
    looks = [cap]
    while len(looks) < max_looks and math.ceil(looks[-1] / 2) >= first:
        looks.append(math.ceil(looks[-1] / 2))
    looks.reverse()
    shares = [2.0 ** -(len(looks) - j) for j in range(len(looks))]
    return LookSchedule(looks=tuple(looks), shares=tuple(shares))


def optimistic_counts(
    k_p: ArrayLike, k_q: ArrayLike, *, n: int, cap: int, optimism: float = OPTIMISM
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Counts at the cap, projected from k_p, k_q of n the way most favourable to a violation:
    the P side at rate cp_upper(k_p, n, γ), the Q side at cp_lower(k_q, n, γ), each with a
    one-sided normal deviation z_γ·√(m r(1−r)) of the m = cap − n draws still to come (towards
    the violation), clipped to [k, k + m]. Real-valued (the bounds accept real counts)."""
    m = cap - n
    z = float(stats.norm.isf(optimism))
    kp, kq = np.asarray(k_p, dtype=float), np.asarray(k_q, dtype=float)
    rp, rq = cp_upper(kp, n, optimism), cp_lower(kq, n, optimism)
    up = kp + np.clip(m * rp + z * np.sqrt(m * rp * (1 - rp)), 0, m)
    down = kq + np.clip(m * rq - z * np.sqrt(m * rq * (1 - rq)), 0, m)
    return up, down


def sequence_bounds(
    k_p: ArrayLike, k_q: ArrayLike, *, schedule: LookSchedule, j: int, test_level: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(p_lo, q_hi) at look j of the sequence for a test at failure probability `beta` (β/2 per
    side, times the look's share): valid together at every look at once (module docstring)."""
    half = schedule.level(j, test_level) / 2
    n = schedule.looks[j]
    return cp_lower(k_p, n, half), cp_upper(k_q, n, half)
