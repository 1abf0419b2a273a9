"""The audit runner: pairs → selection → certification → verdict (docs/DESIGN.md, "Sampling").

For each neighbour pair the runner

1. samples a bounded *selection* split on both sides and lets the distinguishers choose one
   event and one direction (the one projected to certify the highest ε);
2. samples a fresh *certification* split, streaming chunks reduced to event counts;
3. turns the counts into one-sided Clopper–Pearson bounds at β_t/2 each, where
   β_t = failure_probability / (number of tests) (Bonferroni over every certified test); a test
   that certifies k events (adaptive top-k, below) puts β_t/(2k) on each of its 2k intervals.

Every certified statement of the result (each pair's ε and δ bounds, every claim check) is
a function of these intervals, so all of them hold simultaneously with probability at least
1 − failure_probability. Choosing the direction on the selection split instead of certifying
both halves the Bonferroni factor at no cost in validity.

Distinguishers. The defaults (`distinguishers.DEFAULT_DISTINGUISHERS`) are the exact-value
histogram, per-coordinate and mean-difference thresholds, and, for vector outputs with more
distinct values than the histogram handles, learned statistics (`audit.learned`: logistic
regression with linear and squared features, fixed projections) fitted on a capped subsample
of the selection split. Every distinguisher proposes candidates once per pair; for each test the
candidate with the best *projected* certified value wins, so the number of candidates costs
nothing in the Bonferroni split. Adaptive top-k (`estimators.choose_events`): when the selection
split cannot tell the winner from a few *distinct* runners-up (their point-estimate projection
exceeds the winner's pessimistic one; at most `estimators.MAX_CERTIFIED` events in all), the test
certifies all k of them at β_t/k each and reports the best. k and the events are functions of
the selection split only, so given them the 2k intervals hold together with probability
≥ 1 − β_t (union bound) and the best of the k values is as valid as any one: the test's failure
probability stays β_t, and every other test's is untouched. The reported estimate carries its
level (`EpsilonEstimate.bound_level` = β_t/k) and each test with k > 1 is listed, with
every event it certified and its value, in `AuditResult.extra["certified_events"]`; the pair's
`event_spec` and trajectory are those of the reported event. What was considered, with each
distinguisher's best projected value, is recorded in `AuditResult.extra["selection"]`, and each
estimate states what its certificate assumes (`EpsilonEstimate.assumption`).

Privacy profile. Besides the primary test (ε at the claim's δ) each pair gets the configured
profile tests (ε at `profile_deltas`, δ at `profile_epsilons`, Gaussian-DP μ with `gdp`). When
the pair's claim is a curve (`PrivacyClaim.curve`) and no grid was given, the runner adds
ε at δ ∈ `CURVE_PROFILE_DELTAS` and, for a GDP curve, the μ test. Every profile point is
compared with the claim's value there (`PrivacyClaim.epsilon_at` / `delta_at`, the GDP μ): a
point above a PROVED claim is a violation, above only a STATED one a finding. All tests, of
all pairs, share the Bonferroni split.

Trajectory. The primary event's counts are also kept on the prefixes of the certification split
ending near n/64, n/16, n/4 and n (exact row offsets, in the fixed chunk order: a few small
integers per chunk, never samples), giving each pair's certified ε against sample size.

Stages. `run_audit` is a short orchestrator over stages with frozen-dataclass outputs, each
testable alone: *plan* (`runner_plan.plan_audit` → `AuditPlan`: pairs, claims, tests, the
Bonferroni split), *probe* (`probe_layout` → `ChunkLayout`), checkpoint resume
(`runner_checkpoint`), *select* (`select_events` → `Selected`), *certify* (`certify_counts` →
`CertifiedCounts`) and *assemble* (`runner_assemble.assemble`: Clopper–Pearson certificates of
`runner_certificates`, trajectory, white-box reference, claim checks, verdict → `AuditResult`).
The probe and select stages live in this module, the certify stage (fixed-n, or sequential with
`AuditConfig.sequential`) in `runner_certify`.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...mechanisms.base import Mechanism, claims_of
from ...neighbors.base import Dataset, NeighborPair
from ..checkpoint import Checkpoint
from ..distinguishers import Distinguisher, Selection, choose_events, default_distinguishers
from ..progress import Progress
from ..sampling import audit_session, auto_chunk_size, chunk_sizes, draw
from ..types import AuditConfig, AuditResult
from .assemble import assemble
from .budget import measured_chunk
from .certificates import (
    TRAJECTORY_FRACTIONS,
    ChunkLayout,
    Selected,
    trajectory_points,
)
from .certify import certify_counts, certify_sequential
from .plan import (
    CURVE_PROFILE_DELTAS,
    AuditInputError,
    AuditPlan,
    GivenOutputs,
    PlannedPair,
    assumption_of,
    budget_warnings,
    claimed_value,
    objectives_for,
    plan_audit,
    plan_pairs,
)
from .resume import (
    audit_key,
    open_checkpoint,
    package_version,
    record_selections,
    resumed_config,
    resumed_selections,
)
from .rounds import run_rounds
from .selection_split import selection_split
from .stopping import at_look, sequential_layout, trimmed

__all__ = [
    "CURVE_PROFILE_DELTAS",
    "PROBE_PHASE",
    "TRAJECTORY_FRACTIONS",
    "AuditInputError",
    "assumption_of",
    "audit_key",
    "certify_counts",
    "certify_sequential",
    "check_budget",
    "claimed_value",
    "objectives_for",
    "package_version",
    "probe_layout",
    "run_audit",
    "select_events",
    "trajectory_points",
]

PROBE_PHASE = 2

_Plan = PlannedPair  # former private names, still imported by tests
_plan = plan_pairs


CHECKED_FROM = 10**8
"""Samples in all (both sides, every pair) from which the probe times a draw and refuses a plan
beyond `MAX_PLAN_SECONDS` or `MAX_PLAN_BYTES` up front (below it no plan can be absurd)."""
MAX_PLAN_SECONDS = 365 * 86400.0
MAX_PLAN_BYTES = 16 << 30
TASK_BYTES = 1024
"""Bookkeeping per certification chunk of one pair and side (its task, offsets, counts)."""
TIMING_SAMPLES = 4096


def probe_chunk(mechanism: Mechanism, dataset: Dataset, config: AuditConfig) -> int:
    """Two samples of `dataset` (seed-key phase `PROBE_PHASE`, never counted) size the chunks
    unless `config.chunk_size` does: by memory (`auto_chunk_size`), and for a mechanism with
    per-sample streams also by the measured cost of a sample (`budget.cost_chunk_size`: about a
    second of work per task; its samples do not depend on the chunk size)."""
    probe = draw(mechanism, dataset, 2, config.seed, (0, 0, PROBE_PHASE, 0))
    if config.chunk_size:
        return config.chunk_size
    cap = auto_chunk_size(int(np.prod(probe.shape[1:], dtype=np.int64)))
    return measured_chunk(mechanism, dataset, seed=config.seed, cap=cap)


def check_budget(
    mechanism: Mechanism, dataset: Dataset, config: AuditConfig, *, pairs: int, chunk: int | None = None
) -> None:
    """Refuse (`AuditInputError`) a `num_samples` whose plan is absurd: from `CHECKED_FROM` samples
    in all, a timed draw of `TIMING_SAMPLES` (phase `PROBE_PHASE`, chunk 1, never counted)
    estimates the sampling time, and the certification chunks the bookkeeping memory."""
    total = 2 * pairs * config.num_samples
    if total < CHECKED_FROM:
        return
    chunk = chunk or probe_chunk(mechanism, dataset, config)
    size = min(chunk, TIMING_SAMPLES)
    start = time.perf_counter()
    draw(mechanism, dataset, size, config.seed, (0, 0, PROBE_PHASE, 1))
    per_sample = max(time.perf_counter() - start, 1e-9) / size
    workers = (os.cpu_count() or 1) if config.jobs == -1 else config.jobs
    seconds = total * per_sample / workers
    chunks = 2 * pairs * math.ceil(config.split()[1] / chunk)
    needed = chunks * TASK_BYTES + 2 * chunk * 8 * workers
    if seconds > MAX_PLAN_SECONDS or needed > MAX_PLAN_BYTES:
        raise AuditInputError(
            f"--num-samples {config.num_samples} is out of reach for {mechanism.name!r}: about "
            f"{seconds:.2g} s of sampling ({per_sample:.2g} s per sample on {workers} worker(s)) and "
            f"{needed:.2g} bytes for {chunks:.2g} chunks (limits {MAX_PLAN_SECONDS:.2g} s, "
            f"{MAX_PLAN_BYTES:.2g} bytes); lower --num-samples"
        )


def probe_layout(mechanism: Mechanism, plan: AuditPlan, config: AuditConfig) -> ChunkLayout:
    """The probe stage: `probe_chunk` on the first pair's dataset (the chunk size fixes how the
    certification split is cut and enters the checkpoint key), then `check_budget`."""
    dataset = plan.pairs[0].pair.dataset
    chunk = probe_chunk(mechanism, dataset, config)
    check_budget(mechanism, dataset, config, pairs=len(plan.pairs), chunk=chunk)
    sizes = chunk_sizes(plan.certification_samples, chunk)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int).tolist() if sizes else []
    return ChunkLayout(
        chunk=chunk,
        sizes=tuple(sizes),
        offsets=tuple(offsets),
        points=tuple(trajectory_points(plan.certification_samples)),
    )


def select_pair(
    mechanism: Mechanism,
    plan: AuditPlan,
    config: AuditConfig,
    *,
    index: int,
    chunk: int,
    distinguishers: Sequence[Distinguisher],
    progress: Progress,
    checkpoint: Checkpoint | None = None,
    given: tuple[NDArray[Any], NDArray[Any]] | None = None,
) -> tuple[Selection, ...]:
    """Choose one event per test of pair `index` on its selection split (or reload them from a
    checkpoint); with `given` (dataset-side and neighbour-side outputs), on those instead."""
    objectives = plan.objectives[index]
    resumed = resumed_selections(checkpoint, index=index, count=len(objectives))
    if resumed is not None:
        n = 0 if given is not None else 2 * plan.selection_samples
        progress.advance(n, f"pair {index + 1} selection (resumed)")
        return tuple(resumed)
    if given is not None:
        a, b = given
    else:
        ((a, b),) = selection_split(
            mechanism,
            [(index, plan.pairs[index].pair)],
            config,
            size=plan.selection_samples,
            chunk=chunk,
            progress=progress,
        )
    selections = choose_events(
        a,
        b,
        certify_total=plan.certification_samples,
        objectives=list(objectives),
        test_level=plan.test_level,
        distinguishers=distinguishers,
    )
    record_selections(checkpoint, selections, index=index)
    return tuple(selections)


def select_events(
    mechanism: Mechanism,
    plan: AuditPlan,
    config: AuditConfig,
    layout: ChunkLayout,
    *,
    distinguishers: Sequence[Distinguisher],
    progress: Progress,
    checkpoint: Checkpoint | None = None,
    given: GivenOutputs | None = None,
) -> Selected:
    """The select stage: every pair's events, pair by pair (`select_pair`)."""
    return Selected(
        tuple(
            select_pair(
                mechanism,
                plan,
                config,
                index=i,
                chunk=layout.chunk,
                distinguishers=distinguishers,
                progress=progress,
                checkpoint=checkpoint,
                given=None if given is None else given[i],
            )
            for i in range(len(plan.pairs))
        )
    )


def run_audit(
    mechanism: Mechanism,
    pairs: Sequence[NeighborPair],
    config: AuditConfig,
    *,
    distinguishers: Sequence[Distinguisher] | None = None,
    parameters: Sequence[tuple[str, str]] = (),
    command: str = "",
    show_progress: bool | None = None,
    checkpoint_path: Path | None = None,
    resume: bool = False,
    selection_outputs: Sequence[tuple[NDArray[Any], NDArray[Any]]] | None = None,
) -> AuditResult:
    """Audit `mechanism` on `pairs`; see the module docstring for the procedure.

    With `checkpoint_path`, selections and certification chunks are recorded as they complete;
    `resume=True` continues from an earlier checkpoint of the same audit (same key) without
    redoing any recorded work, and the result equals that of an uninterrupted run.
    `distinguishers=None` means `distinguishers.DEFAULT_DISTINGUISHERS`.

    `selection_outputs` (one (dataset side, neighbour side) pair of output arrays per pair, e.g.
    a search's pilot samples) replaces the selection split: events are chosen on them and all
    `num_samples` are certification samples. Valid only if they are independent of the samples
    drawn at `config.seed` (the caller's responsibility: `audit.search` draws them at pilot seeds).
    """
    claims_of(mechanism)  # a claim of the wrong type is a MechanismError before any sampling
    with audit_session(mechanism.name, timeout=config.timeout):
        return _run_audit(
            mechanism,
            pairs,
            config,
            distinguishers=distinguishers,
            parameters=parameters,
            command=command,
            show_progress=show_progress,
            checkpoint_path=checkpoint_path,
            resume=resume,
            selection_outputs=selection_outputs,
        )


def _run_audit(
    mechanism: Mechanism,
    pairs: Sequence[NeighborPair],
    config: AuditConfig,
    *,
    distinguishers: Sequence[Distinguisher] | None,
    parameters: Sequence[tuple[str, str]],
    command: str,
    show_progress: bool | None,
    checkpoint_path: Path | None,
    resume: bool,
    selection_outputs: Sequence[tuple[NDArray[Any], NDArray[Any]]] | None,
) -> AuditResult:
    start = time.monotonic()
    dists = (
        default_distinguishers(mechanism, floating_point=config.floating_point)
        if distinguishers is None
        else tuple(distinguishers)
    )
    plan = plan_audit(mechanism, pairs, config, parameters=parameters, selection_outputs=selection_outputs)
    probe_config = resumed_config(mechanism, config, path=checkpoint_path, resume=resume)
    layout = probe_layout(mechanism, plan, probe_config)
    if config.sequential and selection_outputs is None:
        a = (mechanism, plan, config, layout, dists, start)
        return _run_rounds(*a, parameters=parameters, command=command, show_progress=show_progress)
    seq = sequential_layout(plan.certification_samples, layout.chunk) if config.sequential else None
    if seq is not None:
        layout = seq.layout
    checkpoint = open_checkpoint(
        mechanism, plan, config, chunk=layout.chunk, path=checkpoint_path, resume=resume
    )
    progress = Progress(mechanism.name, 2 * len(plan.pairs) * config.num_samples, enabled=show_progress)
    try:
        selected = select_events(
            mechanism,
            plan,
            config,
            layout,
            distinguishers=dists,
            progress=progress,
            checkpoint=checkpoint,
            given=selection_outputs,
        )
        if seq is None:
            counts = certify_counts(
                mechanism, plan, config, layout, selected, progress=progress, checkpoint=checkpoint
            )
        else:
            counts, stop = certify_sequential(
                mechanism, plan, config, seq, selected, progress=progress, checkpoint=checkpoint
            )
            layout, counts = trimmed(seq, counts, stop)
            plan = at_look(plan, seq.schedule, stop.look)
    finally:
        progress.close()
        if checkpoint is not None:
            checkpoint.close()
    note = (checkpoint.note,) if checkpoint is not None and checkpoint.note else ()
    result = assemble(
        mechanism,
        plan,
        config,
        layout,
        selected,
        counts,
        started=start,
        parameters=parameters,
        command=command,
        notes=note,
    )
    if seq is None:
        return result
    return dataclasses.replace(result, extra={**result.extra, "sequential": stop.record()})


def _run_rounds(
    mechanism: Mechanism,
    plan: AuditPlan,
    config: AuditConfig,
    layout: ChunkLayout,
    dists: Sequence[Distinguisher],
    start: float,
    *,
    parameters: Sequence[tuple[str, str]],
    command: str,
    show_progress: bool | None,
) -> AuditResult:
    """The sequential audit of given pairs: selection in doubling rounds (`runner_rounds`), the
    result assembled from the stopping round; not checkpointed (a rerun redraws the same rounds)."""
    progress = Progress(mechanism.name, 2 * len(plan.pairs) * config.num_samples, enabled=show_progress)
    try:
        out = run_rounds(mechanism, plan, config, chunk=layout.chunk, distinguishers=dists, progress=progress)
    finally:
        progress.close()
    rplan = out.plan
    warnings = budget_warnings(
        mechanism, rplan.verdict_claim, ceiling=rplan.epsilon_ceiling, n_cert=out.stop.schedule.cap
    )
    rplan = dataclasses.replace(rplan, warnings=warnings)
    result = assemble(
        mechanism,
        rplan,
        config,
        out.layout,
        out.selected,
        out.counts,
        started=start,
        parameters=parameters,
        command=command,
        notes=(),
    )
    return dataclasses.replace(result, extra={**result.extra, "sequential": out.record})
