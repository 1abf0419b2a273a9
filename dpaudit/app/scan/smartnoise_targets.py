"""smartnoise-synth's exports as scan targets: every synthesizer its registry names, its
`DPcovariance` release and the models of `snsynth.models`.

Synthesizers are what `snsynth.Synthesizer.list_synthesizers()` lists, each made as the
documentation shows, `Synthesizer.create(name, epsilon=1.0)` (with `delta=1e-5` where the
constructor takes a δ), fitted through `dpaudit.from_synthesizer` with `categorical_columns` and
`preprocessor_eps=0` on a small table of two categorical columns (a ∈ {0, 1, 2}, b ∈ {0, 1}, 2 to 16
rows), 20 synthetic rows per release. One that cannot be created here (torch, opacus, pac-synth or
private-pgm missing) is a row "needs X", read from the ImportError its module raises.
`DPcovariance(n, cols, bounds, global_eps=1).release(table)` is `from_release` on two numeric
columns declared in [0, 1] (the library's claim: the Laplace mechanism at its own sensitivity, see
`mechanisms/libraries/smartnoise_adapters.py`); `models.DPLinearRegression().fit(X, y, bounds,
budget=1)` publishes `coef_`, a post-processing of that covariance release, under the same claim
(its raise on a noisy covariance that is not positive definite is an output of its own).

Values outside what the library is told (the scan's principle for every library: input
validation is where libraries break), applied where the record is a legitimate neighbour under
the claimed relation:

- numeric columns: `DPcovariance` and `DPLinearRegression` are told bounds and document that
  they censor the data to them, so their claim covers every real-valued table; the search's
  records range 1000 × the bounds' width beyond them (`NumericColumn(clips=True)`).
- categorical columns: snsynth is told the columns' names, never their categories (its
  `LabelTransformer` takes them from the data), so a record with a value the declared table
  never uses is an ordinary record of the universe; replacing one record by it is a replace-one
  neighbour (`CategoricalColumn(allow_unseen=True)`).

The claims are STATED under replace-one for the synthesizers (snsynth names no neighbour
relation) and PROVED for the covariance (n is a constructor argument). Noise is drawn from the
global numpy state, which dpaudit's Generator cannot seed: every target is `seedable=False`.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import io
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.mechanisms.adapters import from_release, from_synthesizer
from dpaudit.mechanisms.base import ClaimKind, Mechanism, PrivacyClaim
from dpaudit.neighbors.base import Relation
from dpaudit.neighbors.tabular import CategoricalColumn, NumericColumn

from .targets import LibraryNotInstalledError, Target

LIBRARY = "smartnoise-synth"
EPSILON, DELTA = 1.0, 1e-5
COLUMNS = (
    CategoricalColumn(name="a", categories=(0, 1, 2)),
    CategoricalColumn(name="b", categories=(0, 1)),
)
ROWS, MIN_SIZE, MAX_SIZE = 20, 2, 16
NEEDS = {
    "torch": "torch",
    "opacus": "opacus",
    "pacsynth": "pac-synth",
    "mbi": "private-pgm (mbi)",
    "disjoint_set": "disjoint-set",
    "networkx": "networkx",
}
"""Import name → what to pip install (the GPU stack and the graphical-model synthesizers' extras)."""


def targets() -> list[Target]:
    """Every synthesizer of the registry, `DPcovariance`, and the classes of `snsynth.models`."""
    try:
        import snsynth
    except ImportError as exc:
        raise LibraryNotInstalledError(
            f"smartnoise-synth is not installed here ({exc}); pip install smartnoise-synth (without its "
            "GPU stack: pip install smartnoise-synth --no-deps, then pip install smartnoise-sql Faker "
            "scikit-learn)"
        ) from exc
    found = [synthesizer_target(n) for n in sorted(snsynth.Synthesizer.list_synthesizers())]
    return [*found, covariance_target(), *model_targets()]


# synthesizers ------------------------------------------------------------------------------------


def synthesizer_target(name: str) -> Target:
    """`Synthesizer.create(name, ...)` as a target, or the reason it cannot be created here."""
    export = f"Synthesizer.create({name!r})"
    try:
        kwargs = create_kwargs(name)
    except ImportError as exc:
        return Target(library=LIBRARY, export=export, kind="synthesizer", reason=_needs(exc))
    except (TypeError, ValueError, RuntimeError) as exc:
        reason = f"cannot be created with ε alone ({type(exc).__name__}: {' '.join(str(exc).split())[:80]})"
        return Target(library=LIBRARY, export=export, kind="synthesizer", reason=reason)
    return Target(
        library=LIBRARY, export=export, kind="synthesizer", build=functools.partial(synthesizer, name, kwargs)
    )


def create_kwargs(name: str) -> dict[str, float]:
    """The documented constructor keywords (ε, and δ where the constructor takes one); creating
    the synthesizer once imports its module, so a missing extra raises ImportError here."""
    from snsynth import Synthesizer

    with contextlib.redirect_stdout(io.StringIO()):  # snsynth prints its install hints
        created = Synthesizer.create(name, epsilon=EPSILON)
    kwargs = {"epsilon": EPSILON}
    if "delta" in inspect.signature(type(created)).parameters:
        kwargs["delta"] = DELTA
    return kwargs


def _needs(exc: ImportError) -> str:
    """ "needs X", X the module whose import failed (snsynth re-raises a bare ImportError from the
    original one, so the chain is walked for a name)."""
    cause: BaseException | None = exc
    while cause is not None and not getattr(cause, "name", None):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, ImportError):
        exc = cause
    top = (exc.name or "").split(".")[0]
    what = NEEDS.get(top, top or "an extra")
    detail = "" if type(exc) is ModuleNotFoundError else f" ({' '.join(str(exc).split())[:80]})"
    return f"needs {what}{detail}"


@dataclass(frozen=True, slots=True)
class MakeSynthesizer:
    """An unfitted `Synthesizer.create(name, **kwargs)` (noise from the global numpy state)."""

    name: str
    kwargs: tuple[tuple[str, float], ...]

    def __call__(self, rng: np.random.Generator) -> Any:
        from snsynth import Synthesizer

        return Synthesizer.create(self.name, **dict(self.kwargs))


def synthesizer(name: str, kwargs: dict[str, float]) -> Mechanism:
    """The synthesizer fitted on the declared table of two categorical columns."""
    built = f"Synthesizer.create({name!r}, " + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + ")"
    claim = PrivacyClaim(
        epsilon=kwargs["epsilon"],
        delta=kwargs.get("delta", 0.0),
        relation=Relation.REPLACE_ONE,
        reference=f"{_label()} {built}: the documented ε",
        kind=ClaimKind.STATED,
        note="the documentation names no neighbour relation; replace-one (n fixed) is assumed",
    )
    names = [c.name for c in COLUMNS]
    return from_synthesizer(
        MakeSynthesizer(name, tuple(sorted(kwargs.items()))),
        columns=COLUMNS,
        rows=ROWS,
        claim=claim,
        name=f"smartnoise_scan_{name}",
        fit_kwargs={"categorical_columns": names, "preprocessor_eps": 0.0},
        min_size=MIN_SIZE,
        max_size=MAX_SIZE,
        seedable=False,
    )


def _label() -> str:
    from dpaudit.mechanisms.libraries.common import library_label

    return library_label(LIBRARY, LIBRARY)


# DPcovariance and snsynth.models -----------------------------------------------------------------


def covariance_target() -> Target:
    from dpaudit.mechanisms.libraries.smartnoise_adapters import dp_covariance_class

    export = "models.dp_covariance.DPcovariance"
    try:
        dp_covariance_class()
    except (ImportError, OSError) as exc:
        return Target(
            library=LIBRARY,
            export=export,
            kind="tool",
            reason=f"does not import ({type(exc).__name__}: {' '.join(str(exc).split())[:80]})",
        )
    return Target(library=LIBRARY, export=export, kind="tool", build=covariance)


def covariance() -> Mechanism:
    from dpaudit.mechanisms.libraries.smartnoise_adapters import smartnoise_dpcovariance

    return smartnoise_dpcovariance(epsilon=EPSILON, columns=2)


def model_targets() -> list[Target]:
    """One target per class `snsynth.models` exports; one row saying why if it does not import
    (smartnoise-synth ≤ 1.0.5 imports `sklearn.linear_model.base`, gone since scikit-learn 0.24)."""
    try:
        import snsynth.models as models
    except ImportError as exc:
        return [
            Target(
                library=LIBRARY,
                export="models",
                kind="model",
                reason=f"snsynth.models does not import ({' '.join(str(exc).split())[:80]})",
            )
        ]
    names = getattr(models, "__all__", None) or [n for n in dir(models) if not n.startswith("_")]
    found = []
    for name in sorted(n for n in names if inspect.isclass(getattr(models, n, None))):
        if name == "DPLinearRegression":
            found.append(
                Target(library=LIBRARY, export=f"models.{name}", kind="model", build=linear_regression)
            )
        else:
            found.append(
                Target(
                    library=LIBRARY,
                    export=f"models.{name}",
                    kind="model",
                    reason="no documented call the scan knows how to build",
                )
            )
    return found


REGRESSION = (NumericColumn(name="x", low=0.0, high=1.0), NumericColumn(name="y", low=0.0, high=1.0))


@dataclass(frozen=True, slots=True)
class RegressionRelease:
    """`DPLinearRegression().fit(X, y, bounds, budget).coef_`, as the docstring calls it."""

    budget: float

    def __call__(self, table: Any, rng: np.random.Generator) -> Any:
        import pandas as pd
        from snsynth.models import DPLinearRegression

        bounds = pd.DataFrame({c.name: [c.low, c.high] for c in REGRESSION})
        fitted = DPLinearRegression().fit(table[["x"]], table[["y"]], bounds, self.budget)
        return np.asarray(fitted.coef_, dtype=float).ravel()


def linear_regression() -> Mechanism:
    """`from_release` with `exceptions=(ValueError,)`: the fit raises "Matrix is not positive
    definite" when the noisy covariance is not, which a user sees, so a raise is an output of its
    own; a NaN coefficient is the declared "no answer" (`no_answer=True`)."""
    from dpaudit.mechanisms.libraries.smartnoise_adapters import covariance_claim

    return from_release(
        RegressionRelease(EPSILON),
        columns=REGRESSION,
        claim=covariance_claim(EPSILON),
        name="smartnoise_scan_DPLinearRegression",
        min_size=MIN_SIZE,
        max_size=32,
        seedable=False,
        exceptions=(ValueError,),
        no_answer=True,
    )
