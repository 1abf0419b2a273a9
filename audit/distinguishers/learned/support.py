"""Outputs on a thinner support: "residual below τ" events (issue 35, item 3).

A mechanism whose outputs on one dataset lie on a lower-dimensional set (exact repeats, a
constant difference between two coordinates, any zero residual of a linear fit) and spread over
the full space on the other is not (ε, δ)-DP for any ε at small δ: the set has probability 1 on
one side and 0 on the other. `SupportDistinguisher` finds such a set on the selection split:
for each side, the smallest principal direction w of its fit half (centred at its mean μ) gives
the residual r(x) = |w·(x − μ)|; when that side is degenerate (its smallest singular value is
below `RANK_TOL` × its largest, or all are zero: exact repeats) the events {r ≤ τ} are proposed,
τ the fit half's largest residual (inflated by `SLACK`) and a few quantiles of the held-out
residuals. The model is fitted on the first half of the selection split and the events counted
on the other half, rescaled to the full selection size (as `learned.fitted`), and the runner
certifies the chosen event on fresh samples; a non-degenerate side proposes nothing, so the
distinguisher costs one SVD of ≤ `MAX_FIT` rows where it cannot help.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...events import Array, Event, as_rows, event_type, require_width
from ..base import Candidates
from ..registry import DEFAULT, FITTED, distinguisher
from .fitted import HISTOGRAM_BINS, Floats, guarded_propose, split_half

__all__ = ["RANK_TOL", "ResidualEvent", "SupportDistinguisher", "thin_direction"]

RANK_TOL = 1e-7
"""A side is degenerate when its smallest singular value is below this × its largest."""
SLACK = 1e-6
"""τ = the fit half's largest residual × (1 + SLACK) + SLACK × the side's scale."""
MAX_FIT = 2_000
MAX_WIDTH = 64


@event_type("residual")
@dataclass(frozen=True, slots=True, kw_only=True)
class ResidualEvent:
    """{|w·(x − μ)| ≤ τ}: the outputs within τ of the hyperplane through μ normal to w."""

    normal: tuple[float, ...]
    center: tuple[float, ...]
    tolerance: float

    def residual(self, outputs: Array) -> Floats:
        rows = as_rows(outputs)
        require_width(rows, len(self.normal), "the residual event")
        w = len(self.normal)
        return np.asarray(
            np.abs((rows[:, :w] - np.asarray(self.center)) @ np.asarray(self.normal)), dtype=np.float64
        )

    def indicator(self, outputs: Array) -> np.ndarray[Any, np.dtype[np.bool_]]:
        return self.residual(outputs) <= self.tolerance

    def describe(self) -> str:
        where = f"a linear relation of {len(self.normal)} coordinates"
        return f"residual |w·(x − μ)| ≤ {self.tolerance:.3g} [{where}]"

    def to_spec(self) -> dict[str, Any]:
        return {
            "type": "residual",
            "normal": list(self.normal),
            "center": list(self.center),
            "tolerance": self.tolerance,
        }

    @staticmethod
    def from_spec(spec: dict[str, Any]) -> ResidualEvent:
        return ResidualEvent(
            normal=tuple(float(x) for x in spec["normal"]),
            center=tuple(float(x) for x in spec["center"]),
            tolerance=float(spec["tolerance"]),
        )


def thin_direction(rows: Floats) -> tuple[Floats, Floats, float] | None:
    """(w, μ, τ) when `rows` lie on a hyperplane (module docstring), else None."""
    mu = rows.mean(axis=0)
    centred = rows - mu
    if rows.shape[0] <= 2 * rows.shape[1]:
        return None  # too few rows to tell a thinner support from a small sample
    _, sv, vt = np.linalg.svd(centred, full_matrices=False)
    scale = float(np.abs(rows).max()) or 1.0
    top, smallest = float(sv[0]), float(sv[-1])
    if top > 0.0 and smallest > RANK_TOL * top:
        return None
    w = vt[-1]
    tau = float(np.abs(centred @ w).max()) * (1.0 + SLACK) + SLACK * scale
    return w, mu, tau


@distinguisher(
    cost=FITTED,
    event_types=("residual",),
    sets=(DEFAULT,),
    rank=60,
    fits=True,
    instances=lambda: (SupportDistinguisher(skip_if_distinct_at_most=HISTOGRAM_BINS),),
)
@dataclass(frozen=True, slots=True)
class SupportDistinguisher:
    """Events {residual ≤ τ} for a side whose selection outputs lie on a hyperplane."""

    name: str = "thin-support"
    quantiles: int = 16
    skip_if_distinct_at_most: int = 0

    def propose(self, a: Floats, b: Floats) -> Candidates | None:
        return guarded_propose(self._propose, a, b, skip_if_distinct_at_most=self.skip_if_distinct_at_most)

    def _propose(self, a: Floats, b: Floats) -> Candidates | None:
        if a.shape[1] > MAX_WIDTH:
            return None
        (fit_a, eval_a), (fit_b, eval_b) = split_half(a), split_half(b)
        events: list[ResidualEvent] = []
        for fit in (fit_a[:MAX_FIT], fit_b[:MAX_FIT]):
            found = thin_direction(fit)
            if found is None:
                continue
            w, mu, tau = found
            base = ResidualEvent(normal=tuple(map(float, w)), center=tuple(map(float, mu)), tolerance=tau)
            pooled = np.concatenate([base.residual(eval_a), base.residual(eval_b)])
            taus = np.unique(
                np.concatenate([[tau], np.quantile(pooled, np.linspace(0.0, 0.5, self.quantiles))])
            )
            events += [
                ResidualEvent(normal=base.normal, center=base.center, tolerance=float(t)) for t in taus
            ]
        if not events:
            return None
        ra, rb = a.shape[0] / eval_a.shape[0], b.shape[0] / eval_b.shape[0]
        ca = np.array([e.indicator(eval_a).sum() * ra for e in events], dtype=float)
        cb = np.array([e.indicator(eval_b).sum() * rb for e in events], dtype=float)

        def make(i: int) -> Event:
            return events[i]

        return Candidates(ca, cb, make)
