"""Certificates of the runner's tests: one-sided Clopper–Pearson bounds on certified counts.

An event S chosen on the selection split is certified on fresh samples: with k_p of n samples
of the more likely side in S and k_q of n of the other, p_lo = cp_lower(k_p, n, β/2) ≤ P(S) and
q_hi = cp_upper(k_q, n, β/2) ≥ Q(S) each fail with probability ≤ β/2 (the Clopper–Pearson
inequality), so both hold with probability ≥ 1 − β, and then ε ≥ ln((p_lo − δ)/q_hi) and
δ ≥ p_lo − e^ε·q_hi (`bounds.epsilon_from_bounds` / `delta_from_bounds`).

A test that certifies k events (adaptive top-k, `estimators.choose_events`) puts β_t/k on each
(β_t/(2k) per interval): k and the events depend on the selection split only, so by the union
bound the 2k intervals hold together with probability ≥ 1 − β_t and the best of the k values is
as valid as any one (`certify_test`).

Trajectory: the reported event's counts on prefixes of the certification split ending at
`trajectory_points` give its certified ε against sample size, each point valid alone at the
test's per-event level (descriptive, not a joint or sequential statement).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...mechanisms.base import PrivacyClaim
from ..bounds import cp_lower, cp_upper, delta_from_bounds, epsilon_from_bounds
from ..distinguishers import DIRECT_ASSUMPTION, Objective, Selection, event_spec
from ..jsonnum import json_number
from ..types import EpsilonEstimate
from .plan import assumption_of

TRAJECTORY_FRACTIONS: tuple[float, ...] = (1 / 64, 1 / 16, 1 / 4, 1.0)
"""Prefixes of the certification split at which the trajectory reports the certified ε."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChunkLayout:
    """Output of the probe stage: how the certification split is cut into chunks."""

    chunk: int
    sizes: tuple[int, ...]
    offsets: tuple[int, ...]
    """First row of each chunk."""
    points: tuple[int, ...]
    """Trajectory prefix lengths (`trajectory_points`)."""


@dataclass(frozen=True, slots=True)
class Selected:
    """Output of the select stage: per pair, one `Selection` per test (the plan's objectives)."""

    selections: tuple[tuple[Selection, ...], ...]

    def starts(self, index: int) -> list[int]:
        """Pair `index`'s first count row of each test, then the total: a test's rows are its
        chosen event followed by its runners-up (`Selection.certified`)."""
        return np.cumsum([0] + [len(sel.certified) for sel in self.selections[index]]).tolist()


@dataclass(frozen=True, slots=True, eq=False)
class CertifiedCounts:
    """Output of the certify stage, per pair: `counts[i]` has one (dataset, neighbour) row per
    certified event (in `Selected.starts` order); `prefix[i]` the primary test's events' counts
    on the trajectory prefixes, shape (events, 2, len(points))."""

    counts: tuple[NDArray[np.int64], ...]
    prefix: tuple[NDArray[np.int64], ...]


def estimate_event(
    sel: Selection,
    counts: NDArray[np.int64],
    n_cert: int,
    bound_level: float,
    claim: PrivacyClaim,
    assumption: str = DIRECT_ASSUMPTION,
) -> EpsilonEstimate:
    """Certified intervals of one chosen event from its counts on both sides."""
    kp, kq = (counts[0], counts[1]) if sel.dataset_is_p else (counts[1], counts[0])
    p_lo = float(cp_lower(kp, n_cert, bound_level / 2))
    q_hi = float(cp_upper(kq, n_cert, bound_level / 2))
    return EpsilonEstimate(
        epsilon_lower_bound=float(epsilon_from_bounds(p_lo, q_hi, delta=claim.delta)),
        delta_lower_bound=float(delta_from_bounds(p_lo, q_hi, epsilon=claim.epsilon)),
        p_count=int(kp),
        p_total=n_cert,
        q_count=int(kq),
        q_total=n_cert,
        p_lower=p_lo,
        q_upper=q_hi,
        bound_level=bound_level,
        infinite_witness=bool(kq == 0 and kp > 0),
        direction="dataset>neighbor" if sel.dataset_is_p else "neighbor>dataset",
        event=sel.event.describe(),
        distinguisher=sel.distinguisher,
        selection_epsilon=sel.projected,
        assumption=assumption,
    )


def certify_test(
    sel: Selection,
    counts: NDArray[np.int64],
    n_cert: int,
    test_level: float,
    claim: PrivacyClaim,
    objective: Objective,
) -> tuple[EpsilonEstimate, list[dict[str, Any]], int]:
    """One test's certificate: its k = len(sel.certified) events, each certified at β_t/k
    (Bonferroni within the test), and the estimate of the one with the best value for `objective`
    (the first on ties). `counts` holds one row of (dataset, neighbour) counts per event. Also
    returns one record per event (for `AuditResult.extra["certified_events"]`) and the reported
    event's index in `sel.certified`."""
    events = sel.certified
    level = test_level / len(events)
    estimates = [
        estimate_event(e, counts[j], n_cert, level, claim, assumption_of(objective, e.distinguisher))
        for j, e in enumerate(events)
    ]
    values = [float(objective.value(e.p_lower, e.q_upper)) for e in estimates]
    best = int(np.argmax(values))
    records = [
        {
            "event": e.event.describe(),
            "distinguisher": e.distinguisher,
            "direction": est.direction,
            "projected": json_number(e.projected),
            "certified": json_number(v),
            "reported": j == best,
            "spec": event_spec(e.event),
        }
        for j, (e, est, v) in enumerate(zip(events, estimates, values, strict=True))
    ]
    return estimates[best], records, best


def trajectory_points(n_cert: int) -> list[int]:
    """Prefix lengths (certification samples per side) at which the trajectory is reported:
    `TRAJECTORY_FRACTIONS` of `n_cert`, rounded, distinct, increasing, the last one `n_cert`."""
    return sorted({max(1, round(f * n_cert)) for f in TRAJECTORY_FRACTIONS})


def chunk_cuts(points: Sequence[int], offset: int, size: int) -> list[int]:
    """Row offsets inside the chunk [offset, offset + size) where a trajectory prefix ends."""
    return [m - offset for m in points if offset < m < offset + size]


def prefix_counts(
    points: Sequence[int], offset: int, size: int, segments: Sequence[int]
) -> NDArray[np.int64]:
    """This chunk's contribution to the first event's count on each prefix [0, m)."""
    cuts = chunk_cuts(points, offset, size)
    cum = np.cumsum(np.asarray(segments, dtype=np.int64))  # cum[r] = count on [0, cuts[r]); cum[-1] total
    out = np.zeros(len(points), dtype=np.int64)
    for idx, m in enumerate(points):
        if m >= offset + size:
            out[idx] = cum[-1]
        elif m > offset:
            out[idx] = cum[cuts.index(m - offset)]
    return out


def trajectory(
    sel: Selection, prefix: NDArray[np.int64], points: Sequence[int], bound_level: float, delta: float
) -> tuple[tuple[int, float], ...]:
    """Certified ε at `delta` of the pair's certified event on each prefix of the certification split.

    Each point uses the same one-sided Clopper–Pearson bounds as the pair's test (at β_t/(2k) when
    the test certified k events; `bound_level` is that per-event level β_t/k), so each is valid on
    its own at the per-test failure probability; the points are not a joint (or
    sequential) confidence statement and take no part in the verdict: they are descriptive.
    """
    out = []
    for idx, m in enumerate(points):
        kp, kq = (prefix[0, idx], prefix[1, idx]) if sel.dataset_is_p else (prefix[1, idx], prefix[0, idx])
        p_lo = cp_lower(kp, m, bound_level / 2)
        q_hi = cp_upper(kq, m, bound_level / 2)
        out.append((int(m), float(epsilon_from_bounds(p_lo, q_hi, delta=delta))))
    return tuple(out)
