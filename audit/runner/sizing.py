"""Sample-size planning: how many samples per side to certify a target ε (issue 7).

`plan(mechanism, pairs, target_epsilon=E)` runs a small pilot audit (`run_audit` at
`pilot_samples` per side) and takes, for each pair, the certification counts of the event the
pilot chose as the estimate of (P, Q) = (P[M(D) ∈ S], P[M(D') ∈ S]) (P the more likely side).
For a certification size n the certified bound of that event is projected as

    ε̂(n) = ln((cp_lower(P·n, n, β_t/2) − δ) / cp_upper(Q·n, n, β_t/2))

with real-valued counts P·n, Q·n (`audit.bounds`), β_t the per-test failure probability of an
audit of the same pairs and options (the pilot's), δ the pair's claimed δ. ε̂(n) increases to
the point estimate ln((P − δ)/Q) as n → ∞, so the smallest n with ε̂(n) ≥ E (found by
bisection) exists iff E < ln((P − δ)/Q); otherwise no n suffices *with that event*
(`exceeds_point_estimate`), and a stronger event or distinguisher is needed. The run's bound is
the maximum over pairs, so the plan takes the pair needing the fewest samples.

Also reported: the largest ε any event can certify at the planned size
(`bounds.epsilon_ceiling`), and the fewest certification samples at which the claimed ε (and
the target) lie below that ceiling: below them no audit can refute the claim (reach the
target), whatever the distinguisher.

Caveats, stated in `Plan.describe()`: the prediction is for the pilot's event. A larger run
chooses its event on a larger selection split and may find a better one (typically a more
extreme tail threshold), so for tail events the planned n is conservative. And (P, Q) are
estimates from `pilot_samples`: with few pilot counts in the event (especially on the Q side)
the planned n is noisy; `q_count == 0` plans for an infinite witness and is optimistic.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ...mechanisms.base import Mechanism
from ...neighbors.base import NeighborPair
from ..bounds import cp_lower, cp_upper, epsilon_ceiling, epsilon_from_bounds
from ..types import AuditConfig, PairResult
from .procedure import run_audit

MAX_SAMPLES = 10**13
"""Plans needing more certification samples per side than this are reported as unreachable."""


def projected_certified_epsilon(
    p: float, q: float, num_samples: int, *, delta: float, bound_level: float
) -> float:
    """The certified ε of an event with probabilities (p, q), at `num_samples` certification
    samples per side, with counts replaced by their expectations p·n, q·n."""
    half = bound_level / 2
    p_lo = cp_lower(p * num_samples, num_samples, half)
    q_hi = cp_upper(q * num_samples, num_samples, half)
    return float(epsilon_from_bounds(p_lo, q_hi, delta=delta))


def _smallest(predicate: Any, *, start: int = 1, limit: int = MAX_SAMPLES) -> int | None:
    """Smallest integer n in [start, limit] with predicate(n), assuming it is monotone."""
    if predicate(start):
        return start
    lo, hi = start, start
    while not predicate(hi):
        if hi >= limit:
            return None
        lo, hi = hi, min(2 * hi, limit)
    while hi - lo > 1:  # predicate(lo) false, predicate(hi) true
        mid = (lo + hi) // 2
        if predicate(mid):
            hi = mid
        else:
            lo = mid
    return hi


def required_samples(
    p: float,
    q: float,
    *,
    target_epsilon: float,
    delta: float,
    bound_level: float,
    max_samples: int = MAX_SAMPLES,
) -> int | None:
    """Smallest certification size n (per side) with projected certified ε ≥ target, or None
    when the target is not below the point estimate ln((p − δ)/q) or needs > max_samples."""
    if not p > delta or not point_epsilon(p, q, delta=delta) > target_epsilon:
        return None
    return _smallest(
        lambda n: (
            projected_certified_epsilon(p, q, n, delta=delta, bound_level=bound_level) >= target_epsilon
        ),
        limit=max_samples,
    )


def point_epsilon(p: float, q: float, *, delta: float) -> float:
    """ln((p − δ)/q): the limit of the certified bound of an event as n → ∞."""
    if not p > delta:
        return -math.inf
    if q <= 0:
        return math.inf
    return math.log(p - delta) - math.log(q)


def point_epsilon_sd(p: float, q: float, n: int, *, delta: float) -> float:
    """Delta-method sd of ln((p̂ − δ)/q̂) from n samples per side (inf when p ≤ δ or q = 0)."""
    if not p > delta or q <= 0 or n < 1:
        return math.inf
    return math.sqrt(p * (1 - p) / n / (p - delta) ** 2 + (1 - q) / (q * n))


def total_samples_for(certification_samples: int, config: AuditConfig) -> int:
    """Smallest `num_samples` (per side, selection split included) whose certification split
    under `config`'s selection options is at least `certification_samples`."""

    def enough(n: int) -> bool:
        return (
            AuditConfig(
                num_samples=n,
                selection_fraction=config.selection_fraction,
                max_selection_samples=config.max_selection_samples,
            ).split()[1]
            >= certification_samples
        )

    found = _smallest(enough, start=200, limit=4 * certification_samples + 10_000)
    assert found is not None  # num_samples = 2·n_cert + 2000 always suffices
    return found


@dataclass(frozen=True, slots=True, kw_only=True)
class PairPlan:
    """The plan for one pair, from the pilot's chosen event."""

    index: int
    description: str
    event: str
    direction: str
    delta: float
    p_count: int
    q_count: int
    pilot_total: int
    p_estimate: float
    q_estimate: float
    point_epsilon: float
    point_epsilon_sd: float
    """Delta-method sd of the pilot's point estimate (how far the plan's premise may be off)."""
    pilot_epsilon_lower_bound: float
    certification_samples: int | None
    num_samples: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """How many samples per side an audit needs to certify `target_epsilon`.

    `certification_samples` / `num_samples` (per side; the latter includes the selection split
    and is what `--num-samples` takes) are None when no pair's pilot event can reach the
    target. `exceeds_point_estimate` is True when the target is at or above every pair's
    point estimate ln((P − δ)/Q): then no n suffices with the pilot's events.
    `epsilon_ceiling` is the largest ε any event can certify at the planned size (at the
    pilot's size when there is no plan); `min_samples_for_claim` / `min_samples_for_target`
    are the fewest certification samples per side at which the claimed ε / the target lie
    below that ceiling.
    """

    mechanism: str
    target_epsilon: float
    claim_epsilon: float
    claim_delta: float
    failure_probability: float
    test_level: float
    pilot_samples: int
    pilot_certification_samples: int
    pilot_epsilon_lower_bound: float
    seed: int
    pairs: tuple[PairPlan, ...]
    best_pair: int | None
    certification_samples: int | None
    num_samples: int | None
    exceeds_point_estimate: bool
    epsilon_ceiling: float
    min_samples_for_claim: int | None
    min_samples_for_target: int | None
    pilot_seconds: float = 0.0
    """Wall-clock seconds of the pilot audit (pilot_samples per side and pair, one process)."""
    estimated_seconds: float | None = None
    """The planned run's time, scaled linearly from the pilot's: pilot_seconds × num_samples /
    pilot_samples (fixed costs are scaled too, so a short pilot over-estimates)."""

    @property
    def reachable(self) -> bool:
        return self.num_samples is not None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["reachable"] = self.reachable
        return d

    def describe(self) -> str:
        pilot = (
            f"A pilot of {self.pilot_samples:,} samples per side certified "
            f"ε ≥ {self.pilot_epsilon_lower_bound:.4g} for {self.mechanism} "
            f"(claim ε = {self.claim_epsilon:g}, δ = {self.claim_delta:g}; failure probability "
            f"{self.failure_probability:g}, {self.test_level:.3g} per test)."
        )
        best = self.pairs[self.best_pair] if self.best_pair is not None else None
        if best is None:
            top = max(self.pairs, key=lambda pp: pp.point_epsilon)
            why = (
                f"the target ε = {self.target_epsilon:g} is at or above the point estimate "
                f"ln((P − δ)/Q) = {top.point_epsilon:.4g} of the best pilot event "
                f"(pair {top.index + 1}, {top.event}, P ≈ {top.p_estimate:.3g}, Q ≈ {top.q_estimate:.3g})"
                if self.exceeds_point_estimate
                else f"reaching ε = {self.target_epsilon:g} would need more than {MAX_SAMPLES:.0e} "
                "certification samples per side"
            )
            main = (
                f"No sample size suffices with the pilot's events: {why}. A stronger event (another "
                "distinguisher, a worse-case pair) is needed, or the target is above what the "
                "mechanism realises. Events rarer than about 1/pilot_samples are invisible to the pilot: "
                "a larger pilot may find a rarer event that reaches the target."
            )
        else:
            assert self.certification_samples is not None and self.num_samples is not None
            main = (
                f"To certify ε ≥ {self.target_epsilon:g}, the best pilot event (pair {best.index + 1}, "
                f"{best.event}, {best.direction}; P ≈ {best.p_estimate:.4g}, Q ≈ {best.q_estimate:.4g}, "
                f"point estimate {best.point_epsilon:.4g}) needs about "
                f"{self.certification_samples:,} certification samples per side, i.e. "
                f"--num-samples {self.num_samples} with the selection split."
            )
        size = "that size" if best is not None else "the pilot's size"
        ceiling = f"At {size} no event can certify more than ε = {self.epsilon_ceiling:.4g}"
        if self.min_samples_for_claim is not None:
            ceiling += (
                f"; the claim ε = {self.claim_epsilon:g} can be refuted at all only with at least "
                f"{self.min_samples_for_claim:,} certification samples per side"
            )
        caveats = [
            "The prediction is for the pilot's event; a larger run chooses on a larger selection "
            "split and may find a better (more extreme) event, so tail-event plans are conservative."
        ]
        if best is not None and self.target_epsilon > best.point_epsilon - 2 * best.point_epsilon_sd:
            caveats.append(
                f"The target is within two standard errors ({best.point_epsilon_sd:.2g} each) of the pilot's "
                "point estimate, so the planned size is very uncertain: a larger pilot would pin it down."
            )
        if best is not None and min(best.p_count, best.q_count) < 30:
            caveats.append(
                f"The estimate rests on few pilot counts (P: {best.p_count}, Q: {best.q_count}) and is noisy"
                + (
                    "; Q = 0 plans for a one-sided witness (0 on the Q side) and is optimistic."
                    if best.q_count == 0
                    else "."
                )
            )
        return " ".join([pilot, main, *self._time_text(), ceiling + ".", *caveats])

    def _time_text(self) -> list[str]:
        if self.estimated_seconds is None:
            return []
        return [
            f"At the pilot's pace ({self.pilot_seconds:.2g} s for {self.pilot_samples:,} per side) "
            f"that run takes about {_duration(self.estimated_seconds)} on this machine with the "
            "same --jobs (scaled linearly)."
        ]


def _duration(seconds: float) -> str:
    """`seconds` rounded for a reader: "40 s", "12 min", "3.5 h", "2.1 days"."""
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


PLAN_STREAM = 0x706C616E  # "plan"


def pilot_seed(seed: int) -> int:
    """The pilot's seed: a stream of its own, independent of the samples `dpaudit run --seed seed`
    draws. Were it the run's own seed, the planned run would re-draw the very samples its size
    was chosen from (optional stopping on the certification samples)."""
    return int(np.random.SeedSequence([seed, PLAN_STREAM]).generate_state(1, dtype=np.uint32)[0])


def pair_plan(pr: PairResult, *, target_epsilon: float, bound_level: float, config: AuditConfig) -> PairPlan:
    """The plan for one pilot pair: its reported event's pilot frequencies (P, Q) taken as the
    event's probabilities, and the certification size (`required_samples`) and `num_samples`
    under `config`'s selection options that reach `target_epsilon` at `failure_probability`."""
    est = pr.estimate
    delta = pr.claim.delta
    p = est.p_count / est.p_total
    q = est.q_count / est.q_total
    n_cert = required_samples(p, q, target_epsilon=target_epsilon, delta=delta, bound_level=bound_level)
    return PairPlan(
        index=pr.index,
        description=pr.description,
        event=est.event,
        direction=est.direction,
        delta=delta,
        p_count=est.p_count,
        q_count=est.q_count,
        pilot_total=est.p_total,
        p_estimate=p,
        q_estimate=q,
        point_epsilon=point_epsilon(p, q, delta=delta),
        point_epsilon_sd=point_epsilon_sd(p, q, est.p_total, delta=delta),
        pilot_epsilon_lower_bound=est.epsilon_lower_bound,
        certification_samples=n_cert,
        num_samples=None if n_cert is None else total_samples_for(n_cert, config),
    )


def plan(
    mechanism: Mechanism,
    pairs: Sequence[NeighborPair],
    *,
    target_epsilon: float,
    pilot_samples: int = 20_000,
    seed: int = 0,
    failure_probability: float = 0.05,
    config: AuditConfig | None = None,
) -> Plan:
    """Estimate from a pilot audit how many samples per side certify `target_epsilon`.

    `config` (optional) supplies the other audit options (selection split, jobs, …) of the
    planned run; its `num_samples`, `seed` and `failure_probability` are replaced by the pilot's.
    Raises `audit.runner.AuditInputError` as `run_audit` does (bad pairs, no applicable claim).
    """
    if not (math.isfinite(target_epsilon) and target_epsilon > 0):
        raise ValueError(f"the target ε must be a finite number > 0, got {target_epsilon:g}")
    base = config or AuditConfig()
    pilot_config = dataclasses.replace(
        base, num_samples=pilot_samples, seed=pilot_seed(seed), failure_probability=failure_probability
    )
    started = time.perf_counter()
    result = run_audit(mechanism, pairs, pilot_config, show_progress=False)
    pilot_seconds = time.perf_counter() - started
    test_level = result.test_level

    pair_plans = [
        pair_plan(pr, target_epsilon=target_epsilon, bound_level=test_level, config=pilot_config)
        for pr in result.pairs
    ]
    feasible = [pp for pp in pair_plans if pp.certification_samples is not None]
    best = min(feasible, key=lambda pp: pp.certification_samples or 0) if feasible else None
    claim = result.claim
    n_plan = best.certification_samples if best is not None else None

    def ceiling(n: int) -> float:
        return epsilon_ceiling(n, bound_level=test_level, delta=claim.delta)

    return Plan(
        mechanism=result.mechanism,
        target_epsilon=target_epsilon,
        claim_epsilon=claim.epsilon,
        claim_delta=claim.delta,
        failure_probability=failure_probability,
        test_level=test_level,
        pilot_samples=pilot_samples,
        pilot_certification_samples=result.certification_samples,
        pilot_epsilon_lower_bound=result.epsilon_lower_bound,
        seed=seed,
        pairs=tuple(pair_plans),
        best_pair=None if best is None else pair_plans.index(best),
        certification_samples=n_plan,
        num_samples=None if best is None else best.num_samples,
        exceeds_point_estimate=all(target_epsilon >= pp.point_epsilon for pp in pair_plans),
        epsilon_ceiling=ceiling(n_plan if n_plan is not None else result.certification_samples),
        min_samples_for_claim=_smallest(lambda n: ceiling(n) > claim.epsilon),
        min_samples_for_target=_smallest(lambda n: ceiling(n) >= target_epsilon),
        pilot_seconds=pilot_seconds,
        estimated_seconds=None if best is None else pilot_seconds * (best.num_samples or 0) / pilot_samples,
    )
