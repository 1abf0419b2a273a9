"""Shared pieces of the diffprivlib rows (the estimators a user builds, and the claim)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

import dpaudit
from dpaudit import ClaimKind, Domain, PrivacyClaim, Relation

BOUNDS = ([-1.0, -1.0], [1.0, 1.0])
DOMAIN = Domain(num_features=2, feature_low=-1.0, feature_high=1.0, labels=(0.0, 1.0, 2.0))


def claim(model: str, relation: Relation) -> PrivacyClaim:
    """The ε the user passed (1); diffprivlib's documentation names no neighbour relation: STATED."""
    from importlib.metadata import version

    return PrivacyClaim(
        epsilon=1.0,
        relation=relation,
        reference=f"diffprivlib {version('diffprivlib')} models.{model}(epsilon=1): the documented ε",
        kind=ClaimKind.STATED,
        note="the documentation names no neighbour relation, so the claim is STATED",
    )


def logistic_regression(rng: np.random.Generator) -> Any:
    from diffprivlib.models import LogisticRegression

    warnings.filterwarnings("ignore")  # diffprivlib's PrivacyLeakWarning/compatibility warnings
    return LogisticRegression(epsilon=1.0, data_norm=1.5, random_state=int(rng.integers(2**31)))


def gaussian_nb(rng: np.random.Generator) -> Any:
    from diffprivlib.models import GaussianNB

    warnings.filterwarnings("ignore")
    return GaussianNB(epsilon=1.0, bounds=BOUNDS, random_state=int(rng.integers(2**31)))


def lr_mechanism(name: str, relation: Relation, pairs: tuple[dpaudit.NeighborPair, ...] = ()) -> Any:
    return dpaudit.from_estimator(
        logistic_regression,
        output=("coef_", "intercept_"),
        claim=claim("LogisticRegression", relation),
        domain=DOMAIN,
        name=name,
        exceptions=(ValueError,),  # "This solver needs samples of at least 2 classes": an output
        pairs=pairs,
        payload_width=16,
    )


def nb_mechanism(name: str, relation: Relation, pairs: tuple[dpaudit.NeighborPair, ...] = ()) -> Any:
    return dpaudit.from_estimator(
        gaussian_nb,
        output=("theta_", "var_", "class_count_"),
        claim=claim("GaussianNB", relation),
        domain=DOMAIN,
        name=name,
        pairs=pairs,
    )


def every_class_on_both_sides(relation: Relation) -> tuple[dpaudit.NeighborPair, ...]:
    """The user's neighbour relation with the label set fixed: nine records, three of each class;
    the neighbour removes (add/remove) or moves to the far corner (replace) one class-0 record, so
    every class is on both sides."""
    rng = np.random.default_rng(2024)
    X = rng.uniform(-1.0, 1.0, size=(9, 2))
    y = np.repeat([0.0, 1.0, 2.0], 3)
    if relation is Relation.ADD_REMOVE_ONE:
        other, what = dpaudit.Dataset(X[1:], y[1:]), "remove one class-0 record (every class on both sides)"
    else:
        X2 = X.copy()
        X2[0] = [1.0, 1.0]
        other, what = dpaudit.Dataset(X2, y), "move one class-0 record to (1, 1), labels fixed"
    return (
        dpaudit.NeighborPair(
            dataset=dpaudit.Dataset(X, y), neighbor=other, relation=relation, description=what
        ),
    )


def kmeans(rng: np.random.Generator) -> Any:
    from diffprivlib.models import KMeans

    warnings.filterwarnings("ignore")
    return KMeans(n_clusters=2, epsilon=1.0, bounds=BOUNDS, random_state=int(rng.integers(2**31)))


def kmeans_mechanism(name: str, relation: Relation) -> Any:
    """`KMeans(n_clusters=2, epsilon=1, bounds=([-1, -1], [1, 1]))` publishing `cluster_centers_`,
    fitted on two features in [-1, 1] (no labels), as the preset `diffprivlib_model_kmeans`."""
    return dpaudit.from_estimator(
        kmeans,
        output=("cluster_centers_",),
        claim=claim("KMeans", relation),
        domain=Domain(num_features=2, feature_low=-1.0, feature_high=1.0),
        name=name,
        payload_width=16,
    )
