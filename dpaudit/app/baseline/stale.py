"""Staleness: when a stored baseline can no longer inform the regression test, and the message.

A comparison of a stored event E is informative only if it can flag lo > hi with lo, hi the
one-sided Clopper–Pearson bounds of `baseline`: that needs the baseline's pair to still be a
valid neighbour pair in the current mechanism's domain (else E cannot be re-counted on it) and
finite bounds (hi = +∞ when E never occurred on the Q side, lo = −∞ when it no longer occurs on
the P side). Which stored events are comparable is decided here from the baseline and the
mechanism alone, before any sampling, so the Bonferroni count m_a of the test is fixed in advance.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from dpaudit.engine.bounds import cp_lower, cp_upper
from dpaudit.mechanisms.base import Mechanism
from dpaudit.neighbors.base import is_neighbor

from .format import BaselineAudit, BaselineEvent

STALE_PREFIX = "baseline no longer informative"
"""How every staleness line begins (`stale_message`); `stale_lines` picks them out of warnings."""


def stale_message(what: str, reason: str) -> str:
    return f"{STALE_PREFIX} for {what}: {reason}: re-run `dpaudit gate --update-baseline`"


def stale_lines(warnings: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The staleness lines among `warnings` (those made by `stale_message`)."""
    return tuple(w for w in warnings if w.startswith(STALE_PREFIX))


def comparable_events(mechanism: Mechanism, base: BaselineAudit) -> tuple[list[BaselineEvent], list[str]]:
    """Baseline events the current mechanism can be re-counted on (decided before any sampling)."""
    usable, warnings = [], [f"baseline: {s}; not compared" for s in base.skipped]
    for e in base.events:
        pair = e.pair
        reason = None if is_neighbor(pair) else f"not a {pair.relation.value} neighbour pair"
        for side in (pair.dataset, pair.neighbor):
            reason = reason or mechanism.domain.check(side)
        reason = reason or mechanism.domain.check_pair(pair)
        if reason is not None:
            warnings.append(
                stale_message(
                    f"pair {e.pair_index + 1} ({e.description})",
                    f"it no longer fits {mechanism.name!r} ({reason}); not compared",
                )
            )
            continue
        usable.append(e)
    return usable, warnings


DETECTION_POWER = 0.8
"""The power at which `detectable_increase` states the smallest detected rise of the loss."""


def _window(n: int, p: float) -> np.ndarray:
    """Counts k with non-negligible Bin(n, p) mass (all but ~1e-12 of it)."""
    lo, hi = stats.binom.ppf([1e-13, 1 - 1e-13], n, p)
    return np.arange(max(int(lo) - 1, 0), min(int(hi) + 2, n) + 1)


def detectable_increase(
    base: BaselineEvent, *, num_samples: int, test_level: float, power: float = DETECTION_POWER
) -> float:
    """Smallest Δ ≥ 0 with P[lo > hi] ≥ `power` when Q_new = q̂·e^{−Δ}, P_new = p̂ (module docstring):
    lo, hi at β_i/4 per Clopper–Pearson bound, β_i = `failure_probability`, n' = `num_samples`.
    +inf when no Δ reaches `power` (the comparison cannot see any rise at this budget)."""
    level = test_level / 4
    p, q, d, n = base.p_count / base.p_total, base.q_count / base.q_total, base.delta, num_samples
    p_hi = float(cp_upper(base.p_count, base.p_total, level))
    q_lo = float(cp_lower(base.q_count, base.q_total, level))
    if q_lo <= 0 or p_hi <= d or p <= d:
        return math.inf
    threshold = math.exp(math.log(p_hi - d) - math.log(q_lo))  # lo > hi ⟺ CP_lo(K_P') − δ > e^hi·CP_hi(K_Q')
    kp = _window(n, p)
    p_lo = cp_lower(kp, n, level) - d  # increasing in K_P'
    tail = np.append(np.cumsum(stats.binom.pmf(kp, n, p)[::-1])[::-1], 0.0)  # P[K_P' ≥ kp[i]]

    def flag_probability(delta_loss: float) -> float:
        kq = _window(n, q * math.exp(-delta_loss))
        needed = threshold * cp_upper(kq, n, level)
        first = np.searchsorted(p_lo, needed, side="right")  # first K_P' index with p_lo > needed
        return float(np.sum(stats.binom.pmf(kq, n, q * math.exp(-delta_loss)) * tail[first]))

    top = math.log(max(n * q, 1.0)) + 12.0  # n'·Q_new ≈ e^−12: K_Q' = 0 almost surely
    if flag_probability(top) < power:
        return math.inf
    lo_d, hi_d = 0.0, top
    if flag_probability(0.0) >= power:
        return 0.0
    while hi_d - lo_d > 1e-4:
        mid = (lo_d + hi_d) / 2
        lo_d, hi_d = (lo_d, mid) if flag_probability(mid) >= power else (mid, hi_d)
    return hi_d
