"""Per-example gradients and losses of the DP-SGD family's three models, vectorised over runs.

DP-SGD (Abadi et al., "Deep Learning with Differential Privacy", CCS 2016, Algorithm 1) needs,
at each step, every record's gradient at every run's current parameters θ (shape (runs, d)).
Three models:

- `gradient` (white-box, the gradient canary of Nasr et al., "Tight Auditing of Differentially
  Private Machine Learning", USENIX Security 2023): a record's row in X *is* its per-example
  gradient, constant in θ. Its records live in the box [−G, G]^d.
- `logistic`: records (x, y) with y ∈ {−1, +1} (the dataset's labels), loss
  ℓ(θ; x, y) = log(1 + exp(−y⟨θ, x⟩)), gradient −y·x·σ(−y⟨θ, x⟩) (σ the logistic function).
- `linear`: records are rows [x, y] of X (the response is the last column, so the domain is a
  box over (x, y)), loss ½(⟨θ, x⟩ − y)², gradient (⟨θ, x⟩ − y)·x.

No intercept: a record at x = 0 then has gradient exactly 0 at every θ, which is the
worst-case "zero-gradient rest" of the canary pairs.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset

MODELS = ("gradient", "logistic", "linear")

F64 = NDArray[np.float64]


def features(model: str, dataset: Dataset) -> F64:
    """The x part of each record (all of X but the response column for `linear`)."""
    return dataset.X[:, :-1] if model == "linear" else dataset.X


def clip_rows(g: F64, clip_norm: float) -> F64:
    """Scale each vector along the last axis to norm ≤ `clip_norm` (Abadi et al. Alg. 1, line 6)."""
    norms = np.sqrt(np.einsum("...d,...d->...", g, g))
    scale = np.minimum(1.0, clip_norm / np.maximum(norms, 1e-300))
    return np.asarray(g * scale[..., None], dtype=np.float64)


def per_example_gradients(model: str, theta: F64, dataset: Dataset) -> F64:
    """Gradients of every record at every run's θ: (runs, n, d); for `gradient`, (1, n, d)
    (constant in θ, broadcast over runs)."""
    if model == "gradient":
        return dataset.X[None, :, :]
    x = features(model, dataset)
    inner = theta @ x.T  # (runs, n)
    if model == "logistic":
        y = np.asarray(dataset.y, dtype=np.float64)
        coef = -y[None, :] / (1.0 + np.exp(np.clip(y[None, :] * inner, -700.0, 700.0)))
    else:
        coef = inner - dataset.X[:, -1][None, :]
    return np.asarray(coef[:, :, None] * x[None, :, :], dtype=np.float64)


def record_loss(model: str, theta: F64, record: F64, label: float | None) -> F64:
    """One record's loss at every run's θ (runs,): the canary score of the input-space models."""
    if model == "logistic":
        margin = float(label if label is not None else 1.0) * (theta @ record)
        return np.asarray(np.logaddexp(0.0, -margin), dtype=np.float64)
    if model == "linear":
        residual = theta @ record[:-1] - record[-1]
        return np.asarray(0.5 * residual * residual, dtype=np.float64)
    raise ValueError(f"no loss for model {model!r}")


def check_model(model: str, dataset: Dataset, dim: int) -> None:
    """Raise ValueError when `dataset` does not fit `model` with parameter dimension `dim`."""
    width = dim + 1 if model == "linear" else dim
    if dataset.num_features != width:
        raise ValueError(f"a {model} DP-SGD dataset needs {width} columns, got {dataset.num_features}")
    if (model == "logistic") != dataset.labelled:
        raise ValueError("logistic records need labels in {−1, +1}; the other models take none")
