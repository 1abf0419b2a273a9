"""Opacus' `make_private` at a small dataset, as a user trains it: the preset
`opacus_make_private_small_n` (issue 34, item 6), built only through `from_callable`.

Opacus 1.5–1.6 derives `sample_rate = 1/len(data_loader)` and `expected_batch_size =
int(len(dataset) · sample_rate)` from the private dataset, and the optimizer divides the noisy
clipped sum by that expected batch size (meta-pytorch/opacus#571, #819). Under add/remove one
record the released update's noise scale then moves with n (σC/2 at n = 5, σC/3 at n = 6 for
batch_size 4), which the accountant, a function of (σ, q, T) only, does not account for.

The training: `nn.Linear(4, 1)` from zeros, SGD at η = 1, a `DataLoader(batch_size=4)`,
`PrivacyEngine(accountant="rdp").make_private(noise_multiplier=2, max_grad_norm=1,
poisson_sampling=True)`, one epoch; the release is the final weights and bias. No pair and no
statistic: the blind search proposes the add/remove pairs from the domain (4 features in
[-1, 1], labels {0, 1}, 5 to 8 records). At every size in the domain q = 1/⌈n/4⌉ = 1/2 and one
epoch is T = 2 steps, so the claim (Opacus' RDP accountant at δ = 10⁻⁵ for a nominal 8 records,
`common.opacus_claim`) is the same for every dataset the domain allows; only the divisor
int(n/2) = 2, 3, 3, 4 moves. `divisor=4` pins it after `make_private` (the control: the
Poisson-subsampled Gaussian mechanism the accountant composes). Torch draws from generators
seeded per call from dpaudit's Generator (no global seeding).
"""

from __future__ import annotations

import functools
from typing import Any

from ...neighbors.base import Domain
from ..base import CallableMechanism, from_callable
from .common import loader_rates, opacus_claim

__all__ = ["PINNED_DIVISOR", "opacus_make_private_small_n", "train"]

FEATURES = 4
BATCH_SIZE = 4
NOISE_MULTIPLIER = 2.0
MAX_GRAD_NORM = 1.0
LEARNING_RATE = 1.0
DELTA = 1e-5
MIN_SIZE = 5
MAX_SIZE = 8
NOMINAL_SIZE = 8
PINNED_DIVISOR = 4
"""int(8 · 1/2): the divisor the nominal size gives, whatever the private n (the control)."""


def train(dataset: Any, rng: Any, divisor: int | None = None) -> Any:
    """One epoch of Opacus DP-SGD on the dataset; the final weights and bias (numpy). `divisor`
    pins the optimizer's `expected_batch_size` after `make_private` (the fixed-divisor control);
    None keeps Opacus' int(n·q)."""
    import logging
    import warnings

    import numpy as np
    import torch
    from opacus import PrivacyEngine
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    logging.getLogger("opacus").setLevel(logging.ERROR)  # "First batch is empty" on every empty draw
    seeds = rng.integers(2**62, size=2)
    x = torch.tensor(np.asarray(dataset.X), dtype=torch.float32)
    y = torch.tensor(np.asarray(dataset.y), dtype=torch.float32)
    model = nn.Linear(FEATURES, 1)
    with torch.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE)
    loader = DataLoader(
        TensorDataset(x, y), batch_size=BATCH_SIZE, generator=torch.Generator().manual_seed(int(seeds[0]))
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Opacus' secure-mode and empty-batch warnings
        model, optimizer, loader = PrivacyEngine(accountant="rdp").make_private(
            module=model,
            optimizer=optimizer,
            data_loader=loader,
            noise_multiplier=NOISE_MULTIPLIER,
            max_grad_norm=MAX_GRAD_NORM,
            poisson_sampling=True,
            noise_generator=torch.Generator().manual_seed(int(seeds[1])),
        )
        if divisor is not None:
            optimizer.expected_batch_size = divisor
        criterion = nn.BCEWithLogitsLoss()
        for xb, yb in loader:
            optimizer.zero_grad()
            criterion(model(xb).squeeze(-1), yb).backward()
            optimizer.step()
    weight = model._module.weight if hasattr(model, "_module") else model.weight
    bias = model._module.bias if hasattr(model, "_module") else model.bias
    return np.concatenate([weight.detach().numpy().ravel(), bias.detach().numpy()]).astype(np.float64)


def opacus_make_private_small_n(
    *, divisor: int | None = None, name: str = "opacus_make_private_small_n"
) -> CallableMechanism:
    """The user training above through `from_callable`, blind, with Opacus' RDP claim for the
    nominal size; `divisor` pins `expected_batch_size` (the control)."""
    q, _ = loader_rates(NOMINAL_SIZE, BATCH_SIZE)
    claim = opacus_claim(
        accountant="rdp",
        noise_multiplier=NOISE_MULTIPLIER,
        max_grad_norm=MAX_GRAD_NORM,
        sample_rate=q,
        batch_size=BATCH_SIZE,
        steps=round(1 / q),
        delta=DELTA,
        poisson_sampling=True,
        records=(
            f"a nominal {NOMINAL_SIZE} records "
            f"(q = 1/⌈n/{BATCH_SIZE}⌉ = {q:g} for n in {MIN_SIZE}..{MAX_SIZE})"
        ),
    )
    return from_callable(
        functools.partial(train, divisor=divisor) if divisor is not None else train,
        name=name,
        claim=claim,
        domain=Domain(
            num_features=FEATURES,
            feature_low=-1.0,
            feature_high=1.0,
            labels=(0.0, 1.0),
            min_size=MIN_SIZE,
            max_size=MAX_SIZE,
        ),
        output_kind="continuous",
    )
