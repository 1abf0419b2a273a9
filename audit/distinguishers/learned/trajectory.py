"""Learned likelihood-ratio statistics for training trajectories (issue 35, item 2).

`MixtureLLR` (`mechanisms/dpsgd/statistic.py`) is the Neyman–Pearson statistic of a gradient
canary seen through every DP-SGD update: each step's update projected on the canary's direction is
N(0, τ²) without the canary and the inclusion mixture (1 − q)·N(0, τ²) + q·N(s, τ²) with it
(Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini & Terzis, "Tight Auditing of
Differentially Private Machine Learning", USENIX Security 2023, Section 4). A user who brings their
own loop knows neither the canary's direction, the noise τ, the shift s nor the rate q.
`TrajectoryDistinguisher` learns them on the selection split:

1. *Structure.* An output row of width W is read as T = W / d blocks of d coordinates, for every
   d ≤ `MAX_BLOCK` dividing W with T ≥ `MIN_STEPS`, either as the T updates themselves ("updates") or as
   T iterates whose consecutive differences are the updates ("iterates": θ_1 − 0, θ_2 − θ_1, …).
2. *Direction.* v = the mean over steps of the two sides' mean update difference, normalised.
3. *Per-step Gaussian model.* y_t = v·u_t. The side whose projected updates vary less is the
   side without the canary: its per-step means m_t and pooled variance τ² are the base. On the
   other side the residuals r_t = y_t − m_t have mean q·s and variance τ² + q(1 − q)s² under
   the inclusion mixture, so (method of moments) s = Δμ + Δσ²/Δμ and q = Δμ / s; without excess
   variance (Δσ² under `EVIDENCE` standard errors) the model is a Gaussian shift (q = 1, s = Δμ).
4. *Statistic.* Λ(x) = Σ_t log[(1 − q) + q·exp((s·r_t − s²/2)/τ²)], the log-likelihood ratio of
   the fitted models (`TrajectoryEvent.statistic`); events {Λ ≥ t} and {Λ ≤ t}.
5. *One model.* Every structure's model (and the state-dependent one of `state_trajectory`, where
   fitted) is applied to the held-out half, and only the one whose Λ separates the sides most
   (standardised mean difference) proposes thresholds. Sixteen models' thresholds competing on
   the selection split let a misread structure win by selection noise: the README's logistic loop
   on a 20-record saturating pair certified ε(10⁻²) ≥ 0.794 through 40 steps × 1 coordinate where
   20 × 2 (the loop's structure, chosen by this rule) certifies 0.968.

Validity. The model is fitted on the first half of the selection split (at most `MAX_FIT` rows per
side), chosen and its threshold candidates counted on the other half, rescaled to the full selection
size as the logistic statistic's are (`learned.fitted`); the runner certifies the chosen event on
fresh samples. A wrong model (no such structure, a gradient that changes along the trajectory)
costs power only: any fixed event certified on fresh samples is a valid witness.
Cost: applicable to vector outputs that are not the histogram's case; at most `MAX_STRUCTURES`
structures are fitted on ≤ `MAX_FIT` rows per side, and only those with a fitted inclusion mixture
(q̂ < 1; a plain shift is linear in the outputs, the projections' case) are evaluated, on ≤
`MAX_EVAL` held-out rows per side.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...events import Array, Event, as_rows, event_type, require_width
from ..base import Candidates
from ..registry import DEFAULT, FITTED, distinguisher
from .fitted import (
    HISTOGRAM_BINS,
    Floats,
    ThresholdStatistic,
    guarded_propose,
    split_half,
    statistic_candidates,
)
from .state_trajectory import StateStatistic, fit_state_projected
from .steps import (
    EVIDENCE,
    MAX_BLOCK,
    MAX_STRUCTURES,
    Sides,
    mixture_log,
    projected_sides,
    structures,
    updates,
    variance_se,
)

__all__ = [
    "MAX_BLOCK",
    "MAX_FIT",
    "MAX_STRUCTURES",
    "TrajectoryDistinguisher",
    "TrajectoryEvent",
    "structures",
]

MAX_FIT = 10_000
"""Rows per side the model is fitted on (the whole fit half of a 2·10⁴-row selection split: on
the README's DP-SGD loop blind at 2·10⁵ runs per side, 5,000 rows certified ε(10⁻²) 0.968, 1.024,
0.823, 0.908 at seeds 0–3 and 10,000 rows 0.965, 1.016, 1.023, 1.028, the state model's eight
bins being better estimated)."""
MAX_EVAL = 50_000
"""Held-out rows per side its thresholds are counted on (rescaled to the selection size)."""


@event_type("trajectory-llr")
@dataclass(frozen=True, slots=True, kw_only=True)
class TrajectoryEvent:
    """{Λ ≥ threshold} (upper) or {Λ ≤ threshold}, Λ the fitted mixture log-likelihood ratio."""

    block: int
    iterates: bool
    direction: tuple[float, ...]
    means: tuple[float, ...]
    rate: float
    shift: float
    noise_sd: float
    threshold: float
    upper: bool

    def evaluate(self, outputs: Array) -> Floats:
        rows = as_rows(outputs)
        require_width(rows, self.block * len(self.means), "the trajectory event")
        return llr(rows[:, : self.block * len(self.means)], self)

    def indicator(self, outputs: Array) -> np.ndarray[Any, np.dtype[np.bool_]]:
        s = self.evaluate(outputs)
        return s >= self.threshold if self.upper else s <= self.threshold

    def describe(self) -> str:
        how = "iterate differences" if self.iterates else "updates"
        return (
            f"trajectory-llr(x) {'≥' if self.upper else '≤'} {self.threshold:.6g} "
            f"[{len(self.means)} steps × {self.block} of {how}, q̂ = {self.rate:.3g}, "
            f"ŝ = {self.shift:.3g}, τ̂ = {self.noise_sd:.3g}]"
        )

    def to_spec(self) -> dict[str, Any]:
        return {"type": "trajectory-llr", **{k: getattr(self, k) for k in _FIELDS}}

    @staticmethod
    def from_spec(spec: dict[str, Any]) -> TrajectoryEvent:
        return TrajectoryEvent(
            block=int(spec["block"]),
            iterates=bool(spec["iterates"]),
            direction=tuple(float(x) for x in spec["direction"]),
            means=tuple(float(x) for x in spec["means"]),
            rate=float(spec["rate"]),
            shift=float(spec["shift"]),
            noise_sd=float(spec["noise_sd"]),
            threshold=float(spec["threshold"]),
            upper=bool(spec["upper"]),
        )


_FIELDS = ("block", "iterates", "direction", "means", "rate", "shift", "noise_sd", "threshold", "upper")


def llr(rows: Floats, m: TrajectoryEvent) -> Floats:
    """Λ per row: Σ_t log[(1 − q) + q·exp((s·r_t − s²/2)/τ²)], r_t = v·u_t − m_t."""
    r = updates(rows, m.block, m.iterates) @ np.asarray(m.direction) - np.asarray(m.means)
    return mixture_log((m.shift * r - 0.5 * m.shift * m.shift) / (m.noise_sd * m.noise_sd), m.rate)


def fit_model(a: Floats, b: Floats, d: int, iterates: bool) -> TrajectoryEvent | None:
    """The per-step Gaussian / inclusion-mixture model of one structure (module docstring), as
    an event with threshold 0 (the threshold is set by the candidates); None if degenerate."""
    return fit_projected(projected_sides(a, b, d, iterates), d, iterates)


def fit_projected(sides: Sides | None, d: int, iterates: bool) -> TrajectoryEvent | None:
    """`fit_model` on the structure's projected sides (`steps.projected_sides`, computed once for
    this model and the state model)."""
    if sides is None:
        return None
    v, ya, yb = sides
    if ya.var() < yb.var():  # the base (no canary) side varies less
        ya, yb = yb, ya
    means = yb.mean(axis=0)
    tau2 = float((yb - means).var())
    ra = ya - means
    dmu, dvar = float(ra.mean()), float(ra.var()) - tau2
    if tau2 <= 0.0 or dmu == 0.0 or not math.isfinite(dmu + dvar):
        return None
    shift, rate = dmu, 1.0
    if dvar > EVIDENCE * variance_se(ra, yb - means):
        shift = dmu + dvar / dmu
        rate = min(1.0, max(1e-6, dmu / shift))
    return TrajectoryEvent(
        block=d,
        iterates=iterates,
        direction=tuple(float(x) for x in v),
        means=tuple(float(x) for x in means),
        rate=rate,
        shift=shift,
        noise_sd=math.sqrt(tau2),
        threshold=0.0,
        upper=True,
    )


@distinguisher(
    cost=FITTED,
    event_types=("trajectory-llr", "state-trajectory-llr"),
    sets=(DEFAULT,),
    rank=50,
    fits=True,
    instances=lambda: (TrajectoryDistinguisher(skip_if_distinct_at_most=HISTOGRAM_BINS),),
)
@dataclass(frozen=True, slots=True)
class TrajectoryDistinguisher:
    """Threshold events on the learned mixture log-likelihood ratio of a trajectory (module
    docstring); None for 1-D outputs, the histogram's case, or no usable structure."""

    name: str = "trajectory-llr"
    grid: int = 1024
    tails: int = 256
    max_fit: int = MAX_FIT
    max_eval: int = MAX_EVAL
    skip_if_distinct_at_most: int = 0

    def propose(self, a: Floats, b: Floats) -> Candidates | None:
        return guarded_propose(self._propose, a, b, skip_if_distinct_at_most=self.skip_if_distinct_at_most)

    def _propose(self, a: Floats, b: Floats) -> Candidates | None:
        (fit_a, eval_a), (fit_b, eval_b) = split_half(a), split_half(b)
        fit_a, fit_b = fit_a[: self.max_fit], fit_b[: self.max_fit]
        shapes = structures(a.shape[1])
        sides = [projected_sides(fit_a, fit_b, d, it) for d, it in shapes]
        models = [fit_projected(s, d, it) for s, (d, it) in zip(sides, shapes, strict=True)]
        # a plain shift (q̂ = 1) is linear in the outputs: the projections' case, not evaluated
        statistics: list[ThresholdStatistic] = [
            _ModelStatistic(m) for m in models if m is not None and m.rate < 1.0
        ]
        states = [fit_state_projected(s, d, it) for s, (d, it) in zip(sides, shapes, strict=True)]
        statistics += [StateStatistic(m) for m in states if m is not None]
        eval_a, eval_b = eval_a[: self.max_eval], eval_b[: self.max_eval]
        best = most_separating(statistics, eval_a, eval_b)
        if best is None:
            return None
        return statistic_candidates(
            [best],
            eval_a,
            eval_b,
            total_a=a.shape[0],
            total_b=b.shape[0],
            grid=self.grid,
            tails=self.tails,
        )


def most_separating(
    statistics: list[ThresholdStatistic], eval_a: Floats, eval_b: Floats
) -> ThresholdStatistic | None:
    """The statistic whose values on the held-out rows separate the sides most: the largest
    |mean_a − mean_b| / √((var_a + var_b)/2) of Λ (None if none is finite). Only that model's
    thresholds become candidates (module docstring, step 5)."""
    best, best_sep = None, -math.inf
    for sc in statistics:
        sa, sb = sc.apply(eval_a), sc.apply(eval_b)
        spread = math.sqrt(0.5 * (float(sa.var()) + float(sb.var())))
        sep = abs(float(sa.mean()) - float(sb.mean())) / spread if spread > 0 else -math.inf
        if math.isfinite(sep) and sep > best_sep:
            best, best_sep = sc, sep
    return best


@dataclass(frozen=True, slots=True)
class _ModelStatistic:
    """A fitted trajectory model as a threshold statistic: its log-likelihood ratio Λ."""

    model: TrajectoryEvent

    def apply(self, rows: Floats) -> Floats:
        return llr(rows, self.model)

    def event(self, threshold: float, upper: bool) -> Event:
        return dataclasses.replace(self.model, threshold=threshold, upper=upper)
