"""Threshold grids and tail counts of many statistics at once (issue 44: the main job's speed).

`threshold_grid` and `tail_counts` handle one statistic: a sort, 2,048 quantiles, a
`np.unique` and four `searchsorted`. A vector output proposes one statistic per coordinate (up to
64 and a projection), and the search's pilot proposes thousands of times, so the per-statistic
calls (a few dozen microseconds each, mostly numpy's per-call overhead) were a large share of a
geometric learner's audit. Here the statistics are the rows of one matrix: one sort of the pooled
rows, the quantile grid of every row from one cached interpolation plan, and one stable sort of
the grids with their extreme values, whose distinct values per row are the grid.

Same values to the last bit as the one-statistic functions (`tests/audit/test_speedups.py`):
the quantiles are numpy's "linear" method by the same expression on the same sorted values; a row
with no NaN, ±inf or −0.0 has one sorted arrangement of its values, so its distinct values are
`np.unique`'s whatever the sorting algorithm; any other row goes through `threshold_grid`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Floats = NDArray[np.float64]


@dataclass(frozen=True)
class QuantilePlan:
    """`grid` linear quantiles of n sorted values: point g interpolates between its neighbours
    `lo[g]`, `hi[g]` with weight `t[g]` (numpy's lerp: `b - d * one_minus_t` where `upper`, else
    `a + d * t`); the points with lower neighbour i are `starts[i]` … `starts[i + 1]` − 1, and
    `lower` lists the i that have some."""

    lo: NDArray[np.intp]
    hi: NDArray[np.intp]
    t: Floats
    one_minus_t: Floats
    upper: NDArray[np.bool_]
    starts: NDArray[np.intp]
    lower: NDArray[np.intp]


@functools.lru_cache(maxsize=64)
def quantile_plan(n: int, grid: int) -> QuantilePlan:
    """The shared plan of `grid` quantiles of n values (read-only arrays)."""
    idx = np.linspace(0.0, 1.0, grid) * (n - 1)
    lo = np.floor(idx).astype(np.intp)
    hi = np.minimum(lo + 1, n - 1)
    t = idx - lo
    if np.any(np.diff(lo) < 0):  # linspace is monotone; kept as a guard of `starts`
        raise AssertionError("quantile positions out of order")
    starts = np.searchsorted(lo, np.arange(n + 1), side="left")
    plan = QuantilePlan(lo, hi, t, 1 - t, t >= 0.5, starts, np.flatnonzero(np.diff(starts) > 0))
    for arr in (plan.lo, plan.hi, plan.t, plan.one_minus_t, plan.upper, plan.starts, plan.lower):
        arr.flags.writeable = False
    return plan


def sorted_quantiles(s: Floats, grid: int) -> Floats:
    """`np.quantile(s, linspace(0, 1, grid), axis=-1)` (method "linear", bit for bit: numpy's
    lerp) of values sorted along the last axis, without numpy's partition per quantile (≈ 100×
    faster at 2048 points)."""
    p = quantile_plan(s.shape[-1], grid)
    a, b = s[..., p.lo], s[..., p.hi]
    d = b - a
    return np.where(p.upper, b - d * p.one_minus_t, a + d * p.t)


def threshold_grid(pooled: Floats, *, grid: int, tails: int) -> Floats:
    """Quantile grid plus the most extreme values (tail events matter when δ is small)."""
    s = np.sort(pooled)
    return np.unique(np.concatenate([sorted_quantiles(s, grid), s[:tails], s[-tails:]]))


def tail_counts(sa: Floats, sb: Floats, ts: Floats) -> tuple[Floats, Floats, Floats, Floats]:
    """Counts of {s ≥ t} and {s ≤ t} on both sides for every threshold t."""
    a, b = np.sort(sa), np.sort(sb)
    ge_a = a.size - np.searchsorted(a, ts, side="left")
    ge_b = b.size - np.searchsorted(b, ts, side="left")
    le_a = np.searchsorted(a, ts, side="right")
    le_b = np.searchsorted(b, ts, side="right")
    return ge_a.astype(float), ge_b.astype(float), le_a.astype(float), le_b.astype(float)


def _plain_sorted(s: Floats) -> NDArray[np.bool_]:
    """Rows (sorted along axis 1) whose values are finite (NaN sorts last, ±inf at the ends) and
    carry no −0.0 (one sorted arrangement each)."""
    finite = np.isfinite(s[:, 0]) & np.isfinite(s[:, -1])
    return finite & ~(s.view(np.int64) == _NEGATIVE_ZERO).any(axis=1)


_NEGATIVE_ZERO = np.array(-0.0).view(np.int64)


def threshold_grids(pooled: Floats, *, grid: int, tails: int) -> list[Floats]:
    """`threshold_grid` of every row of `pooled` (statistics × samples)."""
    pooled = np.asarray(pooled, dtype=np.float64)
    k, n = pooled.shape
    if n == 0:
        return [threshold_grid(row, grid=grid, tails=tails) for row in pooled]
    s = np.sort(pooled, axis=1)
    plain = _plain_sorted(s)
    if plain.all():
        return _plain_grids(s, grid, tails)
    out: list[Floats] = [np.empty(0)] * k
    rows = np.flatnonzero(plain)
    if rows.size:
        for r, part in zip(rows, _plain_grids(s[rows], grid, tails), strict=True):
            out[r] = part
    for r in np.flatnonzero(~plain):
        out[r] = threshold_grid(pooled[r], grid=grid, tails=tails)
    return out


def _plain_grids(s: Floats, grid: int, tails: int) -> list[Floats]:
    """The grids of rows sorted along axis 1, none with NaN, ±inf or −0.0. A quantile point whose
    neighbours are equal is their value (a + 0·t = a, b − 0·(1 − t) = b), so when few points
    straddle a change of value (outputs with few distinct values) only those are interpolated
    (`_straddling`) and the others add the values at their lower neighbours, already there when
    the extreme values are all of s (or few); otherwise every point is (`sorted_quantiles`)."""
    k, n = s.shape
    p = quantile_plan(n, grid)
    at = p.lower  # every point's lower neighbour i, once; those below n − 1 have an upper one
    inner = at[at < n - 1]
    change = s[:, inner] != s[:, inner + 1]  # (k, inner): the points with lower neighbour i straddle
    whole = tails == 0 or n <= 2 * tails  # s[:tails] and s[-tails:] together are all of s
    ends = s if whole else np.concatenate([s[:, :tails], s[:, -tails:]], axis=1)
    straddling = int(change.sum(axis=0) @ np.diff(p.starts)[inner])
    if 2 * straddling > k * grid or not (whole or 2 * at.size <= grid):
        cat = np.concatenate([ends, sorted_quantiles(s, grid)], axis=1)
        cat.sort(axis=1)
        keep = np.ones(cat.shape, dtype=bool)
    else:
        if not whole:  # the other points: their lower neighbour's value
            flat = s[:, at].copy()
            flat[:, : inner.size][change] = np.inf
            ends = np.concatenate([ends, flat], axis=1)
        rows, cols, vals = _straddling(s, change, inner, p)
        width = ends.shape[1]
        cat = np.full((k, width + int(np.bincount(rows, minlength=k).max(initial=0))), np.inf)
        cat[:, :width] = ends
        cat[rows, width + cols] = vals
        cat.sort(axis=1)
        keep = np.isfinite(cat)  # inf marks padding: the rows are finite
    keep[:, 1:] &= cat[:, 1:] != cat[:, :-1]
    return np.split(cat[keep], np.cumsum(keep.sum(axis=1))[:-1])


def _straddling(
    s: Floats, change: NDArray[np.bool_], inner: NDArray[np.intp], p: QuantilePlan
) -> tuple[NDArray[np.intp], NDArray[np.intp], Floats]:
    """Each quantile point whose neighbours differ (`change[r, c]`: lower neighbour `inner[c]`):
    its row, its place among that row's such points, and its value (numpy's lerp, as
    `sorted_quantiles`)."""
    r, c = np.nonzero(change)  # row-major: a row's points are contiguous, in grid order
    i = inner[c]
    count = p.starts[i + 1] - p.starts[i]
    r = np.repeat(r, count)
    total = int(count.sum())
    run_start = np.repeat(np.cumsum(count) - count, count)
    g = np.repeat(p.starts[i], count) + (np.arange(total) - run_start)
    a, b = s[r, p.lo[g]], s[r, p.hi[g]]
    d = b - a
    vals = np.where(p.upper[g], b - d * p.one_minus_t[g], a + d * p.t[g])
    per_row = np.bincount(r, minlength=s.shape[0])
    return r, np.arange(total) - (np.cumsum(per_row) - per_row)[r], vals


BLOCK_VALUES = 1 << 14
"""Values (statistics × max(pooled samples, grid points)) that `tail_grid_counts` handles together
when every grid point may be interpolated: beyond a few hundred kB numpy's temporaries got slow
(62 statistics × 2,048 quantiles at once: 4× slower than a loop over them; 8 at a time are
faster). With few pooled samples (at most 2 · tails: a pilot fold) only the points between two
values are interpolated, so up to `SMALL_BLOCK_VALUES` pooled values go together."""
SMALL_BLOCK_VALUES = 1 << 17


def tail_grid_counts(
    statistics: Sequence[tuple[Floats, Floats]], *, grid: int, tails: int
) -> tuple[list[Floats], list[tuple[Floats, Floats, Floats, Floats]]]:
    """Every statistic's (side a, side b) threshold grid and its tail counts, as `threshold_grid`
    and `tail_counts` one by one, in blocks of statistics (`BLOCK_VALUES`)."""
    n_a = len(statistics[0][0])
    n = n_a + len(statistics[0][1])
    step = SMALL_BLOCK_VALUES // n if n <= 2 * tails else BLOCK_VALUES // max(n, grid)
    if step <= 1:  # one statistic at a time: as one by one
        grids = [threshold_grid(np.concatenate([sa, sb]), grid=grid, tails=tails) for sa, sb in statistics]
        return grids, [tail_counts(sa, sb, ts) for (sa, sb), ts in zip(statistics, grids, strict=True)]
    grids = []
    counts: list[tuple[Floats, Floats, Floats, Floats]] = []
    for start in range(0, len(statistics), step):
        block = statistics[start : start + step]
        pooled = np.empty((len(block), n))  # row k: (side a, side b)
        for k, (sa, sb) in enumerate(block):
            pooled[k, :n_a], pooled[k, n_a:] = sa, sb
        ts = threshold_grids(pooled, grid=grid, tails=tails)
        grids += ts
        counts += tail_counts_rows(pooled[:, :n_a], pooled[:, n_a:], ts)
    return grids, counts


def tail_counts_rows(
    a: Floats, b: Floats, grids: list[Floats]
) -> list[tuple[Floats, Floats, Floats, Floats]]:
    """`tail_counts(a[j], b[j], grids[j])` for every row j (statistics × samples)."""
    sa, sb = np.sort(a, axis=1), np.sort(b, axis=1)
    n_a, n_b = a.shape[1], b.shape[1]
    out = []
    for ra, rb, ts in zip(sa, sb, grids, strict=True):
        le_a = ra.searchsorted(ts, side="right")
        le_b = rb.searchsorted(ts, side="right")
        ge_a = n_a - ra.searchsorted(ts, side="left")
        ge_b = n_b - rb.searchsorted(ts, side="left")
        out.append((ge_a.astype(float), ge_b.astype(float), le_a.astype(float), le_b.astype(float)))
    return out
