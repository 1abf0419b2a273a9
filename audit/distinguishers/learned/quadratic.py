"""A learned quadratic discriminant: the log-likelihood ratio of per-side diagonal Gaussians
(issue 35, item 2).

When the two sides of a pair differ in *scale* (Gaussian noise whose σ depends on the data, a
noise scale computed from the dataset's own size or spread) the Neyman–Pearson statistic is
quadratic in the output, and no threshold on a linear statistic separates the sides: both tails of
the wider side are the evidence. `QuadraticDistinguisher` learns that statistic on the selection
split:

1. *Fit.* On the first half of the selection split (at most `MAX_FIT` rows per side), per
   coordinate j of an output of width ≤ `MAX_WIDTH` (constant coordinates dropped): the two
   sides' means μ_a,j, μ_b,j and variances σ²_a,j, σ²_b,j, each variance floored at
   `VAR_FLOOR` × the pooled variance of its coordinate (so a side that is constant on the fit
   rows gives a finite, very steep statistic rather than a division by zero).
2. *Gate.* Only if some coordinate's variances differ by more than `EVIDENCE` standard errors
   (the standard error estimated from the squares, so it holds for any tails). Without a change
   of scale the Gaussian log-likelihood ratio is linear in the output: the projections' and the
   logistic statistics' case, not evaluated again.
3. *Statistic.* Λ(x) = Σ_j [log N(x_j; μ_b,j, σ²_b,j) − log N(x_j; μ_a,j, σ²_a,j)]
   (`QuadraticEvent.statistic`); events {Λ ≥ t} and {Λ ≤ t}.

Validity. The model and the gate use only the first half of the selection split; the threshold
candidates are counted on the held-out half (`fitted.statistic_candidates`, rescaled to the full
selection size as the logistic statistic's are), and the runner certifies the chosen event on fresh
certification samples. A wrong model (outputs far from Gaussian, correlated coordinates) costs
power only: any fixed event certified on fresh samples is a valid witness.

Cost. A mean and a variance per coordinate on ≤ `MAX_FIT` rows per side and one pass over ≤
`MAX_EVAL` held-out rows per side; silent on 1-D outputs (the threshold distinguisher's case),
wider outputs than `MAX_WIDTH`, the histogram's case and outputs whose two sides share a scale.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...events import Array, as_rows, event_type, require_width
from ..base import Candidates
from ..registry import DEFAULT, FITTED, distinguisher
from .fitted import (
    HISTOGRAM_BINS,
    Floats,
    guarded_propose,
    split_half,
    statistic_candidates,
    usable_columns,
)

__all__ = [
    "EVIDENCE",
    "MAX_EVAL",
    "MAX_FIT",
    "MAX_WIDTH",
    "VAR_FLOOR",
    "QuadraticDistinguisher",
    "QuadraticEvent",
    "fit_quadratic",
    "quadratic_llr",
]

MAX_WIDTH = 16
"""Widest output (non-constant coordinates) the discriminant is fitted on."""
MAX_FIT = 10_000
"""Rows per side the means and variances are fitted on."""
MAX_EVAL = 50_000
"""Held-out rows per side its thresholds are counted on (rescaled to the selection size)."""
EVIDENCE = 4.0
"""Some coordinate's variances must differ by more than this many standard errors."""
VAR_FLOOR = 1e-6
"""Each fitted variance is at least this fraction of its coordinate's pooled variance."""


@event_type("quadratic-llr")
@dataclass(frozen=True, slots=True, kw_only=True)
class QuadraticEvent:
    """{Λ ≥ threshold} (upper) or {Λ ≤ threshold}, Λ(x) = log N(x; μ_b, σ_b²) − log N(x; μ_a, σ_a²)
    over `columns` (diagonal Gaussians)."""

    columns: tuple[int, ...]
    mean_a: tuple[float, ...]
    var_a: tuple[float, ...]
    mean_b: tuple[float, ...]
    var_b: tuple[float, ...]
    threshold: float
    upper: bool

    def evaluate(self, outputs: Array) -> Floats:
        rows = as_rows(outputs)
        require_width(rows, max(self.columns, default=-1) + 1, "the quadratic event")
        return quadratic_llr(rows, self)

    def indicator(self, outputs: Array) -> np.ndarray[Any, np.dtype[np.bool_]]:
        s = self.evaluate(outputs)
        return s >= self.threshold if self.upper else s <= self.threshold

    def describe(self) -> str:
        ratio = np.sqrt(np.asarray(self.var_b) / np.asarray(self.var_a))
        return (
            f"quadratic-llr(x) {'≥' if self.upper else '≤'} {self.threshold:.6g} "
            f"[{len(self.columns)} coordinates, σ̂_b/σ̂_a in {float(ratio.min()):.3g}–{float(ratio.max()):.3g}]"
        )

    def to_spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {"type": "quadratic-llr"}
        for k in _FIELDS:
            v = getattr(self, k)
            spec[k] = list(v) if isinstance(v, tuple) else v
        return spec

    @staticmethod
    def from_spec(spec: dict[str, Any]) -> QuadraticEvent:
        return QuadraticEvent(
            columns=tuple(int(x) for x in spec["columns"]),
            mean_a=tuple(float(x) for x in spec["mean_a"]),
            var_a=tuple(float(x) for x in spec["var_a"]),
            mean_b=tuple(float(x) for x in spec["mean_b"]),
            var_b=tuple(float(x) for x in spec["var_b"]),
            threshold=float(spec["threshold"]),
            upper=bool(spec["upper"]),
        )


_FIELDS = ("columns", "mean_a", "var_a", "mean_b", "var_b", "threshold", "upper")


def quadratic_llr(rows: Floats, m: QuadraticEvent) -> Floats:
    """Λ per row: Σ_j ½[log σ²_a,j − log σ²_b,j + (x_j − μ_a,j)²/σ²_a,j − (x_j − μ_b,j)²/σ²_b,j]."""
    x = rows[:, np.asarray(m.columns, dtype=np.intp)]
    va, vb = np.asarray(m.var_a), np.asarray(m.var_b)
    za = (x - np.asarray(m.mean_a)) ** 2 / va
    zb = (x - np.asarray(m.mean_b)) ** 2 / vb
    const = float(np.sum(np.log(va) - np.log(vb)))
    return np.asarray(0.5 * (const + (za - zb).sum(axis=1)), dtype=np.float64)


def fit_quadratic(a: Floats, b: Floats, *, max_width: int = MAX_WIDTH) -> QuadraticEvent | None:
    """The diagonal-Gaussian discriminant of fit rows `a`, `b` as an event with threshold 0 (the
    threshold is set by the candidates); None when wider than `max_width` usable coordinates, or
    when no coordinate's variances differ by `EVIDENCE` standard errors (module docstring)."""
    cols = usable_columns(np.concatenate([a, b]))
    if cols.size == 0 or cols.size > max_width:
        return None
    xa, xb = a[:, cols], b[:, cols]
    pooled = np.concatenate([xa, xb]).var(axis=0)
    floor = np.maximum(VAR_FLOOR * pooled, np.finfo(np.float64).tiny)
    ma, mb = xa.mean(axis=0), xb.mean(axis=0)
    va, vb = xa.var(axis=0), xb.var(axis=0)
    # standard error of var(a) − var(b) per coordinate, from the squares (any tails)
    se = np.sqrt(((xa - ma) ** 2).var(axis=0) / xa.shape[0] + ((xb - mb) ** 2).var(axis=0) / xb.shape[0])
    if not np.any(np.abs(va - vb) > EVIDENCE * se):
        return None
    va, vb = np.maximum(va, floor), np.maximum(vb, floor)
    if not all(math.isfinite(float(v)) for v in (*ma, *mb, *va, *vb)):
        return None
    return QuadraticEvent(
        columns=tuple(int(c) for c in cols),
        mean_a=tuple(float(x) for x in ma),
        var_a=tuple(float(x) for x in va),
        mean_b=tuple(float(x) for x in mb),
        var_b=tuple(float(x) for x in vb),
        threshold=0.0,
        upper=True,
    )


@dataclass(frozen=True, slots=True)
class _ModelStatistic:
    """A fitted discriminant as a threshold statistic (`fitted.ThresholdStatistic`)."""

    model: QuadraticEvent

    def apply(self, rows: Floats) -> Floats:
        return quadratic_llr(rows, self.model)

    def event(self, threshold: float, upper: bool) -> QuadraticEvent:
        return dataclasses.replace(self.model, threshold=float(threshold), upper=bool(upper))


@distinguisher(
    cost=FITTED,
    event_types=("quadratic-llr",),
    sets=(DEFAULT,),
    rank=70,
    fits=True,
    instances=lambda: (QuadraticDistinguisher(skip_if_distinct_at_most=HISTOGRAM_BINS),),
)
@dataclass(frozen=True, slots=True)
class QuadraticDistinguisher:
    """Threshold events on the learned diagonal-Gaussian log-likelihood ratio (module docstring);
    None for 1-D outputs, outputs wider than `max_width`, the histogram's case, or no change of
    scale between the sides."""

    name: str = "quadratic-llr"
    grid: int = 1024
    tails: int = 256
    max_fit: int = MAX_FIT
    max_eval: int = MAX_EVAL
    max_width: int = MAX_WIDTH
    skip_if_distinct_at_most: int = 0

    def propose(self, a: Floats, b: Floats) -> Candidates | None:
        return guarded_propose(self._propose, a, b, skip_if_distinct_at_most=self.skip_if_distinct_at_most)

    def _propose(self, a: Floats, b: Floats) -> Candidates | None:
        if a.shape[1] > 4 * self.max_width:  # cheap early exit before the column screen
            return None
        (fit_a, eval_a), (fit_b, eval_b) = split_half(a), split_half(b)
        model = fit_quadratic(fit_a[: self.max_fit], fit_b[: self.max_fit], max_width=self.max_width)
        if model is None:
            return None
        eval_a, eval_b = eval_a[: self.max_eval], eval_b[: self.max_eval]
        return statistic_candidates(
            [_ModelStatistic(model)],
            eval_a,
            eval_b,
            total_a=a.shape[0],
            total_b=b.shape[0],
            grid=self.grid,
            tails=self.tails,
        )
