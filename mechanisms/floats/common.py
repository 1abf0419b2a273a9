"""Shared pieces of the `floats` family: bounded-sum records, claims, registered pairs.

Every mechanism of the family declares `floating_point = True`: its claim is about the doubles
it releases, so the audit adds the lattice events of `dpaudit.engine.distinguishers.floats` (Mironov,
"On significance of the least significant bits for differential privacy", CCS 2012).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation
from ..base import ClaimFromClaims, PrivacyClaim

MIRONOV = "Mironov, On significance of the least significant bits for differential privacy (CCS 2012)"
CSVW = (
    "Casacuberta, Shoemate, Vadhan & Wagaman, Widespread underestimation of sensitivity in "
    "differentially private libraries and how to fix it (CCS 2022)"
)
CKS = "Canonne, Kamath & Steinke, The discrete Gaussian for differential privacy (NeurIPS 2020)"
NAIVE = "the textbook claim of the mechanism over the reals, applied to its float implementation: "


def pair(a: Any, b: Any, description: str, *tags: str) -> NeighborPair:
    return NeighborPair(
        dataset=Dataset(np.asarray(a, float).reshape(len(a), -1)),
        neighbor=Dataset(np.asarray(b, float).reshape(len(b), -1)),
        relation=Relation.REPLACE_ONE,
        description=description,
        tags=tags,
    )


def replace_pairs(low: float, high: float) -> tuple[NeighborPair, ...]:
    """Replace-one {low} ↔ {high} (the brief's pair: a single record 0 → 1) and on ten records."""
    return (
        pair([low], [high], "one record low → high", "extreme"),
        pair([low] * 10, [low] * 9 + [high], "replace one of ten records low → high", "extreme"),
    )


def claims(epsilon: float, delta: float, reference: str) -> tuple[PrivacyClaim, ...]:
    return tuple(
        PrivacyClaim(epsilon=epsilon, delta=delta, relation=r, reference=reference)
        for r in (Relation.REPLACE_ONE, Relation.ADD_REMOVE_ONE)
    )


def clamped_sum(dataset: Dataset, low: float, high: float) -> float:
    """The float sum of the records clamped to [low, high] (numpy's pairwise summation)."""
    return float(np.clip(dataset.X[:, 0], low, high).sum())


def check_box(epsilon: float, low: float, high: float) -> None:
    """Refuse a box the family's claims do not cover (see `BoundedSum`)."""
    if not epsilon > 0 or not low < high:
        raise ValueError("need epsilon > 0 and low < high")
    if not low <= 0.0 <= high:
        reach = max(abs(low), abs(high))
        raise ValueError(
            f"the box [{low:g}, {high:g}] does not contain 0: adding a record moves the sum by up to "
            f"max(|low|, |high|) = {reach:g}, more than the high − low = {high - low:g} the noise and "
            "the add/remove claim are calibrated to; use a box containing 0 (or shift the records)"
        )


class BoundedSum(ClaimFromClaims):
    """What every mechanism of the family shares: a sum of records clamped to [low, high], the
    parameter check, the headline claim (the first of `claims`) and the box domain. Subclasses
    are frozen slotted dataclasses that declare the fields and `claims`.

    Every claim (`claims`: replace-one and add/remove) is calibrated to the sensitivity high − low.
    That bounds replacing a record, and bounds adding or removing one (which moves the sum by the
    record's own clamped value, up to max(|low|, |high|)) only when 0 ∈ [low, high]. A box without
    0 (say [1, 2]: adding a record moves the sum by 2, twice the calibrated 1) would make the
    add/remove claim invalid, so `check_box` refuses to build it (ValueError: exit 2 on the CLI)
    rather than carry a claim the mechanism does not meet."""

    __slots__ = ()
    epsilon: float
    low: float
    high: float

    def __post_init__(self) -> None:
        check_box(self.epsilon, self.low, self.high)

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        raise NotImplementedError

    @property
    def domain(self) -> Domain:
        return Domain(num_features=1, feature_low=self.low, feature_high=self.high)
