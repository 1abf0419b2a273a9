"""Logistic-regression statistic: thresholds on w·φ(x) fitted to tell the two sides apart.

The side label (1 = dataset, 0 = neighbour) is regressed on features φ(x) of the selection
outputs. For two Gaussians with a shared covariance the log-likelihood ratio is linear in x, so
by the Neyman–Pearson lemma thresholds on the fitted w·φ(x) approximate the most powerful
events; squared features capture a change of scale per coordinate. The fit is statsmodels'
Newton MLE, else a ridge-damped IRLS (strictly convex, so defined on separated data), else the
mean difference: `propose` never raises. Candidates are counted on the held-out half
(`learned_statistics.statistic_candidates`), so the fit does not bias the choice.
"""

from __future__ import annotations

import math
import warnings
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
    features,
    guarded_propose,
    split_half,
    statistic_candidates,
    usable_columns,
)


def _expit(x: Floats) -> Floats:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * x)), dtype=np.float64)


def irls_logistic(X: Floats, y: Floats, *, ridge: float = 1e-3, max_iter: int = 25) -> Floats | None:
    """Ridge-penalised logistic regression by damped Newton (IRLS) steps; column 0 is the
    intercept (not penalised). Returns the coefficients, or None if they are not finite.

    The ridge term makes the objective strictly convex, so the iteration is well defined
    for singular designs and perfectly separated data (where the unpenalised MLE does not
    exist); on separated data the fitted direction is still a separating one.
    """
    n, k = X.shape
    penalty = np.full(k, ridge * n)
    penalty[0] = 0.0
    coef = np.zeros(k)
    for _ in range(max_iter):
        p = _expit(X @ coef)
        w = np.maximum(p * (1 - p), 1e-10)
        grad = X.T @ (y - p) - penalty * coef
        hess = X.T @ (X * w[:, None]) + np.diag(penalty) + 1e-10 * n * np.eye(k)
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        norm = float(np.max(np.abs(step))) if step.size else 0.0
        if not math.isfinite(norm):
            return None
        if norm > 5.0:  # damp: keep each step inside a trust region
            step *= 5.0 / norm
        coef = coef + step
        if norm < 1e-8:
            break
    return coef if np.all(np.isfinite(coef)) else None


NEWTON_MAX_ITER = 10
"""Newton steps statsmodels may take. A well-posed logistic MLE converges quadratically (4–6
steps from zero on HS-StL's and the synthetic vector mechanisms' outputs); one that has not
converged by 10 is (quasi-)separated, where the MLE does not exist and the ridge fallback is the
right tool (a cap of 50 cost ≈ 4 s per fit on DP-Winnow's outputs)."""

IRLS_MAX_ITER = 15
"""Damped ridge-Newton steps of the fallback: only the statistic's direction matters (events are
thresholds on it), which settles long before the coefficients do on separated data."""


def fit_logistic(X: Floats, y: Floats) -> tuple[Floats, str]:
    """Coefficients (intercept first) of a logistic regression of y on X, and how they were
    obtained: "statsmodels", "irls" (ridge fallback) or "mean-difference" (last resort).

    statsmodels' unpenalised Newton MLE is used when it converges to finite coefficients
    and the data are not (quasi-)separated; otherwise `irls_logistic`. Never raises.
    """
    Xc = np.column_stack([np.ones(X.shape[0]), X])
    try:
        # the submodule, not statsmodels.api (whose import takes seconds); check_rank=False skips
        # a full QR of the design (the columns are already de-duplicated by `usable_columns`)
        from statsmodels.discrete.discrete_model import Logit

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = Logit(y, Xc, check_rank=False).fit(
                disp=0, method="newton", maxiter=NEWTON_MAX_ITER, warn_convergence=False
            )
        params = np.asarray(res.params, dtype=float)
        converged = bool(res.mle_retvals.get("converged", False))
        p = _expit(Xc @ params)
        separated = bool(np.all(np.abs(p - y) < 1e-6))
        if converged and not separated and np.all(np.isfinite(params)) and np.max(np.abs(params)) < 1e6:
            return params, "statsmodels"
    except Exception:  # singular design, perfect separation, numerical failure: fall back
        pass
    try:
        coef = irls_logistic(Xc, y, max_iter=IRLS_MAX_ITER)
        if coef is not None:
            return coef, "irls"
    except Exception:  # pragma: no cover - defensive: the fallback must not raise either
        pass
    pos, neg = X[y > 0.5], X[y <= 0.5]
    diff = (pos.mean(axis=0) if pos.size else 0.0) - (neg.mean(axis=0) if neg.size else 0.0)
    return np.concatenate([[0.0], np.nan_to_num(np.asarray(diff, dtype=float))]), "mean-difference"


@distinguisher(
    cost=FITTED,
    event_types=("learned-statistic",),
    sets=(DEFAULT,),
    rank=30,
    fits=True,
    instances=lambda: (
        LogisticDistinguisher(
            max_train=DEFAULT_MAX_FIT,
            max_features=DEFAULT_MAX_FEATURES,
            skip_if_distinct_at_most=HISTOGRAM_BINS,
        ),
        LogisticDistinguisher(
            name="logistic-squared",
            squared=True,
            max_train=DEFAULT_MAX_FIT,
            max_features=DEFAULT_MAX_FEATURES // 2,
            skip_if_distinct_at_most=HISTOGRAM_BINS,
        ),
    ),
)
@dataclass(frozen=True, slots=True)
class LogisticDistinguisher:
    """Thresholds on a logistic-regression statistic fitted on half of the selection split.

    The side label (1 = dataset side `a`, 0 = neighbour side `b`) is regressed on
    φ(x) = standardised coordinates (and, with `squared=True`, their squares, skipping
    coordinates with at most two distinct values, whose square is redundant). The statistic
    w·φ(x) is fitted on the first half of each side's selection outputs (at most
    `max_train` rows per side) and the candidate events {w·φ(x) ≥ t}, {w·φ(x) ≤ t} are
    counted on the **held-out second half**. The returned counts are those held-out counts
    **rescaled to the full selection size** (× n/h on each side, h = held-out size), because
    the runner takes `a.shape[0]`, `b.shape[0]` as the totals; see the module docstring.

    When there are more than `max_features` non-constant coordinates, the `max_features`
    with the largest |standardised mean difference| on the fit half are used. Returns None
    for 1-D outputs, when every coordinate is constant, or with fewer than
    `MIN_SAMPLES_PER_SIDE` samples per side. Never raises on finite input.
    """

    name: str = "logistic"
    squared: bool = False
    grid: int = 2048
    tails: int = 256
    max_train: int = 50_000
    max_features: int = 256
    skip_if_distinct_at_most: int = 0
    """Propose nothing when the pooled selection outputs take at most this many distinct values
    (0: never skip). The runner's defaults set it to the histogram's `max_bins`."""

    def fit(self, a: Floats, b: Floats) -> FittedStatistic | None:
        """The fitted statistic (on whatever rows are given); None when not applicable."""
        pooled = np.concatenate([a, b])
        cols = usable_columns(pooled)
        if cols.size == 0:
            return None
        center = pooled[:, cols].mean(axis=0)
        scale = pooled[:, cols].std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        za = (a[:, cols] - center) / scale
        zb = (b[:, cols] - center) / scale
        if cols.size > self.max_features:
            t = np.abs(za.mean(axis=0) - zb.mean(axis=0))
            keep = np.sort(np.argsort(-t, kind="stable")[: self.max_features])
            cols, center, scale = cols[keep], center[keep], scale[keep]
            za, zb = za[:, keep], zb[:, keep]
        squared_cols = np.zeros(0, dtype=np.intp)
        if self.squared:
            zp = np.concatenate([za, zb])
            many = [j for j in range(zp.shape[1]) if np.unique(zp[:, j]).size > 2]
            squared_cols = np.asarray(many, dtype=np.intp)
        X = np.concatenate([features(za, squared_cols), features(zb, squared_cols)])
        y = np.concatenate([np.ones(za.shape[0]), np.zeros(zb.shape[0])])
        params, how = fit_logistic(X, y)
        w = params[1:]
        if not np.any(w != 0) or not np.all(np.isfinite(w)):
            return None
        w = w / np.max(np.abs(w))
        label = "logistic" + ("²" if squared_cols.size else "") + ("" if how == "statsmodels" else f"[{how}]")
        return FittedStatistic(w, cols, center, scale, squared_cols, label)

    def propose(self, a: Floats, b: Floats) -> Candidates | None:
        """Candidates counted on the held-out half, rescaled to (a.shape[0], b.shape[0])."""
        return guarded_propose(self._propose, a, b, skip_if_distinct_at_most=self.skip_if_distinct_at_most)

    def _propose(self, a: Floats, b: Floats) -> Candidates | None:
        fit_a, held_a = split_half(a)
        fit_b, held_b = split_half(b)
        statistic = self.fit(fit_a[: self.max_train], fit_b[: self.max_train])
        if statistic is None:
            return None
        return statistic_candidates(
            [statistic],
            held_a,
            held_b,
            total_a=a.shape[0],
            total_b=b.shape[0],
            grid=self.grid,
            tails=self.tails,
        )
