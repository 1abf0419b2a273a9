"""Where the sweeps put their k records beyond the two extremes (issue 35).

A mechanism that branches on the true count of the records in a *region* is unsafe exactly on the
pair whose change carries that count across the branch; the region may be an interior band of a
feature (0.4 ≤ x < 0.6) or a mixed corner of a box (x₀ high and x₁ low), where the high and low
corners put no record. `sweep_locations` lists the other places a count sweep puts its k copies:

- the space's other extreme records (`Space.extreme_records`: the mixed corners of a box of up to
  three features, the centre, a record space's categories / cells, each label);
- a grid of interior points per feature (the quartiles of the declared range, the other features
  at the centre; box domains only, up to `FEATURES` features);

each with the farthest extreme record as the place a change moves one copy to, at most `LOCATIONS`
of them in that order. `CountSweeps` sweeps k = 1 … `DENSE_UP_TO` at each (any region holding a
location and not its opposite is crossed at every t ≤ `DENSE_UP_TO`).

`design_locations` (issue 44) covers the domain instead of listing special points: the points of
a space-filling design of the unit cube (the search passes a scrambled Sobol design of
`DESIGN_POINTS` points, Owen 1998, `audit.search.candidates.sobol_design`, seeded from a
Generator) mapped to the box (integer features on their grid; labels taken in turn, so every
label value appears), each with its farthest extreme record. A domain that declares a
`DesignAxis` per feature (a `TabularSpace`: numeric columns over their declared bounds, not the
wider record range; every category code and special-value code as a level, each at an equal
share of the points) is mapped axis by axis (`axis_values`), and `level_locations` enumerate
its levels outright: every category of every categorical column, every special value and every
label, each on a typical record (numeric columns at the centre of their declared bounds), so a
count gated on one category (or label) is crossed at every t ≤ `DENSE_UP_TO` whatever the
design's points happen to be. A region gate (a box in the
interior, a ball, a half-space at an odd angle) whose region has volume v holds none of
`DESIGN_POINTS` points with probability ≈ (1 − v)^`DESIGN_POINTS` (less for a scrambled net:
its points are spread evenly, each elementary box of volume 1/`DESIGN_POINTS` holds one), so
a sweep at the design points puts k records inside it. A record space (categories, cells,
counting queries) has all its records among `Space.extreme_records` already. Depends on numpy
only.
"""

from __future__ import annotations

import numpy as np

from .building import farthest_records
from .space import F64, Space, fmt_value, lerp

__all__ = [
    "DESIGN_POINTS",
    "FEATURES",
    "LOCATIONS",
    "QUANTILES",
    "axis_values",
    "design_locations",
    "design_points",
    "interior_points",
    "level_locations",
    "level_points",
    "sweep_locations",
]

QUANTILES = (0.25, 0.5, 0.75)
"""Interior points per feature, as fractions of its declared range."""
FEATURES = 3
"""Features that get interior points (the first ones)."""
LOCATIONS = 4
"""Most locations beyond the two extremes."""
DESIGN_POINTS = 32
"""Points of the space-filling design (a power of two: a scrambled Sobol net's balance)."""
Unit = tuple[tuple[float, ...], ...]
"""Points of a design of the unit cube, one tuple per point."""


def interior_points(space: Space) -> list[tuple[str, F64]]:
    """For each of the first `FEATURES` features, the record at each quantile of its range, the
    other features at the centre (first label when labelled); box domains only."""
    if space.domain.records is not None:
        return []
    centre = np.asarray(space.centre(), dtype=float)
    out = []
    for j in range(min(space.d, FEATURES)):
        for q in QUANTILES:
            v = centre.copy()
            v[j] = space.at(q)[j]
            if space.domain.integer_valued:
                v[j] = np.floor(v[j])
            name = f"x{j} = {fmt_value(float(v[j]))}" if space.d > 1 else f"x = {fmt_value(float(v[j]))}"
            out.append((name, v if space.labels is None else np.append(v, space.labels[0])))
    return out


def level_points(space: Space) -> list[tuple[str, F64]]:
    """Every declared level of every feature and every label, each on a typical record (issue 44):
    the base record puts each `DesignAxis` with levels at its first (a categorical column's first
    category, a special code's number) and each ranged axis at the centre of its declared range
    (inside a clipping column's bounds); then the base with one feature at each of its other
    levels, then the base with each other label. None without a declared design (a plain box's
    points are the corners, the centre and the interior points)."""
    design = space.domain.design
    if design is None or space.domain.records is not None:
        return []
    base = np.array([a.levels[0] if a.levels else a.low / 2 + a.high / 2 for a in design], dtype=float)
    base = np.clip(base, space.lo, space.hi)
    y0 = () if space.labels is None else (space.labels[0],)
    out = [("typical record", np.append(base, y0))]
    for j, axis in enumerate(design):
        for level in axis.levels[1:]:
            v = base.copy()
            v[j] = level
            out.append((f"x{j} = {fmt_value(level)}", np.append(v, y0)))
    for y in (space.labels or ())[1:]:
        out.append((f"y = {fmt_value(y)}", np.append(base, y)))
    return out


def level_locations(space: Space, skip: list[F64]) -> list[tuple[str, F64, F64]]:
    """(name, r, o) for each record r of `level_points` not in `skip`, o the farthest extreme
    record from it."""
    out = []
    for name, r in level_points(space):
        far = farthest_records(space, r, limit=1)
        if far and not any(np.array_equal(r, s) for s in skip):
            out.append((name, r, far[0][1]))
    return out


def sweep_locations(space: Space, skip: list[F64]) -> list[tuple[str, F64, F64]]:
    """(name, r, o): up to `LOCATIONS` records r not in `skip` (the extremes already swept), other
    extremes first then interior points, each with o the farthest extreme record from it."""
    out: list[tuple[str, F64, F64]] = []
    seen = [np.asarray(s, dtype=float) for s in skip]
    for name, r in [*space.extreme_records(), *interior_points(space)]:
        if len(out) >= LOCATIONS or any(np.array_equal(r, s) for s in seen):
            continue
        far = farthest_records(space, r, limit=1)
        if far:
            seen.append(r)
            out.append((name, r, far[0][1]))
    return out


def design_points(space: Space, unit: Unit) -> list[tuple[str, F64]]:
    """The records at the design's points `unit` (rows in [0, 1)^d) mapped to the box: integer
    features on their grid, labels in turn (point i gets label i mod L), each feature by the
    domain's `DesignAxis` when it declares one (`axis_values`); none for a record space (its
    records are all extremes already), a design of another dimension, or no points."""
    u = np.asarray(unit, dtype=float).reshape(len(unit), -1) if len(unit) else np.empty((0, space.d))
    if space.domain.records is not None or u.shape[0] == 0 or u.shape[1] != space.d:
        return []
    if space.domain.integer_valued:
        x = np.minimum(np.floor(space.lo + u * (space.hi - space.lo + 1.0)), space.hi)
    else:
        x = lerp(space.lo, space.hi, u)  # finite even over the whole double range
    if space.domain.design is not None:
        x = np.column_stack([axis_values(space, j, u[:, j], x[:, j]) for j in range(space.d)])
    out = []
    for i, v in enumerate(x):
        name = ", ".join(fmt_value(float(round(c, 3))) for c in v)
        if space.labels is None:
            out.append((f"design point ({name})", np.asarray(v, dtype=float)))
        else:
            y = space.labels[i % len(space.labels)]
            out.append((f"design point ({name}), y={fmt_value(y)}", np.append(v, y)))
    return out


def axis_values(space: Space, j: int, u: F64, boxed: F64) -> F64:
    """Feature j of the design's points from their unit coordinates `u` by the domain's
    `DesignAxis` (`boxed`: the box's mapping, kept without one): with L levels, level ⌊u·L⌋
    (a scrambled Sobol net's coordinate has one point per 1/n of [0, 1), so with L ≤ n points
    every level gets ⌊n/L⌋ or ⌈n/L⌉ of them); else lerp(low, high, u), on the integer grid for
    integer features; clipped into the box either way."""
    design = space.domain.design
    if design is None:
        return boxed
    axis = design[j]
    if axis.levels:
        idx = np.minimum(np.floor(u * len(axis.levels)), len(axis.levels) - 1).astype(np.int64)
        v = np.asarray(axis.levels, dtype=float)[idx]
    else:
        v = lerp(axis.low, axis.high, u)
        if space.domain.integer_valued:
            v = np.floor(v)
    return np.clip(v, space.lo[j], space.hi[j])


def design_locations(space: Space, unit: Unit) -> list[tuple[str, F64, F64]]:
    """(name, r, o) for each point r of `design_points`, o the farthest extreme record from it."""
    out = []
    for name, r in design_points(space, unit):
        far = farthest_records(space, r, limit=1)
        if far:
            out.append((name, r, far[0][1]))
    return out
