"""Reference DP-SGD (Abadi et al., "Deep Learning with Differential Privacy", CCS 2016, Alg. 1).

Each of T steps: draw a Poisson batch (each record independently with probability q), clip each
example's gradient to norm C, sum, add N(0, σ²C²) per coordinate, divide by the declared public
batch size B (a constant parameter, never computed from the data), and step θ ← θ − η·g̃ from a
fixed initial point θ₀. Vectorised over Monte Carlo runs: θ is an array (runs, d), the per-step
work is a few numpy operations on (runs, n) masks and (runs, n, d) gradients; only the T steps
are a Python loop.

Claims are the accountant's whole privacy profile (`accountant.accountant_claim`: dp_accounting's
PLD accountant for T Poisson-subsampled Gaussian steps), under add/remove and replace-one. The
accountant describes the noisy sums of every step (the all-iterates threat model); the last
iterate and the canary score are post-processing of it, so the same curve is an upper bound
there. Threat models (the `view` parameter, `threat_model` in words), following Nasr et al.,
"Tight Auditing of Differentially Private Machine Learning" (USENIX Security 2023):

- `all_iterates`: the T released noisy updates g̃_t, flattened to (runs, T·d);
- `last_iterate`: θ_T only, (runs, d);
- `score`: one scalar per run, (runs, 1): for the gradient model Σ_t B·⟨g̃_t, e₁⟩ (the canary's
  direction, in gradient units); for logistic / linear the input-space canary's loss at θ_T.

White-box oracle (`exact_epsilon`): for the gradient canary C·e₁ on a zero-gradient or empty
rest, the accountant's ε(δ) is the truth in the all-iterates view (the per-step privacy loss is
the one dp_accounting composes, checked by Monte Carlo in the tests), and in the last-iterate and
score views the one-dimensional binomial mixture of `exact.binomial_mixture_epsilon` is.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation, Subsampling, SubsamplingKind
from ..accountants.dp_accounting import accountant_claim, accountant_epsilon
from ..base import ClaimFromClaims, PrivacyClaim
from .canaries import RESTS, gradient_canary_pairs, input_canary_pairs
from .exact import binomial_mixture_epsilon
from .models import MODELS, check_model, clip_rows, per_example_gradients, record_loss
from .statistic import MixtureLLR

VIEWS = ("all_iterates", "last_iterate", "score")
RELATIONS = {
    "add_remove_one": (Relation.ADD_REMOVE_ONE,),
    "replace_one": (Relation.REPLACE_ONE,),
    "both": (Relation.ADD_REMOVE_ONE, Relation.REPLACE_ONE),
}
THREAT_MODELS = {
    "all_iterates": "all iterates: the adversary sees every released noisy update g̃_1, …, g̃_T",
    "last_iterate": "last iterate: the adversary sees the final parameters θ_T only",
    "score": "canary score: the adversary sees one number per training run, the canary's score",
}
F64 = NDArray[np.float64]


@functools.lru_cache(maxsize=128)
def _claims(
    sigma: float, q: float, steps: int, relations: tuple[Relation, ...], delta: float
) -> tuple[PrivacyClaim, ...]:
    return tuple(
        accountant_claim(noise_multiplier=sigma, sample_rate=q, steps=steps, relation=r, delta=delta)
        for r in relations
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class DPSGD(ClaimFromClaims):
    """DP-SGD with Poisson sampling, per-example clipping and a declared batch size B."""

    noise_multiplier: float = 1.0
    sample_rate: float = 0.1
    steps: int = 10
    clip_norm: float = 1.0
    batch_size: float = 4.0
    """B, the declared public normaliser of the noisy sum."""
    learning_rate: float = 1.0
    dim: int = 2
    initial_point: float = 0.0
    """θ₀ = initial_point·(1, …, 1)."""
    model: str = "gradient"
    view: str = "all_iterates"
    relation: str = "both"
    """Claims and registered pairs: "add_remove_one", "replace_one" or "both"."""
    rest: str = "zero"
    rest_size: int = 0
    canary_scale: float = 1.0
    """The gradient canary's row is canary_scale·C·e₁ (1: exactly the clip norm)."""
    record_bound: float = 4.0
    """G: records lie in the box [−G, G] per coordinate (gradient rows, or x and the response)."""
    delta: float = 1e-5
    name: str = "dpsgd"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "continuous"
    exact_epsilon_method: ClassVar[str] = (
        "dp_accounting PLD accountant (pessimistic, tight up to its 1e-4 discretisation) in the "
        "all-iterates view; numerical integration of the binomial mixture for the last iterate and score"
    )

    def __post_init__(self) -> None:
        if not (self.noise_multiplier > 0 and 0 < self.sample_rate <= 1 and self.steps >= 1):
            raise ValueError("need noise_multiplier > 0, 0 < sample_rate ≤ 1 and steps ≥ 1")
        if not (self.clip_norm > 0 and self.batch_size > 0 and self.dim >= 1 and self.rest_size >= 0):
            raise ValueError("need clip_norm > 0, batch_size > 0, dim ≥ 1 and rest_size ≥ 0")
        if self.record_bound < self.clip_norm * max(self.canary_scale, 1.0):
            raise ValueError("record_bound must be ≥ clip_norm·max(canary_scale, 1)")
        for value, allowed, what in (
            (self.model, MODELS, "model"),
            (self.view, VIEWS, "view"),
            (self.relation, tuple(RELATIONS), "relation"),
            (self.rest, RESTS, "rest"),
        ):
            if value not in allowed:
                raise ValueError(f"{what} must be one of {', '.join(allowed)}, got {value!r}")

    # ------------------------------------------------------------------ contract
    @property
    def relations(self) -> tuple[Relation, ...]:
        return RELATIONS[self.relation]

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return _claims(self.noise_multiplier, self.sample_rate, self.steps, self.relations, self.delta)

    @property
    def threat_model(self) -> str:
        return THREAT_MODELS[self.view]

    @property
    def domain(self) -> Domain:
        width = self.dim + 1 if self.model == "linear" else self.dim
        return Domain(
            num_features=width,
            feature_low=-self.record_bound,
            feature_high=self.record_bound,
            labels=(-1.0, 1.0) if self.model == "logistic" else None,
            max_size=64,
            # the accountant's claim is computed per relation (add/remove and replace-one), so no
            # relation is excluded by the amplification check
            subsampling=Subsampling(kind=SubsamplingKind.POISSON, rate=self.sample_rate),
        )

    @property
    def max_block(self) -> int:
        return 1 << 16

    @property
    def iterations(self) -> int:
        """Steps the trainer runs."""
        return self.steps

    @property
    def statistics(self) -> tuple[MixtureLLR, ...]:
        """The Neyman–Pearson statistic of each registered canary pair (all-iterates view only)."""
        if self.view != "all_iterates":
            return ()
        shift = self.clip_norm / self.batch_size
        direction = tuple(1.0 if i == 0 else 0.0 for i in range(self.dim))
        common = dict(
            steps=self.iterations,
            dim=self.dim,
            direction=direction,
            sample_rate=self.sample_rate,
            noise_sd=self.noise_multiplier * self.clip_norm / self.batch_size,
            shift_a=shift,
        )
        out = []
        for r in self.relations:
            if r is Relation.ADD_REMOVE_ONE:
                out.append(MixtureLLR(name="canary_llr_add_remove", shift_b=0.0, **common))  # type: ignore[arg-type]
            else:
                out.append(MixtureLLR(name="canary_llr_replace_one", shift_b=-shift, **common))  # type: ignore[arg-type]
        return tuple(out)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        if self.model == "gradient":
            return gradient_canary_pairs(
                dim=self.dim,
                clip_norm=self.clip_norm,
                canary_scale=self.canary_scale,
                rest=self.rest,
                rest_size=self.rest_size,
                relations=self.relations,
            )
        return input_canary_pairs(
            model=self.model,
            dim=self.dim,
            bound=self.record_bound,
            rest=self.rest,
            rest_size=self.rest_size,
            relations=self.relations,
        )

    # ------------------------------------------------------------ one step's pieces (twins override one)
    @property
    def inclusion_rate(self) -> float:
        """The rate the sampler draws each record at."""
        return self.sample_rate

    @property
    def noise_scale(self) -> float:
        """Standard deviation of the noise added to the clipped sum: σ·C."""
        return self.noise_multiplier * self.clip_norm

    def batch_masks(self, rng: np.random.Generator, runs: int, n: int) -> Iterator[NDArray[np.bool_]]:
        """One (runs, n) inclusion mask per step: Poisson sampling."""
        for _ in range(self.iterations):
            yield rng.random((runs, n)) < self.inclusion_rate

    def aggregate(self, gradients: F64, mask: NDArray[np.bool_]) -> F64:
        """Σ over the batch of each example's gradient clipped to C: (runs, d)."""
        clipped = clip_rows(gradients, self.clip_norm)
        weights = mask.astype(np.float64)
        if clipped.shape[0] == 1:
            return np.asarray(weights @ clipped[0], dtype=np.float64)
        return np.asarray(np.einsum("rn,rnd->rd", weights, clipped), dtype=np.float64)

    def normaliser(self, mask: NDArray[np.bool_], dataset: Dataset) -> float | F64:
        """What the noisy sum is divided by: the declared batch size B."""
        return self.batch_size

    # ------------------------------------------------------------------ training
    def train(self, dataset: Dataset, runs: int, rng: np.random.Generator) -> tuple[F64 | None, F64, F64]:
        """(noisy updates (runs, T, d) or None, θ_T (runs, d), Σ_t B·⟨g̃_t, e₁⟩ (runs,))."""
        check_model(self.model, dataset, self.dim)
        theta = np.full((runs, self.dim), float(self.initial_point))
        updates = np.empty((runs, self.iterations, self.dim)) if self.view == "all_iterates" else None
        along = np.zeros(runs)
        for t, mask in enumerate(self.batch_masks(rng, runs, dataset.n)):
            gradients = per_example_gradients(self.model, theta, dataset)
            noisy = self.aggregate(gradients, mask) + self.noise_scale * rng.standard_normal((runs, self.dim))
            noisy /= self.normaliser(mask, dataset)
            theta -= self.learning_rate * noisy
            along += noisy[:, 0]
            if updates is not None:
                updates[:, t] = noisy
        return updates, theta, along * self.batch_size

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        updates, theta, along = self.train(dataset, num_samples, rng)
        if updates is not None:
            return updates.reshape(num_samples, -1)
        if self.view == "last_iterate":
            return theta
        if self.model == "gradient":
            return along[:, None]
        canary = self.neighbor_pairs()[0].dataset
        label = None if canary.y is None else float(canary.y[-1])
        return record_loss(self.model, theta, canary.X[-1], label)[:, None]

    # ------------------------------------------------------------------ white-box oracle
    def exact_epsilon(self, pair: NeighborPair, *, delta: float) -> float:
        shifts = self._canary_shifts(pair)
        if shifts is None:
            raise NotImplementedError(
                "no exact privacy profile here: exact only for the gradient canary C·e₁ on a "
                "zero-gradient or empty rest"
            )
        if self.view == "all_iterates":
            return accountant_epsilon(
                noise_multiplier=self.noise_multiplier,
                sample_rate=self.sample_rate,
                steps=self.steps,
                relation=pair.relation,
                delta=delta,
            )
        return binomial_mixture_epsilon(
            steps=self.steps,
            sample_rate=self.sample_rate,
            noise_sd=self.noise_multiplier,
            shift_a=shifts[0],
            shift_b=shifts[1],
            delta=delta,
        )

    def _canary_shifts(self, pair: NeighborPair) -> tuple[float, float] | None:
        """(a, b) in units of C when `pair` is the gradient canary ±C·u (or C·u vs none) on a
        rest of zero rows; None otherwise."""
        if self.model != "gradient":
            return None
        a, b = pair.dataset.X, pair.neighbor.X
        if pair.relation is Relation.ADD_REMOVE_ONE:
            big, small = (a, b) if len(a) > len(b) else (b, a)
            if np.any(small != 0) or np.count_nonzero(np.any(big != 0, axis=1)) != 1:
                return None
            row = big[np.any(big != 0, axis=1)][0]
            return (
                (1.0, 0.0)
                if np.isclose(np.linalg.norm(clip_rows(row, self.clip_norm)), self.clip_norm)
                else None
            )
        if pair.relation is not Relation.REPLACE_ONE or len(a) != len(b):
            return None
        differ = np.flatnonzero(np.any(a != b, axis=1))
        rest = np.delete(a, differ, axis=0)
        if len(differ) != 1 or np.any(rest != 0):
            return None
        u, v = clip_rows(a[differ[0]], self.clip_norm), clip_rows(b[differ[0]], self.clip_norm)
        if np.isclose(np.linalg.norm(u), self.clip_norm) and np.allclose(u, -v):
            return (1.0, -1.0)
        return None
