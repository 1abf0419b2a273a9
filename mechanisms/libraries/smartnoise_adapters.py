"""smartnoise-synth's `DPcovariance` and MWEM synthesizer as dpaudit mechanisms (the
smartnoise half of the `libraries` family), built through the generic table adapters
(`mechanisms/adapters/synthesizer.py`: `from_release`, `from_synthesizer`).

- `smartnoise_dpcovariance`: `snsynth.models.dp_covariance.DPcovariance(n, cols, rng,
  global_eps).release(table)`, the lower triangle of the covariance of `columns` numeric
  columns with declared bounds [0, 1]. The claim is the Laplace mechanism's (Dwork, McSherry,
  Nissim & Smith, "Calibrating Noise to Sensitivity in Private Data Analysis", 2006, Prop. 1) at
  the sensitivity the library computes, 2·range_i·range_j/n per entry, with `global_eps` split
  evenly over the k(k+1)/2 entries (basic composition): ε-DP under replace-one, n being a
  constructor argument (public). The library says it clips to the bounds, so the table's
  records reach far outside them (`NumericColumn(clips=True)`): smartnoise-synth ≤ 1.0.5 computes
  the covariance on the unclipped table (opendp/smartnoise-sdk#622, fixed by #624 in 1.0.6).
- `smartnoise_mwem`: `Synthesizer.create("mwem", epsilon=ε)` fitted with
  `categorical_columns` and `preprocessor_eps=0`, 20 rows sampled, published as the synthetic
  table's marginals, support and counts. MWEM (Hardt, Ligett & McSherry, "A Simple and Practical
  Algorithm for Differentially Private Data Release", NeurIPS 2012, Thm 2.2) is ε-DP; snsynth
  names no neighbour relation, so the claim is STATED under replace-one.

`import snsynth.models` fails on smartnoise-synth 1.0.5 with any scikit-learn since 0.24
(`sklearn.linear_model.base`), so `dp_covariance_class` falls back to loading
`snsynth/models/dp_covariance.py` by its path (it needs numpy and pandas only). Both draw their
noise from the global `numpy.random` state, which the audit's Generator cannot seed: the
presets are registered `seedable=False` (results do not reproduce from `--seed`, and the
report says so), as the OpenDP and python-dp presets are. MWEM needs opendp < 0.13 (with
0.14 snsynth's Laplace helper raises "AbsoluteDistance requires non-nan elements").
MST and AIM are not registered: snsynth imports `FactoredInference` from private-pgm's `mbi`,
which the PyPI `mbi` 2.0.0 no longer has (its API changed; it also needs jax).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...neighbors.base import Relation
from ...neighbors.tabular import CategoricalColumn, NumericColumn
from ..adapters import from_release, from_synthesizer
from ..base import CallableMechanism, ClaimKind, PrivacyClaim
from .common import library_label

__all__ = [
    "FACTORIES",
    "CovarianceRelease",
    "dp_covariance_class",
    "smartnoise_dpcovariance",
    "smartnoise_mwem",
]

LABEL = ("smartnoise-synth", "smartnoise-synth")


def dp_covariance_class() -> type:
    """`snsynth.models.dp_covariance.DPcovariance`, by import or (1.0.5) by its file's path."""
    try:
        return importlib.import_module("snsynth.models.dp_covariance").DPcovariance
    except ImportError:
        spec = importlib.util.find_spec("snsynth")
        if spec is None or not spec.submodule_search_locations:
            raise
        path = f"{next(iter(spec.submodule_search_locations))}/models/dp_covariance.py"
        file_spec = importlib.util.spec_from_file_location("dpaudit_snsynth_dp_covariance", path)
        if file_spec is None or file_spec.loader is None:
            raise
        module = importlib.util.module_from_spec(file_spec)
        file_spec.loader.exec_module(module)
        return module.DPcovariance


@dataclass(frozen=True, slots=True)
class CovarianceRelease:
    """`DPcovariance(len(table), columns, bounds, epsilon).release(table)`, as a user calls it
    (n = the table's size, public under replace-one); pickles by value."""

    columns: tuple[str, ...]
    low: float
    high: float
    epsilon: float

    def __call__(self, table: Any, rng: np.random.Generator) -> Any:
        import pandas as pd

        bounds = pd.DataFrame({c: [self.low, self.high] for c in self.columns})
        cov = dp_covariance_class()(len(table), list(self.columns), bounds, self.epsilon)
        return cov.release(table[list(self.columns)])


def covariance_claim(epsilon: float) -> PrivacyClaim:
    return PrivacyClaim(
        epsilon=epsilon,
        relation=Relation.REPLACE_ONE,
        reference=(
            f"{library_label(*LABEL)} DPcovariance: the Laplace mechanism (Dwork, McSherry, Nissim & Smith, "
            "Calibrating Noise to Sensitivity in Private Data Analysis, Prop. 1) at the library's "
            "sensitivity 2·range_i·range_j/n, global_eps split over the entries (basic composition)"
        ),
        kind=ClaimKind.PROVED,
        note="n is a constructor argument (public): replace one row; the library clips to the bounds",
    )


def smartnoise_dpcovariance(*, epsilon: float = 1.0, columns: int = 2) -> CallableMechanism:
    names = tuple(f"x{j}" for j in range(columns))
    return from_release(
        CovarianceRelease(names, 0.0, 1.0, float(epsilon)),
        columns=[NumericColumn(name=c, low=0.0, high=1.0) for c in names],
        claim=covariance_claim(epsilon),
        name="smartnoise_dpcovariance",
        min_size=2,
        max_size=32,
        seedable=False,
    )


@dataclass(frozen=True, slots=True)
class MakeMWEM:
    """An unfitted snsynth MWEM synthesizer at `epsilon` (noise from the global numpy state)."""

    epsilon: float

    def __call__(self, rng: np.random.Generator) -> Any:
        from snsynth import Synthesizer

        return Synthesizer.create("mwem", epsilon=self.epsilon)


def smartnoise_mwem(*, epsilon: float = 1.0, rows: int = 20) -> CallableMechanism:
    columns = [
        CategoricalColumn(name="a", categories=(0, 1, 2), allow_unseen=False),
        CategoricalColumn(name="b", categories=(0, 1), allow_unseen=False),
    ]
    claim = PrivacyClaim(
        epsilon=epsilon,
        relation=Relation.REPLACE_ONE,
        reference=(
            f"{library_label(*LABEL)} MWEM (Hardt, Ligett & McSherry, A Simple and Practical Algorithm for "
            "Differentially Private Data Release, Thm 2.2)"
        ),
        kind=ClaimKind.STATED,
        note="the documentation names no neighbour relation, so the claim is STATED",
    )
    return from_synthesizer(
        MakeMWEM(float(epsilon)),
        columns=columns,
        rows=rows,
        claim=claim,
        name="smartnoise_mwem",
        fit_kwargs={"categorical_columns": ["a", "b"], "preprocessor_eps": 0.0},
        min_size=2,
        max_size=16,
        seedable=False,
    )


FACTORIES: dict[str, tuple[Callable[..., CallableMechanism], str]] = {
    "smartnoise_dpcovariance": (smartnoise_dpcovariance, "smartnoise-synth DPcovariance.release (Laplace)"),
    "smartnoise_mwem": (smartnoise_mwem, "smartnoise-synth MWEM synthesizer, 20 synthetic rows"),
}
