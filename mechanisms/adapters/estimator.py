"""`from_estimator`: audit a scikit-learn-style DP estimator as the user fits and publishes it.

`make(rng)` returns an unfitted estimator (a diffprivlib model, say; `rng` is dpaudit's
`numpy.random.Generator`, from which the user draws the library's `random_state`, e.g.
`int(rng.integers(2**31))`); each release is `make(rng).fit(X, y)` followed by the fitted
attributes named in `output` (`coef_`, `intercept_`, `theta_`, `var_`, `class_count_`, `classes_`,
`cluster_centers_`, `mean_`, `scale_`, `components_`, ...), flattened and concatenated; a name that
is a *method* of the fitted estimator (`predict`, `predict_proba`, `transform`) is called on the
`probe` points instead (predictions on a fixed probe set, DESIGN.md "Contracts").

Outputs whose shape depends on the data. Libraries that take the label set from the data
(IBM/differential-privacy-library#106: diffprivlib 0.6.6's LogisticRegression and GaussianNB)
publish a `coef_` of 3 rows when the data hold three classes and of 1 row when the only record of
one class is removed. The adapter does not pad or reshape: the release is what the user would
publish, so its width is a function of the dataset and the engine's width event
(`engine/output_width.py`) certifies it as an infinite witness ("the output has 9 columns on D
and 3 on D′": the label-set witness). With `exceptions=(ValueError,)` a fit that raises a declared
type (scikit-learn's "needs samples of at least 2 classes" on one-class data) is an output of its
own (`mechanisms/outcomes.py`: fixed-width rows, so the width witness is then read from the `size`
column instead); otherwise a raise is the mechanism failing (exit 2).

Continuous regression targets. `target=(low, high)` declares y continuous over [low, high]
instead of a finite label set: the search's domain gets y as one more feature (the last column
of each record, in the box like any feature: corners, space-filling points, local moves), and
each release splits it off (`fit(X[:, :-1], X[:, -1])`). A record is still one row (x, y), so
a neighbour pair of the search's datasets is a neighbour pair of the (X, y) tables the estimator
is fitted on: the split is a fixed row-wise map, and nothing about the certificate changes.
Registered `pairs` are given as (X, y) datasets and joined the same way.

A fit per release is unavoidable (the library draws its noise inside `fit`); the per-release
Python overhead is one `make`, one `fit` and one concatenation. The mechanism declares
`per_sample_streams`: the audit draws every release from its own seed stream and cuts its tasks by
the measured cost of a fit (about a second of work each), so the results are the same for any
chunking, `--jobs` or Dask cluster. `chunk_size` / `n_jobs` still run the chunks of one `sample`
call on joblib workers exactly as `from_callable` does (results independent of `n_jobs`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, DesignAxis, Domain, NeighborPair, Relation
from ..base import CallableMechanism, PrivacyClaim, from_callable
from ..outcomes import DEFAULT_PAYLOAD_WIDTH

__all__ = ["EstimatorRelease", "from_estimator"]


@dataclass(frozen=True, slots=True)
class EstimatorRelease:
    """One release: fit `make(rng)` on the dataset, publish `output` (picklable when `make` is)."""

    make: Callable[[np.random.Generator], Any]
    output: tuple[str, ...]
    probe: NDArray[np.float64] | None = None
    target: bool = False
    """The last feature is a continuous target y (`from_estimator(target=...)`)."""

    def __call__(self, dataset: Dataset, rng: np.random.Generator) -> NDArray[np.float64]:
        estimator = self.make(rng)
        if self.target:
            fitted = estimator.fit(dataset.X[:, :-1], dataset.X[:, -1])
        elif dataset.y is None:
            fitted = estimator.fit(dataset.X)
        else:
            fitted = estimator.fit(dataset.X, dataset.y)
        fitted = estimator if fitted is None else fitted
        parts = [np.asarray(self._read(fitted, name), dtype=np.float64).ravel() for name in self.output]
        return np.concatenate(parts) if parts else np.empty(0)

    def _read(self, fitted: Any, name: str) -> Any:
        value = getattr(fitted, name)
        if not callable(value):
            return value
        if self.probe is None:
            raise ValueError(f"output {name!r} is a method: give probe points (probe=...) to call it on")
        return value(self.probe)


def from_estimator(
    make: Callable[[np.random.Generator], Any],
    *,
    output: str | Sequence[str],
    claim: PrivacyClaim,
    domain: Domain,
    name: str,
    exceptions: Sequence[type[BaseException]] = (),
    probe: Any = None,
    claims: Sequence[PrivacyClaim] = (),
    pairs: Sequence[NeighborPair] = (),
    seedable: bool = True,
    chunk_size: int | None = None,
    n_jobs: int = 1,
    payload_width: int = DEFAULT_PAYLOAD_WIDTH,
    no_answer: bool = False,
    target: tuple[float, float] | None = None,
    variable_length: bool = False,
) -> CallableMechanism:
    """A `Mechanism` whose release is `make(rng).fit(X, y)`'s `output` attributes (or methods on
    `probe`). `claim` is the ε the user built the estimator with under the relation the library
    documents (`ClaimKind.STATED` where it documents none); `exceptions` are raises that are
    outputs, not failures; `no_answer=True` makes a fit whose published values hold a NaN (a
    diverged solver) an outcome of its own too. `target=(low, high)` declares a continuous
    regression target over [low, high] (module docstring); `domain` then describes X only.
    `variable_length=True` takes published values whose length varies between fits (`classes_`
    on data missing a label), as in `from_callable`."""
    names = (output,) if isinstance(output, str) else tuple(output)
    if not names:
        raise ValueError("output names no attribute")
    points = None if probe is None else np.atleast_2d(np.asarray(probe, dtype=np.float64))
    outs = ", ".join(names) + (" on the probe points" if points is not None else "")
    if target is not None:
        domain, pairs = with_target(domain, target), tuple(_joined(p) for p in pairs)
    return from_callable(
        EstimatorRelease(make, names, points, target is not None),
        name=name,
        claim=claim,
        domain=domain,
        seedable=seedable,
        claims=claims,
        pairs=pairs,
        chunk_size=chunk_size,
        n_jobs=n_jobs,
        exceptions=exceptions,
        payload_width=payload_width,
        no_answer=no_answer,
        variable_length=variable_length,
        threat_model=f"the fitted estimator's {outs}",
        per_sample_streams=True,  # a fit per release: one stream per sample, chunks by cost
    )


def with_target(domain: Domain, target: tuple[float, float]) -> Domain:
    """`domain` (of X) with a continuous target over [low, high] as one more, last, feature."""
    low, high = (float(v) for v in target)
    if domain.labels is not None or domain.records is not None:
        raise ValueError("a continuous target replaces labels: give a box domain of X without labels")
    if not low < high:
        raise ValueError(f"target must be (low, high) with low < high, got {target}")
    lo, hi = domain.bounds()
    design = None if domain.design is None else (*domain.design, DesignAxis(low=low, high=high))
    return dataclasses.replace(
        domain,
        num_features=domain.num_features + 1,
        feature_low=(*(float(v) for v in lo), low),
        feature_high=(*(float(v) for v in hi), high),
        design=design,
    )


def _joined(pair: NeighborPair) -> NeighborPair:
    """A registered (X, y) pair with y joined to X as the last feature."""

    if pair.relation is Relation.RELABEL_ONE:
        raise ValueError(
            f"pair {pair.description!r}: with a continuous target y is a feature; register it as replace_one"
        )

    def join(ds: Dataset) -> Dataset:
        if ds.y is None:
            raise ValueError(f"pair {pair.description!r}: a continuous target needs y on both datasets")
        return Dataset(np.column_stack([ds.X, ds.y]))

    return dataclasses.replace(pair, dataset=join(pair.dataset), neighbor=join(pair.neighbor))
