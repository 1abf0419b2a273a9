"""The selection split: the fresh outputs a pair's events are chosen on (docs/DESIGN.md, "Sampling").

Events must be chosen on samples the certification never sees, so each pair's selection outputs
come from seed keys of their own: chunk j of side s of pair i draws from (i, s, *phase, j),
starting at row j·chunk of its split (per-sample streams, `engine.sampling`), as
`certify.certification_tasks` keys the certification chunks. The fixed-n and single-round audit
(`procedure.select_pair`) uses phase (SELECTION,); a sequential audit's doubling rounds
(`rounds.run_rounds`) use (`rounds.ROUND_PHASE`, stream, round); the search's registered pilot
draws (`search.pilot_samples`) build the same tasks to draw exactly the selection split that
`dpaudit run --pairs registered` chooses on. One function builds those tasks for every caller,
so the three cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...mechanisms.base import Mechanism
from ...neighbors.base import NeighborPair
from ..progress import Progress
from ..sampling import Phase, Side, Task, chunk_sizes, run_tasks, sample_rows
from ..types import AuditConfig

SELECTION_PHASE: tuple[int, ...] = (int(Phase.SELECTION),)
"""The seed keys' phase part of the fixed-n audit's selection split."""


def selection_tasks(
    mechanism: Mechanism,
    pairs: Sequence[tuple[int, NeighborPair]],
    *,
    seed: int,
    size: int,
    chunk: int,
    phase: tuple[int, ...] = SELECTION_PHASE,
    fn: Callable[..., Any] | None = None,
) -> list[Task]:
    """The chunks of `size` samples per side of each (index, pair): chunk j of side s draws
    `fn(mechanism, dataset, size_j, seed, (index, s, *phase, j), j·chunk)` (default
    `sampling.sample_rows`), tagged (position of the pair in `pairs`, s, j); pair by pair, side 0
    before side 1, chunks in order."""
    draw = sample_rows if fn is None else fn
    return [
        Task(
            draw,
            (mechanism, (pair.dataset, pair.neighbor)[s], m, seed, (index, int(s), *phase, j), j * chunk),
            m,
            (k, int(s), j),
        )
        for k, (index, pair) in enumerate(pairs)
        for s in Side
        for j, m in enumerate(chunk_sizes(size, chunk))
    ]


def selection_split(
    mechanism: Mechanism,
    pairs: Sequence[tuple[int, NeighborPair]],
    config: AuditConfig,
    *,
    size: int,
    chunk: int,
    progress: Progress,
    phase: tuple[int, ...] = SELECTION_PHASE,
    label: str | None = None,
) -> list[tuple[NDArray[Any], NDArray[Any]]]:
    """Each (index, pair)'s selection outputs (dataset side, neighbour side), `size` per side, at
    seed keys (index, s, *phase, j) (`selection_tasks`); every pair's chunks run as one batch.
    `label`: the progress line's text (default "pair <index + 1> selection")."""
    tasks = selection_tasks(mechanism, pairs, seed=config.seed, size=size, chunk=chunk, phase=phase)
    parts: dict[tuple[int, int], list[Any]] = {(k, s): [] for k in range(len(pairs)) for s in Side}

    def done(task: Task, rows: Any) -> None:
        k, s, _ = task.tag
        parts[k, s].append(rows)  # in submission order (`run_tasks`): chunk order
        progress.advance(task.size, label or f"pair {pairs[k][0] + 1} selection")

    run_tasks(tasks, jobs=config.jobs, backend=config.backend, on_done=done)
    return [(np.concatenate(parts[k, 0]), np.concatenate(parts[k, 1])) for k in range(len(pairs))]
