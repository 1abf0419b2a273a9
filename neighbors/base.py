"""Contracts for neighbouring datasets (docs/DESIGN.md, "Contracts": `neighbors.base`).

Differential privacy is a statement about pairs of *neighbouring* datasets:
(ε, δ)-DP means P[M(D) ∈ S] ≤ e^ε · P[M(D') ∈ S] + δ for every event S and every
neighbouring pair (D, D') under a fixed relation. This module fixes the relations, the
dataset type, the pair type and the check that a pair really is a neighbour pair.

Datasets are ordered: row i is record i. For online learners the order is part of the data
(a stream), so every relation here compares datasets position by position, and add/remove
means "delete one position".
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from .records import RecordSpace


class Relation(enum.StrEnum):
    """Neighbour relations used by the papers' privacy claims."""

    REPLACE_ONE = "replace_one"
    """Bounded DP: one record replaced by an arbitrary record; n is fixed."""
    ADD_REMOVE_ONE = "add_remove_one"
    """Unbounded DP: one record added or removed."""
    RELABEL_ONE = "relabel_one"
    """One label changed, features fixed: a special case of REPLACE_ONE."""

    def is_covered_by(self, claimed: Relation) -> bool:
        """True when a claim under `claimed` implies a guarantee for pairs under `self`."""
        return self is claimed or (self is Relation.RELABEL_ONE and claimed is Relation.REPLACE_ONE)


def _frozen_array(a: object, *, name: str, ndim: int) -> NDArray[np.float64]:
    arr = np.array(a, dtype=np.float64, copy=True)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, slots=True, eq=False)
class Dataset:
    """An ordered, immutable dataset: features `X` (n, d) and optional labels `y` (n,).

    Arrays are copied to read-only float64 at construction, so a dataset can be shared
    between processes and hashed by content (`key`).
    """

    X: NDArray[np.float64]
    y: NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        X = np.asarray(self.X, dtype=np.float64)
        if X.ndim == 1:
            X = X.reshape(-1, 1)
        object.__setattr__(self, "X", _frozen_array(X, name="X", ndim=2))
        if self.y is not None:
            y = _frozen_array(self.y, name="y", ndim=1)
            if y.shape[0] != self.X.shape[0]:
                raise ValueError(f"y has {y.shape[0]} entries but X has {self.X.shape[0]} rows")
            object.__setattr__(self, "y", y)

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def num_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def labelled(self) -> bool:
        return self.y is not None

    def records(self) -> NDArray[np.float64]:
        """Rows of X with the label appended as a last column (labelled datasets)."""
        if self.y is None:
            return self.X
        return np.column_stack([self.X, self.y])

    def equals(self, other: Dataset) -> bool:
        if (self.y is None) != (other.y is None) or self.X.shape != other.X.shape:
            return False
        if not np.array_equal(self.X, other.X):
            return False
        return self.y is None or np.array_equal(self.y, other.y)  # type: ignore[arg-type]

    def key(self) -> str:
        """A content hash, stable across processes (used for checkpoints and dedup)."""
        import hashlib

        h = hashlib.sha256()
        h.update(np.asarray(self.X.shape, dtype=np.int64).tobytes())
        h.update(self.X.tobytes())
        if self.y is not None:
            h.update(b"y")
            h.update(self.y.tobytes())
        return h.hexdigest()[:16]

    def to_dict(self) -> dict[str, object]:
        """JSON form; "features" keeps the width of an empty dataset (its X is [])."""
        y = None if self.y is None else self.y.tolist()
        return {"X": self.X.tolist(), "y": y, "features": self.num_features}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Dataset:
        """Inverse of `to_dict` (ValueError/TypeError on a malformed entry); a file without
        "features" (written before it existed) reads an empty X as one column."""
        X = np.asarray(d["X"], dtype=np.float64)
        features = d.get("features")
        if X.size == 0 and isinstance(features, int) and not isinstance(features, bool) and features >= 1:
            X = X.reshape(0, features)
        y = d.get("y")
        return cls(X, None if y is None else np.asarray(y, dtype=np.float64))


def _row_mismatches(a: Dataset, b: Dataset) -> NDArray[np.intp]:
    """Indices where records of equal-length datasets differ (features or label)."""
    return np.flatnonzero(np.any(a.records() != b.records(), axis=1))


def _is_one_deletion(longer: Dataset, shorter: Dataset) -> bool:
    """True iff deleting exactly one row of `longer` gives `shorter` (order kept)."""
    if longer.n != shorter.n + 1:
        return False
    la, sh = longer.records(), shorter.records()
    if sh.shape[0] == 0:
        return True
    diff = np.any(la[:-1] != sh, axis=1)
    first = int(np.argmax(diff)) if diff.any() else shorter.n
    # rows before `first` agree; the deleted row is at `first`; the rest must shift by one
    return bool(np.array_equal(la[first + 1 :], sh[first:]))


def are_neighbors(a: Dataset, b: Dataset, relation: Relation) -> bool:
    """True iff (a, b) differ in exactly one record under `relation`.

    Identical datasets are not neighbours here: an audit of a pair at distance 0 is void.
    """
    if a.labelled != b.labelled or a.num_features != b.num_features:
        return False
    if relation is Relation.ADD_REMOVE_ONE:
        return _is_one_deletion(a, b) or _is_one_deletion(b, a)
    if a.n != b.n:
        return False
    mism = _row_mismatches(a, b)
    if mism.size != 1:
        return False
    if relation is Relation.REPLACE_ONE:
        return True
    # RELABEL_ONE: features identical, only the label of the one record differs
    return a.labelled and bool(np.array_equal(a.X, b.X))


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class NeighborPair:
    """A candidate worst-case pair: `dataset` and `neighbor` under `relation`."""

    dataset: Dataset
    neighbor: Dataset
    relation: Relation
    description: str
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.relation, Relation):
            raise TypeError(f"relation must be a Relation, got {self.relation!r}")
        if not self.description:
            raise ValueError("a neighbour pair needs a description")
        object.__setattr__(self, "tags", tuple(self.tags))

    def swapped(self) -> NeighborPair:
        return NeighborPair(
            dataset=self.neighbor,
            neighbor=self.dataset,
            relation=self.relation,
            description=f"{self.description} (swapped)",
            tags=self.tags,
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "description": self.description,
            "relation": self.relation.value,
            "tags": list(self.tags),
            "dataset": self.dataset.to_dict(),
            "neighbor": self.neighbor.to_dict(),
        }


def is_neighbor(pair: NeighborPair) -> bool:
    """Check that the relation a pair declares really holds between its datasets."""
    return are_neighbors(pair.dataset, pair.neighbor, pair.relation)


class SubsamplingKind(enum.StrEnum):
    """How a mechanism subsamples its input before the private step (if at all)."""

    NONE = "none"
    POISSON = "poisson"
    WITH_REPLACEMENT = "with_replacement"
    WITHOUT_REPLACEMENT = "without_replacement"


@dataclass(frozen=True, slots=True, kw_only=True)
class Subsampling:
    """A mechanism's declaration of its subsampling step, so generators can target it.

    `size(n)` is the subsample size for an input of size n (fixed-size schemes), `rate` the
    inclusion probability (Poisson). `amplification_relation` is the relation under which the
    mechanism's claim relies on amplification, if it does.
    """

    kind: SubsamplingKind
    size: Callable[[int], int] | None = None
    rate: float | None = None
    amplification_relation: Relation | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DesignAxis:
    """Where the space-filling design of the count sweeps places one feature (issue 44,
    `neighbors.sweep_locations.design_points`): over [`low`, `high`] (a numeric column's declared
    bounds, inside a record range that reaches beyond them so the extremes test the clipping), or,
    when `levels` are given, at each of those values in turn (a categorical column's codes, a
    special-value code), every level at an equal share of the points."""

    low: float = 0.0
    high: float = 1.0
    levels: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        levels = tuple(float(v) for v in self.levels)
        object.__setattr__(self, "levels", levels)
        if not (np.isfinite(self.low) and np.isfinite(self.high) and self.low <= self.high):
            raise ValueError("a design axis needs finite low ≤ high")
        if not all(np.isfinite(levels)) or len(set(levels)) != len(levels):
            raise ValueError("a design axis's levels must be distinct finite values")


@dataclass(frozen=True, slots=True, kw_only=True)
class Domain:
    """What datasets a mechanism accepts: feature box, label set, sizes, streams.

    Generators use it to build boundary records (corners of the feature box, both labels)
    and datasets at the declared size limits.
    """

    num_features: int
    feature_low: tuple[float, ...] | float = 0.0
    feature_high: tuple[float, ...] | float = 1.0
    integer_features: bool = False
    labels: tuple[float, ...] | None = None
    min_size: int = 0
    max_size: int | None = None
    ordered: bool = False
    subsampling: Subsampling = field(default_factory=lambda: Subsampling(kind=SubsamplingKind.NONE))
    private_rows: tuple[int, int] | None = None
    """Positions [start, stop) of the private part when the claim is "DP w.r.t. U for any public
    V, W" (001 Claim 3.5, 000 Lemma 5.3): only pairs that change a private row are covered."""
    records: RecordSpace | None = None
    """The valid records when they are not the whole box (`neighbors.records`: categorical,
    one-hot, histogram bins, integer, bounded norm, binary counting-query vectors); the box is
    then the space's (`RecordSpace.box`), and `feature_low` / `feature_high` are ignored."""
    hypothesis_grid: tuple[float, ...] | None = None
    """A finite grid the mechanism chooses from (thresholds, quantile candidates, hypotheses
    indexed by a feature value): its boundary points are where the grid template family puts
    records (`neighbors.record_templates`)."""
    design: tuple[DesignAxis, ...] | None = None
    """Per feature, where the count sweeps' space-filling design puts it (`DesignAxis`: a declared
    range inside the box, or levels enumerated); None: the whole box (a `TabularSpace` declares
    its columns' bounds, category codes and special codes)."""

    @staticmethod
    def over(records: RecordSpace, **kwargs: object) -> Domain:
        """A domain whose records are `records` (num_features and the box follow from it)."""
        return Domain(num_features=records.num_features, records=records, **kwargs)  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        if self.num_features < 1:
            raise ValueError("num_features must be ≥ 1")
        if self.records is not None and self.records.num_features != self.num_features:
            raise ValueError(
                f"a {self.records.kind.value} record space has {self.records.num_features} features, "
                f"not {self.num_features}"
            )
        if self.hypothesis_grid is not None:
            object.__setattr__(self, "hypothesis_grid", tuple(sorted(float(t) for t in self.hypothesis_grid)))
        lo, hi = self.bounds()
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
            raise ValueError(
                "feature bounds must be finite (the whole double range is ±1.7976931348623157e308)"
            )
        if np.any(lo > hi):
            raise ValueError("feature_low must be ≤ feature_high")
        if self.max_size is not None and self.max_size < self.min_size:
            raise ValueError("max_size must be ≥ min_size")
        if self.private_rows is not None and not 0 <= self.private_rows[0] < self.private_rows[1]:
            raise ValueError("private_rows must be (start, stop) with 0 ≤ start < stop")
        if self.design is not None and len(self.design) != self.num_features:
            raise ValueError(f"design has {len(self.design)} axes for {self.num_features} features")

    @property
    def integer_valued(self) -> bool:
        """Integer features: declared, or implied by the record space."""
        return self.integer_features or (self.records is not None and self.records.integer_valued)

    def bounds(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        if self.records is not None:
            return self.records.box()
        lo = np.broadcast_to(np.asarray(self.feature_low, dtype=float), (self.num_features,))
        hi = np.broadcast_to(np.asarray(self.feature_high, dtype=float), (self.num_features,))
        return lo, hi

    def check(self, dataset: Dataset) -> str | None:
        """None if `dataset` is in the domain, else a one-line reason."""
        if dataset.num_features != self.num_features:
            return f"expects {self.num_features} features, got {dataset.num_features}"
        if dataset.n < self.min_size or (self.max_size is not None and dataset.n > self.max_size):
            return f"dataset size {dataset.n} outside [{self.min_size}, {self.max_size}]"
        lo, hi = self.bounds()
        if dataset.n and (np.any(lo > dataset.X) or np.any(hi < dataset.X)):
            return "features outside the domain box"
        if self.integer_valued and not np.all(np.round(dataset.X) == dataset.X):
            return "features must be integers"
        if self.records is not None and (reason := self.records.check(dataset.X)) is not None:
            return reason
        if (self.labels is None) != (dataset.y is None):
            return "labels required" if self.labels is not None else "unlabelled data expected"
        if (
            self.labels is not None
            and dataset.y is not None
            and not np.all(np.isin(dataset.y, np.asarray(self.labels)))
        ):
            return f"labels must be in {self.labels}"
        return None

    def check_pair(self, pair: NeighborPair) -> str | None:
        """None if the pair changes only rows the claim covers (see `private_rows`), else why not."""
        if self.private_rows is None:
            return None
        a, b = pair.dataset, pair.neighbor
        if a.n != b.n:
            return "the claim covers a private part only; add/remove changes every later position"
        start, stop = self.private_rows
        outside = [int(i) for i in _row_mismatches(a, b) if not start <= i < stop]
        if outside:
            return f"changes public row(s) {outside}; the claim covers rows [{start}, {stop}) only"
        return None


@runtime_checkable
class NeighborGenerator(Protocol):
    """Yields candidate neighbour pairs for a domain under a relation."""

    def pairs(self, domain: Domain, relation: Relation) -> Iterator[NeighborPair]: ...
