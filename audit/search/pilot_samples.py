"""The search's pilot draws: candidates' sample stores and the seeded sampler behind them.

Implements `Entry` (one candidate's pilot samples and rank) and `PilotSampler` (every pilot
draw of a search, in order). The j-th draw uses `pilot_seed(seed, j)` (SeedSequence spawn key
`PILOT_SPAWN_KEY`), never the audit seed; the registered pairs' selection draws
(`draw_registered`) use the audit seed's SELECTION streams, which certification never draws. So
pilot samples are independent of the certification samples `run_audit` draws at the audit seed.
That is the inequality the search's validity rests on: a pair and an event fixed by pilot
samples alone are independent of the certification counts, so the runner's Clopper–Pearson
bounds P(p ≥ p̂_lo and q ≤ q̂_hi) ≥ 1 − β hold for them exactly as for a pair and event the user
named. Coupled draws (`draw_all(coupled=True)`, the sweep screen's only) take both datasets of a
pair from one stream at seeds of their own (`COUPLED_SPAWN_KEY`), so they too are independent of
the certification samples; no certified event is chosen on them. A batch of draws runs in-process
or through the runner's executor
(`audit.sampling.run_tasks`) at the same seeds and chunk keys, so the samples, seeds, spend and
skip messages are bit-identical for any `jobs` and backend.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...mechanisms.base import Mechanism, MechanismError
from ...neighbors.base import Dataset, NeighborPair
from ..progress import Progress
from ..runner import measured_chunk, selection_tasks
from ..sampling import Task, run_tasks, sample_rows, try_sample_rows
from ..types import AuditConfig, EpsilonEstimate

PILOT_SPAWN_KEY = 7
"""SeedSequence spawn key of the pilot runs (the certification uses the audit seed itself)."""
PILOT_CHUNK = 1 << 16
"""Samples per side in one pilot chunk (chunk keys are (side, c))."""

COUPLED_SPAWN_KEY = 9
"""SeedSequence spawn key of the coupled pilot draws (`PilotSampler.draw_all(coupled=True)`)."""

Chunk = tuple[int, Dataset, int, int, tuple[int, int], int]
"""(side, dataset, size, seed, key, start) of one pilot chunk: key (side, c), or (0, c) on both
sides of a coupled draw (both datasets from the same stream); start, its first row (a mechanism
with per-sample streams draws row r from the stream (side or 0, SAMPLE_STREAM, r) of the draw's
seed, `engine.sampling`: the same rows for any chunking)."""
Then = Callable[["Entry", bool], None]
"""Called after a draw is settled, with whether it succeeded."""


def pilot_seed(seed: int, index: int, *, spawn_key: int = PILOT_SPAWN_KEY) -> int:
    """The seed of the `index`-th pilot draw (of the coupled draws with `COUPLED_SPAWN_KEY`):
    derived from the audit seed, never equal to it."""
    s = int(np.random.SeedSequence(seed, spawn_key=(spawn_key, index)).generate_state(1)[0])
    return s if s != seed else s + 1


@dataclass(slots=True, eq=False)
class Entry:
    """One candidate under evaluation: its pilot samples (both sides) and current rank.
    Compared (and hashed) by identity: two entries are never the same candidate."""

    pair: NeighborPair
    source: str
    claim_epsilon: float
    claim_delta: float
    a: list[NDArray[np.float64]] = dataclasses.field(default_factory=list)
    b: list[NDArray[np.float64]] = dataclasses.field(default_factory=list)
    drawn: int = 0
    rank: float = -math.inf
    spread: float = 0.0
    """|difference of the rank's two cross-fitted folds| (its noise, `ranking`)."""
    estimate: EpsilonEstimate | None = None

    def outputs(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        if len(self.a) > 1:
            self.a, self.b = [np.concatenate(self.a)], [np.concatenate(self.b)]
        return self.a[0], self.b[0]

    def release(self) -> None:
        self.a, self.b = [], []

    def rows(self) -> int:
        """Pilot samples per side currently held (0 once released)."""
        return min(sum(x.shape[0] for x in self.a), sum(x.shape[0] for x in self.b))


@dataclass(slots=True, eq=False)
class PilotSampler:
    """Every pilot draw of one search: the seeds issued (in order), the samples per side spent,
    and the candidates skipped (`skipped`, shared with the proposer) or failing (`failures`)."""

    mechanism: Mechanism
    config: AuditConfig
    seeds: list[int] = dataclasses.field(default_factory=list)
    spent: int = 0
    skipped: list[str] = dataclasses.field(default_factory=list)
    failures: list[str] = dataclasses.field(default_factory=list)
    progress: Progress | None = None
    """Where pilot draws are shown (display only: nothing drawn or decided depends on it)."""
    coupled_draws: int = 0
    """Coupled draws issued so far (their seeds are `pilot_seed(seed, j, spawn_key=COUPLED_SPAWN_KEY)`)."""
    chunk: int | None = None
    """Samples per side in one pilot chunk: `PILOT_CHUNK`, or for a mechanism with per-sample
    streams about a second of its measured cost (`runner.measured_chunk`); set at the first draw."""

    def draw_all(
        self,
        requests: Sequence[tuple[Entry, int]],
        *,
        ranking: bool = True,
        then: Then | None = None,
        coupled: bool = False,
    ) -> list[bool]:
        """Draw `num` samples per side for each (entry, num), in order, each followed by
        `then(entry, ok)`; `ranking` draws count towards `Entry.drawn`. `coupled` draws both
        datasets of a pair from the same stream (chunk keys (0, c) on both sides, at seeds of
        their own, `COUPLED_SPAWN_KEY`): the pilot's sweep screen only, never a sample any
        certified event is chosen on (`search_sweeps`).

        With `config.jobs` ≠ 1 every chunk of the batch is a task run by `run_tasks`: seeds are
        issued in request order and chunk keys are (side, c) as in-process, so the samples, the
        seeds, `spent` and the `skipped` messages are those of the sequential path. A request is
        settled (and `then` runs, e.g. ranking it) as soon as its last chunk is in."""
        if self.config.jobs != 1:
            return self._draw_parallel(requests, ranking=ranking, then=then, coupled=coupled)
        ok: list[bool] = []
        for entry, num in requests:
            ok.append(self._draw(entry, num, ranking=ranking, coupled=coupled))
            if then is not None:
                then(entry, ok[-1])
        return ok

    def draw_registered(self, requests: Sequence[tuple[Entry, int]], *, num: int, chunk: int) -> list[bool]:
        """Replace each (entry, index)'s samples by `num` per side from the streams on which
        `dpaudit run --pairs registered` chooses registered pair `index`'s event: the audit seed,
        keys (index, side, SELECTION, c): the runner's own tasks (`runner.selection_tasks`).
        Certification never draws those streams (it uses phase CERTIFICATION, and the runner is
        given its selection outputs), so they are pilot samples like any other; a registered
        champion certified alone then selects its event on exactly the registered route's samples."""
        for entry, _ in requests:
            entry.release()
            entry.drawn = 0
        pairs = [(index, entry.pair) for entry, index in requests]
        seed = self.config.seed
        tasks = selection_tasks(self.mechanism, pairs, seed=seed, size=num, chunk=chunk, fn=try_sample_rows)
        failed: dict[int, str] = {}

        def done(task: Task, out: NDArray[np.float64] | str) -> None:
            i, side, _ = task.tag
            entry = requests[i][0]
            if i in failed:
                return
            if isinstance(out, str):
                failed[i] = out
                entry.release()
            else:
                (entry.b if side else entry.a).append(out)

        run_tasks(tasks, jobs=self.config.jobs, backend=self.config.backend, on_done=done)
        return [self._settle(entry, num, failed.get(i), True) for i, (entry, _) in enumerate(requests)]

    def _settle(self, entry: Entry, num: int, error: str | None, ranking: bool) -> bool:
        """Account for a draw of `num` samples per side: a failing candidate (a MechanismError's
        message in `error`) is reported and released, not fatal to the search."""
        self.spent += num
        if self.progress is not None:
            self.progress.advance(2 * num, "pilot")
        if error is not None:
            self.skipped.append(f"{entry.source} pair {entry.pair.description!r}: {error}")
            self.failures.append(self.skipped[-1])
            entry.release()
            return False
        entry.drawn += num if ranking else 0
        return True

    def _chunks(self, entry: Entry, num: int, coupled: bool = False) -> list[Chunk]:
        """Issue the next pilot seed (coupled: the next coupled seed) to a draw of `num` samples
        per side of `entry`; its chunks, side 0 before side 1."""
        if coupled:
            seed = pilot_seed(self.config.seed, self.coupled_draws, spawn_key=COUPLED_SPAWN_KEY)
            self.coupled_draws += 1
        else:
            seed = pilot_seed(self.config.seed, len(self.seeds))
            self.seeds.append(seed)
        chunk = self._chunk(entry.pair.dataset)
        return [
            (side, dataset, min(chunk, num - start), seed, (0 if coupled else side, c), start)
            for side, dataset in enumerate((entry.pair.dataset, entry.pair.neighbor))
            for c, start in enumerate(range(0, num, chunk))
        ]

    def _chunk(self, dataset: Dataset) -> int:
        """`chunk`, sized at the first draw; while the timing fails (a candidate on which the
        mechanism raises, skipped when its draw raises again), `PILOT_CHUNK` for this draw:
        with per-sample streams the chunking changes no sample."""
        if self.chunk is None:
            try:
                self.chunk = measured_chunk(self.mechanism, dataset, seed=self.config.seed, cap=PILOT_CHUNK)
            except MechanismError:
                return PILOT_CHUNK
        return self.chunk

    def _draw(self, entry: Entry, num: int, *, ranking: bool, coupled: bool = False) -> bool:
        try:
            for side, dataset, size, seed, key, start in self._chunks(entry, num, coupled):
                rows = sample_rows(self.mechanism, dataset, size, seed, key, start)
                (entry.b if side else entry.a).append(rows)
        except MechanismError as exc:
            return self._settle(entry, num, str(exc), ranking)
        return self._settle(entry, num, None, ranking)

    def _draw_parallel(
        self, requests: Sequence[tuple[Entry, int]], *, ranking: bool, then: Then | None, coupled: bool
    ) -> list[bool]:
        ok: list[bool] = []
        tasks = []
        pending = [0] * len(requests)  # chunks not yet returned, per request
        for i, (entry, num) in enumerate(requests):
            for side, dataset, size, seed, key, start in self._chunks(entry, num, coupled):
                args = (self.mechanism, dataset, size, seed, key, start)
                tasks.append(Task(try_sample_rows, args, size, (i, side)))
                pending[i] += 1
        failed: dict[int, str] = {}

        def settle_ready() -> None:
            while len(ok) < len(requests) and pending[len(ok)] == 0:
                entry, num = requests[len(ok)]
                ok.append(self._settle(entry, num, failed.get(len(ok)), ranking))
                if then is not None:
                    then(entry, ok[-1])

        def done(task: Task, out: NDArray[np.float64] | str) -> None:
            i, side = task.tag
            pending[i] -= 1
            entry = requests[i][0]
            if i in failed:
                pass  # the rest of a failing candidate's chunks are dropped
            elif isinstance(out, str):  # its first failing chunk in (side, c) order, as in `_draw`
                failed[i] = out
                entry.release()
            else:
                (entry.b if side else entry.a).append(out)
            settle_ready()

        settle_ready()
        run_tasks(tasks, jobs=self.config.jobs, backend=self.config.backend, on_done=done)
        settle_ready()
        return ok
