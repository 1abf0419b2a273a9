"""Fixed-projection statistics: thresholds on the mean difference, the Fisher direction and the top PC.

For two Gaussians with a shared covariance Σ the log-likelihood ratio is linear along the
Fisher (LDA) direction Σ⁻¹Δμ, so by the Neyman–Pearson lemma its tails are the most powerful
events there; the raw mean difference and the top principal direction of the pooled outputs
cover the cases where Σ is poorly estimated. Three directions fitted from thousands of samples
overfit little, so by default their thresholds are counted on the whole selection split;
`holdout=True` counts them on a held-out half as the logistic statistic does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base import Candidates
from ..registry import DEFAULT, FITTED, distinguisher
from .fitted import (
    DEFAULT_MAX_FEATURES,
    DEFAULT_MAX_FIT,
    HISTOGRAM_BINS,
    FittedStatistic,
    Floats,
    guarded_propose,
    split_half,
    statistic_candidates,
    top_columns,
    usable_columns,
)


def projection_directions(a: Floats, b: Floats) -> list[tuple[str, Floats]]:
    """(label, unit-max-norm direction) for the mean difference, the Fisher (LDA) direction
    and the top principal direction of the pooled rows; degenerate ones are dropped."""
    pooled = np.concatenate([a, b])
    out: list[tuple[str, Floats]] = []
    diff = a.mean(axis=0) - b.mean(axis=0)
    out.append(("mean-difference", diff))
    cov = 0.5 * (np.cov(a, rowvar=False) + np.cov(b, rowvar=False))
    cov = np.atleast_2d(cov)
    ridge = 1e-6 * (np.trace(cov) / cov.shape[0] + 1e-12)
    try:
        fisher = np.linalg.solve(cov + ridge * np.eye(cov.shape[0]), diff)
        out.append(("fisher", fisher))
    except np.linalg.LinAlgError:
        pass
    centred = pooled - pooled.mean(axis=0)
    try:
        # top right-singular vector of the centred data = top principal direction
        _, _, vt = np.linalg.svd(centred[: min(centred.shape[0], 100_000)], full_matrices=False)
        pc = vt[0]
        if np.dot(pc, diff) < 0:
            pc = -pc
        out.append(("principal", pc))
    except np.linalg.LinAlgError:
        pass
    keep = []
    for label, w in out:
        w = np.nan_to_num(np.asarray(w, dtype=float))
        m = float(np.max(np.abs(w))) if w.size else 0.0
        if m > 0:
            keep.append((label, w / m))
    return keep


@distinguisher(
    cost=FITTED,
    event_types=("learned-statistic",),
    sets=(DEFAULT,),
    rank=40,
    fits=True,
    instances=lambda: (
        ProjectionDistinguisher(
            max_fit=DEFAULT_MAX_FIT,
            max_features=DEFAULT_MAX_FEATURES,
            skip_if_distinct_at_most=HISTOGRAM_BINS,
        ),
    ),
)
@dataclass(frozen=True, slots=True)
class ProjectionDistinguisher:
    """Thresholds on a few linear projections: mean difference, Fisher direction Σ⁻¹Δμ and the
    top principal direction of the pooled outputs.

    With `holdout=False` (default) the directions are computed and the thresholds counted on
    the whole selection split: three directions fitted from thousands of samples overfit
    little. With `holdout=True` they are fitted on the first half and counted on the second,
    rescaled to the full selection size as in `LogisticDistinguisher`. Returns None for 1-D
    outputs or when every coordinate is constant. Never raises on finite input.
    """

    name: str = "projection"
    holdout: bool = False
    grid: int = 2048
    tails: int = 256
    max_fit: int = 100_000
    """Rows per side the directions are computed from (thresholds are counted on all rows)."""
    skip_if_distinct_at_most: int = 0
    """As in `LogisticDistinguisher`."""
    max_features: int = 0
    """When > 0 and there are more non-constant coordinates, only the `max_features` with the
    largest |standardised mean difference| on the fit rows enter the directions (the cost of
    the covariance and the SVD grows with the square of the width)."""

    def propose(self, a: Floats, b: Floats) -> Candidates | None:
        return guarded_propose(self._propose, a, b, skip_if_distinct_at_most=self.skip_if_distinct_at_most)

    def _propose(self, a: Floats, b: Floats) -> Candidates | None:
        cols = usable_columns(np.concatenate([a, b]))
        if cols.size == 0:
            return None
        if self.holdout:
            (fit_a, eval_a), (fit_b, eval_b) = split_half(a), split_half(b)
        else:
            fit_a, eval_a, fit_b, eval_b = a, a, b, b
        fit_a, fit_b = fit_a[: self.max_fit], fit_b[: self.max_fit]
        if 0 < self.max_features < cols.size:
            cols = top_columns(fit_a, fit_b, cols, self.max_features)
        dirs = projection_directions(fit_a[:, cols], fit_b[:, cols])
        # centred at the pooled mean (keeps statistics accurate when outputs sit far from 0)
        center = np.concatenate([fit_a[:, cols], fit_b[:, cols]]).mean(axis=0)
        ones = np.ones(cols.size)
        empty = np.zeros(0, dtype=np.intp)
        statistics = [FittedStatistic(w, cols, center, ones, empty, label) for label, w in dirs]
        if not statistics:
            return None
        return statistic_candidates(
            statistics,
            eval_a,
            eval_b,
            total_a=a.shape[0],
            total_b=b.shape[0],
            grid=self.grid,
            tails=self.tails,
        )
