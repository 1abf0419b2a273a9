"""`from_synthesizer` / `from_release`: a DP synthesizer (or a release-style object) fitted on a
table, audited on what an attacker reads from its output.

`from_synthesizer(make, columns=..., rows=k, claim=...)`: each sample calls `make(rng)` for an
unfitted synthesizer (the library seeded from `rng` where it can be), `fit(table, **fit_kwargs)`
on the dataset decoded through the `TabularSpace` (`neighbors/tabular.py`), `sample(k)`, and
publishes `synthetic_features` of the synthetic table. `from_release(release, columns=...)`
publishes `release(table, rng)` itself (e.g. smartnoise-synth's `DPcovariance.release`).

The table is a pandas `DataFrame` when pandas is installed (it is: statsmodels, a core
dependency, requires it), else a dict of numpy columns; `table="dict"` forces the dict.

Features of a synthetic table (a fixed-width vector for a given space, so every feature is a
coordinate the threshold and histogram events read; the attacks of Stadler, Oprisanu &
Troncoso, "Synthetic Data — Anonymisation Groundhog Day", USENIX Security 2022, use the same
summaries):

- `marginals`: one-way counts of each declared category (label included), plus "other";
- `pairs`: two-way counts of every pair of categorical columns (declared × declared + other);
- `support`: 1 if a category (or "other", a value never declared) is present, else 0;
  for numeric columns the number of values below / above the declared bounds;
- `range`: min and max of each numeric column;
- `moments`: mean, standard deviation of each numeric column, covariance of each numeric pair.

Validity: the features are a fixed function of one synthetic table, so an event on them is an
event on the synthesizer's output and (ε, δ)-DP bounds its probability like any other. A support
bit or an out-of-bounds count that is 1 on one dataset's side and 0 on the other in every
selection sample is the 0/1 event the histogram and threshold distinguishers pick with
selection counts (n, 0); certified on fresh samples it is the Clopper–Pearson infinite-witness
bound (no assumption beyond sample()'s rows being independent outputs). A release whose length
depends on the data is the width witness of `audit/output_width.py`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, NeighborPair
from ...neighbors.tabular import CategoricalColumn, Column, NumericColumn, TabularSpace
from ..base import CallableMechanism, MechanismError, PrivacyClaim, from_callable
from ..outcomes import DEFAULT_PAYLOAD_WIDTH

__all__ = ["FEATURES", "from_release", "from_synthesizer", "synthetic_features"]

F64 = NDArray[np.float64]

FEATURES = ("marginals", "pairs", "support", "range", "moments")
MAX_PAIR_CELLS = 256
"""Two-way marginals of a pair of columns with more cells than this are left out."""


def _space(columns: TabularSpace | Sequence[Column], label: CategoricalColumn | None) -> TabularSpace:
    if isinstance(columns, TabularSpace):
        return columns
    return TabularSpace(columns=tuple(columns), label=label)


def make_table(columns: Mapping[str, NDArray[Any]], kind: str = "auto") -> Any:
    """A pandas DataFrame (when importable and kind is "auto" or "pandas"), else the dict."""
    if kind == "dict":
        return dict(columns)
    try:
        import pandas as pd
    except ImportError:
        if kind == "pandas":
            raise
        return dict(columns)
    return pd.DataFrame({k: (v if v.dtype != object else list(v)) for k, v in columns.items()})


def _column(table: Any, name: str) -> NDArray[Any]:
    try:
        return np.asarray(table[name])
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise MechanismError(f"the synthetic table has no column {name!r} ({type(exc).__name__})") from None


def _codes(col: CategoricalColumn, values: NDArray[Any]) -> NDArray[np.int64]:
    """Index of each value among the declared categories; k for anything else ("other")."""
    index = {c: i for i, c in enumerate(col.categories)}
    k = len(col.categories)
    out = np.empty(values.shape[0], dtype=np.int64)
    for i, v in enumerate(values.tolist()):
        try:
            out[i] = index.get(v, k)
        except TypeError:  # unhashable
            out[i] = k
    return out


def _numeric(values: NDArray[Any]) -> F64:
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return np.full(values.shape[0], np.nan)


def _numeric_features(col: NumericColumn, x: F64, wanted: set[str]) -> list[float]:
    ok = x[np.isfinite(x)]
    out: list[float] = []
    if "support" in wanted:
        out += [float(np.sum(ok < col.low)), float(np.sum(ok > col.high)), float(x.size - ok.size)]
    if "range" in wanted:
        out += [float(ok.min()), float(ok.max())] if ok.size else [0.0, 0.0]
    if "moments" in wanted:
        out += [float(ok.mean()), float(ok.std())] if ok.size else [0.0, 0.0]
    return out


def synthetic_features(space: TabularSpace, table: Any, features: Sequence[str] = FEATURES) -> F64:
    """The feature vector of one synthetic table (see the module docstring)."""
    wanted = set(features)
    cats = [
        *(c for c in space.columns if isinstance(c, CategoricalColumn)),
        *([space.label] if space.label else []),
    ]
    nums = [c for c in space.columns if isinstance(c, NumericColumn)]
    codes = {c.name: _codes(c, _column(table, c.name)) for c in cats}
    values = {c.name: _numeric(_column(table, c.name)) for c in nums}
    rows = next(iter(codes.values()), next(iter(values.values()), np.empty(0))).shape[0]
    out: list[float] = [float(rows)]
    for c in cats:
        counts = np.bincount(codes[c.name], minlength=len(c.categories) + 1).astype(float)
        out += list(counts) if "marginals" in wanted else []
        out += list((counts > 0).astype(float)) if "support" in wanted else []
    if "pairs" in wanted:
        for a, b in itertools.combinations(cats, 2):
            ka, kb = len(a.categories) + 1, len(b.categories) + 1
            if ka * kb <= MAX_PAIR_CELLS:
                out += list(np.bincount(codes[a.name] * kb + codes[b.name], minlength=ka * kb).astype(float))
    for num in nums:
        out += _numeric_features(num, values[num.name], wanted)
    if "moments" in wanted:
        for na, nb in itertools.combinations(nums, 2):
            xa, xb = values[na.name], values[nb.name]
            ok = np.isfinite(xa) & np.isfinite(xb)
            out.append(
                float(np.mean((xa[ok] - xa[ok].mean()) * (xb[ok] - xb[ok].mean()))) if ok.any() else 0.0
            )
    return np.asarray(out, dtype=float)


@dataclass(frozen=True, slots=True)
class SynthesizerRelease:
    """One release: fit `make(rng)` on the decoded table, sample `rows`, publish its features
    (a dataclass, so it pickles when `make` does)."""

    make: Callable[[np.random.Generator], Any]
    space: TabularSpace
    rows: int
    features: tuple[str, ...]
    fit_kwargs: Mapping[str, Any] = field(default_factory=dict)
    table: str = "auto"

    def __call__(self, dataset: Dataset, rng: np.random.Generator) -> F64:
        synth = self.make(rng)
        synth.fit(make_table(self.space.decode(dataset), self.table), **dict(self.fit_kwargs))
        return synthetic_features(self.space, synth.sample(self.rows), self.features)


@dataclass(frozen=True, slots=True)
class TableRelease:
    """One release: `release(table, rng)` on the decoded table, flattened to float64."""

    release: Callable[[Any, np.random.Generator], Any]
    space: TabularSpace
    table: str = "auto"

    def __call__(self, dataset: Dataset, rng: np.random.Generator) -> F64 | None:
        out = self.release(make_table(self.space.decode(dataset), self.table), rng)
        if out is None:  # no answer: an outcome when declared (`no_answer=True`), else a failure
            return None
        try:
            return np.asarray(out, dtype=float).ravel()
        except (TypeError, ValueError) as exc:
            raise MechanismError(f"the release is not numeric ({type(exc).__name__}: {exc})") from None


def from_synthesizer(
    make: Callable[[np.random.Generator], Any],
    *,
    columns: TabularSpace | Sequence[Column],
    rows: int,
    claim: PrivacyClaim,
    name: str,
    label: CategoricalColumn | None = None,
    features: Sequence[str] = FEATURES,
    fit_kwargs: Mapping[str, Any] | None = None,
    min_size: int = 1,
    max_size: int | None = None,
    seedable: bool = True,
    pairs: Sequence[NeighborPair] = (),
    table: str = "auto",
    exceptions: Sequence[type[BaseException]] = (),
    no_answer: bool = False,
    payload_width: int = DEFAULT_PAYLOAD_WIDTH,
) -> CallableMechanism:
    """A synthesizer as a `Mechanism` over the tables of `columns` (see the module docstring).

    `make(rng)` returns an unfitted synthesizer (pass the library a seed drawn from `rng`; say
    `seedable=False` when it reads a global source); `rows` synthetic rows are sampled per
    release; `features` chooses among `FEATURES`. The blind search builds tables in the space's
    domain; `pairs` (e.g. `neighbors.tabular.tabular_pairs`) are registered if given.
    `exceptions` (raises of these types in `make`, `fit` or `sample`) and `no_answer` (a feature
    vector with a NaN) are outcomes of their own, as in `from_callable` (`mechanisms/outcomes.py`)."""
    unknown = set(features) - set(FEATURES)
    if unknown or rows < 1:
        raise ValueError(f"features must be among {FEATURES} and rows ≥ 1 (got {sorted(unknown)}, {rows})")
    space = _space(columns, label)
    fn = SynthesizerRelease(make, space, int(rows), tuple(features), dict(fit_kwargs or {}), table)
    return _mechanism(
        fn,
        space,
        claim=claim,
        name=name,
        min_size=min_size,
        max_size=max_size,
        seedable=seedable,
        pairs=pairs,
        outcomes=(tuple(exceptions), no_answer, payload_width),
    )


def from_release(
    release: Callable[[Any, np.random.Generator], Any],
    *,
    columns: TabularSpace | Sequence[Column],
    claim: PrivacyClaim,
    name: str,
    label: CategoricalColumn | None = None,
    min_size: int = 1,
    max_size: int | None = None,
    seedable: bool = True,
    pairs: Sequence[NeighborPair] = (),
    table: str = "auto",
    exceptions: Sequence[type[BaseException]] = (),
    no_answer: bool = False,
    payload_width: int = DEFAULT_PAYLOAD_WIDTH,
    variable_length: bool = False,
) -> CallableMechanism:
    """`release(table, rng) -> numbers` (a DP statistic of the table) as a `Mechanism` over the
    tables of `columns`; the output is the release flattened. `exceptions` and `no_answer` (a
    release of None or with a NaN) make those outcomes of their own, as in `from_callable`;
    `variable_length=True` takes a release whose length varies between calls (a list of noisy
    keys that passed a threshold), coded [0, length, first `payload_width` values]."""
    space = _space(columns, label)
    fn = TableRelease(release, space, table)
    return _mechanism(
        fn,
        space,
        claim=claim,
        name=name,
        min_size=min_size,
        max_size=max_size,
        seedable=seedable,
        pairs=pairs,
        outcomes=(tuple(exceptions), no_answer, payload_width),
        variable_length=variable_length,
    )


def _mechanism(
    fn: Callable[[Dataset, np.random.Generator], F64 | None],
    space: TabularSpace,
    *,
    claim: PrivacyClaim,
    name: str,
    min_size: int,
    max_size: int | None,
    seedable: bool,
    pairs: Sequence[NeighborPair],
    outcomes: tuple[tuple[type[BaseException], ...], bool, int],
    variable_length: bool = False,
) -> CallableMechanism:
    exceptions, no_answer, width = outcomes
    return from_callable(
        fn,
        name=name,
        claim=claim,
        domain=space.domain(min_size=min_size, max_size=max_size),
        seedable=seedable,
        pairs=tuple(pairs),
        threat_model="the synthetic table (or the release) only",
        exceptions=exceptions,
        no_answer=no_answer,
        payload_width=width,
        variable_length=variable_length,
        per_sample_streams=True,  # a fit per release: one stream per sample, chunks by cost
    )
