"""Distinguishers: events chosen on the selection split (docs/DESIGN.md, "Statistics").

A distinguisher looks at selection-split outputs from both sides of a pair and proposes
candidate events S with their selection counts. `choose_event` statistics every candidate in
both directions by the ε it is *projected* to certify on fresh samples
(`bounds.projected_bounds` at shading `SELECTION_PESSIMISM`) and keeps the best. The chosen
event is then certified on samples never used to choose it, which is what makes the final bound
valid: scanning thresholds on the certification samples and reporting the maximum would not be.

Adaptive top-k (`choose_events`). When the selection split cannot tell which of a few
*different* events is best — a rare event with a high likelihood ratio seen ~10² times next to a
large weak one — the Selection also lists up to `MAX_CERTIFIED` − 1 runners-up: candidates whose
optimistic projection (point estimates of the selection frequencies) exceeds the chosen one's
projection, and whose selection counts differ by ≥ `DISTINCT_FACTOR` from those already kept.
The runner certifies all k of them at β_t/k each and reports the best. Validity: k and the events
are functions of the selection split alone, hence fixed before the certification split is drawn;
given them, each of the 2k one-sided Clopper–Pearson intervals fails with probability ≤ β_t/(2k),
so by the union bound all hold together with probability ≥ 1 − β_t, and then every one of the k
certified values, in particular the largest, is a valid bound: the test keeps its failure
probability β_t. (Reporting the best of k events certified at the full β_t each would not be
valid.) Measured on SelectHalfplane's standalone pairs (benchmarks/geometric.py) this trades a
Bonferroni loss of ≈ 2–3 % on the seeds where k > 1 for removing the seeds on which a poor event
was chosen.

Events (`events.py`) must be picklable: certification maps each streamed chunk to its indicator
in a worker process. The base distinguishers live in `estimators_base.py`; this module is the
selection (projection, shortlist, adaptive top-k) and re-exports both for existing importers.

`choose_events` serves several objectives (the runner's primary test and its profile points) from
one proposal per distinguisher, and records in `Selection.considered` every distinguisher that
proposed, with its best projected value: what the choice was made among. The default set
(`distinguishers.DEFAULT_DISTINGUISHERS`) is `BASE_DISTINGUISHERS` plus the learned statistics of `learned`,
which apply to vector outputs only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..bounds import projected_bounds
from ..events import (
    EVENT_TYPES,
    Array,
    Event,
    SetEvent,
    ThresholdEvent,
    as_rows,
    event_from_spec,
    event_spec,
    row_keys,
)
from .base import (
    BASE_DISTINGUISHERS,
    Candidates,
    Distinguisher,
    HistogramDistinguisher,
    Screened,
    ThresholdDistinguisher,
    count_runs,
    screen_runs,
    tail_counts,
    threshold_grid,
)
from .objectives import EpsilonAt, Objective
from .registry import CHEAP, DEFAULT, members
from .width import for_outputs

__all__ = [  # the selection; events and base distinguishers are re-exported for importers
    "BASE_DISTINGUISHERS",
    "DISTINCT_FACTOR",
    "EVENT_TYPES",
    "MAX_CERTIFIED",
    "PLAUSIBLE_PESSIMISM",
    "SCREEN_SIZE",
    "SELECTION_PESSIMISM",
    "Array",
    "Candidates",
    "Distinguisher",
    "Event",
    "HistogramDistinguisher",
    "Selection",
    "SetEvent",
    "ThresholdDistinguisher",
    "ThresholdEvent",
    "as_rows",
    "choose_event",
    "choose_events",
    "event_from_spec",
    "event_spec",
    "row_keys",
    "tail_counts",
    "threshold_grid",
]

SCREEN_SIZE = 64

SELECTION_PESSIMISM = 0.05
"""Level of the one-sided Clopper–Pearson shading of selection frequencies in the projection that
ranks candidates (`bounds.projected_bounds`). It guards against the winner's curse over many
candidates; 0.01 shaded events seen ~10² times so much more than ones seen ~10⁴–10⁵ times that
a likelihood-ratio-optimal but rare event lost to a large, weak one (SelectHalfplane's asymmetric
replace: target seen ≈ 127 vs 27 times; projected 0.61 against 0.53 where it certifies 1.36 and
the large event 0.54). At 0.05 that pair's mean bound/exact went 0.851 → 0.873 in the selection
simulator (the tiny-event pairs unchanged; 0.3 and 0.5 let noise win there: 0.93, 0.83)."""

MAX_CERTIFIED = 4
"""At most this many events are certified per test (the chosen one plus runners-up)."""

DISTINCT_FACTOR = 2.0
"""A runner-up is certified only if, in the same direction, its selection count on the P side or
on the Q side differs by at least this factor from every event already kept: events with nearly
the same counts certify nearly the same (and strongly correlated) value, so certifying both
would only cost Bonferroni budget."""

PLAUSIBLE_PESSIMISM = 0.5
"""Shading of the *optimistic* projection u that decides whether a runner-up could be the best:
0.5 is the point estimate (the median of the Clopper–Pearson posterior)."""


def _rough_bounds(
    kp: NDArray[np.float64], kq: NDArray[np.float64], n_p: int, n_q: int, n_cert: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Normal-approximation stand-in for `projected_bounds`, used only to shortlist events."""
    p = np.maximum(kp - 2.3 * np.sqrt(kp + 1), 0) / n_p
    q = np.minimum((kq + 2.3 * np.sqrt(kq + 1) + 1) / n_q, 1.0)
    p_lo = np.maximum(p - 2.5 * np.sqrt(p / n_cert), 0.0)
    q_hi = np.minimum(q + 2.5 * np.sqrt(q / n_cert) + 1 / n_cert, 1.0)
    return p_lo, q_hi


@dataclass(frozen=True, slots=True)
class Selection:
    """The event chosen on the selection split for one pair and objective; `projected` is the
    objective's projected certified value (ε for the default objective). `considered` lists
    every distinguisher that proposed candidates with the best projected value among them
    (both directions), in the order tried: the record of what the choice was made among.

    `also` are runners-up to certify *as well* (adaptive top-k, see `choose_events`): the test
    then certifies the k = 1 + len(also) events of `certified` at failure probability β_t/k each
    (Bonferroni within the test) and reports the best. A caller that certifies only `event`
    (at the full β_t) ignores `also` and stays valid."""

    event: Event
    dataset_is_p: bool
    projected: float
    distinguisher: str
    considered: tuple[tuple[str, float], ...] = ()
    also: tuple[Selection, ...] = ()

    @property
    def certified(self) -> tuple[Selection, ...]:
        """The events this test certifies: the chosen one first, then the runners-up."""
        return (self, *self.also)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Shortlisted(Screened):
    """Screened candidates of one distinguisher in one direction for one objective, with their
    projected value `v` (at `SELECTION_PESSIMISM`) and optimistic value `u` (at
    `PLAUSIBLE_PESSIMISM`)."""

    v: NDArray[np.float64]
    u: NDArray[np.float64]


def _shortlist(
    name: str,
    cand: Candidates,
    n_a: int,
    n_b: int,
    obj: Objective,
    certify_total: int,
    test_level: float,
    pessimism: float,
) -> list[_Shortlisted]:
    """Both directions of one distinguisher's candidates: a cheap normal-approximation screen,
    then the projection (`bounds.projected_bounds`) of the top `SCREEN_SIZE` (of the first
    candidates of runs with equal counts, `base.screen_runs`: the same choice and runners-up)."""
    out = []
    starts, sizes = count_runs(cand.counts_a, cand.counts_b)  # screened per run: `screen_runs`
    for counts_p, counts_q, n_p, n_q, dataset_is_p in cand.directions(n_a, n_b):
        rough = obj.value(*_rough_bounds(counts_p[starts], counts_q[starts], n_p, n_q, certify_total))
        top = starts[screen_runs(rough, sizes, SCREEN_SIZE)]
        kp, kq = counts_p[top], counts_q[top]
        v, u = (
            obj.value(
                *projected_bounds(
                    kp,
                    kq,
                    selection_total_p=n_p,
                    selection_total_q=n_q,
                    certify_total_p=certify_total,
                    certify_total_q=certify_total,
                    bound_level=test_level,
                    pessimism=shade,
                )
            )
            for shade in (pessimism, max(pessimism, PLAUSIBLE_PESSIMISM))
        )
        out.append(
            _Shortlisted(
                name=name,
                candidates=cand,
                dataset_is_p=dataset_is_p,
                index=top,
                kp=kp,
                kq=kq,
                n_p=n_p,
                n_q=n_q,
                v=v,
                u=u,
            )
        )
    return out


def _distinct(kp: float, kq: float, kept: Sequence[tuple[bool, float, float]], dataset_is_p: bool) -> bool:
    """Whether (kp, kq) in this direction differs by ≥ `DISTINCT_FACTOR` on some side from every kept."""
    limit = math.log(DISTINCT_FACTOR)
    for is_p, kp2, kq2 in kept:
        if is_p != dataset_is_p:
            continue
        if abs(math.log((kp + 1) / (kp2 + 1))) < limit and abs(math.log((kq + 1) / (kq2 + 1))) < limit:
            return False
    return True


def _choose(
    lists: Sequence[_Shortlisted], max_events: int
) -> tuple[tuple[float, _Shortlisted, int], list[tuple[float, _Shortlisted, int]]]:
    """(best, runners-up) as (projected value, shortlist, position) from the pooled shortlists.

    Best: the largest projected value `v` (the first one in the order tried on ties). Runners-up,
    taken in decreasing optimistic value `u` while fewer than `max_events` are kept: every
    candidate whose u *exceeds* the best's v (it may plausibly certify more than the chosen event:
    the selection data cannot tell them apart) and that is distinct from those kept (`_distinct`).
    """
    best: tuple[float, _Shortlisted, int] | None = None
    for sl in lists:
        if sl.v.size == 0:
            continue
        j = int(np.argmax(sl.v))
        if best is None or float(sl.v[j]) > best[0]:
            best = (float(sl.v[j]), sl, j)
    if best is None:  # pragma: no cover - every proposal has candidates
        raise RuntimeError("no candidates to choose from")
    v_best, bsl, bj = best
    kept = [(bsl.dataset_is_p, float(bsl.kp[bj]), float(bsl.kq[bj]))]
    pool = [(float(sl.u[j]), n, j) for n, sl in enumerate(lists) for j in range(sl.u.size)]
    pool.sort(key=lambda t: -t[0])  # stable: order tried on ties
    runners_up: list[tuple[float, _Shortlisted, int]] = []
    for u, n, j in pool:
        if len(kept) >= max_events or not u > v_best:
            break
        sl = lists[n]
        if sl is bsl and j == bj:
            continue
        if _distinct(float(sl.kp[j]), float(sl.kq[j]), kept, sl.dataset_is_p):
            kept.append((sl.dataset_is_p, float(sl.kp[j]), float(sl.kq[j])))
            runners_up.append((float(sl.v[j]), sl, j))
    return best, runners_up


def _selection_of(
    sl: _Shortlisted,
    j: int,
    value: float,
    considered: tuple[tuple[str, float], ...] = (),
    also: tuple[Selection, ...] = (),
) -> Selection:
    return Selection(sl.event(j), sl.dataset_is_p, value, sl.name, considered, also)


def choose_events(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    certify_total: int,
    test_level: float,
    objectives: Sequence[Objective],
    distinguishers: Sequence[Distinguisher] | None = None,
    max_events: int = MAX_CERTIFIED,
    pessimism: float = SELECTION_PESSIMISM,
) -> list[Selection]:
    """`choose_event` for several objectives at once: each distinguisher proposes (and fits)
    once, and its candidates are evaluated for every objective. One Selection per objective.

    Adaptive top-k: besides the best candidate (largest projected value v, shading
    `pessimism`), each Selection lists in `also` up to `max_events` − 1 runners-up whose
    optimistic projection u (point estimates) exceeds the best's v and whose counts are distinct
    from those kept (`_choose`). Everything here is a function of the selection split only, so the
    number k of events and the events themselves are fixed before certification; certifying the
    k events at β_t/k each keeps the test's failure probability at β_t. `max_events=1` gives the
    single-event choice. When `a` and `b` differ in width (a data-dependent output shape) the only
    candidates are the width events of `output_width` (`for_outputs`)."""
    if max_events < 1:
        raise ValueError("max_events must be ≥ 1")
    dists = for_outputs(members(DEFAULT, cost=CHEAP) if distinguishers is None else distinguishers, a, b)
    proposals = [(d.name, d.propose(a, b)) for d in dists]
    out = []
    for obj in objectives:
        lists: list[_Shortlisted] = []
        considered: list[tuple[str, float]] = []
        for name, cand in proposals:
            if cand is None:
                continue
            mine = _shortlist(name, cand, a.shape[0], b.shape[0], obj, certify_total, test_level, pessimism)
            lists += mine
            considered.append((name, max(float(np.max(sl.v)) if sl.v.size else -np.inf for sl in mine)))
        if not lists:  # pragma: no cover - the threshold distinguisher always proposes
            raise RuntimeError("no distinguisher applies to these outputs")
        (value, sl, j), runners_up = _choose(lists, max_events)
        also = tuple(_selection_of(s, k, v) for v, s, k in runners_up)
        out.append(_selection_of(sl, j, value, tuple(considered), also))
    return out


def choose_event(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    certify_total: int,
    test_level: float,
    delta: float = 0.0,
    objective: Objective | None = None,
    distinguishers: Sequence[Distinguisher] | None = None,
    max_events: int = 1,
) -> Selection:
    """Pick the (event, direction) whose projected certified interval maximises `objective`
    (default: ε at `delta`) among the candidates of `distinguishers` (default:
    `sets.base_distinguishers()`; the runner passes `sets.default_distinguishers()`). With
    `max_events` > 1 the runners-up to certify as well are in `Selection.also` (see
    `choose_events`).

    `a` are outputs on the pair's dataset, `b` on its neighbour (selection split only).
    """
    obj: Objective = objective if objective is not None else EpsilonAt(delta)
    return choose_events(
        a,
        b,
        certify_total=certify_total,
        test_level=test_level,
        objectives=[obj],
        distinguishers=distinguishers,
        max_events=max_events,
    )[0]
