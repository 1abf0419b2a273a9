"""Opacus (PyTorch DP-SGD), audited against the ε its own accountant reports.

`pip install "dpaudit[opacus]"` (Opacus ≥ 1.5, which pulls torch). The presets are registered
only when Opacus is installed; nothing here imports torch or Opacus (availability is read from
package metadata, `training.py` is imported when a run is asked for). Without Opacus,
`dpaudit run opacus_…` exits 2 with `INSTALL_MESSAGE` (the registry reads `UNAVAILABLE`).
Each Monte Carlo run is one real Opacus training (`make_private`, T optimizer steps), so a
run costs milliseconds, not microseconds: the default budgets are small, and `dpaudit run
--all` leaves this family out (like the DP-library family: it audits third-party code, by name).

Presets (`mechanism.OpacusDPSGD`; σ = 1, C = 1, B = 10 over 95–96 records so q = 0.1, T = 10,
d = 4, η = 0.5, PRV accountant at δ = 10⁻⁵ unless named):

- `opacus_poisson_canary`: gradient canary through a per-sample-gradient hook, all iterates;
- `opacus_shuffle_canary`: the same with `poisson_sampling=False` (a STATED claim);
- `opacus_poisson_score`: the gradient canary's score Σ_t ⟨θ_{t−1} − θ_t, u⟩/η only;
- `opacus_input_canary`: an input-space canary, its loss at the last iterate.

- `opacus_make_private_small_n`: `make_private` as a user calls it on 5–8 records, blind (no pair,
  no statistic, `small_n.py`): the divisor int(n·q) read from the private n
  (meta-pytorch/opacus#571); `opacus_make_private_small_n_pinned` pins the divisor (the control).

One-run audits: `dpaudit.mechanisms.opacus.one_run` (≥ 1,000 gradient canaries in one training).
"""

from __future__ import annotations

import functools
from typing import Any

from ..registry import RegistryEntry
from .common import INSTALL_MESSAGE, opacus_available

FAMILY = "opacus"

__all__ = ["FAMILY", "INSTALL_MESSAGE", "PRESETS", "REGISTRY_ENTRIES", "UNAVAILABLE"]

PRESETS: dict[str, tuple[dict[str, Any], str, int]] = {
    "opacus_poisson_canary": (
        {},
        "Opacus DP-SGD σ = 1, q = 0.1, T = 10, Poisson sampling, gradient canary (hook), all iterates",
        2_000,
    ),
    "opacus_shuffle_canary": (
        {"poisson_sampling": False},
        "Opacus DP-SGD σ = 1, q = 0.1, T = 10, poisson_sampling=False, gradient canary, all iterates",
        2_000,
    ),
    "opacus_poisson_score": (
        {"view": "score"},
        "Opacus DP-SGD σ = 1, q = 0.1, T = 10, Poisson sampling, gradient canary, one score per run",
        2_000,
    ),
    "opacus_input_canary": (
        {"canary": "input", "view": "score"},
        "Opacus DP-SGD σ = 1, q = 0.1, T = 10, Poisson sampling, input canary, its last-iterate loss",
        2_000,
    ),
}
"""name → (parameters, summary, default samples per side: about a minute of one core)."""


def _factory(name: str) -> Any:
    from .mechanism import OpacusDPSGD

    return functools.partial(OpacusDPSGD, name=name, **PRESETS[name][0])


SMALL_N: dict[str, tuple[int | None, str, int]] = {
    "opacus_make_private_small_n": (
        None,
        "Opacus make_private on 5-8 records, blind: the divisor int(n·q) read from the private n",
        4_000,
    ),
    "opacus_make_private_small_n_pinned": (
        4,
        "the same with expected_batch_size pinned to 4 (the control)",
        4_000,
    ),
}
"""name → (pinned divisor, summary, default samples per side) of the `small_n.py` training."""


def _small_n_factory(name: str) -> Any:
    from .small_n import opacus_make_private_small_n

    return functools.partial(opacus_make_private_small_n, divisor=SMALL_N[name][0], name=name)


def _entries() -> tuple[RegistryEntry, ...]:
    if not opacus_available():
        return ()
    canaries = tuple(
        RegistryEntry(
            name=name, factory=_factory(name), family=FAMILY, summary=summary, default_num_samples=n
        )
        for name, (_, summary, n) in PRESETS.items()
    )
    small = tuple(
        RegistryEntry(
            name=name, factory=_small_n_factory(name), family=FAMILY, summary=summary, default_num_samples=n
        )
        for name, (_, summary, n) in SMALL_N.items()
    )
    return canaries + small


REGISTRY_ENTRIES: tuple[RegistryEntry, ...] = _entries()

UNAVAILABLE: dict[str, str] = (
    {} if REGISTRY_ENTRIES else {name: INSTALL_MESSAGE for name in (*PRESETS, *SMALL_N)}
)
"""Preset name → why it cannot be built here (the registry's answer to `dpaudit run NAME`)."""
