"""004 (Bun, Carmosino & Sorrell): LazyBregBoost / HS-StL private large-margin halfspaces."""

from __future__ import annotations

from mechanisms.boosting.buggy import HSStLDoubleRounds, HSStLEarlyStop, HSStLNoProjection, HSStLUniformNoise
from mechanisms.boosting.hsstl import HSStL, paper_parameters, project_dense
from mechanisms.registry import RegistryEntry

FAMILY = "004"
_N = 200_000

REGISTRY_ENTRIES: tuple[RegistryEntry, ...] = (
    RegistryEntry(
        name="hs_stl",
        factory=HSStL,
        family=FAMILY,
        summary="HS-StL: LazyBregBoost (LB-NxM, κ-dense projection) + Gaussian weak learner, zCDP → (ε, δ)",
        default_num_samples=_N,
    ),
    RegistryEntry(
        name="hs_stl_no_projection",
        factory=HSStLNoProjection,
        family=FAMILY,
        summary="HS-StL without the Bregman projection",
        buggy=True,
        twin_of="hs_stl",
        bug="no projection onto κ-dense measures (weights up to 1, sensitivity up to 2)",
        default_num_samples=_N,
    ),
    RegistryEntry(
        name="hs_stl_uniform_noise",
        factory=HSStLUniformNoise,
        family=FAMILY,
        summary="HS-StL with noise calibrated to uniform weights",
        buggy=True,
        twin_of="hs_stl",
        bug="σ calibrated to Δ = 2/n instead of 2/(κn) (true μ ×1/κ)",
        default_num_samples=_N,
    ),
    RegistryEntry(
        name="hs_stl_early_stop",
        factory=HSStLEarlyStop,
        family=FAMILY,
        summary="HS-StL with data-dependent early stopping",
        buggy=True,
        twin_of="hs_stl",
        bug="stops when the non-private training error is 0 (number of rounds leaks, ε = ∞)",
        default_num_samples=_N,
    ),
    RegistryEntry(
        name="hs_stl_double_rounds",
        factory=HSStLDoubleRounds,
        family=FAMILY,
        summary="HS-StL running 2T rounds, accounted for T",
        buggy=True,
        twin_of="hs_stl",
        bug="T_accounted = T/2 (512 vs 1024 slip): within the paper's 4× slack in ρ",
        detectable=False,
        default_num_samples=_N,
    ),
)

__all__ = [
    "REGISTRY_ENTRIES",
    "HSStL",
    "HSStLDoubleRounds",
    "HSStLEarlyStop",
    "HSStLNoProjection",
    "HSStLUniformNoise",
    "paper_parameters",
    "project_dense",
]
