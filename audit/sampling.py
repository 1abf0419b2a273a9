"""Seeded, chunked Monte Carlo sampling (docs/DESIGN.md, "Sampling").

Every chunk draws from its own generator,

    Generator(PCG64(SeedSequence(seed, spawn_key=(pair, side, phase, chunk)))),

which is exactly the child `SeedSequence(seed).spawn(...)` would produce at that position.
A chunk's samples therefore depend only on the audit seed and the chunk's coordinates, never
on which worker ran it or in what order, so results are bit-identical for any `jobs`.

A mechanism that declares `per_sample_streams` (not vectorised: a fit, a synthesizer, a training
per release; `mechanisms.base.uses_sample_streams`) draws every *sample* from its own generator
instead, keyed (pair, side, phase, SAMPLE_STREAM, index) with `index` the sample's row in its
split, when the caller gives the chunk's first row (`start`). Such a key has five words where a
chunk key has four (numpy's spawn tree: a distinct SeedSequence child), so it never repeats a
chunk stream, and the samples are the same for any chunk size: the runner may then size chunks
by the measured cost of one sample (`runner.procedure.probe_chunk`) without changing a result.
A caller that gives no `start` (the baselines' re-counts, probes) keeps the chunk stream.
Certification chunks are reduced to an event count in the worker: memory stays O(chunk).
`count_events_segmented` also returns the counts of the first few events on segments of the chunk's
rows (where a prefix of the trajectory ends), a few small integers per chunk.
"""

from __future__ import annotations

import contextlib
import enum
import itertools
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..mechanisms.base import (
    Mechanism,
    MechanismError,
    block_sizes,
    uses_sample_streams,
    validate_output,
)
from ..neighbors.base import Dataset
from .events import Event, EventShapeError, as_rows
from .transport import in_process_note, ships

MAX_CHUNK = 1 << 18
MIN_CHUNK = 1 << 10
CHUNK_BYTES = 32 << 20
SAMPLE_STREAM = 0xFFFF_FFFF
"""The spawn-key word that marks a per-sample stream (module docstring); never a chunk index."""


class Phase(enum.IntEnum):
    SELECTION = 0
    CERTIFICATION = 1


class Side(enum.IntEnum):
    DATASET = 0
    NEIGHBOR = 1


def chunk_rng(seed: int, key: tuple[int, ...]) -> np.random.Generator:
    """The generator of one chunk: a pure function of (seed, key)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def sample_rng(seed: int, key: tuple[int, ...], index: int) -> np.random.Generator:
    """The generator of sample `index` of the split whose chunks `key` names (its last word, the
    chunk index, is replaced by SAMPLE_STREAM, index): a pure function of (seed, split, index)."""
    return chunk_rng(seed, (*key[:-1], SAMPLE_STREAM, index))


def _calls(
    mechanism: Mechanism, size: int, seed: int, key: tuple[int, ...], start: int | None
) -> Iterator[tuple[int, np.random.Generator]]:
    """The `sample` calls that fill one chunk, (samples, generator) each, made one at a time (a
    generator per sample would otherwise be held for the whole chunk). Per-sample streams when the
    mechanism declares them and the chunk's first row is known, else the chunk's stream."""
    if start is not None and size > 0 and uses_sample_streams(mechanism):
        for i in range(size):
            yield 1, sample_rng(seed, key, start + i)
        return
    rng = chunk_rng(seed, key)
    for m in block_sizes(mechanism, size):
        yield m, rng


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


class AuditTimeout(BaseException):
    """The audit's timeout expired (exit 2; one line naming the mechanism and the phase). A
    BaseException, so a black box's `except Exception` cannot swallow it."""


class OutputShapeError(ValueError):
    """sample() returned outputs of different shapes in two calls (exit 2). No MechanismError:
    it is the mechanism's inconsistency, not one pair failing, so a search does not skip it."""


class AuditSession:
    """What one audit shares across its draws: the mechanism's name, the timeout's deadline
    (wall clock, `time.time()`, so worker processes can share it), what is being sampled, and
    each dataset's first output signature (shape after axis 0, dtype). Mutable; one per audit."""

    def __init__(self, name: str, *, timeout: float | None, deadline: float | None = None) -> None:
        self.name = name
        self.timeout = timeout
        self.deadline = deadline if deadline is not None or timeout is None else time.time() + timeout
        self.label = ""
        self.in_sample = False
        self.signatures: dict[str, tuple[tuple[int, ...], str, str]] = {}
        """Per dataset (content key): (shape after axis 0, dtype, where it was first seen). Per
        dataset, as a mechanism's output may legitimately grow with its input (per-record outputs)."""

    def expired(self) -> AuditTimeout:
        where = f"in sample(), {self.label}" if self.in_sample else (self.label or "before sampling")
        return AuditTimeout(f"mechanism {self.name!r} exceeded the {self.timeout:g} s timeout ({where})")

    def state(self) -> tuple[str, float | None, float | None, dict[str, tuple[tuple[int, ...], str, str]]]:
        """What a worker process needs to rebuild the session (`in_worker`)."""
        return self.name, self.timeout, self.deadline, dict(self.signatures)


_SESSION: AuditSession | None = None


def key_label(key: tuple[int, ...]) -> str:
    """What a chunk key samples, for messages ("sampling pair 2 certification, neighbour side")."""
    if len(key) == 4:
        pair, side, phase, _ = key
        what = {0: "selection", 1: "certification"}.get(phase)
        if what is None:
            return "sampling the probe"
        return f"sampling pair {pair + 1} {what}, {('dataset', 'neighbour')[side % 2]} side"
    return "sampling a search pilot"


def _alarm_usable() -> bool:
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.SIG_IGN, None)
    )


@contextlib.contextmanager
def _alarm(session: AuditSession) -> Iterator[None]:
    """SIGALRM at the session's deadline (main thread, Unix, no other alarm handler; elsewhere
    only the check before each sample() call)."""
    if session.deadline is None or not _alarm_usable():
        yield
        return

    def fire(signum: int, frame: object) -> None:
        raise session.expired()

    signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, max(session.deadline - time.time(), 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


@contextlib.contextmanager
def audit_session(name: str, *, timeout: float | None) -> Iterator[AuditSession]:
    """The session of one audit of mechanism `name`: every draw inside it is checked against the
    shape of the first output on its dataset and, with `timeout` (seconds), stopped at the deadline by
    `AuditTimeout`. Nested calls join the open session (its timeout stands)."""
    global _SESSION
    if _SESSION is not None:
        yield _SESSION
        return
    session = _SESSION = AuditSession(name, timeout=timeout)
    try:
        with _alarm(session):
            yield session
    finally:
        _SESSION = None


@contextlib.contextmanager
def _in_sample(session: AuditSession | None, label: str) -> Iterator[None]:
    if session is None:
        yield
        return
    session.label = label
    if session.deadline is not None and time.time() >= session.deadline:
        raise session.expired()
    session.in_sample = True
    try:
        yield
    finally:
        session.in_sample = False


def _shape_text(shape: tuple[int, ...]) -> str:
    return "(n,)" if not shape else f"(n, {', '.join(str(d) for d in shape)})"


def _same_signature(
    session: AuditSession | None, name: str, dataset: Dataset, out: NDArray[Any], label: str
) -> NDArray[Any]:
    """`out`, after checking that its shape (after axis 0) is that of the first output on the same
    dataset and that its dtype combines with it (numeric dtypes mix: outputs are compared as float64)."""
    if session is None:
        return out
    key = dataset.key()
    if key not in session.signatures:
        session.signatures[key] = (tuple(out.shape[1:]), str(out.dtype), label)
        return out
    shape, dtype, first = session.signatures[key]
    try:
        np.result_type(np.dtype(dtype), out.dtype)
        compatible = tuple(out.shape[1:]) == shape
    except TypeError:  # numpy's DTypePromotionError is a TypeError
        compatible = False
    if not compatible:
        raise OutputShapeError(
            f"mechanism {name!r}: sample() returned {_shape_text(tuple(out.shape[1:]))} {out.dtype} here "
            f"and {_shape_text(shape)} {dtype} before ({label}; first seen {first}); every call must "
            "return the same output shape (a release whose length varies by design: declare "
            "variable_length=True)"
        )
    return out


def in_worker(
    state: tuple[str, float | None, float | None, dict[str, tuple[tuple[int, ...], str, str]]],
    fn: Callable[..., Any],
    *args: Any,
) -> Any:
    """Run a task in a joblib worker under the parent's session (`AuditSession.state`): the
    shape check and, in a worker process's main thread, SIGALRM at the deadline. A worker
    thread (threading, Dask) shares the parent's session and only checks before each call."""
    global _SESSION
    if threading.current_thread() is not threading.main_thread():
        return fn(*args)
    name, timeout, deadline, signature = state
    session = _SESSION = AuditSession(name, timeout=timeout, deadline=deadline)
    session.signatures = signature
    try:
        with _alarm(session):
            return fn(*args)
    finally:
        _SESSION = None


def draw(
    mechanism: Mechanism,
    dataset: Dataset,
    size: int,
    seed: int,
    key: tuple[int, ...],
    start: int | None = None,
) -> NDArray[Any]:
    """Sample one chunk, turning any failure of the black box into a MechanismError; within an
    `audit_session`, under its timeout and with every output's shape checked against the first.
    `start`: the chunk's first row in its split (per-sample streams; module docstring)."""
    session = _SESSION
    label = key_label(key)
    try:
        parts = []
        # several calls: a mechanism with wide working arrays (blocks of one generator), or one
        # call per sample on its own generator (per-sample streams)
        for m, rng in _calls(mechanism, size, seed, key, start):
            with _in_sample(session, label):
                part = mechanism.sample(dataset, m, rng=rng)
            parts.append(
                _same_signature(
                    session, mechanism.name, dataset, validate_output(mechanism.name, part, m), label
                )
            )
        out = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
    except (MechanismError, AuditTimeout, OutputShapeError):
        raise
    except SystemExit as exc:  # sys.exit inside a black box is its failure, not dpaudit's exit code
        raise MechanismError(f"mechanism {mechanism.name!r} called sys.exit({exc.code!r})") from exc
    except Exception as exc:  # a black box may raise anything; report it in one line
        message = " ".join(str(exc).split()) or "(no message)"
        kind = type(exc).__name__
        raise MechanismError(
            f"mechanism {mechanism.name!r} raised {kind}: {message} (on a dataset of {dataset.n} "
            f"record(s); if that raise is its answer on such data, declare it an output: "
            f"from_callable(..., exceptions=({kind},)))"
        ) from exc
    return out


def sample_rows(
    mechanism: Mechanism,
    dataset: Dataset,
    size: int,
    seed: int,
    key: tuple[int, ...],
    start: int | None = None,
) -> NDArray[np.float64]:
    return as_rows(draw(mechanism, dataset, size, seed, key, start))


def try_sample_rows(
    mechanism: Mechanism,
    dataset: Dataset,
    size: int,
    seed: int,
    key: tuple[int, ...],
    start: int | None = None,
) -> NDArray[np.float64] | str:
    """`sample_rows`, with a MechanismError returned as its one-line message instead of raised:
    a caller that skips a failing pair (the search's pilot) lets its other tasks finish."""
    try:
        return sample_rows(mechanism, dataset, size, seed, key, start)
    except MechanismError as exc:  # (an AuditTimeout is no MechanismError: it ends the audit)
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
    start: int | None = None,
) -> tuple[list[int], list[int]]:
    """`count_events` plus the counts of the first `segmented` events on the segments of the
    chunk's rows cut at `cuts` (increasing row offsets in (0, size)): [0, c₁), …, [c_r, size) of
    event 0, then of event 1, … (the runner segments every event of a pair's primary test, so the
    trajectory follows whichever of them is reported).

    Rows are i.i.d. and drawn in a fixed order, so the segments give the counts on exact
    prefixes of the certification split (the runner's bound-vs-samples trajectory) without
    keeping any sample: the worker returns a few small integers per chunk. An event that does not
    apply to the chunk's width (`EventShapeError`: the mechanism's output shape on this dataset
    changed since selection, which the session's shape check misses in a worker that never saw
    the dataset) is the mechanism's inconsistency: `OutputShapeError`, exit 2. `start`: the
    chunk's first row of the split (`draw`)."""
    out = draw(mechanism, dataset, size, seed, key, start)
    try:
        indicators = [e.indicator(out) for e in events]
    except EventShapeError as exc:  # the outputs' width changed since the events were chosen
        raise OutputShapeError(
            f"mechanism {mechanism.name!r}: sample() returned {_shape_text(tuple(out.shape[1:]))} "
            f"({key_label(key)}), a shape its events, chosen on earlier outputs of the same dataset, "
            f"do not apply to ({exc}); every call must return the same output shape"
        ) from exc
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
    """Run tasks (in order of submission for the callback), in-process when jobs == 1. Within an
    `audit_session` whose first output is not yet known, the first task runs in-process, so the
    workers check every output's shape against it (`in_worker`)."""
    session = _SESSION
    if session is not None and not session.signatures and tasks:
        on_done(tasks[0], tasks[0].fn(*tasks[0].args))
        tasks = tasks[1:]
    if jobs != 1 and len(tasks) > 1 and not ships(tasks[0].args, backend):
        in_process_note(str(getattr(tasks[0].args[0], "name", "?")) if tasks[0].args else "?")
        jobs = 1
    if jobs == 1 or len(tasks) <= 1:
        for t in tasks:
            on_done(t, t.fn(*t.args))
        return
    from joblib import Parallel, delayed, parallel_config

    state = None if session is None else session.state()
    # The backend goes through parallel_config, not Parallel(backend=name): joblib registers
    # its Dask backend only inside parallel_config(backend="dask"), and Parallel(backend=...)
    # would pass keyword arguments the Dask backend's tasks do not accept.
    with parallel_config(backend=backend, n_jobs=jobs):
        calls = (
            delayed(t.fn)(*t.args) if state is None else delayed(in_worker)(state, t.fn, *t.args)
            for t in tasks
        )
        results: Iterable[Any] = Parallel(return_as="generator")(calls)
        it: Iterator[Any] = iter(results)
        for t in tasks:
            if session is not None:  # the parent's alarm, while it waits, names this task
                session.label = _task_label(t)
            on_done(t, next(it))


def _task_label(task: Task) -> str:
    keys = (a for a in task.args[3:] if isinstance(a, tuple) and a and all(isinstance(x, int) for x in a))
    key = next(keys, ())
    return key_label(key) if key else "sampling"
