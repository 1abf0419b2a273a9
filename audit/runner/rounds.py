"""Sequential selection: doubling rounds of selection and certification under one cap (issue 44).

The single-round sequential audit (`runner_certify.certify_sequential`) draws its whole selection
split before the first look, and the look schedule starts at `sequence.FIRST_LOOK` = 256: on a
library model at 1,000–2,000 samples per side, half the budget is spent before anything can
stop. Here the audit runs in rounds r = 0, 1, …, R, fixed from the cap N alone (`round_schedule`,
never from data):

- round r < R draws a fresh selection sample of s·2^r per side and pair (s = `ROUND_SELECTION`),
  chooses its events on it (the same `choose_events` as the selection split), then certifies them
  on a fresh certification sample of at most (`ROUND_RATIO` − 1)·s·2^r per side, looked at on a
  halving schedule from `ROUND_FIRST_LOOK` (`sequence.look_schedule`);
- the last round R takes what is left of the cap: selection s·2^R, certification the rest;
- R is the largest round count whose rounds 0..R, each of `ROUND_RATIO`·s·2^r, fit in N; so
  everything drawn, selection included, is ≤ N per side and pair.

Round r spends the share u_r = 2^-(R−r+1) of every test's failure probability (1/2 for the last
round, 1/4 before it, …; Σ u_r = 1 − 2^-(R+1) < 1), and within it look j the share w_j of its own
schedule (Σ w_j < 1). The audit stops at the first round whose certification certifies a
violation (`stopping.decide` with the round's plan); a round whose events can no longer certify
one at its own cap stops early for futility (the same projection) and the next round selects
again; the last round's stop is the audit's.

Theorem (validity). Every interval of round r, look j, test t, event e is a one-sided
Clopper–Pearson bound at level u_r·w_j·β_t/(2k) on certification samples drawn at round r's own
seed keys, independent of the selection sample its events were chosen on (given the events, the
counts are binomial). By the union bound over rounds, looks, tests and events, all the intervals
of the whole audit hold together with probability ≥ 1 − Σ_r u_r Σ_j w_j Σ_t β_t ≥ 1 − β, whatever
rule decides when a round or the audit stops; the result is assembled from the intervals of the
stopping round's stopping look, so every statement of it, and the verdict, is wrong with
probability ≤ β. Proof and measured coverage in ARCHITECTURE.md ("Selection in rounds").

Seed keys: round r's selection chunk j of side s of pair i draws from
(i, s, `ROUND_PHASE`, t, r, j), its certification chunk from (i, s, `ROUND_PHASE` + 1, t, r, j),
t = `AuditConfig.rounds_stream`: six-part keys, distinct from the four-part keys of every other
stream. Rounds are not checkpointed (a resumed audit redraws them, with the same result).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from numpy.typing import NDArray

from ...mechanisms.base import Mechanism
from ..bounds import epsilon_ceiling
from ..distinguishers import Distinguisher, choose_events
from ..progress import Progress
from ..types import AuditConfig
from .certificates import CertifiedCounts, ChunkLayout, Selected
from .certify import certify_sequential
from .plan import AuditPlan
from .selection_split import selection_split
from .sequence import LookSchedule
from .stopping import VIOLATION, Stop, at_look, sequential_layout, trimmed

ROUND_SELECTION = 32
"""s: round 0's selection sample per side and pair (round r: s·2^r)."""
ROUND_RATIO = 4
"""A round r < R draws ROUND_RATIO·s·2^r per side: s·2^r to select, the rest to certify."""
ROUND_FIRST_LOOK = 32
"""The smallest look of a round's certification schedule."""
ROUND_PHASE = 140
"""Seed-key phase of the rounds' selection samples (+1: their certification samples)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Round:
    """One round: its selection and certification sizes (per side and pair) and its share of
    each test's failure probability."""

    index: int
    selection: int
    certification: int
    share: float


def round_schedule(cap: int, *, first: int = ROUND_SELECTION, ratio: int = ROUND_RATIO) -> tuple[Round, ...]:
    """The rounds of a cap of `cap` samples per side (module docstring): R is the largest count
    with Σ_{r≤R} ratio·first·2^r ≤ cap (0 if none); the last round takes the remainder; shares
    2^-(R−r+1). Everything drawn is ≤ cap; a cap below 2 samples has no round."""
    if cap < 2:
        raise ValueError(f"a cap of {cap} sample(s) per side cannot select and certify")
    last = 0
    while ratio * first * (2 ** (last + 2) - 1) <= cap:
        last += 1
    rounds = []
    for r in range(last + 1):
        if r < last:
            sel, total = first * 2**r, ratio * first * 2**r
        else:
            total = cap - ratio * first * (2**last - 1)
            sel = min(first * 2**last, total // 2)
        rounds.append(Round(index=r, selection=sel, certification=total - sel, share=2.0 ** -(last - r + 1)))
    return tuple(rounds)


def round_plan(plan: AuditPlan, rnd: Round) -> AuditPlan:
    """The plan as round `rnd` sees it: its sizes and β_t × its share (the ceiling at its cap)."""
    test_level = plan.test_level * rnd.share
    ceiling = epsilon_ceiling(rnd.certification, bound_level=test_level, delta=plan.verdict_claim.delta)
    return dataclasses.replace(
        plan,
        selection_samples=rnd.selection,
        certification_samples=rnd.certification,
        test_level=test_level,
        epsilon_ceiling=ceiling,
    )


def round_outputs(
    mechanism: Mechanism, plan: AuditPlan, config: AuditConfig, *, rnd: Round, chunk: int, progress: Progress
) -> list[tuple[NDArray[Any], NDArray[Any]]]:
    """Round `rnd`'s fresh selection sample of every pair (dataset side, neighbour side), at seed
    keys (i, s, ROUND_PHASE, stream, r, j) (`selection_split`, as the fixed-n selection split is
    drawn at (i, s, SELECTION, j))."""
    return selection_split(
        mechanism,
        list(enumerate(p.pair for p in plan.pairs)),
        config,
        size=rnd.selection,
        chunk=chunk,
        progress=progress,
        phase=(ROUND_PHASE, config.rounds_stream, rnd.index),
        label=f"round {rnd.index + 1} selection",
    )


def round_levels(plan: AuditPlan, cap: int) -> list[tuple[LookSchedule, list[float]]]:
    """Each round's look schedule and each look's β_t (the level of its certificates, both sides
    together) as `run_rounds` spends them for `plan` at `cap`: for coverage simulations."""
    out = []
    for rnd in round_schedule(cap):
        rplan = round_plan(plan, rnd)
        seq = sequential_layout(rnd.certification, 1 << 20, first=ROUND_FIRST_LOOK)
        out.append(
            (
                seq.schedule,
                [at_look(rplan, seq.schedule, j).test_level for j in range(len(seq.schedule.looks))],
            )
        )
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundsOutcome:
    """What the assemble stage needs from the stopping round, and the record of all rounds."""

    plan: AuditPlan
    layout: ChunkLayout
    selected: Selected
    counts: CertifiedCounts
    stop: Stop
    record: dict[str, object]
    """`AuditResult.extra["sequential"]`: the stopping round's `stopped_at`, `looks`, `reason`
    and `round`; `share`, the stopping certificate's share of β_t (look × round); `cap`, the
    certification split a fixed-n audit of the same budget draws (what the gate's witness
    re-counts keep); `rounds`, each round's own record; `drawn`, the samples per side and pair
    drawn in all, selection included (≤ `asked`, the cap)."""


def run_rounds(
    mechanism: Mechanism,
    plan: AuditPlan,
    config: AuditConfig,
    *,
    chunk: int,
    distinguishers: Sequence[Distinguisher],
    progress: Progress,
) -> RoundsOutcome:
    """Select and certify round by round until a round certifies a violation or the last round
    stops (module docstring); `plan` is the audit's plan at the cap `config.num_samples`."""
    schedule = round_schedule(config.num_samples)
    done: list[dict[str, object]] = []
    drawn = 0
    for rnd in schedule:
        rplan = round_plan(plan, rnd)
        outputs = round_outputs(mechanism, rplan, config, rnd=rnd, chunk=chunk, progress=progress)
        selected = Selected(
            tuple(
                tuple(
                    choose_events(
                        a,
                        b,
                        certify_total=rnd.certification,
                        objectives=list(rplan.objectives[i]),
                        test_level=rplan.test_level,
                        distinguishers=distinguishers,
                    )
                )
                for i, (a, b) in enumerate(outputs)
            )
        )
        seq = sequential_layout(rnd.certification, chunk, first=ROUND_FIRST_LOOK)
        counts, stop = certify_sequential(
            mechanism,
            rplan,
            config,
            seq,
            selected,
            progress=progress,
            phase=(ROUND_PHASE + 1, config.rounds_stream, rnd.index),
        )
        drawn += rnd.selection + stop.samples
        done.append(
            {**stop.record(), "round": rnd.index, "selection": rnd.selection, "round_share": rnd.share}
        )
        if stop.reason == VIOLATION or rnd is schedule[-1]:
            layout, counts = trimmed(seq, counts, stop)
            record = {
                **stop.record(),
                "cap": config.split()[1],
                "share": stop.schedule.shares[stop.look] * rnd.share,
                "round": rnd.index,
                "rounds": done,
                "drawn": drawn,
                "asked": config.num_samples,
            }
            return RoundsOutcome(
                plan=at_look(rplan, seq.schedule, stop.look),
                layout=layout,
                selected=selected,
                counts=counts,
                stop=stop,
                record=record,
            )
    raise AssertionError("the last round always stops the audit")  # pragma: no cover


__all__ = [
    "ROUND_PHASE",
    "ROUND_SELECTION",
    "Round",
    "RoundsOutcome",
    "round_levels",
    "round_plan",
    "round_schedule",
    "run_rounds",
]
