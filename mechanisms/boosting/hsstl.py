"""HS-StL by LazyBregBoost: "Efficient, Noise-Tolerant, and Private Learning via Boosting", Thm 30.

Private large-margin halfspaces (Bun, Carmosino & Sorrell).

Algorithm (004 Alg. 5 "HS-StL" = Boost (Alg. 1–2) with LB-NxM (Alg. 4) and the Gaussian
"centering with noise" weak learner WL^ (§5.2, Thm 26–27)). For t = 1 … T:

    μ̃_t(i) = κ · exp(−λ Σ_{j<t} ℓ_j(x_i)),  ℓ_j(x_i) = 1 − ½|h_j(x_i) − y_i|     (LB-NxM, lazy)
    μ_t     = Π_Γκ(μ̃_t)  (KL projection onto κ-dense measures, Lemma 9: min(1, c·μ̃), c ≥ 1)
    μ̂_t     = μ_t / (κ n)
    ẑ_t     = Σ_i μ̂_t(i) y_i x_i + N(0, σ² I_d)          (WL^; released)
    h_t(x)  = clip(ẑ_t · x, −1, 1)                          (docs/specs/ERRATA.md F8: the clip is not in the
                                                             pseudo-code but the analysis needs
                                                             ℓ ∈ [0, 1]; post-processing, free)

The release is the transcript (ẑ_1, …, ẑ_T), a (T·d)-vector; the final hypothesis
H(x) = sign(Σ_t clip(ẑ_t · x, −1, 1)) (Alg. 1's sign of the average of the clipped h_t, the same h_t
the updates use) is post-processing. Features are projected to the unit ℓ2 ball (domain
assumption of Thm 27; a no-op on the default d = 1 domain [−1, 1]).

Privacy claims (replace-one with n fixed: 004 Def. 12; the slickness proof needs the same
index set, so add/remove is not covered):
- Headline (004 Thm 27.1 with s = ζ = 1/(κn) from Lemma 25, zCDP composition Lemma 14,
  conversion Lemma 15, as in the proof of Thm 30): ρ_T = T · 8/(κnσ)²,
      ε = ρ_T + 2·sqrt(ρ_T · ln(1/δ)).
- Best provable (derived, docs/specs/seeds-003-004.md §3.3 [D,N]): under LB-NxM a replace-one neighbour moves
  Σ_i μ̂(i) y_i x_i by at most 2/(κn) in ℓ2 (with weights a ≥ b at the changed index the other
  weights move one way by a − b in total, so ‖Δz‖ ≤ a + b + (a − b) = 2a ≤ 2/(κn)). The
  T-fold adaptive composition of Gaussian mechanisms with ℓ2-sensitivity ≤ Δ is μ-GDP with
  μ = sqrt(T)·Δ/σ = 2·sqrt(T)/(κnσ) (Dong–Roth–Su 2019, Cor. 3.3), whose exact (ε, δ) profile
  is Balle–Wang's. The paper's ρ is 4× conservative.
- Both are PROVED claims; the runner's verdict uses the smaller (best provable) one.
- Both are curves (`PrivacyClaim.curve`), audited point by point: the headline is ρ_T-zCDP
  (the ρ of 004's proof of Thm 30, "HS-StL is ρ_T-zCDP", with the per-round ρ = 8/(κnσ)² of
  Thm 27.1 at s = 1/(κn) and T rounds by Lemma 14), the best provable is μ-GDP. The zCDP
  curve's ε(δ) is the Lemma 15 conversion (the same formula the headline ε uses), so each
  claim's (ε, δ) lies on its curve. (The GDP claim is the sharper curve everywhere: μ-GDP is
  μ²/2-zCDP and μ²/2 = ρ_T/4.)

Parameters: the paper's Alg. 5 settings (κ = α/4, T = 1024 ln(1/κ)/τ², λ = τ/8, σ from τ, β)
make T in the thousands; privacy does not depend on λ, so the audit preset uses the spec's
instance (d = 1, n = 40, κ = 0.25, T = 8, λ = 2, σ = 1.5). `paper_parameters` returns the
Alg. 5 settings for the utility test (c = 2 in σ, docs/specs/seeds-003-004.md §3.3 [D]).
Inconsistencies in 004 (docs/specs/seeds-003-004.md §3.4): Alg. 5's λ = τ/8 vs Thm 24's
γ/4 = τ/32, and T = 1024 vs 512 ln(1/κ)/τ² in App. C; the utility test uses λ = τ/32 (Thm 24's requirement)
and Alg. 5's T = 1024·ln(1/κ)/τ².
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation
from ..analytic import gaussian_epsilon
from ..base import ClaimCurve, ClaimFromClaims, CurveKind, PrivacyClaim

PAPER = "Bun, Carmosino & Sorrell, Efficient, Noise-Tolerant, and Private Learning via Boosting"


def project_dense(
    log_mu: NDArray[np.float64], kappa: float, mult: NDArray[np.float64] | None = None
) -> NDArray[np.float64]:
    """KL projection of rows μ̃ = exp(log_mu) (each entry ≤ 1) onto Γκ = {μ ∈ [0,1]^n : Σμ ≥ κn}.

    004 Lemma 9: if Σμ̃ < κn the projection is min(1, c·μ̃) with the smallest c ≥ 1 giving
    density κ; else μ̃ itself. Found per row by sorting (docs/specs/seeds-003-004.md §1 B6), in log space.
    With `mult`, column i stands for mult[i] identical examples (n = Σ mult): the same
    projection, the sums weighted (equal examples get equal weight, so nothing else changes).
    """
    R, cols = log_mu.shape
    m = np.ones(cols) if mult is None else np.asarray(mult, dtype=np.float64)
    target = kappa * float(m.sum())
    shift = log_mu.max(axis=1, keepdims=True)
    u = np.exp(log_mu - shift)  # scaled by e^{-shift}; c·μ̃ is scale-invariant below
    order = np.argsort(-u, axis=1, kind="stable")
    us = np.take_along_axis(u, order, axis=1)  # descending
    ms = m[order]
    tail = np.cumsum((ms * us)[:, ::-1], axis=1)[:, ::-1]  # tail[:, k] = Σ_{j ≥ k} m_j us_j
    head = np.cumsum(ms, axis=1) - ms  # Σ_{j < k} m_j: the examples capped at 1
    with np.errstate(divide="ignore", invalid="ignore"):
        ck = (target - head) / tail  # the first k columns capped at 1, the rest scaled by c_k
        ok = ck * us <= 1.0 + 1e-12
        prev = np.concatenate([np.ones((R, 1), dtype=bool), (ck[:, 1:] * us[:, :-1]) >= 1.0 - 1e-12], axis=1)
    valid = ok & prev & (head < target)
    first = np.argmax(valid, axis=1)
    c_scaled = ck[np.arange(R), first]
    total_log = shift[:, 0] + np.log(u @ m)
    c_true = c_scaled * np.exp(-shift[:, 0])  # the c multiplying the unscaled μ̃
    dense = total_log >= math.log(target)
    c_use = np.where(dense | (c_true < 1.0), np.exp(shift[:, 0]), c_scaled)  # c = 1 when already dense
    return np.minimum(1.0, c_use[:, None] * u)


def compress(
    X: NDArray[np.float64], y: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Distinct (x, y) examples and their multiplicities. HS-StL treats equal examples alike
    (every weight, loss and update is a function of (x_i, y_i) and the run's past), so a run on
    the distinct examples with multiplicity-weighted sums is the same algorithm."""
    rows, counts = np.unique(np.column_stack([X, y]), axis=0, return_counts=True)
    return rows[:, :-1], rows[:, -1], counts.astype(np.float64)


@dataclass(frozen=True, slots=True, kw_only=True)
class HSStL(ClaimFromClaims):
    """LazyBregBoost with the Gaussian weak learner (004 Alg. 5, Thm 30); releases ẑ_1..ẑ_T."""

    n: int = 40
    num_features: int = 1
    kappa: float = 0.25
    rounds: int = 8
    learning_rate: float = 2.0
    sigma: float = 1.5
    delta: float = 1e-5
    name: str = "hs_stl"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "continuous"
    exact_epsilon_method: ClassVar[str] = "upper bound: Gaussian-DP profile, μ = 2√T/(κnσ)"

    def __post_init__(self) -> None:
        if not (0 < self.kappa < 1 and self.sigma > 0 and 0 < self.delta < 1):
            raise ValueError("need 0 < kappa < 1, sigma > 0, 0 < delta < 1")
        if self.n < 2 or self.rounds < 1 or self.num_features < 1 or self.learning_rate < 0:
            raise ValueError("need n ≥ 2, rounds ≥ 1, num_features ≥ 1, learning_rate ≥ 0")

    @property
    def max_block(self) -> int:
        """Most runs per `sample` call: the weight updates keep about a dozen (runs, n) float
        arrays alive, so blocks of ≤ 64 MiB / (12·8·n) runs keep the working set near 64 MiB
        whatever the harness's chunk size (a full chunk of 2¹⁸ runs peaked at ~870 MB)."""
        return max(1024, (64 << 20) // (12 * 8 * (self.n + self._num_rounds() * self.num_features)))

    # ------------------------------------------------------------------ claims
    @property
    def accounted_rounds(self) -> int:
        return self.rounds

    @property
    def noise_sigma(self) -> float:
        """σ actually added (buggy twins change it; the claims use `sigma`)."""
        return self.sigma

    def rho_total(self) -> float:
        """ρ_T = T · 8/(κnσ)² (004 Thm 27.1 with s = 1/(κn), Lemma 14)."""
        return self.accounted_rounds * 8.0 / (self.kappa * self.n * self.sigma) ** 2

    def paper_epsilon(self) -> float:
        rho = self.rho_total()
        return rho + 2.0 * math.sqrt(rho * math.log(1.0 / self.delta))

    def gdp_mu(self) -> float:
        return 2.0 * math.sqrt(self.accounted_rounds) / (self.kappa * self.n * self.sigma)

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return (
            PrivacyClaim(
                epsilon=gaussian_epsilon(self.delta, self.gdp_mu()),
                delta=self.delta,
                relation=Relation.REPLACE_ONE,
                reference=f"{PAPER}, Thm 27 with the tight sensitivity 2/(κn) (derived here, not in the "
                "paper) + Gaussian DP composition",
                note=f"best provable: μ-GDP, μ = 2√T/(κnσ) = {self.gdp_mu():.4f}, exact Balle–Wang profile",
                curve=ClaimCurve(kind=CurveKind.GDP, parameter=self.gdp_mu()),
            ),
            PrivacyClaim(
                epsilon=self.paper_epsilon(),
                delta=self.delta,
                relation=Relation.REPLACE_ONE,
                reference=f"{PAPER}, Thm 30 (Thm 27.1, Lemma 25, Lemmas 14–15)",
                note=f"headline: ρ_T = 8T/(κnσ)² = {self.rho_total():.4f}; ε = ρ_T + 2√(ρ_T ln(1/δ))",
                curve=ClaimCurve(kind=CurveKind.ZCDP, parameter=self.rho_total()),
            ),
        )

    @property
    def domain(self) -> Domain:
        return Domain(
            num_features=self.num_features,
            feature_low=-1.0,
            feature_high=1.0,
            labels=(-1.0, 1.0),
            min_size=self.n,
            max_size=self.n,
        )

    # ------------------------------------------------------------------ algorithm
    def _weights(self, log_mu: NDArray[np.float64]) -> NDArray[np.float64]:
        """LB-NxM: project the lazy measure and normalise, μ̂ = Π(μ̃)/(κn)."""
        mu = project_dense(log_mu, self.kappa)
        return mu / (self.kappa * self.n)

    def _hypothesis(self, raw: NDArray[np.float64]) -> NDArray[np.float64]:
        """h_t(x_i) = clip(ẑ_t · x_i, −1, 1) (docs/specs/ERRATA.md F8: ℓ ∈ [0, 1] needs h ∈ [−1, 1])."""
        return np.clip(raw, -1.0, 1.0)

    def _loss_direction(self, z_pre: NDArray[np.float64], z: NDArray[np.float64]) -> NDArray[np.float64]:
        """The hypothesis whose losses feed LB-NxM: the RELEASED ẑ_t (B-B8 uses the pre-noise z)."""
        return z

    def _next_log_mu(
        self, log_mu: NDArray[np.float64], muhat: NDArray[np.float64], loss: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """Lazy update (Alg. 4): μ̃_{t+1} = κ·exp(−λ Σ_{j≤t} ℓ_j), cumulative and unprojected."""
        return log_mu - self.learning_rate * loss

    def _num_rounds(self) -> int:
        return self.rounds

    def _stop(self, margins: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.bool_] | None:
        """Early-stopping hook for a buggy twin; None = run all rounds (correct)."""
        return None

    def _inputs(self, dataset: Dataset) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        X = np.asarray(dataset.X, dtype=np.float64)
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        X = X / np.maximum(norms, 1.0)  # project to the unit ball (Thm 27's domain)
        y = np.asarray(dataset.y, dtype=np.float64) if dataset.y is not None else np.ones(dataset.n)
        return X, y

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        if dataset.n != self.n:
            raise ValueError(f"{self.name} is configured for n = {self.n}, got {dataset.n}")
        X, y = self._inputs(dataset)
        mult = None
        if type(self)._weights is HSStL._weights:  # the base projection takes multiplicities
            X, y, mult = compress(X, y)
        R, d, T = num_samples, X.shape[1], self._num_rounds()
        yx = y[:, None] * X  # (n, d)
        if mult is not None:
            yx = yx * mult[:, None]
        log_mu = np.full((R, X.shape[0]), math.log(self.kappa))  # log μ̃_1 = log κ
        out = np.zeros((R, T, d))
        running = np.ones(R, dtype=bool)
        zsum = np.zeros((R, d))
        for t in range(T):
            muhat = self._weights(log_mu) if mult is None else self._weights_of(log_mu, mult)
            z_pre = muhat @ yx
            z = z_pre + self.noise_sigma * rng.standard_normal((R, d))
            z = np.where(running[:, None], z, 0.0)
            out[:, t, :] = z
            h = self._hypothesis(self._loss_direction(z_pre, z) @ X.T)  # (R, n)
            loss = 1.0 - 0.5 * np.abs(h - y[None, :])
            log_mu = self._next_log_mu(log_mu, muhat, loss)
            zsum += z
            stop = self._stop(zsum @ X.T, y)
            if stop is not None:
                running &= ~stop
        return out.reshape(R, T * d)

    def _weights_of(self, log_mu: NDArray[np.float64], mult: NDArray[np.float64]) -> NDArray[np.float64]:
        """`_weights` on distinct examples (column i: mult[i] equal examples), per example."""
        return project_dense(log_mu, self.kappa, mult) / (self.kappa * self.n)

    @staticmethod
    def predict(
        transcript: NDArray[np.float64], X: NDArray[np.float64], num_features: int
    ) -> NDArray[np.float64]:
        """Final hypothesis H(x) = sign(Σ_t h_t(x)), h_t(x) = clip(ẑ_t · x, −1, 1) (004 Alg. 1's
        f̂ = (1/T)Σ_t h_t with the clipped h_t the LB-NxM updates and the margin analysis of Thm 24
        use, docs/specs/ERRATA.md F8), ±1, ties to +1. Post-processing of the transcript; one
        vectorised pass per round (never per sample)."""
        X = np.asarray(X, float).reshape(-1, num_features)
        z = np.asarray(transcript, float).reshape(transcript.shape[0], -1, num_features)
        score = np.zeros((z.shape[0], X.shape[0]))
        for t in range(z.shape[1]):
            score += np.clip(z[:, t, :] @ X.T, -1.0, 1.0)
        return np.where(score >= 0, 1.0, -1.0)

    # ------------------------------------------------------------------ worst-case pairs
    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        n, d = self.n, self.num_features
        e = np.zeros(d)
        e[0] = 1.0
        base = np.tile(e, (n, 1))
        neg = -np.ones(n)
        flipped = neg.copy()
        flipped[0] = 1.0
        Xr = base.copy()
        Xr[0] = -e
        return (
            NeighborPair(
                dataset=Dataset(base, flipped),
                neighbor=Dataset(base, neg),
                relation=Relation.RELABEL_ONE,
                description="W-B1: relabel one of n max-norm duplicates (odd point capped at 1/κn)",
                tags=("relabelled-duplicate", "max-norm"),
            ),
            NeighborPair(
                dataset=Dataset(Xr, neg),
                neighbor=Dataset(base, neg),
                relation=Relation.REPLACE_ONE,
                description="W-B1 as a replacement: x → −x at norm 1, labels kept",
                tags=("boundary", "max-norm"),
            ),
        )

    # ------------------------------------------------------------------ oracle / utility helpers
    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        """Upper bound on the pair's ε(δ): the GDP profile with μ = 2√T/(κnσ_noise).

        Not exact for a given pair (the pair's sensitivity may be below 2/(κn)), but a valid
        white-box upper bound for every replace-one pair, so certified ≤ this must hold.
        """
        if delta <= 0:
            return math.inf
        mu = 2.0 * math.sqrt(self._num_rounds()) / (self.kappa * self.n * self.noise_sigma)
        return gaussian_epsilon(delta, mu)


def paper_parameters(*, alpha: float, beta: float, tau: float, c: float = 2.0) -> dict[str, float]:
    """004 Alg. 5 settings: κ = α/4, T = 1024 ln(1/κ)/τ², σ = τ/(8c sqrt(ln(3072 ln(1/κ)/(βτ²)))),
    and λ = τ/32 (Thm 24's γ/4 with γ = τ/8; Alg. 5 prints τ/8, see the module docstring)."""
    kappa = alpha / 4
    T = math.ceil(1024 * math.log(1 / kappa) / tau**2)
    sigma = tau / (8 * c * math.sqrt(math.log(3072 * math.log(1 / kappa) / (beta * tau**2))))
    return {"kappa": kappa, "rounds": T, "sigma": sigma, "learning_rate": tau / 32}
