"""Events on a mechanism's own scalar statistics: the Neyman–Pearson distinguisher.

A mechanism may declare `statistics`: scalar functions of one output row that it knows to be
(close to) its likelihood ratio between the two sides of its worst-case pairs, e.g. the DP-SGD
family's `MixtureLLR` (the sum of per-step log-likelihood ratios of the gradient canary, Nasr et
al., "Tight Auditing of Differentially Private Machine Learning", USENIX Security 2023). By the
Neyman–Pearson lemma the tails {Λ ≥ t} are then the most powerful events at every size, which is
what lets an audit reach an accountant's ε(δ) rather than a generic learned statistic's.

`StatisticDistinguisher` proposes both tails of each statistic on the threshold grid of
`estimators_base.ThresholdDistinguisher`; like every distinguisher it only proposes: the event is
chosen on the selection split and certified on fresh samples, so a statistic that is not the
likelihood ratio (a wrong model, a pair it was not built for) costs power, never validity. It
needs no fitting, so the search's pilot uses it too. `StatisticEvent` serialises with its
statistic's spec (`mechanisms/statistics.py` names the family that rebuilds it; the engine imports
no family), so checkpoints, results and baselines keep it.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from ...mechanisms.statistics import statistic_from_spec
from ..events import Array, EventShapeError, event_type
from .base import Candidates, tail_candidates
from .registry import CHEAP, distinguisher


class Statistic(Protocol):
    """A scalar function of an output row, declared by the mechanism."""

    @property
    def name(self) -> str: ...

    def evaluate(self, outputs: NDArray[Any]) -> NDArray[np.float64]: ...

    def to_spec(self) -> dict[str, Any]: ...


def evaluate(statistic: Statistic, outputs: NDArray[Any]) -> NDArray[np.float64]:
    """The statistic on each row of `outputs`. A statistic written before issue 43 names its method
    `score` (the legacy name): it is still called, with a DeprecationWarning (one release)."""
    method = getattr(statistic, "evaluate", None)
    if method is None:
        warnings.warn(
            f"statistic {statistic.name!r}: rename its method score to evaluate (legacy name, issue 43)",
            DeprecationWarning,
            stacklevel=3,
        )
        method = statistic.score  # type: ignore[attr-defined]  # legacy method name
    return np.asarray(method(outputs), dtype=np.float64)


def statistics_of(mechanism: Any) -> tuple[Statistic, ...]:
    """The mechanism's declared `statistics` (empty when it declares none)."""
    return tuple(getattr(mechanism, "statistics", ()) or ())


@event_type("statistic")
@dataclass(frozen=True, slots=True)
class StatisticEvent:
    """{Λ(x) ≥ t} or {Λ(x) ≤ t} for a declared statistic Λ."""

    statistic: Statistic
    threshold: float
    upper: bool

    def indicator(self, outputs: Array) -> NDArray[np.bool_]:
        s = _cached_values(self.statistic, outputs)
        return s >= self.threshold if self.upper else s <= self.threshold

    def to_spec(self) -> dict[str, Any]:
        return {
            "type": "statistic",
            "statistic": self.statistic.to_spec(),
            "threshold": self.threshold,
            "upper": self.upper,
        }

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> StatisticEvent:
        statistic: Statistic = statistic_from_spec(spec["statistic"])
        return cls(statistic, float(spec["threshold"]), bool(spec["upper"]))

    def describe(self) -> str:
        return f"Λ[{self.statistic.name}] {'≥' if self.upper else '≤'} {self.threshold:.6g}"


_LAST = threading.local()
"""Per thread: the last (outputs, fingerprint, statistic, values) evaluated. A chunk is counted
against every event of a pair (profile tests, adaptive top-k), so the statistic is evaluated once
per chunk. The cache holds the outputs array itself, so identity (`is`) cannot match another
array; the engine never writes into a chunk's outputs, and the fingerprint (shape, first and last
row) guards against a caller that rewrites one array in place between two events."""


def _fingerprint(outputs: NDArray[Any]) -> tuple[object, ...]:
    if outputs.size == 0:
        return (outputs.shape,)
    return (outputs.shape, outputs[0].tobytes(), outputs[-1].tobytes())


def _cached_values(statistic: Statistic, outputs: Array) -> NDArray[np.float64]:
    arr = np.asarray(outputs)
    last = getattr(_LAST, "entry", None)
    if last is not None and last[0] is arr and last[2] == statistic and last[1] == _fingerprint(arr):
        return last[3]
    try:
        values = evaluate(statistic, arr)
    except ValueError as exc:  # outputs of another width than the statistic's
        raise EventShapeError(str(exc)) from exc
    _LAST.entry = (arr, _fingerprint(arr), statistic, values)
    return values


@distinguisher(cost=CHEAP, event_types=("statistic",), instances=tuple)  # per mechanism: `with_statistics`
@dataclass(frozen=True, slots=True)
class StatisticDistinguisher:
    """Both tails of each declared statistic on a quantile grid (no fitting)."""

    statistics: tuple[Statistic, ...]
    name: str = "np_statistic"
    grid: int = 2048
    tails: int = 256

    def propose(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Candidates | None:
        evaluated = [(st, *_values(st, a, b)) for st in self.statistics]
        usable = [(st, sa, sb) for st, sa, sb in evaluated if sa is not None and sb is not None]
        if not usable:
            return None
        return tail_candidates(
            [(sa, sb) for _, sa, sb in usable],
            lambda k, t, upper: StatisticEvent(usable[k][0], t, upper),
            grid=self.grid,
            tails=self.tails,
        )


def _values(
    statistic: Statistic, a: NDArray[np.float64], b: NDArray[np.float64]
) -> tuple[NDArray[np.float64] | None, NDArray[np.float64] | None]:
    """The statistic on both sides, or (None, None) where it does not apply (another width)."""
    try:
        return evaluate(statistic, a), evaluate(statistic, b)
    except ValueError:
        return None, None


def with_statistics(base: Sequence[Any], mechanism: Any) -> tuple[Any, ...]:
    """`base` plus a `StatisticDistinguisher` when the mechanism declares statistics."""
    stats = statistics_of(mechanism)
    return (*base, StatisticDistinguisher(stats)) if stats else tuple(base)
