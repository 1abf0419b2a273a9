"""A state-dependent learned likelihood ratio for training trajectories (issue 35, item 2).

`trajectory` fits one shift per run: each step's projected update is the base side's per-step
mean plus, with probability q, a constant shift s. In a real training loop the shift is the
record's clipped gradient at the current parameters, so it changes along the trajectory: a
mislabelled logistic-regression record is clipped to C until the model starts to fit it, then its
gradient decays; records of the rest move the base side's mean as θ moves. All-iterates DP-SGD is
a Markov chain, u_t | θ_t ~ N(g_rest(θ_t) + B_t·g(θ_t), σ²) with B_t ~ Bernoulli(q), and θ_t is a
function of the released past (θ_t = θ_0 − η·Σ_{j<t} u_j). So the statistic conditions on it:

1. *Structure and direction* as in `trajectory`: blocks of d coordinates read as updates or as
   iterate differences; v = the mean over steps of the two sides' mean update difference.
2. *State.* y_t = v·u_t, and the state z_t = Σ_{j<t} y_j (θ_t projected on v, up to −η).
3. *Binned conditional model.* The pooled states are cut at `BINS` quantiles. In each bin the
   base side (the one whose projected updates vary less) gives a mean m_b and a variance τ_b²;
   the other side's differences Δμ_b, Δσ²_b give the inclusion mixture's shift by the method of
   moments, φ_b = Δμ_b + Δσ²_b / Δμ_b, and a rate Δμ_b / φ_b. One rate q is pooled over bins
   (weights n_b·Δμ_b², clipped to [`MIN_RATE`, 1]) and the shift per bin is s_b = Δμ_b / q.
   m, τ², s are interpolated linearly in z between the bins' median states. Fitted only when the
   shift or the base mean differs between bins (a χ² test of homogeneity): a stationary loop is
   the constant-shift model's, with fewer parameters.
4. *Statistic.* Λ(x) = Σ_t log[(1 − q) + q·exp((s(z_t)·r_t − s(z_t)²/2)/τ²(z_t))],
   r_t = y_t − m(z_t): `MixtureLLR`'s form with the canary's shift, the rest's drift and the noise
   read from the state. Events {Λ ≥ t} and {Λ ≤ t}.

Validity is `trajectory`'s: the model is fitted on the first half of the selection split, its
thresholds counted on the other half, the chosen event certified on fresh samples; a wrong model
(no Markov structure, a state the projection does not capture) costs power only.
Measured on the README's DP-SGD loop (benchmarks/README.md, "Blind DP-SGD loops"): on one
record at the high corner the constant-shift model's held-out ε(10⁻²) is 0.41 against a true
0.70, this one's 0.66; with per-coordinate clipping 0.96 and 1.63 against a true 1.63.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import chi2

from ...events import Array, Event, as_rows, event_type, require_width
from .fitted import Floats
from .steps import (
    EVIDENCE,
    Sides,
    mixture_log,
    projected_sides,
    projected_updates,
    variance_se,
)

__all__ = [
    "BINS",
    "StateStatistic",
    "StateTrajectoryEvent",
    "fit_state_model",
    "fit_state_projected",
    "state_dependent",
    "state_llr",
]

BINS = 8
"""Quantile bins of the state the conditional model is fitted in."""
MIN_PER_BIN = 50
"""Fewest step-samples per side for a bin to enter the model."""
MIN_RATE = 1e-4
"""Smallest inclusion rate the pooled estimate is clipped to."""
_KNOT, _MEAN, _VAR, _DMU, _DVAR, _N, _SE_DMU, _SE_MEAN = range(8)
"""Columns of the per-bin table (`_bin_moments`)."""
DEPENDENCE_LEVEL = 1e-4
"""Level of the χ² test that the shift or the base mean depends on the state (`state_dependent`):
steps of one run share a bin's samples, so the standard errors are optimistic; a small level
keeps stationary loops out."""


@event_type("state-trajectory-llr")
@dataclass(frozen=True, slots=True, kw_only=True)
class StateTrajectoryEvent:
    """{Λ ≥ threshold} (upper) or {Λ ≤ threshold}, Λ the state-dependent mixture log-likelihood
    ratio (module docstring); `knots` are the bins' median states, the other tuples their values."""

    block: int
    iterates: bool
    steps: int
    direction: tuple[float, ...]
    knots: tuple[float, ...]
    means: tuple[float, ...]
    variances: tuple[float, ...]
    shifts: tuple[float, ...]
    rate: float
    threshold: float
    upper: bool

    def evaluate(self, outputs: Array) -> Floats:
        rows = as_rows(outputs)
        width = self.block * self.steps
        require_width(rows, width, "the state-trajectory event")
        return state_llr(rows[:, :width], self)

    def indicator(self, outputs: Array) -> np.ndarray[Any, np.dtype[np.bool_]]:
        s = self.evaluate(outputs)
        return s >= self.threshold if self.upper else s <= self.threshold

    def describe(self) -> str:
        how = "iterate differences" if self.iterates else "updates"
        return (
            f"state-trajectory-llr(x) {'≥' if self.upper else '≤'} {self.threshold:.6g} "
            f"[{self.steps} steps × {self.block} of {how}, shift and drift in {len(self.knots)} "
            f"state bins, q̂ = {self.rate:.3g}, ŝ ∈ [{min(self.shifts):.3g}, {max(self.shifts):.3g}]]"
        )

    def to_spec(self) -> dict[str, Any]:
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {"type": "state-trajectory-llr", **fields}

    @staticmethod
    def from_spec(spec: dict[str, Any]) -> StateTrajectoryEvent:
        floats = ("direction", "knots", "means", "variances", "shifts")
        return StateTrajectoryEvent(
            block=int(spec["block"]),
            iterates=bool(spec["iterates"]),
            steps=int(spec["steps"]),
            **{k: tuple(float(x) for x in spec[k]) for k in floats},
            rate=float(spec["rate"]),
            threshold=float(spec["threshold"]),
            upper=bool(spec["upper"]),
        )


def _states(y: Floats) -> Floats:
    """z_t = Σ_{j<t} y_j per row."""
    return np.asarray(np.cumsum(y, axis=1) - y, dtype=np.float64)


def state_llr(rows: Floats, m: StateTrajectoryEvent) -> Floats:
    """Λ per row (module docstring, step 4)."""
    y = projected_updates(rows, m.block, m.iterates, np.asarray(m.direction))
    z = _states(y)
    knots = np.asarray(m.knots)
    mean, var, shift = (np.interp(z, knots, np.asarray(v)) for v in (m.means, m.variances, m.shifts))
    return mixture_log((shift * (y - mean) - 0.5 * shift * shift) / var, m.rate)


def _bin_moments(ya: Floats, yb: Floats, za: Floats, zb: Floats) -> Floats | None:
    """Per usable bin: (median state, base mean, base variance, Δμ, Δσ², n, se(Δμ), se(mean));
    None if fewer than two bins, or if the other side shows no excess variance around its bins'
    means (under `EVIDENCE` standard errors: no inclusion mixture, the logistic and projection
    statistics' case), or if neither the shift nor the base mean depends on the state
    (`state_dependent`: the constant-shift model's case)."""
    # the pooled states sorted once: their quantiles and each bin's median are those of the
    # unsorted states to the last bit (the same values, the same interpolation), at a sort's cost
    pooled = np.sort(np.concatenate([za.ravel(), zb.ravel()]))
    edges = np.quantile(pooled, np.linspace(0.0, 1.0, BINS + 1))[1:-1]
    cuts = [0, *np.searchsorted(pooled, edges, side="right").tolist(), pooled.size]  # bin j: (e_{j−1}, e_j]
    bins_a, bins_b = _binned(ya, za, edges), _binned(yb, zb, edges)
    rows, centred_a, centred_b = [], [], []
    for j, ((ra, _), (rb, _)) in enumerate(zip(bins_a, bins_b, strict=True)):
        if ra.size < MIN_PER_BIN or rb.size < MIN_PER_BIN:
            continue
        knot = float(np.median(pooled[cuts[j] : cuts[j + 1]]))
        var_a, var_b = ra.var(), rb.var()
        se_dmu, se_mean = math.sqrt(var_a / ra.size + var_b / rb.size), math.sqrt(var_b / rb.size)
        rows.append((knot, rb.mean(), var_b, ra.mean() - rb.mean(), var_a - var_b, ra.size, se_dmu, se_mean))
        centred_a.append(ra - ra.mean())
        centred_b.append(rb - rb.mean())
    table = np.asarray(rows, dtype=np.float64)
    if table.shape[0] < 2 or np.any(np.diff(table[:, _KNOT]) <= 0) or np.any(table[:, _VAR] <= 0):
        return None
    ca, cb = np.concatenate(centred_a), np.concatenate(centred_b)
    if float(ca.var() - cb.var()) <= EVIDENCE * variance_se(ca, cb):
        return None
    return table if state_dependent(table) else None


def _binned(y: Floats, z: Floats, edges: Floats) -> list[tuple[Floats, Floats]]:
    """Per bin j < `BINS` of the states z (cut at `edges`): the updates and states in it, in row-major
    order, i.e. `(y[in_j], z[in_j])` with `in_j = searchsorted(edges, z) == j` (the same arrays, so
    the same moments to the last bit), from one stable sort instead of a mask per bin."""
    j = np.searchsorted(edges, z).ravel().astype(np.uint8)  # < BINS: a stable sort is a radix sort
    order = np.argsort(j, kind="stable")
    cut = np.cumsum(np.bincount(j, minlength=BINS))[:-1]
    return list(zip(np.split(y.ravel()[order], cut), np.split(z.ravel()[order], cut), strict=True))


def state_dependent(table: Floats) -> bool:
    """True when the bins' shifts Δμ_b or base means m_b differ more than their standard errors
    allow (a χ² test of homogeneity at level `DEPENDENCE_LEVEL`, either quantity): a stationary
    loop (the shift the same at every state) is the constant-shift model's, which fits it with
    fewer parameters."""
    for col, se_col in ((_DMU, _SE_DMU), (_MEAN, _SE_MEAN)):
        value, se = table[:, col], np.maximum(table[:, se_col], 1e-300)
        w = 1.0 / se**2
        centre = float(np.sum(w * value) / np.sum(w))
        q = float(np.sum(w * (value - centre) ** 2))
        if chi2.sf(q, table.shape[0] - 1) < DEPENDENCE_LEVEL:
            return True
    return False


def _pooled_rate(dmu: Floats, dvar: Floats, n: Floats) -> float | None:
    """One inclusion rate from the bins' method-of-moments rates Δμ/φ (module docstring, step 3)."""
    usable = dmu != 0.0
    if not usable.any():
        return None
    phi = dmu[usable] + dvar[usable] / dmu[usable]
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = np.clip(np.where(phi != 0.0, dmu[usable] / phi, 1.0), 0.0, 1.0)
    weights = n[usable] * dmu[usable] ** 2
    rate = float(np.average(rates, weights=weights)) if weights.sum() > 0 else 1.0
    return min(1.0, max(MIN_RATE, rate)) if math.isfinite(rate) else None


def fit_state_model(a: Floats, b: Floats, d: int, iterates: bool) -> StateTrajectoryEvent | None:
    """The binned conditional model of one structure (module docstring), as an event with
    threshold 0 (the threshold is set by the candidates); None if degenerate."""
    return fit_state_projected(projected_sides(a, b, d, iterates), d, iterates)


def fit_state_projected(sides: Sides | None, d: int, iterates: bool) -> StateTrajectoryEvent | None:
    """`fit_state_model` on the structure's projected sides (`steps.projected_sides`)."""
    if sides is None:
        return None
    v, ya, yb = sides
    if ya.var() < yb.var():  # the base side varies less
        ya, yb = yb, ya
    table = _bin_moments(ya, yb, _states(ya), _states(yb))
    if table is None:
        return None
    knots, means, variances, dmu, dvar, n = table.T[_KNOT : _N + 1]
    rate = _pooled_rate(dmu, dvar, n)
    if rate is None or not np.all(np.isfinite(table)):
        return None
    return StateTrajectoryEvent(
        block=d,
        iterates=iterates,
        steps=ya.shape[1],
        direction=tuple(float(x) for x in v),
        knots=tuple(float(x) for x in knots),
        means=tuple(float(x) for x in means),
        variances=tuple(float(x) for x in variances),
        shifts=tuple(float(x) for x in dmu / rate),
        rate=rate,
        threshold=0.0,
        upper=True,
    )


@dataclass(frozen=True, slots=True)
class StateStatistic:
    """A fitted state model as a threshold statistic (`learned.fitted.ThresholdStatistic`)."""

    model: StateTrajectoryEvent

    def apply(self, rows: Floats) -> Floats:
        return state_llr(rows, self.model)

    def event(self, threshold: float, upper: bool) -> Event:
        return dataclasses.replace(self.model, threshold=threshold, upper=upper)
