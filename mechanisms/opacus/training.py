"""One Opacus training run (imported only when a run is asked for: this module imports torch).

The model is logistic regression `nn.Linear(d + k, 1)` with a bias, initialised at 0, trained
with `torch.optim.SGD` (no momentum) and `BCEWithLogitsLoss` (mean), made private by
`PrivacyEngine(accountant=...).make_private(module, optimizer, data_loader, noise_multiplier=σ,
max_grad_norm=C, poisson_sampling=...)` on a `DataLoader(TensorDataset(X, y, row), batch_size=B,
shuffle=not poisson_sampling)`, for T optimizer steps (epochs repeated until T). The last k input
columns are canary coordinates: real records are 0 there, so no real record's gradient has a
component along the canary directions u_i (the weights of those columns).

Gradient canaries go through a hook: after `loss.backward()` and before `optimizer.step()` (where
Opacus clips `p.grad_sample` per example, sums, adds N(0, σ²C²) and divides by its expected batch
size), every canary row of the batch gets its per-sample gradient replaced: weight = (0, …, 0,
g_row) with g_row its fixed canary gradient over the k canary coordinates, bias 0. A row whose
g_row is 0 is a filler (a record with zero gradient). Input-space canaries need no hook: they are
records whose canary coordinate is non-zero, trained on like any other.

Released view (what the caller keeps): the projections y_t,i = ⟨θ_{t−1} − θ_t, u_i⟩/η of every
step on every canary direction (plain SGD, so this is the released noisy gradient's canary
coordinate, Opacus' clipped sum plus noise divided by its expected batch size), and θ_T.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from opacus import PrivacyEngine
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

F64 = NDArray[np.float64]


@dataclass(frozen=True, slots=True, kw_only=True)
class Hyper:
    noise_multiplier: float
    max_grad_norm: float
    batch_size: int
    steps: int
    poisson_sampling: bool
    learning_rate: float
    accountant: str


def hyper_of(config: Any) -> Hyper:
    """The `Hyper` of a preset or one-run target: its attributes of the same names."""
    return Hyper(**{f.name: getattr(config, f.name) for f in dataclasses.fields(Hyper)})


@dataclass(frozen=True, slots=True)
class Run:
    updates: F64
    """(T, k): y_t,i, the released update of step t along canary direction i (gradient units / B̂)."""
    theta: F64
    """(d + k + 1,): final weights then bias."""
    sample_rate: float
    """q = 1/len(data_loader), what Opacus' accountant was given."""
    expected_batch_size: float
    """What Opacus divides the noisy sum by."""
    epsilon: float | None
    """engine.accountant.get_epsilon(δ) after training, when asked for."""


def train_once(
    features: F64,
    labels: F64,
    hook: tuple[NDArray[np.bool_], F64] | None,
    *,
    hyper: Hyper,
    seed: int,
    num_canary_columns: int,
    epsilon_delta: float | None = None,
) -> Run:
    """One Opacus training run on (features, labels) with the seed `seed` for every torch draw.

    `hook` = (rows, gradients): the rows (N,) whose per-sample gradient is replaced and their
    fixed gradients (N, k) over the canary coordinates (0 for a filler); None: no gradient canary."""
    n, width = features.shape
    k = num_canary_columns
    row_index = torch.arange(n)
    x_all = torch.tensor(np.array(features, dtype=np.float64))
    y_all = torch.tensor(np.array(labels, dtype=np.float64))
    hooked = None
    if hook is not None:
        rows, gradients = hook
        full = np.zeros((n, width))
        full[:, width - k :] = gradients
        hooked = (torch.as_tensor(np.asarray(rows, dtype=bool)), torch.as_tensor(full, dtype=torch.float64))
    with torch.random.fork_rng(devices=[]), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(seed)
        model = nn.Linear(width, 1).double()
        with torch.no_grad():
            model.weight.zero_()
            model.bias.zero_()
        optimizer = torch.optim.SGD(model.parameters(), lr=hyper.learning_rate)
        loader = DataLoader(
            TensorDataset(x_all, y_all, row_index),
            batch_size=hyper.batch_size,
            shuffle=not hyper.poisson_sampling,
        )
        engine = PrivacyEngine(accountant=hyper.accountant)
        private, dp_optimizer, private_loader = engine.make_private(
            module=model,
            optimizer=optimizer,
            data_loader=loader,
            noise_multiplier=hyper.noise_multiplier,
            max_grad_norm=hyper.max_grad_norm,
            poisson_sampling=hyper.poisson_sampling,
            noise_generator=torch.Generator().manual_seed(seed ^ 0x5DEECE66D),
        )
        criterion = nn.BCEWithLogitsLoss()
        updates = np.empty((hyper.steps, k))
        step = 0
        while step < hyper.steps:
            for xb, yb, ib in private_loader:
                before = model.weight.detach()[0, width - k :].clone()
                dp_optimizer.zero_grad(set_to_none=True)
                loss = criterion(private(xb).squeeze(-1), yb)
                loss.backward()
                if hooked is not None and len(ib):
                    _replace_canary_gradients(model, ib, *hooked)
                dp_optimizer.step()
                after = model.weight.detach()[0, width - k :]
                updates[step] = ((before - after) / hyper.learning_rate).numpy()
                step += 1
                if step == hyper.steps:
                    break
        theta = np.concatenate([model.weight.detach().numpy()[0], model.bias.detach().numpy()])
        epsilon = None
        if epsilon_delta is not None:
            epsilon = float(engine.accountant.get_epsilon(delta=epsilon_delta))
        return Run(
            updates=updates,
            theta=theta,
            sample_rate=1.0 / len(private_loader),
            expected_batch_size=float(dp_optimizer.expected_batch_size),
            epsilon=epsilon,
        )


def _replace_canary_gradients(model: nn.Linear, batch_rows: Any, rows: Any, full: Any) -> None:
    """grad_sample of the batch's canary rows := their fixed gradient (weights), 0 (bias)."""
    selected = rows[batch_rows]
    if not bool(selected.any()):
        return
    weight_gs = model.weight.grad_sample
    bias_gs = model.bias.grad_sample
    weight_gs[selected] = full[batch_rows[selected]].unsqueeze(1)
    bias_gs[selected] = 0.0
