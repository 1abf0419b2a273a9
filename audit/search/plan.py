"""The search's budget plan: how a total budget T splits into pilot, sweeps, screening, challenge.

`plan_pilot` is the full plan of `search_and_certify` (P = ⌊f·T⌋, screening candidates on
`min_pilot_samples` each) and, below its budget or for a blind search where it would screen few
candidates, the racing plan of issue 44 (`small_plan`: a larger pilot share, a few samples per
candidate, a quarter of the pilot racing the sweeps). It only divides samples: every draw it
plans is a pilot or coupled draw (`audit.search.sampling`), independent of the certification
samples, so the validity argument of `audit.search` holds for any plan.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..types import AuditConfig
from .result import SearchBudgetError

MIN_SCREEN_SAMPLES = 16
"""Fewest samples per side a candidate is screened on at a small budget (`small_plan`): 8 per
cross-fitting half, enough for an event one side never shows (a sentinel, a raise) to rank its
pair first."""
SCREEN_TARGET = 16
"""Candidates a small budget's screening aims at (each on ⌊screen budget / this⌋ samples while
that is between `MIN_SCREEN_SAMPLES` and `min_pilot_samples`)."""
MIN_CERTIFICATION = 400
"""Fewest samples per side left for certification (`search_certify.certify` refuses fewer)."""
SMALL_PILOT_FRACTION = 0.5
"""The largest pilot share of a small budget (`small_pilot_fraction`)."""
SMALL_SWEEP_SHARE = 1 / 4
"""The sweep race's share of a small budget's pilot (the full plan's is `SWEEP_SHARE`)."""
RACE_SWEEP_SHARE = 1 / 2
"""The sweep race's share of the pilot of a budget at or above the full plan's (raced because its
plan would screen few candidates): there the pilot can afford a wide first round, and a quarter
left the race's field short of the design points once the extremes' large counts came first.
Also a small budget's share when the domain declares its columns (`wide`: a `TabularSpace`,
whose every category and label adds counting candidates right after the extremes' small counts;
a quarter of a 5,000-sample pilot stopped the race at the first label's counts)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PilotPlan:
    """The budget split (samples per side): T in all, P for the pilot, C candidates screened on
    s₀ each, and the certification size the pilot projects to (one pair, selection removed)."""

    total_budget: int
    pilot_budget: int
    num_candidates: int
    per_candidate: int
    projected_total: int
    challenge_budget: int = 0
    """Taken from screening so that what the pilot has left after the registered top-ups can pay
    the challenge (`challenge_reserve` holds it back from the halving); without a registered
    champion it goes to the halving."""
    sweep_budget: int = 0
    """Taken from screening for the sweep screen (`search_sweeps`); what it leaves unspent goes
    to the halving."""
    min_samples: int = 1000
    """The fewest samples per side a candidate is screened or raced on (`min_pilot_samples`, or
    the small plan's s₀)."""
    racing: bool = False
    """A budget below the full plan's (`small_plan`): candidates screened on a few dozen samples
    each, where a blind search seats the count sweeps' far end (`search.pilot.run_pilot`)."""


def full_budget(*, pilot_fraction: float, min_pilot_samples: int) -> int:
    """The smallest total budget the full plan fits: two screened candidates of
    `min_pilot_samples` each in the screening's half of the pilot, P = ⌊f·T⌋."""
    return math.ceil(2 * 2 * min_pilot_samples / pilot_fraction)


def smallest_budget(*, pilot_fraction: float, min_pilot_samples: int) -> int:
    """The smallest total budget (samples per side) a search fits (`small_plan` without
    sweeps), by bisection on the plan itself, so the message and the plan cannot disagree."""
    lo, hi = MIN_CERTIFICATION, 8 * MIN_CERTIFICATION
    while hi - lo > 1:
        mid = (lo + hi) // 2
        fits = small_plan(
            AuditConfig(num_samples=MIN_CERTIFICATION),
            total_budget=mid,
            pilot_fraction=pilot_fraction,
            max_candidates=64,
            min_pilot_samples=min_pilot_samples,
            sweep_share=0.0,
        )
        lo, hi = (lo, mid) if fits is not None else (mid, hi)
    return hi


def small_pilot_fraction(total_budget: int, *, pilot_fraction: float, full: int) -> float:
    """The pilot's share below the full plan's budget: f·√(full / T), capped at
    `SMALL_PILOT_FRACTION` (never below f) and at what leaves `MIN_CERTIFICATION`. A small
    budget ranks on a few samples per candidate, so its pilot needs a larger share of it, the
    more so the smaller it is; certification keeps at least half of T."""
    grown = min(
        max(pilot_fraction, SMALL_PILOT_FRACTION), pilot_fraction * math.sqrt(max(full / total_budget, 1.0))
    )
    return max(0.0, min(grown, 1.0 - MIN_CERTIFICATION / total_budget))


def plan_pilot(
    config: AuditConfig,
    *,
    total_budget: int,
    pilot_fraction: float,
    max_candidates: int,
    min_pilot_samples: int,
    sweep_share: float = 0.0,
    small: bool = True,
    wide: bool = False,
) -> PilotPlan:
    """P = ⌊f·T⌋: P/2 − R − W for screening C = min(max_candidates, ⌊(P/2 − R − W) /
    min_pilot_samples⌋) candidates on s₀ = ⌊(P/2 − R − W) / C⌋ samples each, R = min(P/8, P/2 −
    2·min_pilot_samples) held for the challenge (3P/8 and P/8 once the budget allows), W =
    ⌊sweep_share·P⌋ for the sweep screen while screening keeps 4·min_pilot_samples (else 0).
    Below `full_budget` (or when T − P < `MIN_CERTIFICATION`, or when `small` and the full plan
    would screen fewer than `SCREEN_TARGET` candidates, without sweeps), `small_plan`: a race
    on a few samples per candidate, unless not `small` (a search with registered pairs, whose guarantee
    against the registered route is stated for the full plan: the default route then falls back
    to that route); `SearchBudgetError`, saying the budget needed, when no plan fits."""
    full = full_budget(pilot_fraction=pilot_fraction, min_pilot_samples=min_pilot_samples)
    pilot_budget = math.floor(pilot_fraction * total_budget)
    few = math.floor(3 * pilot_budget / 8) // min_pilot_samples < SCREEN_TARGET  # the full plan screens few
    if total_budget < full or total_budget - pilot_budget < MIN_CERTIFICATION or (small and few):
        if not small:
            raise SearchBudgetError(
                f"a total budget of {total_budget:,} samples per side is too small for a search with "
                f"registered pairs at pilot_fraction={pilot_fraction:g} (need ≥ {full:,}; "
                "`--pairs search` searches at any budget)"
            )
        plan = small_plan(
            config,
            total_budget=total_budget,
            pilot_fraction=pilot_fraction,
            max_candidates=max_candidates,
            min_pilot_samples=min_pilot_samples,
            sweep_share=sweep_share,
            wide=wide,
        )
        if plan is None:
            need = smallest_budget(pilot_fraction=pilot_fraction, min_pilot_samples=min_pilot_samples)
            raise SearchBudgetError(
                f"a total budget of {total_budget:,} samples per side is too small for a search "
                f"(need ≥ {need:,})"
            )
        return plan
    half = pilot_budget // 2  # the reserve never costs a small budget its two screened candidates
    challenge_budget = min(pilot_budget // 8, max(0, half - 2 * min_pilot_samples))
    screen_budget = half - challenge_budget
    sweep_budget = math.floor(sweep_share * pilot_budget)
    if screen_budget - sweep_budget < 4 * min_pilot_samples:
        sweep_budget = 0
    screen_budget -= sweep_budget
    return _plan(
        config,
        total_budget=total_budget,
        pilot_budget=pilot_budget,
        num_candidates=min(max_candidates, screen_budget // min_pilot_samples),
        screen_budget=screen_budget,
        challenge_budget=challenge_budget,
        sweep_budget=sweep_budget,
        min_samples=min_pilot_samples,
    )


def small_plan(
    config: AuditConfig,
    *,
    total_budget: int,
    pilot_fraction: float,
    max_candidates: int,
    min_pilot_samples: int,
    sweep_share: float,
    wide: bool = False,
) -> PilotPlan | None:
    """The plan of a budget below `full_budget` (a racing plan), None if none fits: P = ⌊f'·T⌋
    with f' = `small_pilot_fraction`; W = ⌊`SMALL_SWEEP_SHARE`·P⌋ (`RACE_SWEEP_SHARE` at or above
    the full plan's budget, or when `wide`: a domain that declares its columns) for the sweep race (when there
    are sweeps, `sweep_share` > 0; dropped if the rest cannot screen two candidates); of the
    rest, 3/8 screen C candidates on s₀ = max(`MIN_SCREEN_SAMPLES`, min(min_pilot_samples,
    screen / `SCREEN_TARGET`)) samples each, 1/8 is held for the challenge and the remainder
    races the best of them (successive halving); s₀ is the pilot's per-candidate floor
    throughout (`PilotPlan.min_samples`)."""
    full = full_budget(pilot_fraction=pilot_fraction, min_pilot_samples=min_pilot_samples)
    fraction = small_pilot_fraction(total_budget, pilot_fraction=pilot_fraction, full=full)
    pilot_budget = math.floor(fraction * total_budget)
    if total_budget - pilot_budget < MIN_CERTIFICATION:
        return None
    share = SMALL_SWEEP_SHARE if total_budget < full and not wide else RACE_SWEEP_SHARE
    sweeps = math.floor(share * pilot_budget) if sweep_share > 0 else 0
    for sweep_budget in dict.fromkeys((sweeps, 0)):
        rest = pilot_budget - sweep_budget
        challenge_budget = rest // 8
        screen_budget = rest // 2 - challenge_budget
        per = max(MIN_SCREEN_SAMPLES, min(min_pilot_samples, screen_budget // SCREEN_TARGET))
        num_candidates = min(max_candidates, screen_budget // per)
        if num_candidates >= 2:
            return _plan(
                config,
                total_budget=total_budget,
                pilot_budget=pilot_budget,
                num_candidates=num_candidates,
                screen_budget=screen_budget,
                challenge_budget=challenge_budget,
                sweep_budget=sweep_budget,
                min_samples=per,
                racing=True,
            )
    return None


def _plan(
    config: AuditConfig,
    *,
    total_budget: int,
    pilot_budget: int,
    num_candidates: int,
    screen_budget: int,
    challenge_budget: int,
    sweep_budget: int,
    min_samples: int,
    racing: bool = False,
) -> PilotPlan:
    cert_cfg = dataclasses.replace(config, num_samples=max(total_budget - pilot_budget, MIN_CERTIFICATION))
    return PilotPlan(
        total_budget=total_budget,
        pilot_budget=pilot_budget,
        num_candidates=num_candidates,
        per_candidate=screen_budget // num_candidates,
        projected_total=cert_cfg.split()[1],
        challenge_budget=challenge_budget,
        sweep_budget=sweep_budget,
        min_samples=min_samples,
        racing=racing,
    )
