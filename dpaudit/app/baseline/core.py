"""Gate baselines and the privacy-regression test (issue 8, item 2; docs/DESIGN.md "Statistics").

Baseline file: see `baseline_format` (reading, writing, validation); staleness (a baseline
that no longer informs the test): `baseline_stale`. Both are re-exported here.

The regression test
-------------------
For an event E and a pair (D, D') with P = P[M(D) ∈ E] (the side named by the direction) and
Q = P[M(D') ∈ E], the privacy loss realised on E is L(E) = ln((P − δ)/Q) (−∞ when P ≤ δ).
Every (ε, δ)-DP mechanism has ε ≥ L(E), so L(E) is a witnessed loss, and a mechanism whose
witnessed loss on the same event grew has become less private on that witness. For each stored
event E of an audit the gate

1. re-counts E on both sides with fresh samples of the *current* mechanism, drawn from the
   stream SeedSequence(seed, spawn_key=(pair, side, REGRESSION_PHASE, chunk)), distinct from every
   stream of the run (phases 0 selection, 1 certification, 2 probe) and of the baseline's run;
2. computes a one-sided LOWER confidence bound on the current loss,
   lo = ln((CP_lo(k_P', n', β_i/4) − δ) / CP_hi(k_Q', n', β_i/4)), which fails
   (lo > L_new(E)) with probability ≤ β_i/2 (union of its two Clopper–Pearson bounds);
3. computes a one-sided UPPER confidence bound on the baseline's loss from the stored counts,
   hi = ln((CP_hi(k_P, n, β_i/4) − δ) / CP_lo(k_Q, n, β_i/4)), which fails (hi < L_base(E))
   with probability ≤ β_i/2;
4. flags a regression when lo > hi.

Why a false alarm has probability ≤ β_i. "No regression" means L_new(E) ≤ L_base(E). If neither
bound fails, lo ≤ L_new(E) ≤ L_base(E) ≤ hi and nothing is flagged, so a false alarm needs a
failed bound: probability ≤ β_i/2 + β_i/2 = β_i. Both bounds are valid *conditionally on E*, and
E may be any function of the baseline run's samples (the runner reports the best of its k
certified events, chosen on their certification counts): the stored counts are NOT that run's
counts but a re-count on the streams (pair, side, BASELINE_PHASE, chunk) of the baseline's seed,
which the run never draws from (`baseline_audit_from_result`), so given E they are
Binomial(n, P_base(E)) and Binomial(n, Q_base(E)); the new counts come from the REGRESSION_PHASE
streams, independent of both, Binomial(n', P_new(E)) and Binomial(n', Q_new(E)). Averaging the
conditional guarantee over E keeps it. With m_a events compared for audit a, each gets
β_i = β_reg,a / m_a (Bonferroni: P[some false alarm] ≤ Σ_i β_i = β_reg,a). m_a is fixed by the
baseline file and the configuration before any sample is drawn (events whose pair no longer fits
the mechanism's domain are dropped, with a warning, before sampling).

Budget split (audit/gate.py applies it): an audit configured with failure_probability β_a
gives β_a/2 to its violation tests (run_audit at β_a/2, Bonferroni across its pairs inside the
runner) and β_reg,a = β_a/2 to its regression tests, whether or not a baseline is supplied, so
the same configuration and seed produce the same audit result with or without `--baseline`.
The gate then exits 1 wrongly (a violation or a regression that is not there) with
probability ≤ Σ_a β_a over the configured audits.

Events chosen at gate time (`baseline_marginals`): one more witness per pair, chosen on fresh
samples of today's mechanism among the threshold events whose counts the baseline stores; the
argument above applies to it unchanged (its stored counts are independent of the choice), and it
counts in m_a.

What a regression does and does not say: the current mechanism's ε is certified above the
baseline's *witnessed* loss on the baseline's own witness event (ε_new ≥ lo > hi ≥ L_base(E)).
A black-box audit cannot upper-bound the baseline's true ε, so a mechanism that grew less private
only on other events is not flagged by this test (the violation test still covers it against
the claim). δ is the one stored in the baseline for both sides, so a changed claim δ does not
move the comparison. With a fixed seed the test is deterministic: an unchanged mechanism gives
the same answer on every CI run; the ≤ β_i guarantee is over the draw of the samples.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpaudit.engine.bounds import cp_lower, cp_upper, epsilon_from_bounds
from dpaudit.engine.events import EventShapeError
from dpaudit.engine.jsonnum import json_number
from dpaudit.engine.types import AuditResult
from dpaudit.mechanisms.base import Mechanism
from dpaudit.neighbors.base import NeighborPair

from .format import (
    BASELINE_KIND,
    BASELINE_VERSION,
    DIRECTIONS,
    Baseline,
    BaselineAudit,
    BaselineError,
    BaselineEvent,
    dumps_baseline,
    read_baseline,
    witness_entry_from_result,
    write_baseline,
)
from .marginals import baseline_marginals, choose_events, usable_marginals
from .recount import (
    BASELINE_PHASE,
    REGRESSION_PHASE,
    open_checkpoint,
    recount,
    recount_closing,
)
from .stale import (
    DETECTION_POWER,
    comparable_events,
    detectable_increase,
    stale_lines,
    stale_message,
)

__all__ = [  # the regression test; the file format and staleness are re-exported for importers
    "BASELINE_KIND",
    "BASELINE_PHASE",
    "BASELINE_VERSION",
    "DETECTION_POWER",
    "DIRECTIONS",
    "REGRESSION_PHASE",
    "Baseline",
    "BaselineAudit",
    "BaselineError",
    "BaselineEvent",
    "RegressionCheck",
    "RegressionReport",
    "baseline_audit_from_result",
    "comparable_events",
    "compare",
    "detectable_increase",
    "dumps_baseline",
    "entry_detectable_increase",
    "loss_lower_bound",
    "loss_upper_bound",
    "point_loss",
    "read_baseline",
    "recount",
    "regression_checks",
    "stale_message",
    "write_baseline",
]


def loss_lower_bound(
    *, p_count: int, p_total: int, q_count: int, q_total: int, delta: float, bound_level: float
) -> float:
    """One-sided lower confidence bound on ln((P − δ)/Q): fails with probability ≤ failure_probability."""
    p_lo = cp_lower(p_count, p_total, bound_level / 2)
    q_hi = cp_upper(q_count, q_total, bound_level / 2)
    return float(epsilon_from_bounds(p_lo, q_hi, delta=delta))


def loss_upper_bound(
    *, p_count: int, p_total: int, q_count: int, q_total: int, delta: float, bound_level: float
) -> float:
    """One-sided upper confidence bound on ln((P − δ)/Q): fails with probability ≤ failure_probability.

    +inf when the Q-side lower bound is 0 (no evidence Q > 0), −inf when P ≤ δ is certain."""
    p_hi = float(cp_upper(p_count, p_total, bound_level / 2))
    q_lo = float(cp_lower(q_count, q_total, bound_level / 2))
    if p_hi <= delta:
        return -math.inf
    if q_lo <= 0.0:
        return math.inf
    return math.log(p_hi - delta) - math.log(q_lo)


def point_loss(*, p_count: int, p_total: int, q_count: int, q_total: int, delta: float) -> float:
    """The plug-in estimate ln((k_P/n_P − δ)/(k_Q/n_Q)) (for display only; no guarantee)."""
    p, q = p_count / p_total - delta, q_count / q_total
    if p <= 0:
        return -math.inf
    return math.inf if q == 0 else math.log(p) - math.log(q)


@dataclass(frozen=True, slots=True, kw_only=True)
class RegressionCheck:
    """One baseline event compared with the current mechanism."""

    audit: str
    pair_index: int
    description: str
    event: str
    direction: str
    delta: float
    baseline_counts: tuple[int, int, int, int]
    """(p_count, p_total, q_count, q_total) stored in the baseline."""
    new_counts: tuple[int, int, int, int]
    baseline_upper: float
    """Upper confidence bound on the baseline's loss on the event (fails w.p. ≤ β_i/2)."""
    new_lower: float
    """Lower confidence bound on the current loss on the event (fails w.p. ≤ β_i/2)."""
    baseline_point: float
    new_point: float
    test_level: float
    """β_i: this comparison's false-alarm probability (Bonferroni share of the audit's β_reg)."""
    regression: bool
    detectable_increase: float = math.inf
    """Smallest rise of the event's loss flagged with probability ≥ DETECTION_POWER (baseline_stale)."""
    chosen_today: bool = False
    """The event was chosen by this gate run from the baseline's marginals (`baseline_marginals`)."""
    floor: float = -math.inf
    """A chosen event flags only when today's lower bound also exceeds this (`witness_floor`)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "audit": self.audit,
            "pair_index": self.pair_index,
            "description": self.description,
            "event": self.event,
            "direction": self.direction,
            "delta": self.delta,
            "baseline_counts": list(self.baseline_counts),
            "new_counts": list(self.new_counts),
            "baseline_upper": json_number(self.baseline_upper),
            "new_lower": json_number(self.new_lower),
            "baseline_point": json_number(self.baseline_point),
            "new_point": json_number(self.new_point),
            "test_level": self.test_level,
            "regression": self.regression,
            "detectable_increase": json_number(self.detectable_increase),
            "chosen_today": self.chosen_today,
            "floor": json_number(self.floor),
        }

    @property
    def stale_reason(self) -> str | None:
        """Why this comparison can no longer detect a regression (None while it can): the stored
        upper bound is +∞ (its event never occurred on the Q side in the baseline), or today's
        lower bound is −∞ (the event no longer occurs often enough on the P side to bound the
        loss). Either way "no regression found" would be true but no check at all. An event chosen
        today from the marginals is never stale: the baseline did not pick it."""
        if self.chosen_today:
            return None
        if math.isinf(self.baseline_upper) and self.baseline_upper > 0:
            return "the baseline's bound on its event is +∞ (the event never occurred on one side)"
        if math.isinf(self.new_lower) and self.new_lower < 0:
            p, n = self.new_counts[:2]
            return f"its event no longer shows a measurable loss today ({p:,}/{n:,} on the P side)"
        return None

    def describe(self) -> str:
        verdict = "REGRESSION" if self.regression else "no regression found"
        return (
            f"pair {self.pair_index + 1} ({self.description}), event {self.event}: {verdict}: "
            f"loss now ≥ {self.new_lower:.4g} vs baseline ≤ {self.baseline_upper:.4g} "
            + (f"and its witness ≤ {self.floor:.4g} " if self.chosen_today else "")
            + f"(point {self.new_point:.4g} vs {self.baseline_point:.4g}; "
            f"β_i = {self.test_level:.3g}; "
            f"detects a rise ≥ {self.detectable_increase:.3g} w.p. ≥ {DETECTION_POWER:g})"
        )


def compare(
    base: BaselineEvent,
    audit: str,
    new_p: int,
    new_q: int,
    n: int,
    test_level: float,
    chosen_today: bool = False,
    floor: float = -math.inf,
) -> RegressionCheck:
    """The regression decision for one event from its stored and new counts (β_i = failure_probability):
    lo > hi, and lo > `floor` (which only makes a flag rarer, so the false-alarm bound stands)."""
    half = test_level / 2
    upper = loss_upper_bound(
        p_count=base.p_count,
        p_total=base.p_total,
        q_count=base.q_count,
        q_total=base.q_total,
        delta=base.delta,
        bound_level=half,
    )
    lower = loss_lower_bound(
        p_count=new_p, p_total=n, q_count=new_q, q_total=n, delta=base.delta, bound_level=half
    )
    return RegressionCheck(
        audit=audit,
        pair_index=base.pair_index,
        description=base.description,
        event=base.event,
        direction=base.direction,
        delta=base.delta,
        baseline_counts=(base.p_count, base.p_total, base.q_count, base.q_total),
        new_counts=(new_p, n, new_q, n),
        baseline_upper=upper,
        new_lower=lower,
        baseline_point=point_loss(
            p_count=base.p_count,
            p_total=base.p_total,
            q_count=base.q_count,
            q_total=base.q_total,
            delta=base.delta,
        ),
        new_point=point_loss(p_count=new_p, p_total=n, q_count=new_q, q_total=n, delta=base.delta),
        test_level=test_level,
        regression=bool(lower > max(upper, floor)),
        detectable_increase=detectable_increase(base, num_samples=n, test_level=test_level),
        chosen_today=chosen_today,
        floor=floor,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RegressionReport:
    audit: str
    checks: tuple[RegressionCheck, ...]
    warnings: tuple[str, ...]
    failure_probability: float
    """β_reg of the audit (split equally over `checks`)."""
    num_samples: int
    stale: tuple[str, ...] = ()
    """One line per baseline pair that no longer informs the test (see `stale_message`)."""

    @property
    def regression(self) -> bool:
        return any(c.regression for c in self.checks)

    @property
    def detectable_increase(self) -> tuple[float, int | None]:
        """(smallest detectable rise over the checks, its pair index); (inf, None) without one."""
        return min(((c.detectable_increase, c.pair_index) for c in self.checks), default=(math.inf, None))


def recount_samples(result: AuditResult) -> int:
    """Samples per side of a witness re-count (baseline or regression): the audit's certification
    split, or for a sequential audit (`AuditConfig.sequential`) its cap, so an audit that stopped
    early keeps the baseline's and the regression test's power (its verdict spent only what it
    needed). A result decided by the first of two search rounds (`extra["search_rounds"]`,
    `route.SEARCH_FIRST`) planned its cap on that round's share of the budget; the re-count takes
    the cap scaled to the whole budget, what one search would have planned."""
    seq = result.extra.get("sequential")
    if not (isinstance(seq, dict) and isinstance(seq.get("cap"), int)):
        return result.certification_samples
    rounds = result.extra.get("search_rounds")
    if isinstance(rounds, dict) and rounds.get("decided"):
        return int(seq["cap"]) * int(rounds["asked"]) // int(rounds["cap"])
    return int(seq["cap"])


def baseline_audit_from_result(
    name: str,
    spec: str,
    result: AuditResult,
    pairs: Sequence[NeighborPair],
    mechanism: Mechanism,
    *,
    jobs: int = 1,
    backend: str = "loky",
    checkpoint_path: Path | None = None,
    resume: bool = False,
    witnesses: str = "reported",
) -> BaselineAudit:
    """The baseline entry of one audit: each pair's reported event (its witness; with
    `witnesses="certified"` every event its primary test certified) with counts from a
    fresh re-count of n = `recount_samples(result)` per side on the BASELINE_PHASE streams of
    result.seed. The run chose the reported event on its certification counts, so those counts are
    biased given the event; the fresh ones are Binomial given it (module docstring)."""
    entry = witness_entry_from_result(name, spec, result, pairs, witnesses=witnesses)
    n = recount_samples(result)
    checkpoint = open_checkpoint(
        mechanism,
        entry,
        num_samples=n,
        seed=result.seed,
        path=checkpoint_path,
        resume=resume,
        phase=BASELINE_PHASE,
    )
    counts = recount_closing(
        mechanism, entry.events, n, result.seed, jobs, backend, checkpoint, BASELINE_PHASE
    )
    events = []
    for e, (k_dataset, k_neighbor) in zip(entry.events, counts, strict=True):
        kp, kq = (k_dataset, k_neighbor) if e.direction == "dataset>neighbor" else (k_neighbor, k_dataset)
        events.append(dataclasses.replace(e, p_count=kp, p_total=n, q_count=kq, q_total=n))
    entry = dataclasses.replace(entry, events=tuple(events))
    marginals = baseline_marginals(
        mechanism, entry, num_samples=n, seed=result.seed, jobs=jobs, backend=backend
    )
    return dataclasses.replace(entry, marginals=marginals)


def entry_detectable_increase(entry: BaselineAudit, failure_probability: float) -> tuple[float, int | None]:
    """What a gate run against `entry` would detect (β_reg = `failure_probability`, n' = the stored
    totals): (smallest rise of a witness's loss flagged w.p. ≥ DETECTION_POWER, its pair index).
    β_reg is split over the stored witnesses and the events a gate run chooses from the marginals."""
    m = len(entry.events) + len(entry.marginals)
    return min(
        (
            (
                detectable_increase(e, num_samples=e.p_total, test_level=failure_probability / m),
                e.pair_index,
            )
            for e in entry.events
        ),
        default=(math.inf, None),
    )


def _nothing_compared(
    base: BaselineAudit, warnings: list[str], why: str, failure_probability: float, num_samples: int
) -> RegressionReport:
    """A report with no comparison: the whole audit's baseline is stale for `why`."""
    none_left = stale_message(f"audit {base.name!r}", why)
    return RegressionReport(
        audit=base.name,
        checks=(),
        warnings=(*warnings, none_left),
        failure_probability=failure_probability,
        num_samples=num_samples,
        stale=(*stale_lines(warnings), none_left),
    )


def witness_floor(stored: Sequence[BaselineEvent], pair_index: int, test_level: float) -> float:
    """What an event chosen today must also exceed to flag: max(0, the finite upper bounds on the
    baseline's loss on the pair's stored witnesses, at the test's level β_i/2 from their stored
    counts). A chosen event may be one where the baseline's loss was very negative (the reverse
    direction of a leak); a rise there is no privacy regression. With the floor, a flag says
    today's mechanism is certified to leak more on its event than the baseline did on it *and*
    more than the baseline's own witness showed. Known before any sampling (stored counts only)."""
    his = [
        loss_upper_bound(
            p_count=e.p_count,
            p_total=e.p_total,
            q_count=e.q_count,
            q_total=e.q_total,
            delta=e.delta,
            bound_level=test_level / 2,
        )
        for e in stored
        if e.pair_index == pair_index
    ]
    return max([0.0, *(h for h in his if math.isfinite(h))])


def regression_checks(
    mechanism: Mechanism,
    base: BaselineAudit,
    *,
    num_samples: int,
    seed: int,
    failure_probability: float,
    jobs: int = 1,
    backend: str = "loky",
    checkpoint_path: Path | None = None,
    resume: bool = False,
) -> RegressionReport:
    """Run the regression test of one audit against its baseline entry (see the module docstring).

    `failure_probability` is β_reg of the audit, split equally over its comparable stored events
    and one event per pair chosen today from the baseline's marginals (`baseline_marginals`)."""
    if not 0 < failure_probability < 1:
        raise ValueError(f"failure_probability must be in (0, 1), got {failure_probability}")
    stored, warnings = comparable_events(mechanism, base)
    if not stored:
        return _nothing_compared(
            base, warnings, "no baseline event can be compared", failure_probability, num_samples
        )
    chosen = usable_marginals(base, stored)
    test_level = failure_probability / (len(stored) + len(chosen))  # m_a fixed before any sampling
    floors = {m.pair_index: witness_floor(stored, m.pair_index, test_level) for m, _ in chosen}
    today = choose_events(mechanism, chosen, num_samples, seed, jobs, backend, warnings, floors)
    events = [*stored, *today]
    checkpoint = open_checkpoint(
        mechanism, base, num_samples=num_samples, seed=seed, path=checkpoint_path, resume=resume
    )
    try:
        counts = recount_closing(
            mechanism, events, num_samples, seed, jobs, backend, checkpoint, REGRESSION_PHASE
        )
    except EventShapeError as exc:  # the output changed shape since the baseline: no test, say so
        why = f"the mechanism's output no longer has the shape its witness events were chosen on ({exc})"
        return _nothing_compared(base, warnings, why, failure_probability, num_samples)
    checks: list[RegressionCheck] = []
    for i, (e, (k_dataset, k_neighbor)) in enumerate(zip(events, counts, strict=True)):
        kp, kq = (k_dataset, k_neighbor) if e.direction == "dataset>neighbor" else (k_neighbor, k_dataset)
        is_chosen = i >= len(stored)
        floor = floors[e.pair_index] if is_chosen else -math.inf
        checks.append(
            compare(e, base.name, kp, kq, num_samples, test_level, chosen_today=is_chosen, floor=floor)
        )
    stale_checks = [
        stale_message(f"pair {c.pair_index + 1} ({c.description})", c.stale_reason)
        for c in checks
        if c.stale_reason is not None
    ]
    return RegressionReport(
        audit=base.name,
        checks=tuple(checks),
        warnings=(*warnings, *stale_checks),
        failure_probability=failure_probability,
        num_samples=num_samples,
        stale=(*stale_lines(warnings), *stale_checks),
    )
