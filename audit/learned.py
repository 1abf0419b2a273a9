"""Learned score distinguishers for vector outputs (DESIGN.md, "Statistics"; issue 7).

The threshold distinguisher looks at one coordinate at a time (plus one standardised
mean-difference projection). When the privacy loss is spread over many coordinates no single
coordinate carries it, and the best event is a threshold on a *learned* score. Two
distinguishers here implement the `audit.estimators.Distinguisher` protocol:

- `LogisticDistinguisher`: logistic regression of the side label (1 = dataset, 0 = neighbour)
  on the output features φ(x) (standardised coordinates, optionally with their squares).
  For two Gaussians with a shared covariance the log-likelihood ratio is linear in x, so the
  fitted score w·φ(x) estimates the optimal (Neyman–Pearson) statistic; with squared features
  it also captures a change of scale per coordinate.
- `ProjectionDistinguisher`: thresholds on a few fixed linear projections: the raw
  difference of means, the Fisher (LDA) direction Σ⁻¹Δμ, and the top principal direction of
  the pooled outputs. (Each single coordinate is already covered by
  `ThresholdDistinguisher`.)

Held-out counts (the contract with the runner). The logistic score is *fitted* on one half of
the selection split and the candidate counts are computed on the *other* half, so the
runner's choice among thresholds is not made on the samples that trained the score (a score
fitted on a sample looks better on that sample than on fresh ones). `choose_event` treats the
totals of the counts as `a.shape[0]` and `b.shape[0]`, so `propose` returns the held-out
counts **rescaled to the full selection size** (multiplied by n_a / h_a ≈ 2 on side a and
n_b / h_b ≈ 2 on side b, where h is the held-out size). The rescaled counts are real-valued;
`bounds.projected_epsilon` accepts that. The rescaling makes the projection's pessimism
shading slightly optimistic (it believes in twice as many samples as there are); it affects
only which event is chosen, never the validity of the certified bound, which is computed by
the runner on fresh certification samples.

Events (`ScoreEvent`) are frozen dataclasses holding only tuples, floats and flags, so they
pickle to worker processes. `propose` never raises on well-formed input: if statsmodels
fails (no convergence, singular design, perfect separation), a few ridge-damped Newton/IRLS
steps in numpy take over, and if even those fail the standardised mean difference is used.
It returns None when not applicable: 1-D outputs (use `ThresholdDistinguisher`), all
features constant, or too few samples.

In the runner's defaults (`default_learned_distinguishers`, part of
`audit.estimators.DEFAULT_DISTINGUISHERS`). Logistic (linear), logistic (squared features) and
the projections are proposed next to the histogram and threshold candidates, and the runner
certifies whichever has the best projected bound. Cost caps: fits use ≤ `DEFAULT_MAX_FIT` rows
per side and ≤ `DEFAULT_MAX_FEATURES` coordinates (screened by standardised mean difference),
statsmodels' Newton stops after `NEWTON_MAX_ITER` steps (then the ridge IRLS takes over), and
the dense algebra runs on one BLAS thread (`single_threaded_blas`). They stay silent on 1-D
outputs and in the histogram's case (`few_distinct`: at most `max_bins` distinct outputs, each
seen ≥ `MIN_REPEATS` times on average), so scalar and small discrete audits pay nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import math
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.engine import estimators as _estimators
from dpaudit.engine.estimators import (
    Candidates,
    Event,
    HistogramDistinguisher,
    as_rows,
    row_keys,
    tail_counts,
    threshold_grid,
)

Array = NDArray[Any]
Floats = NDArray[np.float64]

MIN_SAMPLES_PER_SIDE = 20
"""Below this many selection samples per side a learned score is not attempted."""

DEFAULT_MAX_FIT = 10_000
"""Rows per side the default learned distinguishers fit on (the cost cap of the runner's
defaults); the logistic scores' candidate counts are then taken on the held-out half of the
selection split, however large."""

DEFAULT_MAX_FEATURES = 32
"""Coordinates the default learned distinguishers use (screened by |standardised mean
difference| on the fit rows; the squared-feature logistic uses half as many, i.e. 32 features
with their squares). A Newton step costs O(rows × features²): with 256 features and 2 × 20 000
rows a fit on DP-Winnow's 300-wide no-cap twin took 1–15 s (the spread is multithreaded BLAS on
a loaded machine); at 2 × 10 000 rows and ≤ 32 features a fit is a few tens of ms."""


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


MIN_REPEATS = 100
"""The histogram's case: on average at least this many pooled selection rows per distinct value."""


def few_distinct(a: Floats, b: Floats, limit: int) -> bool:
    """True in the histogram's case: the pooled rows take at most `limit` distinct values, each
    seen `MIN_REPEATS` times on average (so their likelihood ratios are estimated from counts).

    A continuous sample smaller than `limit` has about as many distinct values as rows and is not
    in this case. A prefix is checked first, so continuous outputs are recognised cheaply."""
    if limit <= 0:
        return False
    pooled = np.concatenate([a, b])
    cap = min(limit, pooled.shape[0] // MIN_REPEATS)
    head = pooled[: 2 * (limit + 1)]
    if np.unique(row_keys(head)).size > cap:
        return False
    return bool(np.unique(row_keys(pooled)).size <= cap)


def applicable(a: Floats, b: Floats, *, skip_if_distinct_at_most: int) -> bool:
    """Whether a learned score is attempted on selection outputs `a`, `b`: vector outputs
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


# --------------------------------------------------------------------------- events
@dataclass(frozen=True, slots=True)
class ScoreEvent:
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
    label: str = "score"

    @property
    def squared(self) -> bool:
        return bool(self.squared_columns)

    def score(self, outputs: Array) -> Floats:
        rows = as_rows(outputs)
        return _score(
            rows,
            np.asarray(self.columns, dtype=np.intp),
            np.asarray(self.center),
            np.asarray(self.scale),
            np.asarray(self.squared_columns, dtype=np.intp),
            np.asarray(self.weights),
        )

    def indicator(self, outputs: Array) -> NDArray[np.bool_]:
        s = self.score(outputs)
        return s >= self.threshold if self.upper else s <= self.threshold

    def to_spec(self) -> dict[str, Any]:
        """JSON-able description; `ScoreEvent.from_spec` rebuilds the event exactly."""
        return {
            "type": "score",
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
    def from_spec(cls, spec: dict[str, Any]) -> ScoreEvent:
        return cls(
            weights=tuple(float(x) for x in spec["weights"]),
            columns=tuple(int(x) for x in spec["columns"]),
            center=tuple(float(x) for x in spec["center"]),
            scale=tuple(float(x) for x in spec["scale"]),
            threshold=float(spec["threshold"]),
            upper=bool(spec["upper"]),
            squared_columns=tuple(int(x) for x in spec.get("squared_columns", ())),
            label=str(spec.get("label", "score")),
        )

    def describe(self) -> str:
        feats = f"{len(self.columns)} coordinates" + (
            f" + {len(self.squared_columns)} squares" if self.squared_columns else ""
        )
        return f"{self.label}(x) {'≥' if self.upper else '≤'} {self.threshold:.6g} [{feats}]"


# Results, checkpoints and baselines store events by spec (`audit.estimators.event_from_spec`).
_registry = getattr(_estimators, "EVENT_TYPES", None)
if isinstance(_registry, dict):
    _registry.setdefault("score", ScoreEvent.from_spec)


def _features(z: Floats, squared_columns: NDArray[np.intp]) -> Floats:
    if squared_columns.size == 0:
        return z
    return np.hstack([z, z[:, squared_columns] ** 2])


def _score(
    rows: Floats,
    columns: NDArray[np.intp],
    center: Floats,
    scale: Floats,
    squared_columns: NDArray[np.intp],
    weights: Floats,
) -> Floats:
    z = (rows[:, columns] - center) / scale
    return np.asarray(_features(z, squared_columns) @ weights, dtype=np.float64)


# --------------------------------------------------------------------------- thresholds and counts
@dataclass(frozen=True, slots=True)
class _Score:
    """One fitted score, ready to become threshold events."""

    weights: Floats
    columns: NDArray[np.intp]
    center: Floats
    scale: Floats
    squared_columns: NDArray[np.intp]
    label: str

    def apply(self, rows: Floats) -> Floats:
        return _score(rows, self.columns, self.center, self.scale, self.squared_columns, self.weights)

    def event(self, threshold: float, upper: bool) -> ScoreEvent:
        return ScoreEvent(
            weights=tuple(float(w) for w in self.weights),
            columns=tuple(int(c) for c in self.columns),
            center=tuple(float(c) for c in self.center),
            scale=tuple(float(s) for s in self.scale),
            threshold=float(threshold),
            upper=bool(upper),
            squared_columns=tuple(int(c) for c in self.squared_columns),
            label=self.label,
        )


def _candidates(
    scores: list[_Score],
    eval_a: Floats,
    eval_b: Floats,
    *,
    total_a: int,
    total_b: int,
    grid: int,
    tails: int,
) -> Candidates | None:
    """Threshold candidates of every score, counted on (eval_a, eval_b), rescaled to totals."""
    ca: list[Floats] = []
    cb: list[Floats] = []
    specs: list[tuple[int, float, bool]] = []
    ra, rb = total_a / eval_a.shape[0], total_b / eval_b.shape[0]
    for k, sc in enumerate(scores):
        sa, sb = sc.apply(eval_a), sc.apply(eval_b)
        if not (np.all(np.isfinite(sa)) and np.all(np.isfinite(sb))):
            continue
        ts = threshold_grid(np.concatenate([sa, sb]), grid=grid, tails=tails)
        ge_a, ge_b, le_a, le_b = tail_counts(sa, sb, ts)
        ca += [ge_a * ra, le_a * ra]
        cb += [ge_b * rb, le_b * rb]
        specs += [(k, float(t), True) for t in ts]
        specs += [(k, float(t), False) for t in ts]
    if not specs:
        return None

    def make(i: int) -> Event:
        k, t, upper = specs[i]
        return scores[k].event(t, upper)

    return Candidates(np.concatenate(ca), np.concatenate(cb), make)


def _split_half(rows: Floats) -> tuple[Floats, Floats]:
    """(fit half, held-out half): the first ⌊n/2⌋ rows and the rest (samples are i.i.d.)."""
    h = rows.shape[0] // 2
    return rows[:h], rows[h:]


def _usable_columns(pooled: Floats, *, rel_tol: float = 1e-12) -> NDArray[np.intp]:
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


# --------------------------------------------------------------------------- logistic regression
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
    beta = np.zeros(k)
    for _ in range(max_iter):
        p = _expit(X @ beta)
        w = np.maximum(p * (1 - p), 1e-10)
        grad = X.T @ (y - p) - penalty * beta
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
        beta = beta + step
        if norm < 1e-8:
            break
    return beta if np.all(np.isfinite(beta)) else None


NEWTON_MAX_ITER = 10
"""Newton steps statsmodels may take. A well-posed logistic MLE converges quadratically (4–6
steps from zero on HS-StL's and the synthetic vector mechanisms' outputs); one that has not
converged by 10 is (quasi-)separated, where the MLE does not exist and the ridge fallback is the
right tool (a cap of 50 cost ≈ 4 s per fit on DP-Winnow's outputs)."""

IRLS_MAX_ITER = 15
"""Damped ridge-Newton steps of the fallback: only the score's direction matters (events are
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
        # a full QR of the design (the columns are already de-duplicated by `_usable_columns`)
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
        beta = irls_logistic(Xc, y, max_iter=IRLS_MAX_ITER)
        if beta is not None:
            return beta, "irls"
    except Exception:  # pragma: no cover - defensive: the fallback must not raise either
        pass
    pos, neg = X[y > 0.5], X[y <= 0.5]
    diff = (pos.mean(axis=0) if pos.size else 0.0) - (neg.mean(axis=0) if neg.size else 0.0)
    return np.concatenate([[0.0], np.nan_to_num(np.asarray(diff, dtype=float))]), "mean-difference"


@dataclass(frozen=True, slots=True)
class LogisticDistinguisher:
    """Thresholds on a logistic-regression score fitted on half of the selection split.

    The side label (1 = dataset side `a`, 0 = neighbour side `b`) is regressed on
    φ(x) = standardised coordinates (and, with `squared=True`, their squares, skipping
    coordinates with at most two distinct values, whose square is redundant). The score
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

    def fit(self, a: Floats, b: Floats) -> _Score | None:
        """The fitted score (on whatever rows are given); None when not applicable."""
        pooled = np.concatenate([a, b])
        cols = _usable_columns(pooled)
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
        X = np.concatenate([_features(za, squared_cols), _features(zb, squared_cols)])
        y = np.concatenate([np.ones(za.shape[0]), np.zeros(zb.shape[0])])
        params, how = fit_logistic(X, y)
        w = params[1:]
        if not np.any(w != 0) or not np.all(np.isfinite(w)):
            return None
        w = w / np.max(np.abs(w))
        label = "logistic" + ("²" if squared_cols.size else "") + ("" if how == "statsmodels" else f"[{how}]")
        return _Score(w, cols, center, scale, squared_cols, label)

    def propose(self, a: Floats, b: Floats) -> Candidates | None:
        """Candidates counted on the held-out half, rescaled to (a.shape[0], b.shape[0])."""
        return guarded_propose(self._propose, a, b, skip_if_distinct_at_most=self.skip_if_distinct_at_most)

    def _propose(self, a: Floats, b: Floats) -> Candidates | None:
        fit_a, held_a = _split_half(a)
        fit_b, held_b = _split_half(b)
        score = self.fit(fit_a[: self.max_train], fit_b[: self.max_train])
        if score is None:
            return None
        return _candidates(
            [score],
            held_a,
            held_b,
            total_a=a.shape[0],
            total_b=b.shape[0],
            grid=self.grid,
            tails=self.tails,
        )


# --------------------------------------------------------------------------- fixed projections
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
        cols = _usable_columns(np.concatenate([a, b]))
        if cols.size == 0:
            return None
        if self.holdout:
            (fit_a, eval_a), (fit_b, eval_b) = _split_half(a), _split_half(b)
        else:
            fit_a, eval_a, fit_b, eval_b = a, a, b, b
        fit_a, fit_b = fit_a[: self.max_fit], fit_b[: self.max_fit]
        if 0 < self.max_features < cols.size:
            cols = top_columns(fit_a, fit_b, cols, self.max_features)
        dirs = projection_directions(fit_a[:, cols], fit_b[:, cols])
        # centred at the pooled mean (keeps scores accurate when outputs sit far from 0)
        center = np.concatenate([fit_a[:, cols], fit_b[:, cols]]).mean(axis=0)
        ones = np.ones(cols.size)
        empty = np.zeros(0, dtype=np.intp)
        scores = [_Score(w, cols, center, ones, empty, label) for label, w in dirs]
        if not scores:
            return None
        return _candidates(
            scores,
            eval_a,
            eval_b,
            total_a=a.shape[0],
            total_b=b.shape[0],
            grid=self.grid,
            tails=self.tails,
        )


LEARNED_DISTINGUISHERS: tuple[LogisticDistinguisher | ProjectionDistinguisher, ...] = (
    LogisticDistinguisher(),
    LogisticDistinguisher(name="logistic-squared", squared=True),
    ProjectionDistinguisher(),
)
"""The learned distinguishers with their class defaults (no distinct-value gate)."""


def default_learned_distinguishers() -> tuple[LogisticDistinguisher | ProjectionDistinguisher, ...]:
    """The learned part of `distinguishers.DEFAULT_DISTINGUISHERS`: logistic (linear and
    squared features) and fixed projections, each fitted on ≤ `DEFAULT_MAX_FIT` rows per side
    and silent when the histogram applies (≤ its `max_bins` distinct outputs) or outputs are 1-D.
    """
    bins = HistogramDistinguisher().max_bins
    return (
        LogisticDistinguisher(
            max_train=DEFAULT_MAX_FIT, max_features=DEFAULT_MAX_FEATURES, skip_if_distinct_at_most=bins
        ),
        LogisticDistinguisher(
            name="logistic-squared",
            squared=True,
            max_train=DEFAULT_MAX_FIT,
            max_features=DEFAULT_MAX_FEATURES // 2,
            skip_if_distinct_at_most=bins,
        ),
        ProjectionDistinguisher(
            max_fit=DEFAULT_MAX_FIT, max_features=DEFAULT_MAX_FEATURES, skip_if_distinct_at_most=bins
        ),
    )
