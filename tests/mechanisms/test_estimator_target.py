"""Continuous regression targets in `from_estimator(target=(low, high))` (issue 44, item 6).

A fake DP regression claims to clip y to bounds_y = (0, 1) and publishes the noisy sum of x·y
(sensitivity 1 under replace-one for x, y in [0, 1]: Laplace(1/ε) noise makes it ε-DP). The
buggy one forgets to clip y: with the target declared continuous over [−100, 100] the blind
search puts y at a corner and the output moves by up to 100 (ε ≥ 2 at 1,000 samples per side);
the correct one clips and is not flagged. Before `target=`, y had to be declared a finite grid."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit import audit, from_estimator
from dpaudit.engine.types import Verdict
from dpaudit.mechanisms.adapters.estimator import with_target
from dpaudit.mechanisms.base import CallableMechanism, ClaimKind, PrivacyClaim
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

CLAIM = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="fake", kind=ClaimKind.PROVED)
X_DOMAIN = Domain(num_features=1, feature_low=0.0, feature_high=1.0, min_size=2, max_size=8)


class NoisyRegression:
    def __init__(self, rng: np.random.Generator, *, clip: bool) -> None:
        self.rng, self.clip = rng, clip

    def fit(self, X: np.ndarray, y: np.ndarray) -> NoisyRegression:
        y = np.clip(y, 0.0, 1.0) if self.clip else y
        self.coef_ = np.array([float(np.clip(X[:, 0], 0, 1) @ y) + self.rng.laplace(0.0, 1.0)])
        return self


def _mech(clip: bool) -> CallableMechanism:
    return from_estimator(
        lambda rng: NoisyRegression(rng, clip=clip),
        output="coef_",
        claim=CLAIM,
        domain=X_DOMAIN,
        name="regression",
        target=(-100.0, 100.0),
    )


def test_the_target_is_the_last_feature_of_the_search_domain() -> None:
    dom = with_target(X_DOMAIN, (-100.0, 100.0))
    lo, hi = dom.bounds()
    assert dom.num_features == 2 and lo.tolist() == [0.0, -100.0] and hi.tolist() == [1.0, 100.0]
    with pytest.raises(ValueError, match="replaces labels"):
        with_target(Domain(num_features=1, labels=(0.0, 1.0)), (0.0, 1.0))
    rel = from_estimator(
        lambda rng: NoisyRegression(rng, clip=True),
        output="coef_",
        claim=CLAIM,
        domain=X_DOMAIN,
        name="r",
        target=(0.0, 1.0),
        pairs=[
            NeighborPair(
                dataset=Dataset(np.array([[1.0], [0.5]]), np.array([1.0, 0.0])),
                neighbor=Dataset(np.array([[1.0], [0.5]]), np.array([0.0, 0.0])),
                relation=Relation.REPLACE_ONE,
                description="y of one row",
            )
        ],
    )
    assert rel.pairs[0].dataset.X.tolist() == [[1.0, 1.0], [0.5, 0.0]]
    out = rel.sample(rel.pairs[0].neighbor, 200, rng=np.random.default_rng(0))
    assert abs(float(np.median(out))) < 0.3  # fitted on y = (0, 0): X @ y = 0


def test_an_unclipped_continuous_target_is_flagged_blind() -> None:
    result = audit(_mech(clip=False), num_samples=1000, seed=0)
    assert result.verdict is Verdict.VIOLATION_FOUND and result.epsilon_lower_bound > 2.0


def test_a_clipped_continuous_target_is_not_flagged() -> None:
    result = audit(_mech(clip=True), num_samples=1000, seed=0)
    assert result.verdict is not Verdict.VIOLATION_FOUND
