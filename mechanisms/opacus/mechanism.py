"""DP-SGD as Opacus runs it: a small logistic regression trained with `PrivacyEngine.make_private`,
audited with a canary against the ε Opacus' own accountant reports (`common.opacus_claim`).

Training (`training.train_once`, one real Opacus training per Monte Carlo run): `nn.Linear(d + 1,
1)` from θ₀ = 0, SGD at learning rate η, `BCEWithLogitsLoss`, `make_private(noise_multiplier=σ,
max_grad_norm=C, poisson_sampling=…)` on a `DataLoader(batch_size=B)`, T optimizer steps. Opacus
derives q = 1/len(data_loader) = 1/⌈n/B⌉ and divides the noisy sum by int(n·q), both from the
dataset's size n; the rest size and B are checked at construction so that the two sides of the
registered pair (n = rest and rest + 1) give the same q and divisor, and the domain admits only
those two sizes (at other sizes Opacus would run, and account, another mechanism).

Records: d features in [−1, 1] and a canary coordinate in [−R, R], label 0 or 1. The rest is a
fixed synthetic set (`rest_records`: n points uniform in the box with 0 in the canary coordinate,
labelled by a noisy linear rule), so no rest record's gradient moves the canary coordinate's weight.
Canaries (Nasr et al., "Tight Auditing of Differentially Private Machine Learning", USENIX
Security 2023):

- `canary="gradient"`: a record whose canary coordinate c is non-zero has its per-sample gradient
  replaced through a hook before `optimizer.step()`: weight c·u (u the canary coordinate's
  weight), bias 0; Opacus then clips it (to C when |c| ≥ C) like any other. Registered: c = C.
- `canary="input"`: the record x = R·u, label 1, trained on as is (no hook): its gradient is
  (σ(θ·x + b) − 1)·(x, 1), clipped to C, mostly along u.

The pair is canary in vs out (add/remove one record, Opacus' relation). Views (`threat_model`):

- `all_iterates` (gradient canary): the T released updates projected on u,
  y_t = ⟨θ_{t−1} − θ_t, u⟩/η (T columns): Opacus' noisy clipped sum's u-coordinate over its
  divisor. With Poisson sampling this is the mixture (1 − q)N(0, τ²) + qN(s, τ²) per step
  (s = C/B̂, τ = σC/B̂) that the accountant composes; `statistics` hands the engine that
  Neyman–Pearson statistic (`dpsgd.statistic.MixtureLLR`).
- `score`: one number per run: Σ_t y_t for the gradient canary (= ⟨θ₀ − θ_T, u⟩/η), the
  canary's loss at θ_T for the input canary.

`poisson_sampling=False` shuffles (each record once per epoch) while Opacus still reports the
Poisson accountant's ε: that claim is Opacus' statement, not a proof for shuffling (Chua, Ghazi
et al., "How Private are DP-SGD Implementations?", ICML 2024), so it is marked STATED.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation, Subsampling, SubsamplingKind
from ..base import ClaimFromClaims, MechanismError, PrivacyClaim
from ..dpsgd.statistic import MixtureLLR
from .common import (
    ACCOUNTANTS,
    INSTALL_MESSAGE,
    loader_rates,
    opacus_available,
    opacus_claim,
    rates_match,
)

CANARIES = ("gradient", "input")
VIEWS = ("all_iterates", "score")
THREAT_MODELS = {
    "all_iterates": (
        "all iterates: the adversary sees every Opacus iterate θ_0, …, θ_T (the audit keeps their "
        "steps projected on the canary direction)"
    ),
    "score": "canary score: the adversary sees one number per training run, the canary's score",
}
REST_SEED = 20_240_527
F64 = NDArray[np.float64]


@functools.lru_cache(maxsize=32)
def rest_records(size: int, dim: int) -> tuple[F64, F64]:
    """The fixed synthetic rest: (X (size, dim + 1) with 0 in the canary column, y in {0, 1})."""
    rng = np.random.default_rng(REST_SEED)
    x = rng.uniform(-1.0, 1.0, (size, dim))
    w = np.ones(dim) / math.sqrt(dim)
    y = (x @ w + 0.25 * rng.standard_normal(size) > 0).astype(np.float64)
    rows = np.zeros((size, dim + 1))
    rows[:, :dim] = x
    rows.setflags(write=False)
    y.setflags(write=False)
    return rows, y


def training_module() -> Any:
    """`training` (imports torch and Opacus), or the one-line install message."""
    if not opacus_available():
        raise MechanismError(INSTALL_MESSAGE)
    from . import training

    return training


@dataclass(frozen=True, slots=True, kw_only=True)
class OpacusDPSGD(ClaimFromClaims):
    """Opacus DP-SGD on a tiny logistic regression with one canary (module docstring)."""

    noise_multiplier: float = 1.0
    max_grad_norm: float = 1.0
    batch_size: int = 10
    steps: int = 10
    poisson_sampling: bool = True
    canary: str = "gradient"
    view: str = "all_iterates"
    rest_size: int = 95
    dim: int = 4
    learning_rate: float = 0.5
    canary_bound: float = 4.0
    """R: the canary coordinate's range, and the input canary's position R·u."""
    accountant: str = "prv"
    delta: float = 1e-5
    name: str = "opacus_dpsgd"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "continuous"

    def __post_init__(self) -> None:
        if not (self.noise_multiplier > 0 and self.max_grad_norm > 0 and self.learning_rate > 0):
            raise ValueError("need noise_multiplier > 0, max_grad_norm > 0 and learning_rate > 0")
        if not (self.batch_size >= 1 and self.steps >= 1 and self.rest_size >= 1 and self.dim >= 1):
            raise ValueError("need batch_size, steps, rest_size and dim ≥ 1")
        for value, allowed, what in (
            (self.canary, CANARIES, "canary"),
            (self.view, VIEWS, "view"),
            (self.accountant, ACCOUNTANTS, "accountant"),
        ):
            if value not in allowed:
                raise ValueError(f"{what} must be one of {', '.join(allowed)}, got {value!r}")
        if self.canary == "input" and self.view != "score":
            raise ValueError("the input canary is audited through its loss: view must be 'score'")
        if self.canary_bound < self.max_grad_norm:
            raise ValueError("canary_bound must be ≥ max_grad_norm (the gradient canary is C·u)")
        if not 0 < self.delta < 1:
            raise ValueError("delta must be in (0, 1)")
        small, large = (
            loader_rates(self.rest_size, self.batch_size),
            loader_rates(self.rest_size + 1, self.batch_size),
        )
        if small != large or small[1] < 1:
            raise ValueError(
                f"Opacus derives (q, expected batch size) = {small} from {self.rest_size} records and "
                f"{large} from {self.rest_size + 1} at batch_size {self.batch_size}: choose rest_size "
                "and batch_size giving the same q = 1/⌈n/B⌉ and int(n·q) ≥ 1 on both sides"
            )

    # ------------------------------------------------------------------ Opacus' own numbers
    @property
    def sample_rate(self) -> float:
        """q = 1/len(data_loader), what make_private gives the accountant."""
        return loader_rates(self.rest_size, self.batch_size)[0]

    @property
    def expected_batch_size(self) -> int:
        """int(n·q): what Opacus divides the noisy sum by."""
        return loader_rates(self.rest_size, self.batch_size)[1]

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        sampling = (
            "Poisson sampling" if self.poisson_sampling else "shuffled batches (poisson_sampling=False)"
        )
        return (
            opacus_claim(
                accountant=self.accountant,
                noise_multiplier=self.noise_multiplier,
                max_grad_norm=self.max_grad_norm,
                sample_rate=self.sample_rate,
                batch_size=self.batch_size,
                steps=self.steps,
                delta=self.delta,
                poisson_sampling=self.poisson_sampling,
                records=f"{self.rest_size}–{self.rest_size + 1} records ({sampling})",
            ),
        )

    @property
    def threat_model(self) -> str:
        return THREAT_MODELS[self.view]

    @property
    def domain(self) -> Domain:
        low = (-1.0,) * self.dim + (-self.canary_bound,)
        high = (1.0,) * self.dim + (self.canary_bound,)
        kind = SubsamplingKind.POISSON if self.poisson_sampling else SubsamplingKind.WITHOUT_REPLACEMENT
        return Domain(
            num_features=self.dim + 1,
            feature_low=low,
            feature_high=high,
            labels=(0.0, 1.0),
            min_size=self.rest_size,
            max_size=self.rest_size + 1,
            subsampling=Subsampling(kind=kind, rate=self.sample_rate),
        )

    @property
    def statistics(self) -> tuple[MixtureLLR, ...]:
        """The Neyman–Pearson statistic of the gradient canary pair, all-iterates view (exact for
        Poisson sampling; for shuffling a model that costs power only)."""
        if self.canary != "gradient" or self.view != "all_iterates":
            return ()
        divisor = float(self.expected_batch_size)
        return (
            MixtureLLR(
                name="opacus_canary_llr",
                steps=self.steps,
                dim=1,
                direction=(1.0,),
                sample_rate=self.sample_rate,
                noise_sd=self.noise_multiplier * self.max_grad_norm / divisor,
                shift_a=self.max_grad_norm / divisor,
                shift_b=0.0,
            ),
        )

    def canary_record(self) -> F64:
        row = np.zeros(self.dim + 1)
        row[self.dim] = self.max_grad_norm if self.canary == "gradient" else self.canary_bound
        return row

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        x, y = rest_records(self.rest_size, self.dim)
        with_canary = Dataset(np.vstack([x, self.canary_record()]), np.append(y, 1.0))
        without = Dataset(np.array(x), np.array(y))
        if self.canary == "gradient":
            what = f"gradient canary {self.max_grad_norm:g}·u (per-sample gradient replaced by a hook)"
        else:
            what = f"input canary x = {self.canary_bound:g}·u, label 1"
        return (
            NeighborPair(
                dataset=with_canary,
                neighbor=without,
                relation=Relation.ADD_REMOVE_ONE,
                description=f"{what} vs none; rest: {self.rest_size} synthetic records, add/remove",
                tags=(f"canary:{self.canary}", "rest:data"),
            ),
        )

    # ------------------------------------------------------------------ sampling
    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        training = training_module()
        if dataset.y is None or dataset.X.shape[1] != self.dim + 1:
            raise MechanismError(f"{self.name}: expects labelled records with {self.dim + 1} columns")
        features = np.asarray(dataset.X, dtype=np.float64)
        labels = np.asarray(dataset.y, dtype=np.float64)
        hook = None
        if self.canary == "gradient":
            column = features[:, self.dim :]
            hook = (np.any(column != 0, axis=1), column.copy())
        hyper = training.hyper_of(self)
        width = self.steps if self.view == "all_iterates" else 1
        out = np.empty((num_samples, width))
        seeds = rng.integers(0, 2**62, size=num_samples)
        for i, seed in enumerate(seeds):
            run = training.train_once(
                features, labels, hook, hyper=hyper, seed=int(seed), num_canary_columns=1
            )
            if i == 0:
                self._check_rates(run, dataset.n)
            if self.view == "all_iterates":
                out[i] = run.updates[:, 0]
            elif self.canary == "gradient":
                out[i, 0] = run.updates[:, 0].sum()
            else:
                out[i, 0] = self._canary_loss(run.theta)
        return out

    def _check_rates(self, run: Any, size: int) -> None:
        if not rates_match(run, sample_rate=self.sample_rate, expected_batch_size=self.expected_batch_size):
            raise MechanismError(
                f"{self.name}: Opacus ran with q = {run.sample_rate:g}, expected batch size "
                f"{run.expected_batch_size:g} on {size} records; the claim is for q = {self.sample_rate:g}, "
                f"{self.expected_batch_size}"
            )

    def _canary_loss(self, theta: F64) -> float:
        """BCE loss of the input canary (x = R·u, label 1) at θ_T: softplus(−(θ·x + b))."""
        margin = float(theta[: self.dim + 1] @ self.canary_record() + theta[-1])
        return float(np.logaddexp(0.0, -margin))
