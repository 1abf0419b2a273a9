"""Re-counting stored witness events on fresh streams, with checkpoints (the gate's regression
test and `--update-baseline`).

Chunk (pair, side, c) draws from SeedSequence(seed, spawn_key=(pair, side, phase, c)) with a phase
no audit draws from (`REGRESSION_PHASE` for the test, `BASELINE_PHASE` for the stored counts), so
the counts are independent of the samples the witness events were chosen on: given an event,
each count is Binomial(n, P[M(D) ∈ E]) and Clopper–Pearson bounds apply to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from dpaudit.engine.checkpoint import Checkpoint, audit_key
from dpaudit.engine.sampling import Task, auto_chunk_size, chunk_sizes, count_events, draw, run_tasks
from dpaudit.mechanisms.base import Mechanism

from .format import BaselineAudit, BaselineEvent

REGRESSION_PHASE = 100
"""Spawn-key phase of the regression re-count (the runner uses 0, 1 and 2; 101 probes shapes)."""
BASELINE_PHASE = 110
"""Spawn-key phase of the re-count whose counts a baseline stores (never drawn by the run)."""


def recount(
    mechanism: Mechanism,
    events: Sequence[BaselineEvent],
    *,
    num_samples: int,
    seed: int,
    jobs: int = 1,
    backend: str = "loky",
    checkpoint: Checkpoint | None = None,
    on_chunk: Callable[[int], None] | None = None,
    phase: int = REGRESSION_PHASE,
) -> list[tuple[int, int]]:
    """(count on the dataset side, count on the neighbor side) of each event on fresh samples.

    Chunk (pair, side, c) draws from SeedSequence(seed, spawn_key=(pair, side, phase, c)):
    bit-identical for any `jobs`, independent of the run's selection/certification streams. The
    events of one pair read the same streams, so one draw per chunk counts all of them."""
    if not events:
        return []
    probe = draw(mechanism, events[0].dataset, 2, seed, (events[0].pair_index, 0, REGRESSION_PHASE + 1, 0))
    chunk = auto_chunk_size(int(np.prod(probe.shape[1:], dtype=np.int64)))
    counts = np.zeros((len(events), 2), dtype=np.int64)
    tasks = []
    for group in _same_pair(events):  # one draw per chunk serves every event of a pair
        for s in range(2):
            ds = (events[group[0]].dataset, events[group[0]].neighbor)[s]
            for c, size in enumerate(chunk_sizes(num_samples, chunk)):
                todo = []
                for j in group:
                    recorded = checkpoint.chunks.get((j, s, c)) if checkpoint else None
                    if recorded is not None:
                        counts[j, s] += recorded[0]
                    else:
                        todo.append(j)
                if todo:
                    key = (events[group[0]].pair_index, s, phase, c)
                    ev = [events[j].build_event() for j in todo]
                    tasks.append(
                        Task(count_events, (mechanism, ds, ev, size, seed, key), size, (tuple(todo), s, c))
                    )

    def done(task: Task, k: list[int]) -> None:
        todo, s, c = task.tag
        for j, kj in zip(todo, k, strict=True):
            counts[j, s] += kj
            if checkpoint is not None:
                checkpoint.record_chunk(j, s, c, [int(kj)])
        if on_chunk is not None:
            on_chunk(task.size)

    run_tasks(tasks, jobs=jobs, backend=backend, on_done=done)
    return [(int(a), int(b)) for a, b in counts]


def _same_pair(events: Sequence[BaselineEvent]) -> list[list[int]]:
    """Indices of the events grouped by pair (same index and datasets: the same streams)."""
    groups: dict[tuple[int, str, str], list[int]] = {}
    for j, e in enumerate(events):
        groups.setdefault((e.pair_index, e.dataset.key(), e.neighbor.key()), []).append(j)
    return list(groups.values())


def open_checkpoint(
    mechanism: Mechanism,
    base: BaselineAudit,
    *,
    num_samples: int,
    seed: int,
    path: Path | None,
    resume: bool,
    phase: int = REGRESSION_PHASE,
) -> Checkpoint | None:
    """The re-count's checkpoint under `path` (None without one), keyed by everything it depends on."""
    if path is None:
        return None
    key = audit_key(
        {
            "regression": base.to_dict(),
            "mechanism": mechanism.name,
            "seed": seed,
            "num_samples": num_samples,
            "phase": phase,
        }
    )
    return Checkpoint(path, key, resume=resume)


def recount_closing(
    mechanism: Mechanism,
    events: Sequence[BaselineEvent],
    num_samples: int,
    seed: int,
    jobs: int,
    backend: str,
    checkpoint: Checkpoint | None,
    phase: int,
) -> list[tuple[int, int]]:
    try:
        return recount(
            mechanism,
            events,
            num_samples=num_samples,
            seed=seed,
            jobs=jobs,
            backend=backend,
            checkpoint=checkpoint,
            phase=phase,
        )
    finally:
        if checkpoint is not None:
            checkpoint.close()
