"""diffprivlib's exports as scan targets: every model, tool and mechanism the installed version has.

Models are fitted as a user would, through `dpaudit.from_estimator`, with the parameters the
library's documentation asks for to avoid its `PrivacyLeakWarning` (`bounds`, `bounds_X`,
`bounds_y`, `data_norm`, and `classes` where the constructor takes it), on two features in
[-1, 1] (labels {0, 1, 2} for a classifier, a target in [-1, 1] for a regressor). What is released
is the fitted public attributes (names ending in `_` holding numbers), or `predict_proba` /
`predict` on nine probe points when the model has none (a tree). A model with a registered preset
(`diffprivlib_model_*`) is that preset. Tools with a preset (`diffprivlib_mean`, …) are the preset;
other tools taking `bounds` are called on ten values in [0, 1] with one value replaced 0 → 1, and
0 → 1000 (outside the bounds, which every such tool clips to: see `OUTSIDE`). Scalar
mechanisms are built from their signature (`epsilon`, `delta`, `sensitivity` 1 and bounds [0, 1])
and randomise one value, 0 against 1. Float outputs are audited with the floating-point lattice
events, as the presets are (Mironov, On significance of the least significant bits for
differential privacy, CCS 2012). The claim is the ε (δ) passed: STATED where the library's
documentation names no neighbour relation (models and tools: replace-one assumed), and the
mechanism's own parameters for a mechanism, as the presets do. Anything else is listed with the
reason it was not built.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.mechanisms.adapters import from_estimator
from dpaudit.mechanisms.base import ClaimKind, Mechanism, PrivacyClaim, from_callable
from dpaudit.mechanisms.libraries import ModelMaker
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

from .targets import LibraryNotInstalledError, Target, preset

LIBRARY = "diffprivlib"
LOW, HIGH = [-1.0, -1.0], [1.0, 1.0]
CLASSES = Domain(num_features=2, feature_low=-1.0, feature_high=1.0, labels=(0.0, 1.0, 2.0))
TARGET = Domain(num_features=2, feature_low=-1.0, feature_high=1.0, labels=(-1.0, 0.0, 1.0))
FEATURES = Domain(num_features=2, feature_low=-1.0, feature_high=1.0)
DOCUMENTED = {
    "bounds": (LOW, HIGH),
    "bounds_X": (LOW, HIGH),
    "bounds_y": (-1.0, 1.0),
    "data_norm": 1.5,
    "n_clusters": 2,
    "n_components": 1,
    "n_estimators": 3,
}
"""The parameters the documentation asks for (a model without them warns of a privacy leak)."""
PROBE = np.array([[x, y] for x in (-0.5, 0.0, 0.5) for y in (-0.5, 0.0, 0.5)])
TOOL_EXTRA = {"quantile": {"quant": 0.5}, "percentile": {"percent": 50.0}}
MODEL_PRESETS = {
    "LogisticRegression": "logistic_regression",
    "GaussianNB": "gaussian_nb",
    "LinearRegression": "linear_regression",
    "KMeans": "kmeans",
    "StandardScaler": "standard_scaler",
    "PCA": "pca",
}
TOOL_PRESETS = {"mean": "diffprivlib_mean", "var": "diffprivlib_var", "sum": "diffprivlib_sum",
                "histogram": "diffprivlib_histogram"}
MECHANISM_PRESETS = {"Laplace": "diffprivlib_laplace", "Gaussian": "diffprivlib_gaussian",
                     "Geometric": "diffprivlib_geometric", "Exponential": "diffprivlib_exponential"}


def targets() -> list[Target]:
    """Every model, tool and mechanism class the installed diffprivlib exports."""
    try:
        import diffprivlib.mechanisms as mechanisms
        import diffprivlib.models as models
        import diffprivlib.tools as tools
    except ImportError as exc:
        raise LibraryNotInstalledError(
            f"diffprivlib is not installed here ({exc}); pip install \"dpaudit[diffprivlib]\""
        ) from exc
    found = [_model_target(n) for n in _exports(models, inspect.isclass)]
    found += [_tool_target(n, getattr(tools, n)) for n in _exports(tools, inspect.isfunction)]
    found += [_mechanism_target(n, getattr(mechanisms, n)) for n in _exports(mechanisms, inspect.isclass)]
    return found


def _exports(module: Any, kind: Any) -> list[str]:
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    return sorted(n for n in names if kind(getattr(module, n, None)))



# models ------------------------------------------------------------------------------------------


def _model_target(cls_name: str) -> Target:
    export = f"models.{cls_name}"
    if cls_name in MODEL_PRESETS:
        build = functools.partial(preset, f"diffprivlib_model_{MODEL_PRESETS[cls_name]}")
        return Target(library=LIBRARY, export=export, kind="model", build=build)
    return Target(library=LIBRARY, export=export, kind="model", build=functools.partial(model, cls_name))


def model(cls_name: str) -> Mechanism:
    """A diffprivlib model no preset covers, built from its constructor's signature."""
    import diffprivlib.models as models

    cls = getattr(models, cls_name)
    params = inspect.signature(cls).parameters
    classifier = "classes" in params or hasattr(cls, "predict_proba")
    domain = CLASSES if classifier else TARGET if "bounds_y" in params else FEATURES
    kwargs: dict[str, Any] = {"epsilon": 1.0}
    kwargs.update({k: v for k, v in DOCUMENTED.items() if k in params})
    if "classes" in params:
        kwargs["classes"] = list(domain.labels or ())
    make = ModelMaker(cls_name, kwargs)
    output, probe = _released(make, domain)
    built = f"models.{cls_name}(" + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")"
    return from_estimator(
        make,
        output=output,
        probe=probe,
        claim=_stated(built, epsilon=1.0),
        domain=domain,
        name=f"diffprivlib_scan_{cls_name}",
        exceptions=(ValueError,) if classifier else (),
        payload_width=32,
    )


def _released(make: ModelMaker, domain: Domain) -> tuple[tuple[str, ...], Any]:
    """The fitted public numeric attributes, else a prediction on the probe points."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1.0, 1.0, size=(12, 2))
    labels = np.asarray(domain.labels if domain.labels is not None else [0.0])
    fitted = make(rng).fit(X, np.resize(labels, 12))
    names = tuple(
        k for k, v in sorted(vars(fitted).items())
        if k.endswith("_") and not k.startswith("_") and _numeric(v)
    )
    if names:
        return names, None
    method = "predict_proba" if hasattr(fitted, "predict_proba") else "predict"
    return (method,), PROBE


def _numeric(value: Any) -> bool:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return array.size > 0


def _stated(built: str, *, epsilon: float, delta: float = 0.0) -> PrivacyClaim:
    from importlib.metadata import version

    return PrivacyClaim(
        epsilon=epsilon,
        delta=delta,
        relation=Relation.REPLACE_ONE,
        reference=f"diffprivlib {version('diffprivlib')} {built}: the documented ε",
        kind=ClaimKind.STATED,
        note="the documentation names no neighbour relation; replace-one (n fixed) is assumed",
    )


# tools -------------------------------------------------------------------------------------------


def _tool_target(fn_name: str, fn: Any) -> Target:
    export = f"tools.{fn_name}"
    if fn_name in TOOL_PRESETS:
        return Target(library=LIBRARY, export=export, kind="tool",
                      build=functools.partial(preset, TOOL_PRESETS[fn_name]))
    params = inspect.signature(fn).parameters
    if "bounds" not in params and fn_name != "count_nonzero":
        return Target(library=LIBRARY, export=export, kind="tool",
                      reason="takes no bounds on one column (a multi-column histogram); not built")
    return Target(library=LIBRARY, export=export, kind="tool", build=functools.partial(tool, fn_name))


OUTSIDE = 1000.0
"""A value the tool is not told about: every diffprivlib tool taking `bounds` first clips its array
to them (`diffprivlib.validation.clip_to_bounds`, public), so its ε holds for every real array and
replacing one value by one outside the bounds is a replace-one neighbour the claim covers (input
validation is where libraries break)."""


def _replace_last(size: int, value: float) -> NeighborPair:
    low, high = np.zeros((size, 1)), np.zeros((size, 1))
    high[-1, 0] = value
    where = "" if value <= 1.0 else " (outside the bounds [0, 1])"
    return NeighborPair(dataset=Dataset(low), neighbor=Dataset(high), relation=Relation.REPLACE_ONE,
                        description=f"replace one of {size} values 0 → {value:g}{where}")


class _Tool:
    """One release of `tools.<fn_name>` on the dataset's column."""

    def __init__(self, fn_name: str, kwargs: dict[str, Any]) -> None:
        self.fn_name, self.kwargs = fn_name, kwargs

    def __call__(self, dataset: Dataset, num_samples: int, rng: np.random.Generator) -> NDArray[Any]:
        import diffprivlib.tools as tools

        warnings.filterwarnings("ignore", module="diffprivlib")
        fn, x = getattr(tools, self.fn_name), np.asarray(dataset.X[:, 0])
        rs = np.random.RandomState(int(rng.integers(2**31)))
        return np.array([np.asarray(fn(x, random_state=rs, **self.kwargs), dtype=np.float64)
                         for _ in range(num_samples)]).reshape(num_samples, -1)


def tool(fn_name: str, *, size: int = 10) -> Mechanism:
    """A diffprivlib tool no preset covers: ten values in [0, 1], one replaced 0 → 1, and (a tool
    told `bounds`) one replaced 0 → `OUTSIDE`, far outside them."""
    kwargs: dict[str, Any] = {"epsilon": 1.0, **TOOL_EXTRA.get(fn_name, {})}
    values = [1.0]
    if fn_name != "count_nonzero":
        kwargs["bounds"] = (0.0, 1.0)
        values.append(OUTSIDE)
    built = f"tools.{fn_name}(" + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + f") on {size} values"
    return from_callable(
        name=f"diffprivlib_scan_{fn_name}",
        claim=_stated(built, epsilon=1.0),
        domain=Domain(num_features=1, min_size=size, max_size=size, feature_high=max(values)),
        pairs=tuple(_replace_last(size, v) for v in values),
        batch_fn=_Tool(fn_name, kwargs),
        output_kind="continuous",
        floating_point=fn_name != "count_nonzero",  # as the presets: the float lattice events
    )


# mechanisms --------------------------------------------------------------------------------------


def _mechanism_target(cls_name: str, cls: Any) -> Target:
    export = f"mechanisms.{cls_name}"
    if cls_name in MECHANISM_PRESETS:
        return Target(library=LIBRARY, export=export, kind="mechanism",
                      build=functools.partial(preset, MECHANISM_PRESETS[cls_name]))
    if inspect.isabstract(cls) or not hasattr(cls, "randomise"):
        return Target(library=LIBRARY, export=export, kind="mechanism", reason="a base class or mixin")
    try:
        _scalar_kwargs(cls_name)
    except (TypeError, ValueError) as exc:
        reason = f"not a scalar mechanism on one number ({' '.join(str(exc).split())[:80]})"
        return Target(library=LIBRARY, export=export, kind="mechanism", reason=reason)
    return Target(library=LIBRARY, export=export, kind="mechanism",
                  build=functools.partial(scalar_mechanism, cls_name))


SCALAR = {"epsilon": 1.0, "sensitivity": 1.0, "lower": 0.0, "upper": 1.0}


def _scalar_kwargs(cls_name: str) -> tuple[dict[str, Any], bool]:
    """Constructor keywords for a scalar mechanism, and whether it takes integers; raises when the
    mechanism does not randomise one number in [0, 1]."""
    import diffprivlib.mechanisms as mechanisms

    cls = getattr(mechanisms, cls_name)
    params = inspect.signature(cls).parameters
    kwargs = {k: v for k, v in SCALAR.items() if k in params}
    if "delta" in params and params["delta"].default is inspect.Parameter.empty:
        kwargs["delta"] = 1e-5 if "Gaussian" in cls_name else 0.1
    integer = "Geometric" in cls_name or "Discrete" in cls_name
    if integer:
        kwargs = {k: int(v) if k in ("sensitivity", "lower", "upper") else v for k, v in kwargs.items()}
    mech = cls(**kwargs)
    value = mech.randomise(0 if integer else 0.0)
    float(value)
    return kwargs, integer


class _Randomise:
    """`randomise(value)` num_samples times, value the dataset's one number."""

    def __init__(self, cls_name: str, kwargs: dict[str, Any], integer: bool) -> None:
        self.cls_name, self.kwargs, self.integer = cls_name, kwargs, integer

    def __call__(self, dataset: Dataset, num_samples: int, rng: np.random.Generator) -> NDArray[Any]:
        import diffprivlib.mechanisms as mechanisms

        rs = np.random.RandomState(int(rng.integers(2**31)))
        mech = getattr(mechanisms, self.cls_name)(random_state=rs, **self.kwargs)
        x = int(dataset.X[0, 0]) if self.integer else float(dataset.X[0, 0])
        return np.array([float(mech.randomise(x)) for _ in range(num_samples)], dtype=np.float64)


def scalar_mechanism(cls_name: str) -> Mechanism:
    """A scalar diffprivlib mechanism: one number, 0 against 1 (sensitivity 1)."""
    from importlib.metadata import version

    kwargs, integer = _scalar_kwargs(cls_name)
    built = f"mechanisms.{cls_name}(" + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")"
    claim = PrivacyClaim(
        epsilon=float(kwargs.get("epsilon", 0.0)),
        delta=float(kwargs.get("delta", 0.0)),
        relation=Relation.REPLACE_ONE,
        reference=f"diffprivlib {version('diffprivlib')} {built}",
        note="the mechanism's ε, δ at sensitivity 1: one value 0 → 1",
    )
    pair = NeighborPair(dataset=Dataset(np.zeros((1, 1))), neighbor=Dataset(np.ones((1, 1))),
                        relation=Relation.REPLACE_ONE, description="one value 0 → 1")
    return from_callable(
        name=f"diffprivlib_scan_{cls_name}",
        claim=claim,
        domain=Domain(num_features=1, integer_features=integer, min_size=1, max_size=1),
        pairs=(pair,),
        batch_fn=_Randomise(cls_name, kwargs, integer),
        output_kind="discrete" if integer else "continuous",
        floating_point=not integer,  # as the presets: the float lattice events (Mironov, CCS 2012)
    )
