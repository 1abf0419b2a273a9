"""Tabular records: numeric columns with declared bounds, categorical columns and a label.

A table a synthesizer or a DP release is fitted on has columns of two kinds: *numeric*, whose
bounds the user declares to the library (which says it clips values outside them), and
*categorical*, whose categories the user declares. A `TabularSpace` encodes such a table as a
`Dataset` (float64 `X`, one feature per column and a code feature after each column with
`specials`, categorical values as codes 0…k−1; the label column, if any, as `y` codes) and
gives the blind search a `Domain` (a box, like the box and integer spaces) whose records include
what breaks libraries in practice:

- a numeric value outside the declared bounds (the record range is the declared bounds
  widened by `reach` × their width on each side when the column `clips`; a library that claims
  to clip must not let such a value move its release: smartnoise-sdk issue #622);
- a category code k (one past the declared ones) decoded as `unseen`, a value the user did not
  declare (a library that reads the category set from the data publishes it);
- labels: the domain's label set is the declared classes, so the search's relabel / remove
  moves make the only member of a class (diffprivlib issue #106);
- non-numbers: a numeric column may declare `specials` (NaN, +inf, −inf: input validation is
  where libraries break). Such a column has a companion code feature right after its value,
  over [0, k] for k specials: code 0 decodes to the value, code j ≥ 1 to `specials[j − 1]`. A
  `Dataset` stays finite (its hashing, equality and the search's geometry need that); the box's
  corners put the last declared special in a row, its face centres the middle one, and every
  other generator reaches them as it reaches a category code.

A column's record range is kept finite: a column declared over the whole double range (or one
whose `reach` would overflow) reaches the largest doubles, and the generators compute points of
such a box without overflow (`Space.at`, `Space.span`).

Codes (categories and specials) are decoded by rounding and clipping into [0, k], so every point
of the box is a table row, and two datasets differing in one row of `X` decode to tables
differing in at most that row: the decoding keeps every pair a neighbour pair under its relation.

`tabular_pairs` writes the named pairs (add, remove or replace a row; a rare or unseen
category; an out-of-bounds value; the only member of a class) for users who want them
registered; the blind search does not need them.

Depends on numpy only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .base import Dataset, DesignAxis, Domain, NeighborPair, Relation

__all__ = ["CategoricalColumn", "NumericColumn", "TabularSpace", "tabular_pairs"]

F64 = NDArray[np.float64]


@dataclass(frozen=True, slots=True, kw_only=True)
class NumericColumn:
    """A numeric column with the bounds declared to the library.

    `clips=True` says the library claims to clip values outside [low, high]; records then range
    over [low − reach·w, high + reach·w] (w = high − low), so the search can put a row far
    outside the declared bounds. `clips=False` keeps records inside the bounds."""

    name: str
    low: float
    high: float
    clips: bool = True
    reach: float = 1000.0
    specials: tuple[float, ...] = ()
    """Non-numbers a record may hold in this column (NaN, inf, -inf), in the order of their codes."""

    def __post_init__(self) -> None:
        if not (np.isfinite(self.low) and np.isfinite(self.high) and self.low < self.high):
            raise ValueError(f"column {self.name!r}: low and high must be finite, low < high")
        if self.reach < 0:
            raise ValueError(f"column {self.name!r}: reach must be ≥ 0")
        specials = tuple(float(v) for v in self.specials)
        kinds = [repr(v) for v in specials]
        if any(np.isfinite(v) for v in specials) or len(set(kinds)) != len(kinds):
            raise ValueError(f"column {self.name!r}: specials must be distinct among nan, inf, -inf")
        object.__setattr__(self, "specials", specials)

    def decode_special(self, values: F64, codes: F64) -> F64:
        """The column's values with code j ≥ 1 rows replaced by `specials[j − 1]`."""
        idx = np.clip(np.rint(codes), 0, len(self.specials)).astype(np.int64)
        table = np.array([np.nan, *self.specials])  # index 0 unused
        return np.where(idx > 0, table[idx], values)

    def record_range(self) -> tuple[float, float]:
        """[low − reach·w, high + reach·w] (clipped columns) or [low, high], kept finite: a
        column declared over (nearly) the whole double range reaches the largest doubles
        instead of overflowing to ±inf."""
        if not self.clips or self.reach == 0:
            return self.low, self.high
        with np.errstate(over="ignore", invalid="ignore"):
            w = (np.float64(self.high) - np.float64(self.low)) * self.reach
            lo, hi = np.float64(self.low) - w, np.float64(self.high) + w
        big = float(np.finfo(np.float64).max)
        return float(np.clip(lo, -big, big)), float(np.clip(hi, -big, big))


@dataclass(frozen=True, slots=True, kw_only=True)
class CategoricalColumn:
    """A categorical column with its declared categories; code k (= len(categories)) is the
    `unseen` value (default: max + 1 for numeric categories, "__unseen__" otherwise) unless
    `allow_unseen=False`."""

    name: str
    categories: tuple[Any, ...]
    allow_unseen: bool = True
    unseen: Any = None

    def __post_init__(self) -> None:
        cats = tuple(self.categories)
        if not cats or len(set(cats)) != len(cats):
            raise ValueError(f"column {self.name!r}: categories must be distinct and non-empty")
        object.__setattr__(self, "categories", cats)
        if self.unseen is None:
            numeric = all(isinstance(c, (int, float, np.integer, np.floating)) for c in cats)
            object.__setattr__(self, "unseen", max(cats) + 1 if numeric else "__unseen__")
        if self.unseen in cats:
            raise ValueError(f"column {self.name!r}: the unseen value is a declared category")

    @property
    def top_code(self) -> int:
        return len(self.categories) if self.allow_unseen else len(self.categories) - 1

    def decode(self, codes: F64) -> NDArray[Any]:
        idx = np.clip(np.rint(codes), 0, self.top_code).astype(np.int64)
        values = np.array([*self.categories, self.unseen], dtype=object)
        return values[idx]

    def encode(self, values: Sequence[Any]) -> F64:
        index = {c: i for i, c in enumerate(self.categories)}
        if self.allow_unseen:
            index[self.unseen] = len(self.categories)
        try:
            return np.array([index[v] for v in values], dtype=float)
        except KeyError as exc:
            raise ValueError(f"column {self.name!r}: {exc.args[0]!r} is not a declared category") from None


Column = NumericColumn | CategoricalColumn


@dataclass(frozen=True, slots=True, kw_only=True)
class TabularSpace:
    """Columns (one feature each, in order, and a code feature after each with `specials`) and an
    optional categorical label column (`y`)."""

    columns: tuple[Column, ...]
    label: CategoricalColumn | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(self.columns))
        names = [c.name for c in self.columns] + ([self.label.name] if self.label else [])
        if not self.columns or len(set(names)) != len(names):
            raise ValueError("a table needs at least one column and distinct column names")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns) + ((self.label.name,) if self.label else ())

    def features(self) -> tuple[tuple[Column, bool], ...]:
        """The dataset's features in order: (column, False) for each column's value and, right
        after a numeric column with `specials`, (column, True) for its special code."""
        out: list[tuple[Column, bool]] = []
        for c in self.columns:
            out.append((c, False))
            if isinstance(c, NumericColumn) and c.specials:
                out.append((c, True))
        return tuple(out)

    def box(self) -> tuple[F64, F64]:
        lo, hi = [], []
        for c, special in self.features():
            if special:
                assert isinstance(c, NumericColumn)
                lo.append(0.0)
                hi.append(float(len(c.specials)))
            elif isinstance(c, NumericColumn):
                lo.append(c.record_range()[0])
                hi.append(c.record_range()[1])
            else:
                lo.append(0.0)
                hi.append(float(c.top_code))
        return np.array(lo), np.array(hi)

    def domain(self, *, min_size: int = 1, max_size: int | None = None) -> Domain:
        """The box domain the search builds datasets in (labels: the label column's codes), with
        each column's `DesignAxis` (`design_axes`)."""
        lo, hi = self.box()
        labels = tuple(float(j) for j in range(self.label.top_code + 1)) if self.label else None
        return Domain(
            num_features=len(self.features()),
            feature_low=tuple(lo),
            feature_high=tuple(hi),
            labels=labels,
            min_size=min_size,
            max_size=max_size,
            design=self.design_axes(),
        )

    def design_axes(self) -> tuple[DesignAxis, ...]:
        """Where the sweeps' space-filling design puts each feature (issue 44): a numeric column
        over its declared [low, high] (its record range reaches `reach` widths beyond, which the
        box's corners test; a design over that range would put almost no point inside the
        bounds), a categorical column at every code (each category, and `unseen`), a special
        code at every code (the number, then each declared special)."""
        out = []
        for c, special in self.features():
            if special:
                assert isinstance(c, NumericColumn)
                out.append(DesignAxis(levels=tuple(range(len(c.specials) + 1))))
            elif isinstance(c, NumericColumn):
                out.append(DesignAxis(low=c.low, high=c.high))
            else:
                out.append(DesignAxis(levels=tuple(range(c.top_code + 1))))
        return tuple(out)

    def decode(self, dataset: Dataset) -> dict[str, NDArray[Any]]:
        """The table as named columns (numeric as float64, categorical as declared values)."""
        out: dict[str, NDArray[Any]] = {}
        for j, (col, special) in enumerate(self.features()):
            x = dataset.X[:, j]
            if special:
                assert isinstance(col, NumericColumn)
                out[col.name] = col.decode_special(out[col.name], x)
            else:
                out[col.name] = x.copy() if isinstance(col, NumericColumn) else col.decode(x)
        if self.label is not None:
            y = dataset.y if dataset.y is not None else np.zeros(dataset.n)
            out[self.label.name] = self.label.decode(y)
        return out

    def encode(self, table: Mapping[str, Sequence[Any]]) -> Dataset:
        """A dataset from named columns (the inverse of `decode` on declared values)."""
        cols = []
        for col, special in self.features():
            values = list(table[col.name])
            if not isinstance(col, NumericColumn):
                cols.append(col.encode(values))
            elif special:
                cols.append(_special_codes(col, np.asarray(values, dtype=float)))
            else:
                x = np.asarray(values, dtype=float)
                cols.append(np.where(np.isfinite(x), x, (col.low + col.high) / 2))
        X = np.column_stack(cols) if cols else np.empty((0, 0))
        y = self.label.encode(list(table[self.label.name])) if self.label is not None else None
        return Dataset(X, y)


def _special_codes(col: NumericColumn, x: F64) -> F64:
    """Code j of each value that is `specials[j − 1]` (0 for a number); an undeclared non-number
    is an error (a Dataset holds finite values only)."""
    codes = np.zeros(x.shape[0])
    for j, v in enumerate(col.specials, start=1):
        codes[np.isnan(x) if np.isnan(v) else x == v] = j
    if np.any(~np.isfinite(x) & (codes == 0)):
        raise ValueError(f"column {col.name!r}: a non-number that is not among its specials {col.specials}")
    return codes


def _row(space: TabularSpace, *, code: int = 0, where: str = "mid", special: int = 0) -> F64:
    """A typical row: numeric columns at the middle of their bounds (special code `special`,
    clipped to each column's), categories at `code`."""
    vals = []
    for c, is_code in space.features():
        if is_code:
            assert isinstance(c, NumericColumn)
            vals.append(float(min(special, len(c.specials))))
        elif isinstance(c, NumericColumn):
            vals.append({"mid": (c.low + c.high) / 2, "out": c.record_range()[1]}[where])
        else:
            vals.append(float(min(code, c.top_code)))
    return np.array(vals)


def tabular_pairs(space: TabularSpace, relation: Relation, *, n: int = 8) -> tuple[NeighborPair, ...]:
    """Named neighbour pairs on n-row tables under `relation` (see the module docstring)."""
    if relation not in (Relation.ADD_REMOVE_ONE, Relation.REPLACE_ONE):
        raise ValueError("tabular pairs add, remove or replace a row (add_remove_one or replace_one)")
    base = np.tile(_row(space), (n, 1))
    y = np.zeros(n) if space.label is not None else None
    rows: list[tuple[str, F64, float]] = []
    if relation is Relation.ADD_REMOVE_ONE:
        rows.append(("a typical row", _row(space), 0.0))
    if any(isinstance(c, NumericColumn) and c.clips for c in space.columns):
        rows.append(("a value outside the declared bounds", _row(space, where="out"), 0.0))
    tops = [c.top_code for c in space.columns if isinstance(c, CategoricalColumn)]
    if tops:
        rows.append(("a rare category", _row(space, code=1), 0.0))
        rows.append(("an unseen category (or the last)", _row(space, code=max(tops)), 0.0))
    if space.label is not None and space.label.top_code >= 1:
        rows.append(("the only member of a class", _row(space), float(space.label.top_code)))
    most = max((len(c.specials) for c in space.columns if isinstance(c, NumericColumn)), default=0)
    for j in range(1, most + 1):
        rows.append((f"a non-number (special code {j})", _row(space, special=j), 0.0))
    return tuple(_pair(base, y, name, row, label, relation) for name, row, label in rows)


def _pair(base: F64, y: F64 | None, name: str, row: F64, label: float, relation: Relation) -> NeighborPair:
    X2, y2 = base.copy(), None if y is None else y.copy()
    if relation is Relation.ADD_REMOVE_ONE:
        X2 = np.vstack([base, row])
        y2 = None if y is None else np.append(y, label)
        desc = f"add {name}"
    else:
        X2[-1] = row
        if y2 is not None:
            y2[-1] = label
        desc = f"replace a row by {name}"
    tags = ("tabular", "extreme")
    return NeighborPair(
        dataset=Dataset(base, y), neighbor=Dataset(X2, y2), relation=relation, description=desc, tags=tags
    )
