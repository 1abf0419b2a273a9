"""Opacus' accountant as a claim: availability (package metadata), the install message, and the
claim read from Opacus' own accountant by replaying it on the (σ, q, T) the training runs. Never
imports torch or Opacus at module level.

The claim. `PrivacyEngine.make_private` attaches a hook to the optimizer that calls
`accountant.step(noise_multiplier=σ, sample_rate=q)` once per optimizer step, with
q = 1/len(data_loader) whichever sampling the loader uses (Poisson or not). After T steps the
engine's `accountant.get_epsilon(δ)` is the ε users read. `opacus_claim` replays exactly that:
it creates the same accountant (`opacus.accountants.create_accountant`, "prv" by default as in
`PrivacyEngine()`), calls `step` T times and asks `get_epsilon` at each δ of a small grid
(`CLAIM_DELTAS` plus the headline δ), so the claim exists before any training runs;
`tests/test_opacus.py` checks the replay equals a trained engine's own `get_epsilon`. Opacus
accounts for add/remove one record (the Poisson-subsampled Gaussian privacy loss of Mironov,
Talwar & Zhang 2019 and Gopi, Lee & Wutschitz 2021), so the claim's relation is add/remove
only. Nothing here is hand-written accounting.
"""

from __future__ import annotations

import functools
import importlib.util

from ...neighbors.base import Relation
from ..base import ClaimCurve, ClaimKind, CurveKind, PrivacyClaim, profile_points
from ..versions import major_minor, version_of

EXTRA = "opacus"
INSTALL_MESSAGE = "needs the opacus extra: pip install 'dpaudit[opacus]'"
ACCOUNTANTS = ("prv", "rdp")
CLAIM_DELTAS: tuple[float, ...] = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1)
"""δ at which Opacus' accountant is asked for ε (with the headline δ): the runner's profile
points (10⁻³, 10⁻², 10⁻¹) are exact; between them the curve answers the ε of the next smaller δ."""


def opacus_available() -> bool:
    """Opacus ≥ 1.5 and torch are installed (metadata and import specs only: nothing imported)."""
    v = version_of("opacus")
    return (
        v is not None
        and major_minor(v) >= (1, 5)
        and importlib.util.find_spec("opacus") is not None
        and importlib.util.find_spec("torch") is not None
    )


def opacus_label() -> str:
    """`"Opacus 1.6.0 (torch 2.14.1)"`: shown in every claim reference."""
    return f"Opacus {version_of('opacus') or '(not installed)'} (torch {version_of('torch') or '?'})"


@functools.lru_cache(maxsize=256)
def accountant_points(
    accountant: str, noise_multiplier: float, sample_rate: float, steps: int, deltas: tuple[float, ...]
) -> tuple[tuple[float, float], ...]:
    """Opacus' ε(δ) after `steps` calls of `accountant.step(σ, q)`, made non-increasing in δ."""
    if accountant not in ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {', '.join(ACCOUNTANTS)}, got {accountant!r}")
    if not opacus_available():
        raise RuntimeError(INSTALL_MESSAGE)
    from opacus.accountants import create_accountant

    acc = create_accountant(mechanism=accountant)
    for _ in range(steps):
        acc.step(noise_multiplier=noise_multiplier, sample_rate=sample_rate)
    return profile_points(deltas, lambda d: max(0.0, float(acc.get_epsilon(delta=d))))


def opacus_claim(
    *,
    accountant: str,
    noise_multiplier: float,
    max_grad_norm: float,
    sample_rate: float,
    batch_size: int,
    steps: int,
    delta: float,
    poisson_sampling: bool,
    records: str,
) -> PrivacyClaim:
    """The claim Opacus' own accountant makes for T steps at (σ, q), add/remove one record:
    proved with Poisson sampling, stated for shuffled batches (Opacus reports the same ε). Its
    reference names the `make_private` call on a loader over `records` (in words)."""
    kind = ClaimKind.PROVED if poisson_sampling else ClaimKind.STATED
    built = (
        f"make_private(noise_multiplier={noise_multiplier:g}, max_grad_norm={max_grad_norm:g}, "
        f"poisson_sampling={poisson_sampling}) on DataLoader(batch_size={batch_size}) over "
        f"{records}, {steps} steps"
    )
    deltas = tuple(sorted({*CLAIM_DELTAS, float(delta)}))
    points = accountant_points(accountant, float(noise_multiplier), float(sample_rate), int(steps), deltas)
    source = (
        f"{opacus_label()} {accountant.upper()} accountant (PrivacyEngine(accountant={accountant!r})): "
        f"accountant.step(noise_multiplier={noise_multiplier:g}, sample_rate={sample_rate:g}) × {steps}, "
        "then get_epsilon(δ); add/remove one record"
    )
    headline = dict(points)[float(delta)]
    return PrivacyClaim(
        epsilon=headline,
        delta=float(delta),
        relation=Relation.ADD_REMOVE_ONE,
        reference=f"{source}; {built}",
        kind=kind,
        note=(
            "read from Opacus' accountant, replayed on the σ, q = 1/len(data_loader) and T the "
            "training runs (what engine.accountant.get_epsilon(δ) returns after training)"
            + (
                ""
                if kind is ClaimKind.PROVED
                else "; Opacus reports this Poisson-sampling ε for shuffled batches too: stated, not proved"
            )
        ),
        curve=ClaimCurve(kind=CurveKind.ACCOUNTANT, points=points, source=source),
    )
