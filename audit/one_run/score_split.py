"""The multi-run route for canary scores: "in" scores from independent runs with the canary,
"out" scores from independent runs without it, certified like any other audit (bounds.py).

Procedure (`certify_in_out`). Each side is permuted with a generator from the audit seed (stream
`(SPLIT_PHASE,)`) and split in two halves. On the selection halves every event of the form
{score ≥ t} or {score < t} (t on a grid of the pooled selection scores' quantiles plus the most
extreme values) in both directions (P = in, Q = out and the reverse) is scored by
`bounds.projected_epsilon`; the best is then counted once on the certification halves and
certified by `bounds.epsilon_lower_bound` at β (Clopper–Pearson at β/2 on each side).

Validity: the event is a function of the selection halves only, which are independent of the
certification halves (independent runs, split by a seed independent of the scores), so given the
event the certification counts are Binomial(n_in, P(E)) and Binomial(n_out, Q(E)) and the
one-event reduction of bounds.py holds at 1 − β. Assumes the runs are i.i.d. per side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..bounds import cp_lower, cp_upper, epsilon_lower_bound, projected_epsilon
from ..types import EpsilonEstimate

SPLIT_PHASE = 132
MIN_PER_SIDE = 4
ASSUMPTION = (
    "multi-run: each score from an independent run, i.i.d. per side; the event is chosen on a "
    "seeded half of each side and certified on the other"
)
F64 = NDArray[np.float64]


@dataclass(frozen=True, slots=True, kw_only=True)
class SplitCertificate:
    estimate: EpsilonEstimate
    threshold: float
    upper: bool
    """The event is {score ≥ threshold} when True, {score < threshold} otherwise."""
    ceiling: float
    selection: tuple[int, int]
    certification: tuple[int, int]


def _scores(x: ArrayLike, side: str) -> F64:
    a = np.asarray(x)
    if a.ndim != 1 or not np.issubdtype(a.dtype, np.number) or np.issubdtype(a.dtype, np.complexfloating):
        raise ValueError(f"{side} scores must be a 1-d array of real numbers")
    a = a.astype(np.float64)
    if a.size < MIN_PER_SIDE or not np.all(np.isfinite(a)):
        raise ValueError(f"{side} scores must be ≥ {MIN_PER_SIDE} finite numbers, got {a.size}")
    return a


def _thresholds(pooled: F64) -> F64:
    qs = np.quantile(pooled, np.linspace(0.0, 1.0, 257))
    s = np.sort(pooled)
    return np.unique(np.concatenate([qs, s[:64], s[-64:], [np.inf]]))


def _choose(
    sel_in: F64, sel_out: F64, n_in: int, n_out: int, delta: float, bound_level: float
) -> tuple[float, bool, bool]:
    """(threshold, upper event?, P side is "in"?) with the best projected certified ε."""
    t = _thresholds(np.concatenate([sel_in, sel_out]))
    ge_in = sel_in.size - np.searchsorted(np.sort(sel_in), t, side="left")
    ge_out = sel_out.size - np.searchsorted(np.sort(sel_out), t, side="left")
    best = (-math.inf, float(t[0]), True, True)
    for upper in (True, False):
        c_in = ge_in if upper else sel_in.size - ge_in
        c_out = ge_out if upper else sel_out.size - ge_out
        for p_in in (True, False):
            p, q = (c_in, c_out) if p_in else (c_out, c_in)
            np_, nq = (sel_in.size, sel_out.size) if p_in else (sel_out.size, sel_in.size)
            cp_, cq = (n_in, n_out) if p_in else (n_out, n_in)
            proj = projected_epsilon(
                p,
                q,
                selection_total_p=np_,
                selection_total_q=nq,
                certify_total_p=cp_,
                certify_total_q=cq,
                delta=delta,
                bound_level=bound_level,
            )
            i = int(np.argmax(proj))
            if proj[i] > best[0]:
                best = (float(proj[i]), float(t[i]), upper, p_in)
    return best[1], best[2], best[3]


def split_ceiling(n_p: int, n_q: int, *, delta: float, bound_level: float) -> float:
    """The largest ε one event can certify with n_p and n_q certification runs (either direction)."""
    out = -math.inf
    for a, b in ((n_p, n_q), (n_q, n_p)):
        p_lo = float(cp_lower(a, a, bound_level / 2))
        q_hi = float(cp_upper(0, b, bound_level / 2))
        if p_lo > delta:
            out = max(out, math.log(p_lo - delta) - math.log(q_hi))
    return out


def certify_in_out(
    in_scores: ArrayLike, out_scores: ArrayLike, *, delta: float, failure_probability: float, seed: int = 0
) -> SplitCertificate:
    """Choose one threshold event on a seeded half of each side, certify it on the other half."""
    a, b = _scores(in_scores, "in"), _scores(out_scores, "out")
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(SPLIT_PHASE,)))
    a, b = rng.permutation(a), rng.permutation(b)
    ha, hb = a.size // 2, b.size // 2
    sel_in, cert_in, sel_out, cert_out = a[:ha], a[ha:], b[:hb], b[hb:]
    t, upper, p_in = _choose(sel_in, sel_out, cert_in.size, cert_out.size, delta, failure_probability)

    def count(x: F64) -> int:
        return int(np.sum(x >= t) if upper else np.sum(x < t))

    k_in, k_out = count(cert_in), count(cert_out)
    if p_in:
        kp, np_, kq, nq = k_in, cert_in.size, k_out, cert_out.size
    else:
        kp, np_, kq, nq = k_out, cert_out.size, k_in, cert_in.size
    eps = epsilon_lower_bound(
        p_count=kp, p_total=np_, q_count=kq, q_total=nq, delta=delta, bound_level=failure_probability
    )
    half = failure_probability / 2
    estimate = EpsilonEstimate(
        epsilon_lower_bound=eps,
        delta_lower_bound=0.0,
        p_count=kp,
        p_total=np_,
        q_count=kq,
        q_total=nq,
        p_lower=float(cp_lower(kp, np_, half)),
        q_upper=float(cp_upper(kq, nq, half)),
        bound_level=failure_probability,
        infinite_witness=kq == 0,
        direction="in>out" if p_in else "out>in",
        event=f"score {'≥' if upper else '<'} {t:.6g}",
        distinguisher="score threshold",
        selection_epsilon=math.nan,
        assumption=ASSUMPTION,
    )
    return SplitCertificate(
        estimate=estimate,
        threshold=t,
        upper=upper,
        ceiling=split_ceiling(np_, nq, delta=delta, bound_level=failure_probability),
        selection=(ha, hb),
        certification=(cert_in.size, cert_out.size),
    )
