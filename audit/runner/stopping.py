"""The runner's stopping rule on the confidence sequence (`audit.sequential`, `AuditConfig.sequential`).

The certification split is drawn look by look (`sequential_layout`: chunks aligned to the
schedule's prefix sizes). After each look the counts so far are certified exactly as the
assemble stage certifies them, with the plan's per-test level β_t times the look's share and
the look's n (`at_look`), and the audit stops

- on a **violation** (`violation`: the same rule as `assemble.assemble_pair`: a pair's
  primary δ bound above its claim's δ, or a profile point above a PROVED claim), or
- for **futility** (`futile`): even the optimistic projection of every event's counts to the cap
  (`sequence.optimistic_counts`) certifies no violation at the cap's level, or
- at the cap.

Validity: whatever the reason, the result is assembled from the bounds at the stopping look,
and all looks' bounds of all tests hold together with probability ≥ 1 − β (the union bound over
looks in `audit.sequential`, then over tests as in the fixed-n audit), so the verdict is wrong with
probability ≤ β. The events were fixed on the selection split before the first look.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...mechanisms.base import ClaimKind
from ..bounds import epsilon_ceiling
from ..sampling import chunk_sizes
from .assemble import profile_tests
from .certificates import CertifiedCounts, ChunkLayout, Selected, certify_test
from .plan import AuditPlan
from .sequence import FIRST_LOOK, LookSchedule, look_schedule, optimistic_counts

VIOLATION, FUTILITY, CAP = "violation certified", "claim out of reach at the cap", "cap reached"


@dataclass(frozen=True, slots=True, kw_only=True)
class SequentialLayout:
    """The certification split's chunks, cut so that every look ends on a chunk boundary:
    look j covers chunks [ends[j−1], ends[j])."""

    layout: ChunkLayout
    schedule: LookSchedule
    ends: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Stop:
    """Where the sequence stopped: the look's index, its n, and why."""

    look: int
    samples: int
    reason: str
    schedule: LookSchedule

    def record(self) -> dict[str, object]:
        """For `AuditResult.extra["sequential"]`."""
        return {
            "stopped_at": self.samples,
            "cap": self.schedule.cap,
            "reason": self.reason,
            "looks": list(self.schedule.looks[: self.look + 1]),
            "share": self.schedule.shares[self.look],
        }


def sequential_layout(n_cert: int, chunk: int, *, first: int = FIRST_LOOK) -> SequentialLayout:
    """Chunks of at most `chunk` rows, each look's segment cut separately; the trajectory
    points are the looks (the first at least `first`, `sequence.look_schedule`)."""
    schedule = look_schedule(n_cert, first=first)
    sizes: list[int] = []
    ends = []
    start = 0
    for n in schedule.looks:
        sizes += chunk_sizes(n - start, chunk)
        ends.append(len(sizes))
        start = n
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int).tolist()
    layout = ChunkLayout(chunk=chunk, sizes=tuple(sizes), offsets=tuple(offsets), points=schedule.looks)
    return SequentialLayout(layout=layout, schedule=schedule, ends=tuple(ends))


def at_look(plan: AuditPlan, schedule: LookSchedule, j: int) -> AuditPlan:
    """The plan as the look-j certificate sees it: n = the look's prefix, β_t × its share."""
    n, test_level = schedule.looks[j], schedule.level(j, plan.test_level)
    ceiling = epsilon_ceiling(n, bound_level=test_level, delta=plan.verdict_claim.delta)
    return dataclasses.replace(plan, certification_samples=n, test_level=test_level, epsilon_ceiling=ceiling)


def violation(plan: AuditPlan, counts: CertifiedCounts, selected: Selected) -> bool:
    """Whether the counts certify a violation under `plan` (assemble_pair's rule)."""
    for i, planned in enumerate(plan.pairs):
        primary = counts.counts[i][: selected.starts(i)[1]]
        sel, obj = selected.selections[i][0], plan.objectives[i][0]
        est, _, _ = certify_test(
            sel, primary, plan.certification_samples, plan.test_level, planned.claim, obj
        )
        if est.delta_lower_bound > planned.claim.delta:
            return True
        prof = profile_tests(plan, counts, selected, index=i)
        if any(plan.claims[kc].kind is ClaimKind.PROVED for kc in prof.exceeded):
            return True
    return False


def futile(plan_cap: AuditPlan, counts: CertifiedCounts, selected: Selected, *, n: int) -> bool:
    """Whether no violation can be certified at the cap (`plan_cap`, from `at_look` at the last
    look) even with every event's counts projected optimistically from these (n per side)."""
    projected = []
    for i, rows in enumerate(counts.counts):
        p_first = np.array([e.dataset_is_p for sel in selected.selections[i] for e in sel.certified])
        kp = np.where(p_first, rows[:, 0], rows[:, 1])
        kq = np.where(p_first, rows[:, 1], rows[:, 0])
        up, down = optimistic_counts(kp, kq, n=n, cap=plan_cap.certification_samples)
        projected.append(np.column_stack([np.where(p_first, up, down), np.where(p_first, down, up)]))
    return not violation(plan_cap, _real_counts(projected, counts.prefix), selected)


def _real_counts(
    rows: Sequence[NDArray[np.float64]], prefix: tuple[NDArray[np.int64], ...]
) -> CertifiedCounts:
    """Projected (real-valued) counts in the certify stage's container (the bounds take reals)."""
    return CertifiedCounts(counts=tuple(rows), prefix=prefix)  # type: ignore[arg-type]


def at_horizon(plan_cap: AuditPlan, *, horizon: int, level: float) -> AuditPlan:
    """The cap's plan moved to `horizon` certification samples per side at `level` × its test
    level: where a later search round could still certify (`AuditConfig.futility_scale`)."""
    test_level = plan_cap.test_level * level
    ceiling = epsilon_ceiling(horizon, bound_level=test_level, delta=plan_cap.verdict_claim.delta)
    return dataclasses.replace(
        plan_cap, certification_samples=horizon, test_level=test_level, epsilon_ceiling=ceiling
    )


def decide(
    plan: AuditPlan,
    seq: SequentialLayout,
    counts: CertifiedCounts,
    selected: Selected,
    *,
    j: int,
    horizon: int = 0,
    level: float = 1.0,
) -> str | None:
    """Why to stop after look j (VIOLATION, FUTILITY, CAP), or None to draw the next look.
    With a `horizon` beyond the cap (`at_horizon`), futility is judged there, and at the cap
    too: a round whose events cannot reach a violation at the horizon stops for FUTILITY."""
    if violation(at_look(plan, seq.schedule, j), counts, selected):
        return VIOLATION
    last = len(seq.schedule.looks) - 1
    far = horizon > seq.schedule.cap
    if j == last and not far:
        return CAP
    cap_plan = at_look(plan, seq.schedule, last)
    if far:
        cap_plan = at_horizon(cap_plan, horizon=horizon, level=level)
    if futile(cap_plan, counts, selected, n=seq.schedule.looks[j]):
        return FUTILITY
    return CAP if j == last else None


def trimmed(
    seq: SequentialLayout, counts: CertifiedCounts, stop: Stop
) -> tuple[ChunkLayout, CertifiedCounts]:
    """The layout and counts the assemble stage sees after `stop`: trajectory points up to it."""
    keep = stop.look + 1
    layout = dataclasses.replace(seq.layout, points=seq.layout.points[:keep])
    prefix = tuple(p[:, :, :keep] for p in counts.prefix)
    return layout, CertifiedCounts(counts=counts.counts, prefix=prefix)


__all__ = [
    "CAP",
    "FUTILITY",
    "VIOLATION",
    "SequentialLayout",
    "Stop",
    "at_horizon",
    "at_look",
    "decide",
    "futile",
    "sequential_layout",
    "trimmed",
    "violation",
]
