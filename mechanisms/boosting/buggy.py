"""Buggy twins of HS-StL (specs/seeds-003-004.md §3.4.7), each keeping the correct claim.

Preset d = 1, n = 40, κ = 0.25, T = 8, λ = 2, σ = 1.5, δ = 1e-5: best-provable claim
ε = 1.457 (GDP μ = 0.377), paper's claim 3.904. True ε on the registered W-B1 pair:

- hs_stl_no_projection: no Bregman projection: normalised multiplicative weights (B-B1). True ε:
  μ-GDP with per-round sensitivity up to 2 (μ up to 3.8), ≫ claim. Detectable: yes.
- hs_stl_uniform_noise: σ calibrated to uniform weights, Δ = 2/n instead of 2/(κn), i.e. σ·κ (B-B3).
  True ε: GDP μ = 1.51: 6.0. Detectable: yes.
- hs_stl_early_stop: stops (releases ẑ = 0) once the non-private running hypothesis has zero
  training error (B-B6, "data-dependent T"). True ε: ∞. Detectable: yes.
- hs_stl_double_rounds: runs 2T rounds while the claims account for T (B-B7, 512 vs 1024 slip). True
  ε: GDP μ = 0.533: 2.17 (above the best-provable 1.457, below the paper's 3.904). Detectable: no: ρ
  under-accounted by 2×, within the paper's 4× slack; not detectable at ≲10^6 samples (spec §3.4.7).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from mechanisms.boosting.hsstl import HSStL
from neighbors.base import NeighborPair


@dataclass(frozen=True, slots=True, kw_only=True)
class HSStLNoProjection(HSStL):
    """B-B1: μ̂ = μ̃/|μ̃| (AdaBoost-like), no projection onto κ-dense measures."""

    name: str = "hs_stl_no_projection"

    def _weights(self, log_mu: NDArray[np.float64]) -> NDArray[np.float64]:
        w = np.exp(log_mu - log_mu.max(axis=1, keepdims=True))
        return w / w.sum(axis=1, keepdims=True)

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        raise NotImplementedError("the GDP upper bound needs the projection and a fixed T")


@dataclass(frozen=True, slots=True, kw_only=True)
class HSStLUniformNoise(HSStL):
    """B-B3: noise calibrated to sensitivity 2/n (uniform weights), forgetting the 1/κ."""

    name: str = "hs_stl_uniform_noise"

    @property
    def noise_sigma(self) -> float:
        return self.sigma * self.kappa


@dataclass(frozen=True, slots=True, kw_only=True)
class HSStLEarlyStop(HSStL):
    """B-B6: stop (release zeros) once sign⟨Σ ẑ, x_i⟩ = y_i on every training point."""

    name: str = "hs_stl_early_stop"

    def _stop(self, margins: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.bool_] | None:
        return np.all(margins * y[None, :] > 0, axis=1)

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        raise NotImplementedError("the GDP upper bound needs the projection and a fixed T")


@dataclass(frozen=True, slots=True, kw_only=True)
class HSStLDoubleRounds(HSStL):
    """B-B7: runs 2T rounds; the claims still account for T."""

    name: str = "hs_stl_double_rounds"

    def _num_rounds(self) -> int:
        return 2 * self.rounds
