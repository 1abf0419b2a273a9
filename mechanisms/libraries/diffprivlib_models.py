"""diffprivlib's models as the user fits them, through `from_estimator` (issue 34, item 6).

`LogisticRegression`, `GaussianNB`, `LinearRegression`, `KMeans`, `StandardScaler` and `PCA`, each
built with `epsilon` (default 1) and the bounds / norm the library asks for, fitted on datasets
the search proposes from the domain (two features in [-1, 1], labels {0, 1, 2} for the
classifiers, a target in [-1, 1] for the regression), and releasing the fitted attributes a user
would publish. The claim is the ε passed; diffprivlib's documentation names no neighbour relation,
so each claim is STATED, under replace-one (n fixed, as the library's bounded sensitivities
assume). A raise on data the model cannot fit (LogisticRegression on one class) is an output
(`exceptions=(ValueError,)`). The classifiers take their label set from the data
(IBM/differential-privacy-library#106 in 0.6.6), which the search finds as a width witness.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ...neighbors.base import Domain, Relation
from ..adapters import from_estimator
from ..base import CallableMechanism, ClaimKind, PrivacyClaim
from .common import library_label

LOW, HIGH = [-1.0, -1.0], [1.0, 1.0]
CLASSES = Domain(num_features=2, feature_low=-1.0, feature_high=1.0, labels=(0.0, 1.0, 2.0))
TARGET = Domain(num_features=2, feature_low=-1.0, feature_high=1.0, labels=(-1.0, 0.0, 1.0))
FEATURES = Domain(num_features=2, feature_low=-1.0, feature_high=1.0)

# name: (class, constructor keywords, published attributes, domain, declared exceptions)
MODELS: dict[str, tuple[str, dict[str, Any], tuple[str, ...], Domain, tuple[type[Exception], ...]]] = {
    "logistic_regression": (
        "LogisticRegression",
        {"data_norm": 1.5},
        ("coef_", "intercept_"),
        CLASSES,
        (ValueError,),
    ),
    "gaussian_nb": ("GaussianNB", {"bounds": (LOW, HIGH)}, ("theta_", "var_", "class_count_"), CLASSES, ()),
    "linear_regression": (
        "LinearRegression",
        {"bounds_X": (LOW, HIGH), "bounds_y": (-1.0, 1.0)},
        ("coef_", "intercept_"),
        TARGET,
        (),
    ),
    "kmeans": ("KMeans", {"n_clusters": 2, "bounds": (LOW, HIGH)}, ("cluster_centers_",), FEATURES, ()),
    "standard_scaler": ("StandardScaler", {"bounds": (LOW, HIGH)}, ("mean_", "scale_"), FEATURES, ()),
    "pca": (
        "PCA",
        {"n_components": 1, "data_norm": 1.5, "bounds": (LOW, HIGH)},
        ("components_",),
        FEATURES,
        (),
    ),
}


class ModelMaker:
    """`make(rng)`: the diffprivlib model `cls` with its keywords (`epsilon` among them) and a seed
    drawn from rng; the presets' and `dpaudit scan`'s maker.

    Each model is made inside a fresh `BudgetAccountant` context (the library's documented way to
    set the default accountant), so it and the parts it makes for itself record their spends
    there. Otherwise they hold diffprivlib's process-wide default accountant, whose list of spends
    grows by one with every fit of any model in the process (a list growing with the samples
    drawn), and `RandomForestClassifier` deep-copies its tree template, accountant included, into
    every tree it fits (sklearn's `clone`): its fits slowed with every fit before them (3.5 ms on an
    empty default accountant, 95 ms on one with 30,000 spends), so a scan's row of it at 4,000 per
    side timed out at 300 s. An accountant with no limit only records spends: no release depends
    on it."""

    def __init__(self, cls: str, kwargs: dict[str, Any]) -> None:
        self.cls, self.kwargs = cls, kwargs

    def __call__(self, rng: np.random.Generator) -> Any:
        import diffprivlib.models as models
        from diffprivlib.accountant import BudgetAccountant

        warnings.filterwarnings("ignore", module="diffprivlib")
        with BudgetAccountant():
            return getattr(models, self.cls)(random_state=int(rng.integers(2**31)), **self.kwargs)


def model(key: str, *, epsilon: float = 1.0) -> CallableMechanism:
    """The preset `diffprivlib_model_<key>`."""
    cls, kwargs, output, domain, exceptions = MODELS[key]
    built = f"models.{cls}(epsilon={epsilon:g}, " + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")"
    claim = PrivacyClaim(
        epsilon=epsilon,
        relation=Relation.REPLACE_ONE,
        reference=f"{library_label('diffprivlib', 'diffprivlib')} {built}",
        kind=ClaimKind.STATED,
        note="the documented ε; the documentation names no neighbour relation, so the claim is STATED",
    )
    return from_estimator(
        ModelMaker(cls, {"epsilon": epsilon, **kwargs}),
        output=output,
        claim=claim,
        domain=domain,
        name=f"diffprivlib_model_{key}",
        exceptions=exceptions,
        payload_width=16,
    )


FACTORIES: Mapping[str, tuple[Callable[..., CallableMechanism], str]] = {
    f"diffprivlib_model_{key}": (
        functools.partial(model, key),
        f"diffprivlib models.{spec[0]} fitted as a user would (stated ε)",
    )
    for key, spec in MODELS.items()
}
