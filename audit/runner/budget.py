"""A budget that fits a mechanism's measured cost (`dpaudit run module:attr` without --num-samples).

Before, a user mechanism without `--num-samples` got 1,000,000 samples per side, whatever one
sample cost: a 0.1 s library fit became a silent 28-hour run. Here a few timed draws (seed-key
phase `PROBE_PHASE`, never counted in the audit) measure the seconds per sample, and the budget
is the largest per-side count whose sampling fits `time_budget` seconds:
N = time_budget · workers / (2 · pairs · seconds per sample), rounded down to two significant
digits and clipped to [`MIN_BUDGET`, `MAX_BUDGET`]. The audit then runs as a sequential one
(`AuditConfig.sequential`): N is a cap it reaches only when the claim is not decided before.
The estimate is a statement about wall time only; it takes no part in any certificate.

The same measurement sizes the chunks of a mechanism that declares `per_sample_streams` (a fit
per release): `cost_chunk_size` puts about `TASK_SECONDS` of work in one chunk, i.e. one joblib or
Dask task (at least one sample, at most the memory cap `sampling.auto_chunk_size`), so an
expensive fit is one task per fit or a few and the progress line moves every second or so. Such a
mechanism draws every sample from its own stream (`engine/sampling.py`), so the chunk size, and
hence the timing it rests on, changes no result. The measurement is kept per mechanism object
(`measured_seconds_per_sample`): the budget's timing is reused, never repeated.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ...mechanisms.base import Mechanism, uses_sample_streams
from ...neighbors.base import Dataset
from ..sampling import draw

DEFAULT_TIME_BUDGET = 300.0
"""Seconds of sampling a user mechanism's audit is sized for when no --num-samples is given
(`--time-budget`): a few minutes, a run one waits for at the terminal."""
MIN_BUDGET = 1_000
"""Never fewer samples per side (a smaller audit decides almost nothing); the estimate then
says it exceeds the time budget."""
MAX_BUDGET = 1_000_000
"""Never more than the former default."""
TIMING_SECONDS = 0.5
"""Stop timing once the timed draws took this long (or reached `TIMING_MAX` samples)."""
TIMING_MAX = 4096
PROBE_PHASE = 2
TASK_SECONDS = 1.0
"""Wall seconds of work one chunk holds for a mechanism with per-sample streams: long enough that
a task's overhead (about 10 ms on Dask, `benchmarks/dask_vs_jobs.py`) is a percent, short enough
that two workers share even a small audit and the progress line moves."""
_MEASURED: dict[int, tuple[object, float]] = {}
"""id(mechanism) → (the mechanism, its seconds per sample); the object is held so its id is not
reused while the entry lives. A few entries at most (`_MEASURED_KEPT`)."""
_MEASURED_KEPT = 8


@dataclass(frozen=True, slots=True, kw_only=True)
class CostBudget:
    """The budget chosen for a mechanism and what it rests on."""

    num_samples: int
    """Per side and pair (the cap of the sequential audit)."""
    seconds_per_sample: float
    pairs: int
    workers: int
    time_budget: float

    @property
    def estimate_seconds(self) -> float:
        """Sampling time of the whole budget: 2 sides × pairs × N × cost / workers."""
        return 2 * self.pairs * self.num_samples * self.seconds_per_sample / self.workers

    def message(self, name: str) -> str:
        """The line stated up front on stderr."""
        over = (
            f"; at least {MIN_BUDGET:,} samples, over the time budget"
            if self.estimate_seconds > self.time_budget * 1.05
            else ""
        )
        return (
            f"dpaudit: {name}: ≈ {duration(self.estimate_seconds)} for {self.num_samples:,} samples per side "
            f"at {duration(self.seconds_per_sample)} each ({self.pairs} pair(s), {self.workers} worker(s); "
            f"--time-budget {self.time_budget:g} s{over}); it stops sooner once decided, "
            "--num-samples sets the budget"
        )


def duration(seconds: float) -> str:
    """'12 µs', '3.1 ms', '0.09 s', '45 s', '6 min', '2.3 h' (two significant digits)."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2g} µs"
    if seconds < 0.01:
        return f"{seconds * 1e3:.2g} ms"
    if seconds < 90:
        return f"{seconds:.2g} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.2g} h"


def seconds_per_sample(mechanism: Mechanism, dataset: Dataset, *, seed: int) -> float:
    """Wall seconds per sample of `dataset`: one untimed draw (imports, caches), then draws of 1,
    2, 4, … samples until they took `TIMING_SECONDS` or reached `TIMING_MAX`; the last one's rate."""
    draw(mechanism, dataset, 1, seed, (0, 0, PROBE_PHASE, 2))
    size, spent, rate = 1, 0.0, 0.0
    for r in range(3, 64):
        start = time.perf_counter()
        draw(mechanism, dataset, size, seed, (0, 0, PROBE_PHASE, r))
        took = time.perf_counter() - start
        spent += took
        rate = max(took, 1e-9) / size
        if spent >= TIMING_SECONDS or size >= TIMING_MAX:
            break
        size *= 2
    return rate


def measured_seconds_per_sample(mechanism: Mechanism, dataset: Dataset, *, seed: int) -> float:
    """`seconds_per_sample`, measured once per mechanism object: a later call (the probe stage after
    the budget, the search's audits) reuses the first measurement (module docstring)."""
    kept = _MEASURED.get(id(mechanism))
    if kept is not None and kept[0] is mechanism:
        return kept[1]
    rate = seconds_per_sample(mechanism, dataset, seed=seed)
    if len(_MEASURED) >= _MEASURED_KEPT:
        _MEASURED.pop(next(iter(_MEASURED)))
    _MEASURED[id(mechanism)] = (mechanism, rate)
    return rate


def cost_chunk_size(seconds: float, *, cap: int) -> int:
    """Samples per chunk for a mechanism costing `seconds` per sample: about `TASK_SECONDS` of work,
    within [1, cap]."""
    return max(1, min(cap, int(TASK_SECONDS / max(seconds, 1e-9))))


def measured_chunk(mechanism: Mechanism, dataset: Dataset, *, seed: int, cap: int) -> int:
    """`cap` for a vectorised mechanism (no timing); for one with per-sample streams, the chunk
    its measured cost calls for (`cost_chunk_size`, at most `cap`)."""
    if not uses_sample_streams(mechanism):
        return cap
    return cost_chunk_size(measured_seconds_per_sample(mechanism, dataset, seed=seed), cap=cap)


def round_down(n: float) -> int:
    """`n` rounded down to two significant digits (2,345 → 2,300)."""
    if n < 100:
        return int(n)
    scale = 10 ** (int(math.log10(n)) - 1)
    return int(n // scale * scale)


def budget_from_cost(
    mechanism: Mechanism, dataset: Dataset, *, pairs: int, workers: int, time_budget: float, seed: int = 0
) -> CostBudget:
    """The per-side budget whose sampling fits `time_budget` seconds (module docstring)."""
    cost = measured_seconds_per_sample(mechanism, dataset, seed=seed)
    fits = round_down(time_budget * workers / (2 * pairs * cost))
    return CostBudget(
        num_samples=min(max(fits, MIN_BUDGET), MAX_BUDGET),
        seconds_per_sample=cost,
        pairs=pairs,
        workers=workers,
        time_budget=time_budget,
    )
