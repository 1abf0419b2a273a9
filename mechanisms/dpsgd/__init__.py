"""DP-SGD (Abadi et al., "Deep Learning with Differential Privacy", CCS 2016, Algorithm 1),
audited with canaries (Nasr et al., "Tight Auditing of Differentially Private Machine Learning",
USENIX Security 2023) against dp_accounting's privacy profile, and seven buggy twins from the
bug classes of Chua, Ghazi et al., "How Private are DP-SGD Implementations?" (ICML 2024).

Presets: the all-iterates gradient canary at three (σ, q, T) (`dpsgd_canary_t10`, `_t40`,
`_t100`), the first of them also seen through the last iterate and through the canary score
(their own entries; any preset takes `--param view=...`), and input-space canaries for logistic
(last iterate) and linear regression (canary score). Each correct preset carries the accountant's
curve under add/remove and replace-one and registers the canary pair of each.
"""

from __future__ import annotations

import functools
from typing import Any

from ..registry import RegistryEntry
from .reference import DPSGD
from .twins import (
    ClipAfterSum,
    NoiseForMean,
    RealisedBatchNormaliser,
    SamplerRateMismatch,
    ShuffledBatches,
    StepsAsEpochs,
    TrueSizeNormaliser,
)

FAMILY = "dpsgd"

__all__ = [
    "DPSGD",
    "FAMILY",
    "REGISTRY_ENTRIES",
    "ClipAfterSum",
    "NoiseForMean",
    "RealisedBatchNormaliser",
    "SamplerRateMismatch",
    "ShuffledBatches",
    "StepsAsEpochs",
    "TrueSizeNormaliser",
]

PRESETS: dict[str, dict[str, Any]] = {
    "dpsgd_canary_t10": {},
    "dpsgd_canary_t40": {"noise_multiplier": 0.8, "sample_rate": 0.05, "steps": 40},
    "dpsgd_canary_t100": {"noise_multiplier": 2.0, "steps": 100},
    "dpsgd_canary_t10_last_iterate": {"view": "last_iterate"},
    "dpsgd_canary_t10_score": {"view": "score"},
    "dpsgd_logistic_last_iterate": {
        "model": "logistic",
        "view": "last_iterate",
        "learning_rate": 0.5,
        "rest": "data",
        "rest_size": 8,
    },
    "dpsgd_linear_score": {"model": "linear", "view": "score", "learning_rate": 0.05, "rest_size": 8},
}
"""Each correct preset's parameters (the rest are `DPSGD`'s defaults: σ = 1, q = 0.1, T = 10,
C = 1, B = 4, d = 2, θ₀ = 0, all iterates, gradient canary on an empty rest)."""


def _preset(name: str) -> Any:
    return functools.partial(DPSGD, name=name, **PRESETS[name])


def _entry(name: str, summary: str, samples: int) -> RegistryEntry:
    return RegistryEntry(
        name=name, factory=_preset(name), family=FAMILY, summary=summary, default_num_samples=samples
    )


def _twin(name: str, factory: type, of: str, bug: str, samples: int) -> RegistryEntry:
    return RegistryEntry.twin(name, factory, family=FAMILY, of=of, bug=bug, num_samples=samples)


REGISTRY_ENTRIES: tuple[RegistryEntry, ...] = (
    _entry("dpsgd_canary_t10", "DP-SGD σ = 1, q = 0.1, T = 10, gradient canary, all iterates", 200_000),
    _entry("dpsgd_canary_t40", "DP-SGD σ = 0.8, q = 0.05, T = 40, gradient canary, all iterates", 100_000),
    _entry("dpsgd_canary_t100", "DP-SGD σ = 2, q = 0.1, T = 100, gradient canary, all iterates", 40_000),
    _entry(
        "dpsgd_canary_t10_last_iterate",
        "DP-SGD σ = 1, q = 0.1, T = 10, gradient canary, last iterate only",
        400_000,
    ),
    _entry(
        "dpsgd_canary_t10_score",
        "DP-SGD σ = 1, q = 0.1, T = 10, gradient canary, one canary score per run",
        400_000,
    ),
    _entry(
        "dpsgd_logistic_last_iterate",
        "DP-SGD logistic regression σ = 1, q = 0.1, T = 10, mislabelled input canary, last iterate",
        100_000,
    ),
    _entry(
        "dpsgd_linear_score",
        "DP-SGD linear regression σ = 1, q = 0.1, T = 10, far input canary, its loss as the score",
        100_000,
    ),
    _twin(
        "dpsgd_shuffled_batches",
        ShuffledBatches,
        "dpsgd_canary_t100",
        "fixed-size shuffled batches on a fixed-size dataset (replace-one) reported with the Poisson "
        "add/remove accountant's ε",
        50_000,
    ),
    _twin(
        "dpsgd_realised_batch_normaliser",
        RealisedBatchNormaliser,
        "dpsgd_canary_t10",
        "noisy sum divided by the realised batch size instead of the declared B",
        200_000,
    ),
    _twin(
        "dpsgd_sampler_rate_mismatch",
        SamplerRateMismatch,
        "dpsgd_canary_t10",
        "sampler draws at rate 2q while the accountant is given q",
        200_000,
    ),
    _twin(
        "dpsgd_clip_after_sum",
        ClipAfterSum,
        "dpsgd_canary_t10",
        "clips the batch's summed gradient instead of each example's (one record moves it by 2C)",
        200_000,
    ),
    _twin(
        "dpsgd_noise_for_mean",
        NoiseForMean,
        "dpsgd_canary_t10",
        "noise σC/B calibrated to the mean but added to the sum (noise multiplier σ/B)",
        20_000,
    ),
    _twin(
        "dpsgd_steps_as_epochs",
        StepsAsEpochs,
        "dpsgd_canary_t10",
        "steps counted as epochs: runs T/q iterations, the accountant composed T",
        50_000,
    ),
    _twin(
        "dpsgd_true_size_normaliser",
        TrueSizeNormaliser,
        "dpsgd_canary_t10",
        "noisy sum divided by q·n with the dataset's true size n instead of the declared B",
        50_000,
    ),
)
