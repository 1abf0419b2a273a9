"""Learned statistics: the shared machinery of the learned distinguishers (logistic, projections).

A learned distinguisher fits a statistic s(x) = w·φ(x) on the selection split and proposes the
threshold events {s ≥ t}, {s ≤ t} (`FittedEvent`, picklable, registered in `events.EVENT_TYPES`).
When the statistic is fitted on one half of the selection split its candidates are counted on the
other half (`split_half`, `statistic_candidates`) and rescaled to the full selection size, so the
choice among thresholds is not made on the samples that trained the statistic. By the
Neyman–Pearson lemma the best event is a threshold on the likelihood ratio; a fitted statistic is an
estimate of it, and any fixed event certified on fresh samples is a valid witness however poor
the fit. Also here: the applicability gate (`applicable`, `few_distinct`), the never-raising
wrapper `guarded_propose`, and single-threaded BLAS for the small dense fits.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from ...events import Array, Event, as_rows, event_type, require_width
from ..base import Candidates, HistogramDistinguisher, tail_candidates
from ..base import few_distinct as base_few_distinct

Floats = NDArray[np.float64]

MIN_SAMPLES_PER_SIDE = 20
"""Below this many selection samples per side a learned statistic is not attempted."""

MIN_REPEATS = 100
"""The histogram's case: on average at least this many pooled selection rows per distinct value."""


DEFAULT_MAX_FIT = 10_000
"""Rows per side the default learned distinguishers fit on (the cost cap of the runner's
defaults); the logistic statistics' candidate counts are then taken on the held-out half of the
selection split, however large."""

DEFAULT_MAX_FEATURES = 32
"""Coordinates the default learned distinguishers use (screened by |standardised mean
difference| on the fit rows; the squared-feature logistic uses half as many, i.e. 32 features
with their squares). A Newton step costs O(rows × features²): with 256 features and 2 × 20 000
rows a fit on DP-Winnow's 300-wide no-cap twin took 1–15 s (the spread is multithreaded BLAS on
a loaded machine); at 2 × 10 000 rows and ≤ 32 features a fit is a few tens of ms."""


HISTOGRAM_BINS = HistogramDistinguisher().max_bins
"""The histogram's reach: the default learned distinguishers stay silent on outputs with at most
this many distinct values (the histogram already ranks every event there)."""


@functools.cache
def _openblas_thread_controls() -> tuple[tuple[Any, Any], ...]:
    """(get, set) thread-count functions of every OpenBLAS loaded in this process (numpy's,
    scipy's), found as threadpoolctl finds them; () where that is not possible (not Linux, other
    BLAS, unknown symbols), in which case `single_threaded_blas` does nothing."""
    controls = []
    try:
        with open("/proc/self/maps", encoding="utf-8") as fh:
            paths = sorted({line.split()[-1] for line in fh if "openblas" in line.lower() and "/" in line})
        for path in paths:
            lib = ctypes.CDLL(path)
            for get_name, set_name in (
                ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
                ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
                ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
                ("openblas_get_num_threads", "openblas_set_num_threads"),
            ):
                get, set_ = getattr(lib, get_name, None), getattr(lib, set_name, None)
                if get is not None and set_ is not None:
                    get.restype = ctypes.c_int
                    set_.argtypes = [ctypes.c_int]
                    controls.append((get, set_))
                    break
    except Exception:  # pragma: no cover - best effort: no control, no change
        return ()
    return tuple(controls)


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run the enclosed dense algebra on one OpenBLAS thread, restoring the count afterwards.

    The fits here multiply (≤ 2·DEFAULT_MAX_FIT) × (≤ 65) matrices: too small to gain from
    threads, and on a machine busier than its cores OpenBLAS's spinning threads made single
    logistic fits 10–50× slower (measured 0.2 s → 2–10 s per fit with load 4–8 on 2 cores)."""
    controls = _openblas_thread_controls()
    saved = [get() for get, _ in controls]
    for _, set_ in controls:
        set_(1)
    try:
        yield
    finally:
        for (_, set_), n in zip(controls, saved, strict=True):
            set_(max(1, int(n)))


def few_distinct(a: Floats, b: Floats, limit: int) -> bool:
    """True in the histogram's case (`base.few_distinct` at `MIN_REPEATS` rows per distinct value
    on average): the learned statistics stay silent there."""
    return base_few_distinct(a, b, limit=limit, repeats=MIN_REPEATS)


def applicable(a: Floats, b: Floats, *, skip_if_distinct_at_most: int) -> bool:
    """Whether a learned statistic is attempted on selection outputs `a`, `b`: vector outputs
    (2-D, at least two coordinates), at least `MIN_SAMPLES_PER_SIDE` rows per side, all finite,
    and not the histogram's case (`few_distinct` at `skip_if_distinct_at_most`)."""
    if a.ndim != 2 or a.shape[1] < 2 or min(a.shape[0], b.shape[0]) < MIN_SAMPLES_PER_SIDE:
        return False
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return False
    return not few_distinct(a, b, skip_if_distinct_at_most)


def guarded_propose(
    propose: Callable[[Floats, Floats], Candidates | None],
    a: Floats,
    b: Floats,
    *,
    skip_if_distinct_at_most: int,
) -> Candidates | None:
    """`propose(a, b)` when `applicable`, on one BLAS thread; None when not applicable or when it
    raises (a distinguisher must never abort an audit)."""
    with single_threaded_blas():
        try:
            if not applicable(a, b, skip_if_distinct_at_most=skip_if_distinct_at_most):
                return None
            return propose(a, b)
        except Exception:  # pragma: no cover - a distinguisher must never abort an audit
            return None


@event_type("learned-statistic", legacy=("score",))  # "score" until issue 43
@dataclass(frozen=True, slots=True)
class FittedEvent:
    """{s(x) ≥ t} (upper) or {s(x) ≤ t}, with s(x) = Σ_k weights[k] · φ_k(x).

    φ(x) = z, or (z, z[squared_columns]²) when `squared`, where
    z = (x[columns] − center) / scale. Everything is stored as tuples so the event pickles.
    """

    weights: tuple[float, ...]
    columns: tuple[int, ...]
    center: tuple[float, ...]
    scale: tuple[float, ...]
    threshold: float
    upper: bool
    squared_columns: tuple[int, ...] = ()
    label: str = "statistic"

    @property
    def squared(self) -> bool:
        return bool(self.squared_columns)

    def evaluate(self, outputs: Array) -> Floats:
        rows = as_rows(outputs)
        require_width(rows, max(self.columns, default=-1) + 1, f"the {self.label} event")
        return linear_statistic(
            rows,
            np.asarray(self.columns, dtype=np.intp),
            np.asarray(self.center),
            np.asarray(self.scale),
            np.asarray(self.squared_columns, dtype=np.intp),
            np.asarray(self.weights),
        )

    def indicator(self, outputs: Array) -> NDArray[np.bool_]:
        s = self.evaluate(outputs)
        return s >= self.threshold if self.upper else s <= self.threshold

    def to_spec(self) -> dict[str, Any]:
        """JSON-able description; `FittedEvent.from_spec` rebuilds the event exactly."""
        return {
            "type": "learned-statistic",
            "weights": list(self.weights),
            "columns": list(self.columns),
            "center": list(self.center),
            "scale": list(self.scale),
            "threshold": self.threshold,
            "upper": self.upper,
            "squared_columns": list(self.squared_columns),
            "label": self.label,
        }

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> FittedEvent:
        return cls(
            weights=tuple(float(x) for x in spec["weights"]),
            columns=tuple(int(x) for x in spec["columns"]),
            center=tuple(float(x) for x in spec["center"]),
            scale=tuple(float(x) for x in spec["scale"]),
            threshold=float(spec["threshold"]),
            upper=bool(spec["upper"]),
            squared_columns=tuple(int(x) for x in spec.get("squared_columns", ())),
            label=str(spec.get("label", "statistic")),
        )

    def describe(self) -> str:
        feats = f"{len(self.columns)} coordinates" + (
            f" + {len(self.squared_columns)} squares" if self.squared_columns else ""
        )
        return f"{self.label}(x) {'≥' if self.upper else '≤'} {self.threshold:.6g} [{feats}]"


# Results, checkpoints and baselines store events by spec (`events.event_from_spec`).


def features(z: Floats, squared_columns: NDArray[np.intp]) -> Floats:
    """φ: the standardised coordinates z, followed by the squares of `squared_columns` if any."""
    if squared_columns.size == 0:
        return z
    return np.hstack([z, z[:, squared_columns] ** 2])


def linear_statistic(
    rows: Floats,
    columns: NDArray[np.intp],
    center: Floats,
    scale: Floats,
    squared_columns: NDArray[np.intp],
    weights: Floats,
) -> Floats:
    """s(x) = weights · φ((x[columns] − center) / scale) for every row."""
    z = (rows[:, columns] - center) / scale
    return np.asarray(features(z, squared_columns) @ weights, dtype=np.float64)


@dataclass(frozen=True, slots=True)
class FittedStatistic:
    """One fitted statistic, ready to become threshold events."""

    weights: Floats
    columns: NDArray[np.intp]
    center: Floats
    scale: Floats
    squared_columns: NDArray[np.intp]
    label: str

    def apply(self, rows: Floats) -> Floats:
        return linear_statistic(
            rows, self.columns, self.center, self.scale, self.squared_columns, self.weights
        )

    def event(self, threshold: float, upper: bool) -> FittedEvent:
        return FittedEvent(
            weights=tuple(float(w) for w in self.weights),
            columns=tuple(int(c) for c in self.columns),
            center=tuple(float(c) for c in self.center),
            scale=tuple(float(s) for s in self.scale),
            threshold=float(threshold),
            upper=bool(upper),
            squared_columns=tuple(int(c) for c in self.squared_columns),
            label=self.label,
        )


class ThresholdStatistic(Protocol):
    """A fitted real-valued statistic of an output row that becomes threshold events."""

    def apply(self, rows: Floats) -> Floats: ...

    def event(self, threshold: float, upper: bool) -> Event: ...


def statistic_candidates(
    statistics: Sequence[ThresholdStatistic],
    eval_a: Floats,
    eval_b: Floats,
    *,
    total_a: int,
    total_b: int,
    grid: int,
    tails: int,
) -> Candidates | None:
    """Threshold candidates of every statistic, counted on (eval_a, eval_b), rescaled to totals
    (`base.tail_candidates`: every statistic's grid and counts at once)."""
    applied = [(k, sc.apply(eval_a), sc.apply(eval_b)) for k, sc in enumerate(statistics)]
    usable = [(k, sa, sb) for k, sa, sb in applied if np.all(np.isfinite(sa)) and np.all(np.isfinite(sb))]
    if not usable:
        return None

    def make(j: int, t: float, upper: bool) -> Event:
        return statistics[usable[j][0]].event(t, upper)

    cand = tail_candidates([(sa, sb) for _, sa, sb in usable], make, grid=grid, tails=tails)
    ra, rb = total_a / eval_a.shape[0], total_b / eval_b.shape[0]
    return Candidates(cand.counts_a * ra, cand.counts_b * rb, cand.make_event)


def split_half(rows: Floats) -> tuple[Floats, Floats]:
    """(fit half, held-out half): the first ⌊n/2⌋ rows and the rest (samples are i.i.d.)."""
    h = rows.shape[0] // 2
    return rows[:h], rows[h:]


def usable_columns(pooled: Floats, *, rel_tol: float = 1e-12) -> NDArray[np.intp]:
    """Columns that are not constant (up to rounding) on the pooled rows."""
    spread = pooled.max(axis=0) - pooled.min(axis=0)
    size = np.maximum(np.abs(pooled).max(axis=0), 1.0)
    return np.flatnonzero(spread > rel_tol * size)


def top_columns(a: Floats, b: Floats, cols: NDArray[np.intp], k: int) -> NDArray[np.intp]:
    """The `k` of `cols` with the largest |mean difference| / pooled sd between a and b, in
    column order (the same screen `LogisticDistinguisher` applies beyond `max_features`)."""
    pooled = np.concatenate([a[:, cols], b[:, cols]])
    sd = pooled.std(axis=0)
    t = np.abs(a[:, cols].mean(axis=0) - b[:, cols].mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return np.sort(cols[np.argsort(-t, kind="stable")[:k]])
