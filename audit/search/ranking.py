"""The search's pilot rank: a cross-fitted projection of the certified ε of one candidate pair.

Implements `cross_fitted` (and `Ranker`, which applies it to an `Entry`): an event (with its
direction) is chosen on one half of the pair's pilot samples with the runner's distinguishers,
its frequencies are measured on the other half, and the certified ε those frequencies would
give at the certification budget is projected (`audit.bounds.projected_epsilon`); the halves
swap roles and the two projections are averaged. The inequality it relies on: counts measured
on a half the event was not chosen on are Binomial(n, p) given the event, so the projection
ε̂ = ln((p_lo − δ)/q_hi), with p_lo, q_hi the Clopper–Pearson bounds at the certification
size, carries no winner's curse. The rank only ranks pairs; nothing it computes is certified.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..bounds import cp_lower, cp_upper, epsilon_from_bounds, projected_bounds, projected_epsilon
from ..distinguishers import Distinguisher, Screened, count_runs, for_outputs, screen_runs
from ..types import EpsilonEstimate
from .pilot_samples import Entry

PILOT_BOUND_LEVEL = 0.5
"""Level of the pilot bound reported per candidate (`Candidate.estimate`): ranking only, so a
lax level keeping it near the point estimate."""
PILOT_SELECTION_PESSIMISM = 0.25
"""Shading of the pilot's selection-fold frequencies (see `pilot_event`)."""
SCREEN_SIZE = 64
"""Candidate events per direction given the exact projection (after a normal-approximation screen)."""
_RANK_CLIP = (-20.0, 50.0)
_ASSUMPTION = "pilot figure (ranking only, not certified)"


@dataclass(frozen=True, slots=True, kw_only=True)
class Ranker:
    """Ranks entries at the certification the pilot projects to (`projected_total` samples per
    side at level `projected_level`) with the pilot's distinguishers."""

    projected_total: int
    projected_level: float
    distinguishers: Sequence[Distinguisher]

    def __call__(self, entry: Entry) -> None:
        a, b = entry.outputs()
        folds, entry.estimate = fold_projections(
            a,
            b,
            claim_epsilon=entry.claim_epsilon,
            delta=entry.claim_delta,
            projected_total=self.projected_total,
            projected_level=self.projected_level,
            distinguishers=self.distinguishers,
        )
        entry.rank = float(np.mean(folds)) - entry.claim_epsilon
        entry.spread = abs(folds[0] - folds[1])

    def rerank(self, entry: Entry, ok: bool) -> None:
        """A race's callback after a draw (`PilotSampler.draw_all`'s `then`): rank the entry on
        its samples, or, when its draw failed (`ok` False), rank it −∞, out of the race."""
        if ok:
            self(entry)
        else:
            entry.rank = -math.inf


@dataclass(frozen=True, slots=True)
class PilotEvent:
    """The event one fold chose, its direction, its projected ε, and its distinguisher's name."""

    event: Any
    dataset_is_p: bool
    projected: float
    distinguisher: str


def _clip(v: float) -> float:
    if math.isnan(v):
        return _RANK_CLIP[0]
    return min(max(v, _RANK_CLIP[0]), _RANK_CLIP[1])


def cross_fitted(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    claim_epsilon: float,
    delta: float,
    projected_total: int,
    projected_level: float,
    distinguishers: Sequence[Distinguisher],
) -> tuple[float, EpsilonEstimate]:
    """(rank, pilot estimate) of one candidate from its pilot samples: the mean of the two folds'
    clipped projected ε (`fold_projections`), minus the claim's ε."""
    folds, first = fold_projections(
        a,
        b,
        claim_epsilon=claim_epsilon,
        delta=delta,
        projected_total=projected_total,
        projected_level=projected_level,
        distinguishers=distinguishers,
    )
    return float(np.mean(folds)) - claim_epsilon, first


def fold_projections(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    claim_epsilon: float,
    delta: float,
    projected_total: int,
    projected_level: float,
    distinguishers: Sequence[Distinguisher],
) -> tuple[list[float], EpsilonEstimate]:
    """The two folds' clipped projected ε (event chosen on one half, counted on the other) and
    the pilot estimate: the first fold's event, Clopper–Pearson bounds at
    `PILOT_BOUND_LEVEL` on the second half (a pilot figure, not certified). The folds'
    disagreement measures the rank's noise (`search_pilot.registered_tie`)."""
    half = min(a.shape[0], b.shape[0]) // 2
    folds = ((slice(0, half), slice(half, 2 * half)), (slice(half, 2 * half), slice(0, half)))
    projections = []
    first: EpsilonEstimate | None = None
    for sel_idx, eval_idx in folds:
        sel = pilot_event(
            a[sel_idx],
            b[sel_idx],
            projected_total=projected_total,
            projected_level=projected_level,
            delta=delta,
            distinguishers=distinguishers,
        )
        if sel is None:
            projections.append(_RANK_CLIP[0])
            continue
        ka = int(np.count_nonzero(sel.event.indicator(a[eval_idx])))
        kb = int(np.count_nonzero(sel.event.indicator(b[eval_idx])))
        kp, kq = (ka, kb) if sel.dataset_is_p else (kb, ka)
        proj = projected_epsilon(
            kp,
            kq,
            selection_total_p=half,
            selection_total_q=half,
            certify_total_p=projected_total,
            certify_total_q=projected_total,
            delta=delta,
            bound_level=projected_level,
            pessimism=0.5,
        )
        projections.append(_clip(float(proj)))
        if first is None:
            first = _fold_estimate(sel, kp=kp, kq=kq, half=half, delta=delta, claim_epsilon=claim_epsilon)
    if first is None:  # no distinguisher had a candidate event on either fold
        first = _no_event_estimate(half)
    return projections, first


def _fold_estimate(
    sel: PilotEvent, *, kp: int, kq: int, half: int, delta: float, claim_epsilon: float
) -> EpsilonEstimate:
    """The pilot estimate of a fold's event from its counts on the other fold."""
    level = PILOT_BOUND_LEVEL
    p_lo = float(cp_lower(kp, half, level / 2))
    q_hi = float(cp_upper(kq, half, level / 2))
    return EpsilonEstimate(
        epsilon_lower_bound=float(epsilon_from_bounds(p_lo, q_hi, delta=delta)),
        delta_lower_bound=max(0.0, p_lo - math.exp(claim_epsilon) * q_hi),
        p_count=kp,
        p_total=half,
        q_count=kq,
        q_total=half,
        p_lower=p_lo,
        q_upper=q_hi,
        bound_level=level,
        infinite_witness=kq == 0 and kp > 0,
        direction="dataset>neighbor" if sel.dataset_is_p else "neighbor>dataset",
        event=sel.event.describe(),
        distinguisher=sel.distinguisher,
        selection_epsilon=float(sel.projected),
        assumption=_ASSUMPTION,
    )


def _no_event_estimate(half: int) -> EpsilonEstimate:
    """The pilot estimate when neither fold had a candidate event."""
    return EpsilonEstimate(
        epsilon_lower_bound=-math.inf,
        delta_lower_bound=0.0,
        p_count=0,
        p_total=half,
        q_count=0,
        q_total=half,
        p_lower=0.0,
        q_upper=1.0,
        bound_level=PILOT_BOUND_LEVEL,
        infinite_witness=False,
        direction="dataset>neighbor",
        event="none",
        distinguisher="none",
        selection_epsilon=-math.inf,
        assumption=_ASSUMPTION,
    )


def pilot_event(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    projected_total: int,
    projected_level: float,
    delta: float,
    distinguishers: Sequence[Distinguisher],
) -> PilotEvent | None:
    """The candidate event (and direction) of the runner's distinguishers whose projected
    certified ε at the certification budget is largest, with frequencies shaded at
    `PILOT_SELECTION_PESSIMISM` (laxer than the runner's own selection: the pilot's winner's
    curse is removed by measuring the event on the other fold, and small pilot splits must not
    rule out a rare event seen only a few dozen times). Sides of different widths get the width
    events alone (`output_width.for_outputs`)."""
    blocks = _screened_blocks(
        a, b, projected_total=projected_total, delta=delta, distinguishers=distinguishers
    )
    if not blocks:
        return None
    # one projection over every block, so the bounds' distinct counts are evaluated once; the
    # first largest wins, as block by block with ties going to the earlier block
    p_lo, q_hi = projected_bounds(
        np.concatenate([blk.kp for blk in blocks]),
        np.concatenate([blk.kq for blk in blocks]),
        selection_total_p=np.concatenate([np.full(blk.index.size, float(blk.n_p)) for blk in blocks]),
        selection_total_q=np.concatenate([np.full(blk.index.size, float(blk.n_q)) for blk in blocks]),
        certify_total_p=projected_total,
        certify_total_q=projected_total,
        bound_level=projected_level,
        pessimism=PILOT_SELECTION_PESSIMISM,
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.nan_to_num(epsilon_from_bounds(p_lo, q_hi, delta=delta), nan=-np.inf)
    j = int(np.argmax(eps))
    ends = np.cumsum([blk.index.size for blk in blocks])
    k = int(np.searchsorted(ends, j, side="right"))
    blk = blocks[k]
    event = blk.event(j - (int(ends[k - 1]) if k else 0))
    return PilotEvent(event, blk.dataset_is_p, float(eps[j]), blk.name)


def _screened_blocks(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    projected_total: int,
    delta: float,
    distinguishers: Sequence[Distinguisher],
) -> list[Screened]:
    """Every distinguisher's candidates in both directions (dataset as P, then as Q), each
    screened to the `SCREEN_SIZE` best by `_rough_epsilon`, in the order they are tried."""
    n_a, n_b = a.shape[0], b.shape[0]
    blocks = []
    for dist in for_outputs(distinguishers, a, b):
        cand = dist.propose(a, b)
        if cand is None:
            continue
        runs = count_runs(np.asarray(cand.counts_a, dtype=float), np.asarray(cand.counts_b, dtype=float))
        for counts_p, counts_q, n_p, n_q, dataset_is_p in cand.directions(n_a, n_b):
            if len(counts_p) == 0:
                continue
            cp_, cq_ = np.asarray(counts_p, dtype=float), np.asarray(counts_q, dtype=float)
            top = _screened(cp_, cq_, n_p, n_q, projected_total, delta, runs)
            block = Screened(
                name=dist.name,
                candidates=cand,
                dataset_is_p=dataset_is_p,
                index=top,
                kp=cp_[top],
                kq=cq_[top],
                n_p=n_p,
                n_q=n_q,
            )
            blocks.append(block)
    return blocks


def _screened(
    kp: NDArray[np.float64],
    kq: NDArray[np.float64],
    n_p: int,
    n_q: int,
    total: int,
    delta: float,
    runs: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
) -> NDArray[np.intp]:
    """Indices of the candidate events given the exact projection: all of them, or the
    `SCREEN_SIZE` best by `_rough_epsilon` (`stable_top`), of which only the first of each run
    of equal counts (`runs`, from `count_runs`; `screen_runs`): the rest repeat its projection,
    and the first largest projection is the same candidate."""
    if kp.size <= SCREEN_SIZE:
        return np.arange(kp.size)
    starts, sizes = count_runs(kp, kq) if runs is None else runs
    rough = _rough_epsilon(kp[starts], kq[starts], n_p, n_q, total, delta)
    return starts[screen_runs(rough, sizes, SCREEN_SIZE)]


def stable_top(v: NDArray[np.float64], k: int) -> NDArray[np.intp]:
    """`np.argsort(v, kind="stable")[:k]` (no NaN in `v`) without sorting all of `v`: every entry
    at or below the k-th smallest value (ties included), then a stable sort of those, which keeps
    their index order among ties exactly as the full sort does."""
    kth = np.partition(v, k - 1)[k - 1]
    cand = np.flatnonzero(v <= kth)
    return cand[np.argsort(v[cand], kind="stable")][:k]


def _rough_epsilon(
    kp: NDArray[np.float64], kq: NDArray[np.float64], n_p: int, n_q: int, total: int, delta: float
) -> NDArray[np.float64]:
    """A cheap stand-in for the projected certified ε (two-standard-error normal bounds at the
    projected size on slightly shaded frequencies), used only to screen candidate events."""
    p = np.clip(np.maximum(kp - np.sqrt(kp), 0.0) / max(n_p, 1), 0.0, 1.0)
    q = np.clip((kq + np.sqrt(kq) + 1.0) / max(n_q, 1), 0.0, 1.0)
    p_lo = p - 2.0 * np.sqrt(p * (1 - p) / total)
    q_hi = q + 2.0 * np.sqrt(q * (1 - q) / total)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nan_to_num(
            np.log(np.maximum(p_lo - delta, 0.0)) - np.log(np.minimum(q_hi, 1.0)), nan=-np.inf
        )
