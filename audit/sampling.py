"""Seeded, chunked Monte Carlo sampling (DESIGN.md, "Sampling").

Every chunk draws from its own generator,

    Generator(PCG64(SeedSequence(seed, spawn_key=(pair, side, phase, chunk)))),

which is exactly the child `SeedSequence(seed).spawn(...)` would produce at that position.
A chunk's samples therefore depend only on the audit seed and the chunk's coordinates, never
on which worker ran it or in what order, so results are bit-identical for any `jobs`.
Certification chunks are reduced to an event count in the worker: memory stays O(chunk).
`count_events_segmented` also returns the counts of the first few events on segments of the chunk's
rows (where a prefix of the trajectory ends), a few small integers per chunk.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.engine.estimators import Event, as_rows
from dpaudit.mechanisms.base import Mechanism, MechanismError, block_sizes, validate_output
from dpaudit.neighbors.base import Dataset

MAX_CHUNK = 1 << 18
MIN_CHUNK = 1 << 10
CHUNK_BYTES = 32 << 20


class Phase(enum.IntEnum):
    SELECTION = 0
    CERTIFICATION = 1


class Side(enum.IntEnum):
    DATASET = 0
    NEIGHBOR = 1


def chunk_rng(seed: int, key: tuple[int, ...]) -> np.random.Generator:
    """The generator of one chunk: a pure function of (seed, key)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def chunk_sizes(total: int, chunk: int) -> list[int]:
    full, rest = divmod(total, chunk)
    return [chunk] * full + ([rest] if rest else [])


def auto_chunk_size(values_per_sample: int) -> int:
    """Largest power of two in [MIN_CHUNK, MAX_CHUNK] keeping a chunk under CHUNK_BYTES."""
    per = max(1, values_per_sample) * 8
    size = MAX_CHUNK
    while size > MIN_CHUNK and size * per > CHUNK_BYTES:
        size //= 2
    return size


def draw(mechanism: Mechanism, dataset: Dataset, size: int, seed: int, key: tuple[int, ...]) -> NDArray[Any]:
    """Sample one chunk, turning any failure of the black box into a MechanismError."""
    try:
        rng = chunk_rng(seed, key)
        blocks = block_sizes(mechanism, size)
        if len(blocks) == 1:
            out = mechanism.sample(dataset, size, rng=rng)
        else:  # a mechanism with wide working arrays: successive calls on the chunk's generator
            parts = [
                validate_output(mechanism.name, mechanism.sample(dataset, m, rng=rng), m) for m in blocks
            ]
            out = np.concatenate(parts, axis=0)
    except MechanismError:
        raise
    except SystemExit as exc:  # sys.exit inside a black box is its failure, not dpaudit's exit code
        raise MechanismError(f"mechanism {mechanism.name!r} called sys.exit({exc.code!r})") from exc
    except Exception as exc:  # a black box may raise anything; report it in one line
        message = " ".join(str(exc).split()) or "(no message)"
        raise MechanismError(f"mechanism {mechanism.name!r} raised {type(exc).__name__}: {message}") from exc
    return validate_output(mechanism.name, out, size)


def sample_rows(
    mechanism: Mechanism, dataset: Dataset, size: int, seed: int, key: tuple[int, ...]
) -> NDArray[np.float64]:
    return as_rows(draw(mechanism, dataset, size, seed, key))


def try_sample_rows(
    mechanism: Mechanism, dataset: Dataset, size: int, seed: int, key: tuple[int, ...]
) -> NDArray[np.float64] | str:
    """`sample_rows`, with a MechanismError returned as its one-line message instead of raised:
    a caller that skips a failing pair (the search's pilot) lets its other tasks finish."""
    try:
        return sample_rows(mechanism, dataset, size, seed, key)
    except MechanismError as exc:
        return str(exc)


def count_events(
    mechanism: Mechanism,
    dataset: Dataset,
    events: Sequence[Event],
    size: int,
    seed: int,
    key: tuple[int, ...],
) -> list[int]:
    """Number of samples of one chunk that fall in each event (one draw serves all events)."""
    out = draw(mechanism, dataset, size, seed, key)
    return [int(np.count_nonzero(e.indicator(out))) for e in events]


def count_events_segmented(
    mechanism: Mechanism,
    dataset: Dataset,
    events: Sequence[Event],
    size: int,
    seed: int,
    key: tuple[int, ...],
    cuts: Sequence[int] = (),
    segmented: int = 1,
) -> tuple[list[int], list[int]]:
    """`count_events` plus the counts of the first `segmented` events on the segments of the
    chunk's rows cut at `cuts` (increasing row offsets in (0, size)): [0, c₁), …, [c_r, size) of
    event 0, then of event 1, … (the runner segments every event of a pair's primary test, so the
    trajectory follows whichever of them is reported).

    Rows are i.i.d. and drawn in a fixed order, so the segments give the counts on exact
    prefixes of the certification split (the runner's bound-vs-samples trajectory) without
    keeping any sample: the worker returns a few small integers per chunk."""
    out = draw(mechanism, dataset, size, seed, key)
    indicators = [e.indicator(out) for e in events]
    totals = [int(np.count_nonzero(ind)) for ind in indicators]
    pieces = list(itertools.pairwise([0, *cuts, size]))
    segments = [int(np.count_nonzero(ind[lo:hi])) for ind in indicators[:segmented] for lo, hi in pieces]
    return totals, segments


@dataclass(frozen=True, slots=True)
class Task:
    """One unit of work: a chunk to sample, with its coordinates."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    size: int
    tag: Any


def run_tasks(
    tasks: Sequence[Task],
    *,
    jobs: int,
    backend: str,
    on_done: Callable[[Task, Any], None],
) -> None:
    """Run tasks (in order of submission for the callback), in-process when jobs == 1."""
    if jobs == 1 or len(tasks) <= 1:
        for t in tasks:
            on_done(t, t.fn(*t.args))
        return
    from joblib import Parallel, delayed, parallel_config

    # The backend goes through parallel_config, not Parallel(backend=name): joblib registers
    # its Dask backend only inside parallel_config(backend="dask"), and Parallel(backend=...)
    # would pass keyword arguments the Dask backend's tasks do not accept.
    with parallel_config(backend=backend, n_jobs=jobs):
        results: Iterable[Any] = Parallel(return_as="generator")(delayed(t.fn)(*t.args) for t in tasks)
        it: Iterator[Any] = iter(results)
        for t in tasks:
            on_done(t, next(it))
