"""What a certified test maximises: ε at a δ, δ at an ε, or a Gaussian-DP μ.

Every objective is a function of one event's certified interval pair (p_lo, q_hi) (P: the
side where the event is more likely). The runner chooses, per pair and objective, the event
whose *projected* interval maximises the objective on the selection split, then certifies it.

- `EpsilonAt(δ)`: ln((p_lo − δ)/q_hi), from P ≤ e^ε Q + δ.
- `DeltaAt(ε)`: p_lo − e^ε q_hi.
- `GaussianMu`: Φ⁻¹(p_lo) − Φ⁻¹(q_hi). A μ-GDP mechanism has trade-off function
  T(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022): any test with type-I error α = Q has power
  P ≤ Φ(Φ⁻¹(Q) + μ), so μ ≥ Φ⁻¹(P) − Φ⁻¹(Q) (Nasr et al. 2023). This refutes a μ-GDP claim
  only, not an arbitrary (ε, δ) claim, and is labelled so.

Each objective states what its certificate assumes (`assumption`, recorded in the result).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from ..bounds import delta_from_bounds, epsilon_from_bounds

DIRECT_ASSUMPTION = (
    "i.i.d. samples; event fixed on the selection split before certification; no distributional assumption"
)
"""The direct (ε, δ) route: valid for any mechanism (docs/DESIGN.md, "Statistics")."""
GDP_ASSUMPTION = (
    "i.i.d. samples; event fixed on the selection split before certification; "
    "μ-GDP trade-off curve (refutes μ-GDP claims only)"
)
"""The Gaussian-DP route: the bound on μ refutes a μ-GDP claim, not an arbitrary (ε, δ) claim."""


class Objective(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def parameter(self) -> float | None: ...

    def value(self, p_lo: ArrayLike, q_hi: ArrayLike) -> NDArray[np.float64]: ...

    def label(self) -> str: ...


@dataclass(frozen=True, slots=True)
class EpsilonAt:
    delta: float

    @property
    def kind(self) -> str:
        return "epsilon"

    @property
    def parameter(self) -> float:
        return self.delta

    def value(self, p_lo: ArrayLike, q_hi: ArrayLike) -> NDArray[np.float64]:
        return epsilon_from_bounds(p_lo, q_hi, delta=self.delta)

    def label(self) -> str:
        return f"ε at δ={self.delta:g}"

    @property
    def assumption(self) -> str:
        return DIRECT_ASSUMPTION


@dataclass(frozen=True, slots=True)
class DeltaAt:
    epsilon: float

    @property
    def kind(self) -> str:
        return "delta"

    @property
    def parameter(self) -> float:
        return self.epsilon

    def value(self, p_lo: ArrayLike, q_hi: ArrayLike) -> NDArray[np.float64]:
        return delta_from_bounds(p_lo, q_hi, epsilon=self.epsilon)

    def label(self) -> str:
        return f"δ at ε={self.epsilon:g}"

    @property
    def assumption(self) -> str:
        return DIRECT_ASSUMPTION


@dataclass(frozen=True, slots=True)
class GaussianMu:
    @property
    def kind(self) -> str:
        return "gdp_mu"

    @property
    def parameter(self) -> None:
        return None

    def value(self, p_lo: ArrayLike, q_hi: ArrayLike) -> NDArray[np.float64]:
        p = np.clip(np.asarray(p_lo, dtype=float), 0.0, 1.0)
        q = np.clip(np.asarray(q_hi, dtype=float), 0.0, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            mu = special.ndtri(p) - special.ndtri(q)
        return np.where(np.isnan(mu), -np.inf, mu)

    def label(self) -> str:
        return "Gaussian-DP μ (refutes μ-GDP claims only)"

    @property
    def assumption(self) -> str:
        return GDP_ASSUMPTION
