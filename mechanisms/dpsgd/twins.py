"""Buggy DP-SGD twins: real implementation bug classes, each under its correct twin's claim.

Each twin overrides one step of `reference.DPSGD` (and the white-box oracle where the truth is an
accountant value at other parameters). The bug classes are those found by audits and analyses
of real DP-SGD code (Chua, Ghazi et al., "How Private are DP-SGD Implementations?", ICML 2024;
Nasr et al., "Tight Auditing of Differentially Private Machine Learning", USENIX Security 2023).
Each docstring gives the true ε at δ = 10⁻² of the registered pair and how it was measured: by
dp_accounting where the truth is a subsampled Gaussian at other parameters, else by Monte Carlo
over the exact privacy loss (`twin_laws.true_epsilon`: 4·10⁵ draws per order, seed 0; Monte
Carlo sd ≈ 0.01–0.03). Claims at δ = 10⁻² are dp_accounting's (the correct twin's curve).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, NeighborPair, Relation
from ..accountants.dp_accounting import accountant_epsilon
from ..base import PrivacyClaim
from .models import clip_rows
from .reference import DPSGD, F64, _claims

MONTE_CARLO = "true ε measured by Monte Carlo over the exact privacy loss (see the twin's docstring)"


@dataclass(frozen=True, slots=True, kw_only=True)
class ShuffledBatches(DPSGD):
    """Fixed-size shuffled batches, reported with the Poisson add/remove accountant's ε.

    Each epoch shuffles the n records and cuts them into n/(qn) batches of qn (Chua, Ghazi et
    al. 2024). The dataset size is fixed, so the relation is replace-one, but the reported claim
    is the Poisson add/remove curve (the bug seen in practice). Registered pair: canary C·e₁
    replaced by −C·e₁ on 9 zero-gradient records (n = 10 = 1/q, one record per batch). At σ = 2,
    q = 0.1, T = 100: reported ε(10⁻²) = 1.035, true 2.33 (Monte Carlo over the exact loss;
    the Poisson replace-one accountant gives 2.30, so shuffling itself is not the leak here).
    The search also finds datasets smaller than 1/q (batch size 1, the canary in every epoch's
    every n-th step: far less amplification), where the true ε is larger still (`dpaudit run`
    certifies ε ≥ 8.7 at 10⁻² on one such pair, seed 0).
    """

    noise_multiplier: float = 2.0
    steps: int = 100
    relation: str = "replace_one"
    rest_size: int = 9
    name: str = "dpsgd_shuffled_batches"

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        reported = _claims(
            self.noise_multiplier, self.sample_rate, self.steps, (Relation.ADD_REMOVE_ONE,), self.delta
        )
        note = "the Poisson add/remove accountant's curve, reported for fixed-size shuffled batches"
        return (dataclasses.replace(reported[0], relation=Relation.REPLACE_ONE, note=note),)

    def batch_masks(self, rng: np.random.Generator, runs: int, n: int) -> Iterator[NDArray[np.bool_]]:
        size = max(1, round(self.sample_rate * n))
        per_epoch = max(1, n // size)
        done = 0
        while done < self.iterations:
            ranks = np.argsort(rng.random((runs, n)), axis=1).argsort(axis=1)
            batch = ranks // size
            for k in range(min(per_epoch, self.iterations - done)):
                yield batch == k
            done += per_epoch

    def exact_epsilon(self, pair: NeighborPair, *, delta: float) -> float:
        raise NotImplementedError(MONTE_CARLO)


@dataclass(frozen=True, slots=True, kw_only=True)
class RealisedBatchNormaliser(DPSGD):
    """The noisy sum divided by the realised batch size |b| (max 1) instead of the declared B.

    The release becomes a mean, whose add/remove sensitivity is not C/B: next to k drawn
    records with gradient −C·e₁ (mean −C·e₁), a drawn canary C·e₁ moves the mean by
    2C/(k + 1) at noise σC/(k + 1), twice the correct signal-to-noise ratio, and the noise
    scale σC/|b| itself tells |b| (hence the canary's inclusion) on the coordinates no record
    uses. Pair: gradient canary C·e₁ vs none, rest 50 records with gradient −C·e₁, add/remove.
    σ = 1, q = 0.1, T = 10: claim 0.887 at 10⁻², true 1.45 (Monte Carlo over the exact loss,
    a mixture over the rest's batch count k ~ Binomial(50, q)). With 8 such records the
    mixture over k hides most of it (true ε of the e₁ coordinate alone 0.63, below the claim):
    the leak needs a large rest.
    """

    relation: str = "add_remove_one"
    rest: str = "opposed"
    rest_size: int = 50
    name: str = "dpsgd_realised_batch_normaliser"

    def normaliser(self, mask: NDArray[np.bool_], dataset: Dataset) -> float | F64:
        return np.maximum(mask.sum(axis=1), 1).astype(np.float64)[:, None]

    def exact_epsilon(self, pair: NeighborPair, *, delta: float) -> float:
        raise NotImplementedError(MONTE_CARLO)


@dataclass(frozen=True, slots=True, kw_only=True)
class SamplerRateMismatch(DPSGD):
    """The sampler draws each record at 2q while the accountant is given q (e.g. a sampler over
    a shard of half the data at B/(N/2), or a weighted sampler doubling the canary's weight).
    σ = 1, q = 0.1, T = 10, gradient canary vs none: claim 0.887 at 10⁻², true ε = the
    accountant's at rate 0.2: 2.00 (`exact_epsilon`, dp_accounting)."""

    relation: str = "add_remove_one"
    name: str = "dpsgd_sampler_rate_mismatch"

    @property
    def inclusion_rate(self) -> float:
        return min(1.0, 2.0 * self.sample_rate)

    def exact_epsilon(self, pair: NeighborPair, *, delta: float) -> float:
        return _true(self, pair, delta, sample_rate=self.inclusion_rate)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClipAfterSum(DPSGD):
    """Clipping the batch's summed gradient to C instead of each example's gradient.

    One record then moves the clipped sum by up to 2C: next to records with gradient −C·e₁ (the
    sum clips to −C·e₁ once any is drawn), a canary 10C·e₁ turns it to +C·e₁. Pair: canary
    10C·e₁ vs none, rest 9 records with gradient −C·e₁, add/remove. σ = 1, q = 0.1, T = 10:
    claim 0.887 at 10⁻², true 1.72 (Monte Carlo over the exact loss, a mixture over the rest's
    count).
    """

    relation: str = "add_remove_one"
    rest: str = "opposed"
    rest_size: int = 9
    canary_scale: float = 10.0
    record_bound: float = 10.0
    name: str = "dpsgd_clip_after_sum"

    def aggregate(self, gradients: F64, mask: NDArray[np.bool_]) -> F64:
        weights = mask.astype(np.float64)
        if gradients.shape[0] == 1:
            return clip_rows(np.asarray(weights @ gradients[0]), self.clip_norm)
        return clip_rows(np.asarray(np.einsum("rn,rnd->rd", weights, gradients)), self.clip_norm)

    def exact_epsilon(self, pair: NeighborPair, *, delta: float) -> float:
        raise NotImplementedError(MONTE_CARLO)


@dataclass(frozen=True, slots=True, kw_only=True)
class NoiseForMean(DPSGD):
    """Noise calibrated to the mean's sensitivity, σ·C/B, but added to the sum (before dividing
    by B): the noise multiplier is effectively σ/B. σ = 1, q = 0.1, T = 10, B = 4, gradient
    canary vs none: claim 0.887 at 10⁻², true ε = the accountant's at σ = 0.25: 25.3
    (`exact_epsilon`, dp_accounting)."""

    relation: str = "add_remove_one"
    name: str = "dpsgd_noise_for_mean"

    @property
    def noise_scale(self) -> float:
        return self.noise_multiplier * self.clip_norm / self.batch_size

    def exact_epsilon(self, pair: NeighborPair, *, delta: float) -> float:
        return _true(self, pair, delta, noise_multiplier=self.noise_multiplier / self.batch_size)


@dataclass(frozen=True, slots=True, kw_only=True)
class StepsAsEpochs(DPSGD):
    """`steps` counted as epochs: the trainer runs steps/q iterations (10 epochs of 10 batches
    at q = 0.1) while the accountant composed `steps` (10). σ = 1, q = 0.1, gradient canary vs
    none: claim 0.887 at 10⁻², true ε = the accountant's at T = 100: 3.43 (`exact_epsilon`)."""

    relation: str = "add_remove_one"
    name: str = "dpsgd_steps_as_epochs"

    @property
    def iterations(self) -> int:
        return max(1, round(self.steps / self.sample_rate))

    def exact_epsilon(self, pair: NeighborPair, *, delta: float) -> float:
        return _true(self, pair, delta, steps=self.iterations)


@dataclass(frozen=True, slots=True, kw_only=True)
class TrueSizeNormaliser(DPSGD):
    """The noisy sum divided by q·n, the expected batch size from the dataset's true size n,
    instead of the declared B. n differs between add/remove neighbours, so the release's scale
    (noise included) reveals n on every coordinate of every step. Pair: gradient canary C·e₁ vs
    none, rest 2 zero-gradient records (n = 3 vs 2). σ = 1, q = 0.1, T = 10: claim 0.887 at
    10⁻², true 13.5 (Monte Carlo over the exact loss: the scale σC/(qn) differs on all T·d
    coordinates)."""

    relation: str = "add_remove_one"
    rest_size: int = 2
    name: str = "dpsgd_true_size_normaliser"

    def normaliser(self, mask: NDArray[np.bool_], dataset: Dataset) -> float | F64:
        return self.sample_rate * max(dataset.n, 1)

    def exact_epsilon(self, pair: NeighborPair, *, delta: float) -> float:
        raise NotImplementedError(MONTE_CARLO)


def _true(mech: DPSGD, pair: NeighborPair, delta: float, **changes: float) -> float:
    """The accountant's ε at the parameters the twin really runs (the gradient canary on a
    zero-gradient rest, all iterates), else decline."""
    if mech._canary_shifts(pair) is None or mech.view != "all_iterates":
        raise NotImplementedError("exact only for the gradient canary on a zero-gradient rest, all iterates")
    params = {"noise_multiplier": mech.noise_multiplier, "sample_rate": mech.sample_rate, "steps": mech.steps}
    params.update(changes)
    return accountant_epsilon(
        noise_multiplier=float(params["noise_multiplier"]),
        sample_rate=float(params["sample_rate"]),
        steps=int(params["steps"]),
        relation=pair.relation,
        delta=delta,
    )
