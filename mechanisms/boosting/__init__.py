"""Bun, Carmosino & Sorrell, "Efficient, Noise-Tolerant, and Private Learning via Boosting": Thm 30.

LazyBregBoost / HS-StL private large-margin halfspaces (paper 004), and its private Gaussian weak
learner WL^ (Thm 27) audited on its own (`weak`).
"""

from __future__ import annotations

from ..registry import RegistryEntry
from .buggy import (
    HSStLDoubleRounds,
    HSStLEarlyStop,
    HSStLNonLazy,
    HSStLNoProjection,
    HSStLPreNoiseLoss,
    HSStLUnclippedLoss,
    HSStLUniformNoise,
)
from .hsstl import HSStL, paper_parameters, project_dense
from .weak import HSWeakLearner, WeakUniformNoise

FAMILY = "004"
_N = 200_000

REGISTRY_ENTRIES: tuple[RegistryEntry, ...] = (
    RegistryEntry(
        name="hs_weak_learner",
        factory=HSWeakLearner,
        family=FAMILY,
        summary="private Gaussian weak learner WL^ alone (fixed κ-smooth measure), μ = 2/(κnσ)-GDP "
        "(the paper: ρ = 2/(κnσ)²-zCDP), Thm 27",
        default_num_samples=_N,
    ),
    RegistryEntry(
        name="hs_weak_learner_uniform_noise",
        factory=WeakUniformNoise,
        family=FAMILY,
        summary="WL^ with noise calibrated to uniform weights",
        buggy=True,
        twin_of="hs_weak_learner",
        bug="σ calibrated to Δ = 2/n instead of 2/(κn) (true μ ×1/κ)",
        default_num_samples=_N,
    ),
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
        bug="T_accounted = T/2 (512 vs 1024 slip): within the paper's 4× slack in ρ; "
        "caught by its μ-GDP curve",
        detectable=True,
        default_num_samples=_N,
    ),
    RegistryEntry(
        name="hs_stl_non_lazy",
        factory=HSStLNonLazy,
        family=FAMILY,
        summary="HS-StL with BregBoost's non-lazy projection (project after every step)",
        buggy=True,
        twin_of="hs_stl",
        bug="non-lazy projection: slickness fails only on searched pairs (hill-climbing found TV up to "
        "3.9/κn); "
        "on the registered W-B1 pairs measured certified 0.584 at 10^5 (claim 1.457)",
        detectable=False,
        default_num_samples=_N,
    ),
    RegistryEntry(
        name="hs_stl_unclipped_loss",
        factory=HSStLUnclippedLoss,
        family=FAMILY,
        summary="HS-StL with unclipped weak hypotheses in the losses and no cap on dense measures",
        buggy=True,
        twin_of="hs_stl",
        bug="h not clipped (ℓ < 0, μ̃ > κ) and min(1, ·) skipped when |μ̃| ≥ κn",
        default_num_samples=_N,
    ),
    RegistryEntry(
        name="hs_stl_pre_noise_loss",
        factory=HSStLPreNoiseLoss,
        family=FAMILY,
        summary="HS-StL whose LB-NxM losses use the pre-noise weak hypothesis",
        buggy=True,
        twin_of="hs_stl",
        bug="losses from the pre-noise z_t instead of the released ẑ_t (hidden state): the weights "
        "still satisfy μ̂ ≤ 1/(κn); measured certified 0.805 at 10^5 (claim 1.457)",
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
    "HSStLNonLazy",
    "HSStLPreNoiseLoss",
    "HSStLUnclippedLoss",
    "HSStLUniformNoise",
    "HSWeakLearner",
    "WeakUniformNoise",
    "paper_parameters",
    "project_dense",
]
