"""Floating-point mechanisms: naive float twins and their correct counterparts.

Twins (true ε beyond the claim): `float_laplace_naive`, `float_gaussian_naive` (Mironov, "On
significance of the least significant bits for differential privacy", CCS 2012: the low bits of
`f(D) + noise` reveal f(D)) and `float_sum_rounding` (Casacuberta, Shoemate, Vadhan & Wagaman,
CCS 2022: a sensitivity computed over the reals does not bound a rounded float sum). Correct
counterparts: Mironov's snapping mechanism and the discrete Laplace and discrete Gaussian
(Canonne, Kamath & Steinke, NeurIPS 2020) on integer sums. Every mechanism here declares
`floating_point = True`, so the audit adds the lattice events of `engine.distinguishers.floats`.
"""

from __future__ import annotations

from ..registry import RegistryEntry
from .exact import DiscreteGaussianSum, DiscreteLaplaceSum, SnappingLaplace
from .naive import NaiveFloatGaussian, NaiveFloatLaplace, RoundedSumDiscreteLaplace

FAMILY = "floats"

__all__ = [
    "FAMILY",
    "REGISTRY_ENTRIES",
    "DiscreteGaussianSum",
    "DiscreteLaplaceSum",
    "NaiveFloatGaussian",
    "NaiveFloatLaplace",
    "RoundedSumDiscreteLaplace",
    "SnappingLaplace",
]


def _entry(name: str, factory: type, summary: str) -> RegistryEntry:
    return RegistryEntry(name=name, factory=factory, family=FAMILY, summary=summary)


def _twin(name: str, factory: type, of: str, bug: str) -> RegistryEntry:
    return RegistryEntry.twin(name, factory, family=FAMILY, of=of, bug=bug)


REGISTRY_ENTRIES: tuple[RegistryEntry, ...] = (
    _entry(
        "float_snapping", SnappingLaplace, "Mironov's snapping mechanism on a clamped sum (ε-DP over doubles)"
    ),
    _entry(
        "float_discrete_laplace",
        DiscreteLaplaceSum,
        "integer sum + discrete Laplace (ε-DP, no float arithmetic on the release)",
    ),
    _entry(
        "float_discrete_gaussian",
        DiscreteGaussianSum,
        "integer sum + discrete Gaussian, Canonne-Kamath-Steinke sampler (zCDP → (ε, δ))",
    ),
    _twin(
        "float_laplace_naive",
        NaiveFloatLaplace,
        "float_snapping",
        "x + rng.laplace(0, Δ/ε) over doubles: the low bits reveal x (true ε = ∞, Mironov 2012)",
    ),
    _twin(
        "float_gaussian_naive",
        NaiveFloatGaussian,
        "float_discrete_gaussian",
        "x + rng.normal(0, σ) over doubles: the low bits reveal x (true ε = ∞)",
    ),
    _twin(
        "float_sum_rounding",
        RoundedSumDiscreteLaplace,
        "float_discrete_laplace",
        "rounded float sum + discrete Laplace at the declared sensitivity U − L (true ε = 2ε)",
    ),
)
