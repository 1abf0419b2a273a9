"""Accountant claims for DP-SGD: the privacy profile a real accountant computes, as a claim.

DP-SGD (Abadi et al., "Deep Learning with Differential Privacy", CCS 2016, Algorithm 1) with
Poisson sampling at rate q, per-example clipping to C and Gaussian noise σ·C on the clipped sum
is, per step, the Poisson-subsampled Gaussian mechanism; T steps compose adaptively. Its
privacy profile ε(δ) is computed here by Google's `dp_accounting` library (the privacy loss
distribution accountant of Koskela, Jälkö & Honkela 2020 and Doroshenko, Ghazi, Kamath, Kumar &
Manurangsi, "Connect the Dots: Tighter Discrete Approximations of Privacy Loss Distributions",
PETS 2022), with its pessimistic discretisation, so every tabulated ε(δ) is an upper bound on
the true profile of the subsampled Gaussian composition (and equal to it up to the
discretisation interval, 10⁻⁴ in the privacy loss).

Nothing here is hand-written accounting: `accountant_epsilon` is one call into dp_accounting,
and `accountant_claim` tabulates it on a δ grid (`PROFILE_GRID` plus the headline δ) into a
`ClaimCurve` of kind ACCOUNTANT, whose `epsilon_at` between grid points takes the ε of the next
smaller tabulated δ (conservative, as the profile is non-increasing). dp_accounting is imported
inside the functions, so the registry and `dpaudit list` never need it until a DP-SGD claim is
built; without it the claim cannot be built and the error says which extra to install.
"""

from __future__ import annotations

import functools
import importlib.metadata

from ...neighbors.base import Relation
from ..base import ClaimCurve, ClaimKind, CurveKind, PrivacyClaim, profile_points
from . import table as accountant_table

PROFILE_GRID: tuple[float, ...] = tuple(sorted(m * 10.0**k for k in range(-10, 0) for m in (1.0, 2.0, 5.0)))
"""δ values at which the accountant's curve is tabulated (1·10⁻¹⁰ … 5·10⁻¹): three per decade,
so the audited profile points (10⁻³, 10⁻², 10⁻¹) and any headline δ of the form m·10⁻ᵏ are exact."""

VALUE_DISCRETIZATION = 1e-4
"""dp_accounting's default privacy-loss discretisation interval (pessimistic rounding)."""

CurveKey = accountant_table.Key

_RELATIONS = {Relation.ADD_REMOVE_ONE: "ADD_OR_REMOVE_ONE", Relation.REPLACE_ONE: "REPLACE_ONE"}


class AccountantUnavailableError(RuntimeError):
    """dp_accounting is not installed (it is a dependency of dpaudit; reinstall dpaudit)."""


def accountant_version() -> str:
    """The installed dp_accounting version (package metadata; no import)."""
    try:
        return importlib.metadata.version("dp-accounting")
    except importlib.metadata.PackageNotFoundError as exc:
        raise AccountantUnavailableError(
            "DP-SGD claims need dp_accounting: pip install 'dp-accounting>=0.6'"
        ) from exc


def _check(noise_multiplier: float, sample_rate: float, steps: int, relation: Relation) -> None:
    if not noise_multiplier > 0:
        raise ValueError(f"noise_multiplier must be > 0, got {noise_multiplier}")
    if not 0 < sample_rate <= 1:
        raise ValueError(f"sample_rate must be in (0, 1], got {sample_rate}")
    if steps < 1:
        raise ValueError(f"steps must be ≥ 1, got {steps}")
    if relation not in _RELATIONS:
        raise ValueError(f"the DP-SGD accountant covers add/remove and replace-one, not {relation.value}")


@functools.lru_cache(maxsize=256)
def _accountant(noise_multiplier: float, sample_rate: float, steps: int, relation: Relation) -> object:
    """A dp_accounting PLD accountant with T Poisson-subsampled Gaussian steps composed."""
    accountant_version()
    import dp_accounting
    from dp_accounting import dp_event, pld

    neighbouring = getattr(dp_accounting.NeighboringRelation, _RELATIONS[relation])
    acc = pld.PLDAccountant(
        neighboring_relation=neighbouring, value_discretization_interval=VALUE_DISCRETIZATION
    )
    step = dp_event.PoissonSampledDpEvent(sample_rate, dp_event.GaussianDpEvent(noise_multiplier))
    acc.compose(dp_event.SelfComposedDpEvent(step, steps))
    return acc


@functools.lru_cache(maxsize=4096)
def accountant_epsilon(
    *, noise_multiplier: float, sample_rate: float, steps: int, relation: Relation, delta: float
) -> float:
    """dp_accounting's PLD ε(δ) for `steps` Poisson-subsampled Gaussian steps under `relation`."""
    _check(noise_multiplier, sample_rate, steps, relation)
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    acc = _accountant(float(noise_multiplier), float(sample_rate), int(steps), relation)
    return max(0.0, float(acc.get_epsilon(delta)))  # type: ignore[attr-defined]


def accountant_source(*, noise_multiplier: float, sample_rate: float, steps: int, relation: Relation) -> str:
    """The accountant in words: library, version, what was composed, under which relation."""
    return (
        f"dp_accounting {accountant_version()} PLD accountant: Poisson-subsampled Gaussian "
        f"(σ = {noise_multiplier:g}, q = {sample_rate:g}) composed T = {steps} times, {relation.value}"
    )


RECORDED: set[CurveKey] = set()
"""Every curve key `accountant_curve` was asked for in this process (`accountant_table` collects
the registered presets' keys this way)."""


def compute_points(key: CurveKey) -> tuple[tuple[float, float], ...]:
    """dp_accounting's ε at each δ of `key`'s grid, made non-increasing (rounding can break ties)."""
    sigma, q, steps, relation, deltas = key

    def epsilon_at(d: float) -> float:
        return accountant_epsilon(
            noise_multiplier=sigma, sample_rate=q, steps=steps, relation=Relation(relation), delta=d
        )

    return profile_points(deltas, epsilon_at)


def accountant_curve(
    *,
    noise_multiplier: float,
    sample_rate: float,
    steps: int,
    relation: Relation,
    extra_deltas: tuple[float, ...] = (),
) -> ClaimCurve:
    """The accountant's profile tabulated on `PROFILE_GRID` (plus `extra_deltas`): read from the
    shipped table (`accountant_table`) when it holds this curve for the installed dp_accounting,
    else computed."""
    _check(noise_multiplier, sample_rate, steps, relation)
    deltas = tuple(sorted({*PROFILE_GRID, *(float(d) for d in extra_deltas if 0 < d < 1)}))
    key = (float(noise_multiplier), float(sample_rate), int(steps), relation.value, deltas)
    RECORDED.add(key)
    version = accountant_version()
    points = accountant_table.lookup(key, version=version, interval=VALUE_DISCRETIZATION)
    if points is None:
        points = compute_points(key)
    source = accountant_source(
        noise_multiplier=noise_multiplier, sample_rate=sample_rate, steps=steps, relation=relation
    )
    return ClaimCurve(kind=CurveKind.ACCOUNTANT, points=points, source=source)


def accountant_claim(
    *,
    noise_multiplier: float,
    sample_rate: float,
    steps: int,
    relation: Relation,
    delta: float = 1e-5,
    kind: ClaimKind = ClaimKind.PROVED,
    note: str = "",
) -> PrivacyClaim:
    """The accountant's whole curve as a claim, with headline point (ε(δ), δ).

    One line gives a user's own DP-SGD (σ, q, T, relation) the claim its accountant makes:
    `accountant_claim(noise_multiplier=1.0, sample_rate=0.01, steps=1000,
    relation=Relation.ADD_REMOVE_ONE)`. The verdict then compares the certified ε at each
    audited δ with this curve (and with the headline point).
    """
    curve = accountant_curve(
        noise_multiplier=noise_multiplier,
        sample_rate=sample_rate,
        steps=steps,
        relation=relation,
        extra_deltas=(delta,),
    )
    return PrivacyClaim(
        epsilon=curve.epsilon_at(delta),
        delta=delta,
        relation=relation,
        reference=curve.source,
        kind=kind,
        note=note,
        curve=curve,
    )
