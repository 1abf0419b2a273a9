"""`from_estimator` (issue 34, item 2) on small fake estimators (no library needed), and on the
real diffprivlib 0.6.6 when it is installed (IBM/differential-privacy-library#106).

The blind fake takes its label set from the data, so removing the only record of a class changes
the output's width: probability 1 on one side and 0 on the other, certified as the
infinite-witness bound (> 4 at 1 000 samples per side), for every seed. The correct fake fixes the
label set and adds Laplace(1/ε) noise to per-class sums of records in [0, 1] (sensitivity 1 under
add/remove): ε-DP, so the verdict is NO_VIOLATION_FOUND except with the audit's failure
probability (0.05)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

from dpaudit import from_estimator
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig, Verdict
from dpaudit.mechanisms.base import ClaimKind, PrivacyClaim
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

CLAIM = PrivacyClaim(epsilon=1.0, relation=Relation.ADD_REMOVE_ONE, reference="fake", kind=ClaimKind.STATED)
DOMAIN = Domain(num_features=1, labels=(0.0, 1.0, 2.0))
X = np.array([[0.1], [0.9], [0.4], [0.6], [0.5]])
Y = np.array([0.0, 1.0, 0.0, 1.0, 2.0])
ONLY_OF_CLASS = NeighborPair(
    dataset=Dataset(X, Y),
    neighbor=Dataset(X[:4], Y[:4]),
    relation=Relation.ADD_REMOVE_ONE,
    description="remove class 2",
)


class BlindSums:
    """Per-class noisy sums over the classes present in the data (the #106 pattern)."""

    def __init__(self, rng: np.random.Generator, classes: tuple[float, ...] | None = None) -> None:
        self.rng, self.classes = rng, classes

    def fit(self, X: np.ndarray, y: np.ndarray) -> BlindSums:
        labels = np.unique(y) if self.classes is None else np.asarray(self.classes)
        sums = np.array([np.clip(X[y == c], 0, 1).sum() for c in labels])
        self.classes_ = labels
        self.coef_ = sums + self.rng.laplace(0.0, 1.0, labels.size)
        return self

    def predict(self, P: np.ndarray) -> np.ndarray:
        return np.full(len(P), float(self.classes_[int(np.argmax(self.coef_))]))


def _blind(rng: np.random.Generator) -> BlindSums:
    return BlindSums(rng)


def _fixed(rng: np.random.Generator) -> BlindSums:
    return BlindSums(rng, classes=(0.0, 1.0, 2.0))


def test_label_set_from_the_data_is_a_width_witness() -> None:
    mech = from_estimator(_blind, output="coef_", claim=CLAIM, domain=DOMAIN, name="blind")
    result = run_audit(mech, [ONLY_OF_CLASS], AuditConfig(num_samples=1000, seed=0))
    assert result.verdict is Verdict.VIOLATION_FOUND
    estimate = result.pairs[0].estimate
    assert estimate.infinite_witness and "3 columns on D and 2 on D′" in estimate.event


def test_fixed_label_set_is_not_flagged() -> None:
    mech = from_estimator(_fixed, output=("coef_", "classes_"), claim=CLAIM, domain=DOMAIN, name="fixed")
    result = run_audit(mech, [ONLY_OF_CLASS], AuditConfig(num_samples=2000, seed=1))
    assert result.verdict is Verdict.NO_VIOLATION_FOUND


def test_methods_are_called_on_probe_points_and_releases_pickle() -> None:
    mech = from_estimator(
        _fixed, output=("predict", "coef_"), probe=[[0.0], [1.0]], claim=CLAIM, domain=DOMAIN, name="p"
    )
    out = mech.sample(Dataset(X, Y), 4, rng=np.random.default_rng(0))
    assert out.shape == (4, 2 + 3)
    assert pickle.loads(pickle.dumps(mech)).name == "p"
    with pytest.raises(ValueError, match="probe"):
        from_estimator(_fixed, output="predict", claim=CLAIM, domain=DOMAIN, name="q").sample(
            Dataset(X, Y), 1, rng=np.random.default_rng(0)
        )


def test_diffprivlib_logistic_regression_one_class_raise_is_an_output() -> None:
    pytest.importorskip("diffprivlib")
    pytest.importorskip("sklearn")
    from diffprivlib.models import LogisticRegression

    def make(rng: np.random.Generator) -> LogisticRegression:
        return LogisticRegression(epsilon=1.0, data_norm=1.0, random_state=int(rng.integers(2**31)))

    pair = NeighborPair(
        dataset=Dataset(X[:2], Y[:2]),
        neighbor=Dataset(X[:1], Y[:1]),
        relation=Relation.ADD_REMOVE_ONE,
        description="-",
    )
    mech = from_estimator(
        make, output=("coef_", "intercept_"), claim=CLAIM, domain=DOMAIN, name="lr", exceptions=(ValueError,)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_audit(mech, [pair], AuditConfig(num_samples=200, seed=0))
    assert result.verdict is Verdict.VIOLATION_FOUND


def test_diffprivlib_gaussian_nb_label_set_witness() -> None:
    pytest.importorskip("diffprivlib")
    from diffprivlib.models import GaussianNB

    def make(rng: np.random.Generator) -> GaussianNB:
        return GaussianNB(epsilon=1.0, bounds=(0.0, 1.0), random_state=int(rng.integers(2**31)))

    mech = from_estimator(make, output=("theta_", "var_"), claim=CLAIM, domain=DOMAIN, name="nb")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_audit(mech, [ONLY_OF_CLASS], AuditConfig(num_samples=300, seed=0))
    assert result.verdict is Verdict.VIOLATION_FOUND
    assert "6 columns on D and 4 on D′" in result.pairs[0].estimate.event
