"""Magnitude events for heavy-tailed outputs: tails of log |x_j|, of max_j |x_j| and of min_j |x_j|.

A fit that diverges on one dataset (a regression whose design is degenerate there, so its
coefficient is a ratio with a noise-dominated denominator: noise / noise) releases a heavy-tailed
value of either sign that is almost never near zero; the neighbour's fit releases ordinary noise
centred at zero. The one-sided tails {x_j ≥ t}, {x_j ≤ t} of `ThresholdDistinguisher` see two
distributions of much the same sign balance and tail mass; what separates them is the
*magnitude*: {|x_j| ≤ t} (near zero: almost never on the diverging side) and {|x_j| ≥ t}
(both heavy tails at once), and over a vector max_j |x_j| ≥ t (some coefficient blew up) and
min_j |x_j| ≤ t (some coefficient near zero). None of these is a one-sided threshold of a
coordinate, and on a heavy-tailed coordinate the learned statistics' fits are dominated by its
outliers.

`MagnitudeDistinguisher` proposes both tails of each statistic s = log max(|x|, `TINY`) on the
quantile grid of `ThresholdDistinguisher` (log scale, so the grid resolves both the tails and the
neighbourhood of zero of a heavy-tailed output; a threshold on s is a threshold on |x|). Only on
heavy-tailed coordinates where a sign is dropped: a coordinate is proposed when its pooled
selection values take both signs (else |x_j| is monotone in x_j and its events are the threshold
events already proposed) and, on at least one side, the 99th percentile of |x_j − median|
exceeds `HEAVY_RATIO` interquartile ranges (Gaussian 1.9, Laplace 3.3, Student t₂ 6.1, Cauchy 32,
1/Z for a standard normal Z 27); max/min are proposed for vector outputs with such a coordinate.
So light-tailed outputs (every textbook mechanism, DP-SGD's iterates) get no extra candidate and
keep their events and numbers. Silent, like the learned statistics, when the histogram applies (few
distinct outputs: every event is then a set of values the histogram ranks). Whether to propose
is decided on the selection split too.

Validity: as for every distinguisher, the event is chosen on the selection split only and
certified on fresh samples (Clopper–Pearson); a magnitude event is a fixed measurable set, for
which (ε, δ)-DP bounds P[M(D) ∈ S] ≤ e^ε P[M(D′) ∈ S] + δ.

One file of the distinguisher wing: `@distinguisher(cost=CHEAP, sets=(DEFAULT,), rank=28)` puts it
in the default set (after the histogram and thresholds, before the learned statistics), in the base
set and in the search's pilot (cheap: no fitting).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..events import Array, Event, as_rows, event_type, require_width
from .base import Candidates, HistogramDistinguisher, few_distinct, tail_candidates
from .registry import CHEAP, DEFAULT, distinguisher

__all__ = ["MagnitudeDistinguisher", "MagnitudeEvent"]

TINY = 1e-300
"""|x| below this (an exact zero included) counts as TINY: log |x| stays finite."""
HEAVY_RATIO = 8.0
"""A coordinate is heavy-tailed on a side when its 99th percentile of |x − median| exceeds this
many interquartile ranges (module docstring)."""
REDUCTIONS = ("max", "min")
MIN_REPEATS = 100
"""The histogram's case: at most `max_bins` distinct rows, each seen this often on average (the
rule of the learned statistics, `learned.fitted.few_distinct`)."""


def log_magnitude(
    rows: NDArray[np.float64], *, coordinate: int | None, reduce: str | None
) -> NDArray[np.float64]:
    """log max(|x|, TINY) of one coordinate, or of the max / min of |x_j| over a row's coordinates."""
    mag = np.abs(rows)
    if reduce == "max":
        s = mag.max(axis=1)
    elif reduce == "min":
        s = mag.min(axis=1)
    else:
        s = mag[:, coordinate or 0]
    return np.log(np.maximum(s, TINY))


@event_type("magnitude")
@dataclass(frozen=True, slots=True)
class MagnitudeEvent:
    """{log |s(x)| ≥ t} or {log |s(x)| ≤ t}: s one coordinate (`coordinate`) or the max / min of
    |x_j| over the row (`reduce`); `threshold` t is on the log scale."""

    threshold: float
    upper: bool
    coordinate: int | None = None
    reduce: str | None = None

    def indicator(self, outputs: Array) -> NDArray[np.bool_]:
        rows = as_rows(outputs)
        if self.reduce is None:
            require_width(rows, (self.coordinate or 0) + 1, f"coordinate {self.coordinate or 0}")
        s = log_magnitude(rows, coordinate=self.coordinate, reduce=self.reduce)
        return s >= self.threshold if self.upper else s <= self.threshold

    def to_spec(self) -> dict[str, Any]:
        return {
            "type": "magnitude",
            "threshold": self.threshold,
            "upper": self.upper,
            "coordinate": self.coordinate,
            "reduce": self.reduce,
        }

    def describe(self) -> str:
        if self.reduce is not None:
            what = f"{self.reduce}_j |x_j|"
        else:
            what = f"|x[{self.coordinate}]|" if self.coordinate else "|x|"
        bound = f"{math.exp(self.threshold):.4g}" if self.threshold > math.log(TINY) else "0"
        near = " (near zero)" if not self.upper else ""
        return f"{what} {'≥' if self.upper else '≤'} {bound}{near}"

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> MagnitudeEvent:
        coordinate = spec.get("coordinate")
        reduce = spec.get("reduce")
        return cls(
            threshold=float(spec["threshold"]),
            upper=bool(spec["upper"]),
            coordinate=None if coordinate is None else int(coordinate),
            reduce=None if reduce is None else str(reduce),
        )


@distinguisher(cost=CHEAP, event_types=("magnitude",), sets=(DEFAULT,), rank=28)
@dataclass(frozen=True, slots=True)
class MagnitudeDistinguisher:
    """Both tails of log |x_j| per two-signed coordinate, and of max_j / min_j |x_j| (module
    docstring); grid and tails as `ThresholdDistinguisher`'s."""

    name: str = "magnitude"
    grid: int = 2048
    tails: int = 256
    max_coordinates: int = 64
    max_bins: int = HistogramDistinguisher().max_bins

    def propose(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Candidates | None:
        d = min(a.shape[1], self.max_coordinates)
        signed = np.flatnonzero(_two_signed(a[:, :d], b[:, :d]))
        both = [int(j) for j in signed[_heavy(a[:, signed], b[:, signed])]] if signed.size else []
        if not both or few_distinct(a, b, limit=self.max_bins, repeats=MIN_REPEATS):
            return None
        keys: list[tuple[int | None, str | None]] = [(j, None) for j in both]
        if a.shape[1] > 1:
            keys += [(None, r) for r in REDUCTIONS]
        stats = [
            (log_magnitude(a, coordinate=j, reduce=r), log_magnitude(b, coordinate=j, reduce=r))
            for j, r in keys
        ]

        def make(k: int, t: float, upper: bool) -> Event:
            j, r = keys[k]
            return MagnitudeEvent(threshold=t, upper=upper, coordinate=j, reduce=r)

        return tail_candidates(stats, make, grid=self.grid, tails=self.tails)


def _two_signed(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Per column: whether the pooled values take both signs (|x| then drops information x's
    tails keep)."""
    negative = np.minimum(a.min(axis=0, initial=0.0), b.min(axis=0, initial=0.0)) < 0.0
    if not negative.any():  # most outputs (counts, codes, indices): the maxima are not needed
        return negative
    return negative & (np.maximum(a.max(axis=0, initial=0.0), b.max(axis=0, initial=0.0)) > 0.0)


def _heavy(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Per column: whether either side's values are heavy-tailed (`HEAVY_RATIO`); all columns at
    once (numpy's quantiles along an axis are the per-column quantiles, bit for bit)."""
    heavy = np.zeros(a.shape[1], dtype=bool)
    for x in (a, b):
        if x.shape[0] < 8:
            continue
        q1, med, q3 = np.quantile(x, (0.25, 0.5, 0.75), axis=0)
        far = np.quantile(np.abs(x - med), 0.99, axis=0)
        heavy |= far > HEAVY_RATIO * (q3 - q1)
    return heavy
