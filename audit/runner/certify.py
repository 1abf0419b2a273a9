"""The runner's *certify* stage: stream the fresh certification split through the chosen events.

`certify_counts` draws the whole certification split (seed-key phase CERTIFICATION), chunk by
chunk, keeping only each event's counts and the primary test's counts on the trajectory prefixes
(`runner_certificates`); `certify_sequential` draws the same kind of chunks look by look and stops
after the first look `runner_stopping.decide` calls decided (the confidence sequence of
`audit.sequential`; proof in ARCHITECTURE.md). Both record each chunk in the checkpoint and
reuse recorded ones on resume. The events were fixed on the selection split before any of these
samples is drawn, which every certificate assumes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...mechanisms.base import Mechanism
from ..checkpoint import Checkpoint
from ..progress import Progress
from ..sampling import Phase, Side, Task, count_events_segmented, run_tasks
from ..types import AuditConfig
from .certificates import (
    CertifiedCounts,
    ChunkLayout,
    Selected,
    chunk_cuts,
    prefix_counts,
)
from .plan import AuditPlan
from .resume import recorded_chunk
from .stopping import SequentialLayout, Stop, decide


class _Tally:
    """The certify stage's running counts (mutable; frozen into `CertifiedCounts`)."""

    def __init__(self, selected: Selected, layout: ChunkLayout) -> None:
        self.layout = layout
        self.primary = [selected.starts(i)[1] for i in range(len(selected.selections))]
        totals = [selected.starts(i)[-1] for i in range(len(selected.selections))]
        self.counts = [np.zeros((t, 2), dtype=np.int64) for t in totals]
        self.prefix = [np.zeros((k, 2, len(layout.points)), dtype=np.int64) for k in self.primary]

    def add(self, i: int, s: int, j: int, k: list[int], segments: list[int]) -> None:
        """Add chunk j of side s of pair i: its event counts and trajectory segments."""
        self.counts[i][:, s] += np.asarray(k, dtype=np.int64)
        width = len(segments) // self.primary[i]
        offset, size = self.layout.offsets[j], self.layout.sizes[j]
        for e in range(self.primary[i]):
            seg = segments[e * width : (e + 1) * width]
            self.prefix[i][e, s] += prefix_counts(self.layout.points, offset, size, seg)


def certification_tasks(
    mechanism: Mechanism,
    plan: AuditPlan,
    config: AuditConfig,
    selected: Selected,
    tally: _Tally,
    *,
    progress: Progress,
    checkpoint: Checkpoint | None = None,
    chunks: range | None = None,
    phase: tuple[int, ...] = (int(Phase.CERTIFICATION),),
) -> list[Task]:
    """The certification chunks still to draw (those of `chunks`, default all); recorded ones
    are added to `tally` instead. Chunk j of side s of pair i draws from seed key
    (i, s, *phase, j)."""
    layout, tasks = tally.layout, []
    for i, (p, sels) in enumerate(zip(plan.pairs, selected.selections, strict=True)):
        events = [e.event for sel in sels for e in sel.certified]
        for s in Side:
            for j in chunks if chunks is not None else range(len(layout.sizes)):
                size = layout.sizes[j]
                cuts = chunk_cuts(layout.points, layout.offsets[j], size)
                found = recorded_chunk(checkpoint, (i, int(s), j), primary=tally.primary[i], cuts=cuts)
                if found is not None:
                    tally.add(i, int(s), j, *found)
                    progress.advance(size, f"pair {i + 1} certification (resumed)")
                    continue
                dataset = (p.pair.dataset, p.pair.neighbor)[s]
                chunk_key = (i, int(s), *phase, j)
                start = layout.offsets[j]  # its first row: per-sample streams (`engine.sampling`)
                seed = config.seed
                args = (mechanism, dataset, events, size, seed, chunk_key, cuts, tally.primary[i], start)
                tasks.append(Task(count_events_segmented, args, size, (i, int(s), j)))
    return tasks


def certify_counts(
    mechanism: Mechanism,
    plan: AuditPlan,
    config: AuditConfig,
    layout: ChunkLayout,
    selected: Selected,
    *,
    progress: Progress,
    checkpoint: Checkpoint | None = None,
) -> CertifiedCounts:
    """The certify stage: stream the fresh certification split (seed-key phase CERTIFICATION)
    through the selected events, chunk by chunk, keeping counts only (and recording them)."""
    tally = _Tally(selected, layout)
    tasks = certification_tasks(
        mechanism, plan, config, selected, tally, progress=progress, checkpoint=checkpoint
    )

    done = _recorder(tally, checkpoint, progress, "certification")
    run_tasks(tasks, jobs=config.jobs, backend=config.backend, on_done=done)
    return CertifiedCounts(counts=tuple(tally.counts), prefix=tuple(tally.prefix))


def _recorder(
    tally: _Tally, checkpoint: Checkpoint | None, progress: Progress, stage: str
) -> Callable[[Task, tuple[list[int], list[int]]], None]:
    """The callback of a certification chunk: tally its counts, record them in the checkpoint,
    advance the progress line ("pair i <stage>")."""

    def done(task: Task, result: tuple[list[int], list[int]]) -> None:
        i, s, j = task.tag
        k, segments = result
        tally.add(i, s, j, k, segments)
        if checkpoint is not None:
            checkpoint.record_chunk(i, s, j, k, segments)
        progress.advance(task.size, f"pair {i + 1} {stage}")

    return done


def certify_sequential(
    mechanism: Mechanism,
    plan: AuditPlan,
    config: AuditConfig,
    seq: SequentialLayout,
    selected: Selected,
    *,
    progress: Progress,
    checkpoint: Checkpoint | None = None,
    phase: tuple[int, ...] = (int(Phase.CERTIFICATION),),
) -> tuple[CertifiedCounts, Stop]:
    """The certify stage on the confidence sequence (`runner_stopping`): draw the certification
    split look by look (the same chunks and seed keys as one pass over `seq.layout` would) and
    stop after the first look that `stopping.decide` calls decided. The counts are those of the
    looks drawn. `phase`: the seed keys' phase part (a selection round's own, `runner_rounds`)."""
    tally = _Tally(selected, seq.layout)
    start = 0
    for j_look, end in enumerate(seq.ends):
        done = _recorder(tally, checkpoint, progress, f"certification (look {j_look + 1})")
        tasks = certification_tasks(
            mechanism,
            plan,
            config,
            selected,
            tally,
            progress=progress,
            checkpoint=checkpoint,
            chunks=range(start, end),
            phase=phase,
        )
        run_tasks(tasks, jobs=config.jobs, backend=config.backend, on_done=done)
        start = end
        counts = CertifiedCounts(counts=tuple(c.copy() for c in tally.counts), prefix=tuple(tally.prefix))
        reason = decide(
            plan,
            seq,
            counts,
            selected,
            j=j_look,
            horizon=math.floor(config.futility_scale * seq.schedule.cap),
            level=config.futility_level,
        )
        if reason is not None:
            stop = Stop(look=j_look, samples=seq.schedule.looks[j_look], reason=reason, schedule=seq.schedule)
            return counts, stop
    raise AssertionError("the last look always decides")  # pragma: no cover
