"""Base distinguishers: candidate events that need no fitting (histogram and tail thresholds).

A distinguisher looks at the selection-split outputs of both sides of a pair and proposes
candidate events with their selection counts (`Candidates`); the choice among them is made in
`estimators`. `ThresholdDistinguisher` proposes the tails {s ≥ t}, {s ≤ t} of each coordinate
(and of a mean-difference projection) on a quantile grid: for a monotone likelihood ratio the
Neyman–Pearson lemma makes such tails the most powerful events. `HistogramDistinguisher`
proposes prefixes of exact output values sorted by likelihood ratio, the Neyman–Pearson-optimal
sets for discrete outputs. Both only propose: validity comes from certifying the chosen event on
fresh samples.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from ..events import (
    Event,
    SetEvent,
    ThresholdEvent,
    distinct_rows_at_least,
    more_distinct_rows,
    unique_row_keys,
)
from .grids import tail_counts, tail_grid_counts, threshold_grid
from .registry import CHEAP, DEFAULT, distinguisher, members

__all__ = [
    "Candidates",
    "Distinguisher",
    "HistogramDistinguisher",
    "Screened",
    "ThresholdDistinguisher",
    "count_runs",
    "few_distinct",
    "screen_runs",
    "tail_candidates",
    "tail_counts",
    "threshold_grid",
]


@dataclass(frozen=True, slots=True)
class Candidates:
    """Candidate events with their selection counts on side a (dataset) and b (neighbor)."""

    counts_a: NDArray[np.float64]
    counts_b: NDArray[np.float64]
    make_event: Callable[[int], Event]

    def directions(
        self, n_a: int, n_b: int
    ) -> tuple[tuple[NDArray[np.float64], NDArray[np.float64], int, int, bool], ...]:
        """Both directions, dataset side as P first: (P-side counts, Q-side counts, n_p, n_q,
        dataset_is_p), of `n_a` samples on side a and `n_b` on side b."""
        return (self.counts_a, self.counts_b, n_a, n_b, True), (self.counts_b, self.counts_a, n_b, n_a, False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Screened:
    """One distinguisher's candidate events in one direction, screened to the few worth an exact
    projection (the selection's shortlist, `selection.choose_events`; the search's pilot rank,
    `search.ranking`): their indices among its candidates and their counts on the P and Q sides,
    of `n_p` and `n_q` samples."""

    name: str
    candidates: Candidates
    dataset_is_p: bool
    index: NDArray[np.intp]
    kp: NDArray[np.float64]
    kq: NDArray[np.float64]
    n_p: int
    n_q: int

    def event(self, j: int) -> Event:
        """The j-th screened candidate's event."""
        return self.candidates.make_event(int(self.index[j]))


class Distinguisher(Protocol):
    @property
    def name(self) -> str: ...

    def propose(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Candidates | None: ...


def count_runs(
    counts_a: NDArray[np.float64], counts_b: NDArray[np.float64]
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """First index and length of each maximal run of consecutive candidates with equal counts on
    both sides. A threshold grid is finer than its data (2,048 quantiles of a few dozen pooled
    values, or of a few distinct ones), so most of its candidates repeat their neighbour's counts."""
    n = counts_a.size
    new = np.ones(n, dtype=bool)
    np.not_equal(counts_a[1:], counts_a[:-1], out=new[1:])
    new[1:] |= counts_b[1:] != counts_b[:-1]
    starts = np.flatnonzero(new)
    return starts, np.diff(np.append(starts, n))


def screen_runs(rough: NDArray[np.float64], sizes: NDArray[np.intp], size: int) -> NDArray[np.intp]:
    """The runs (`count_runs`; `rough` their screening value) whose first candidates are
    among `np.argsort(-rough per candidate, kind="stable")[:size]`, in that order. A run's
    candidates share their value and are consecutive, so the candidates' stable order is the runs'
    order with each run's candidates together: the first runs up to `size` candidates, the last
    one perhaps cut (its first candidate is in). A shortlist's choice (first largest value, ties to
    the earlier) and its runners-up (counts distinct from those kept) are the same from the runs'
    first candidates as from every candidate: the others only repeat a first one's counts."""
    v = -rough
    if v.size > size and not np.isnan(v).any():  # the `size` first by a partition, as `stable_top`
        kth = np.partition(v, size - 1)[size - 1]
        first = np.flatnonzero(v <= kth)
        order = first[np.argsort(v[first], kind="stable")][:size]
    else:
        order = np.argsort(v, kind="stable")
    return order[: int(np.searchsorted(np.cumsum(sizes[order]), size, side="left")) + 1]


def tail_candidates(
    statistics: Sequence[tuple[NDArray[np.float64], NDArray[np.float64]]],
    make_event: Callable[[int, float, bool], Event],
    *,
    grid: int,
    tails: int,
) -> Candidates:
    """Both tails {s ≥ t}, {s ≤ t} of each statistic (side a, side b) on its threshold grid; candidate
    events are built on demand by `make_event(statistic index, threshold, upper)`. The statistics'
    grids and counts are computed together (`grids`: the same values as one by one)."""
    grids, counts = tail_grid_counts(statistics, grid=grid, tails=tails)
    ca, cb = [], []
    for ge_a, ge_b, le_a, le_b in counts:
        ca += [ge_a, le_a]
        cb += [ge_b, le_b]
    # candidate i lies in block k (ends[k-1] <= i < ends[k]): statistic k // 2, upper tail if k is even
    ends = np.cumsum([ts.size for ts in grids for _ in (True, False)])

    def make(i: int) -> Event:
        block = int(np.searchsorted(ends, i, side="right"))
        t = float(grids[block // 2][i - (int(ends[block - 1]) if block else 0)])
        return make_event(block // 2, t, block % 2 == 0)

    return Candidates(np.concatenate(ca), np.concatenate(cb), make)


@distinguisher(cost=CHEAP, event_types=("threshold",), sets=(DEFAULT,), rank=20)
@dataclass(frozen=True, slots=True)
class ThresholdDistinguisher:
    """Tail events {s ≥ t}, {s ≤ t} on each coordinate, and on the standardised mean-difference
    projection when outputs are vectors."""

    name: str = "threshold"
    grid: int = 2048
    tails: int = 256
    max_coordinates: int = 64

    def propose(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Candidates | None:
        d = a.shape[1]
        statistics: list[
            tuple[NDArray[np.float64], NDArray[np.float64], int | None, tuple[float, ...] | None]
        ] = []
        for j in range(min(d, self.max_coordinates)):
            statistics.append((a[:, j], b[:, j], j, None))
        if d > 1:
            sd = np.sqrt(0.5 * (a.var(axis=0) + b.var(axis=0))) + 1e-12
            w = (a.mean(axis=0) - b.mean(axis=0)) / sd**2
            if np.any(w != 0):
                w = w / np.max(np.abs(w))
                statistics.append((a @ w, b @ w, None, tuple(float(x) for x in w)))

        def make(k: int, t: float, upper: bool) -> Event:
            _, _, coord, proj = statistics[k]
            return ThresholdEvent(threshold=t, upper=upper, coordinate=coord, projection=proj)

        return tail_candidates(
            [(sa, sb) for sa, sb, _, _ in statistics], make, grid=self.grid, tails=self.tails
        )


@distinguisher(cost=CHEAP, event_types=("set",), sets=(DEFAULT,), rank=10)
@dataclass(frozen=True, slots=True)
class HistogramDistinguisher:
    """Events = sets of exact output values ranked by selection-split likelihood ratio.

    Applies when the pooled selection split has at most `max_bins` distinct outputs. Only
    values seen at least `min_count` times in the pooled selection split may join an event:
    a set built from values seen once is fitted to the selection noise (on continuous outputs
    it would never recur on fresh samples). The candidates are the prefixes of the eligible
    values sorted by smoothed ratio, in both orders.

    With more than `holdout_above` eligible values the ranking is done on the first half of each
    side and the prefix counts are taken on the second half, rescaled to the full selection size
    (as `audit.learned` does). Ranking thousands of rarely seen values by their own counts and
    projecting the bound from those same counts is badly optimistic: on DP-Winnow (≈ 2 000
    values) the in-sample projection was 2.5 for a set that certified 0.32, so the histogram won
    the choice against learned statistics that certified ≈ 0.9. With few values (large counts) the
    in-sample ranking is kept: its optimism is small and it uses every selection sample.
    """

    name: str = "histogram"
    max_bins: int = 4096
    min_count: int = 5
    holdout_above: int = 64

    def propose(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Candidates | None:
        head = np.concatenate([a[: self.max_bins + 1], b[: max(0, self.max_bins + 1 - a.shape[0])]])
        if head.shape[0] > self.max_bins and distinct_rows_at_least(head) > self.max_bins:
            _learn(a, b, at_least=self.max_bins + 1)
            return None  # then more in all: cheaper to see on a prefix's hashes
        pooled_rows = np.concatenate([a, b])
        uniq, inv = unique_row_keys(pooled_rows)
        _learn(a, b, at_least=uniq.size, at_most=uniq.size)
        if uniq.size > self.max_bins:
            return None
        ka, kb = a.shape[0], b.shape[0]
        first = np.zeros(uniq.size, dtype=np.intp)
        first[inv[::-1]] = np.arange(inv.size)[::-1]
        inv_a, inv_b = inv[:ka], inv[ka:]
        na = np.bincount(inv_a, minlength=uniq.size).astype(float)
        nb = np.bincount(inv_b, minlength=uniq.size).astype(float)
        eligible = np.flatnonzero(na + nb >= self.min_count)
        # counts that rank the values (fit) and counts the candidates report (count)
        fit_a, fit_b, count_a, count_b = na, nb, na, nb
        tot_a, tot_b = ka, kb
        if eligible.size > self.holdout_above and min(ka, kb) >= 4:
            ha, hb = ka // 2, kb // 2
            fit_a = np.bincount(inv_a[:ha], minlength=uniq.size).astype(float)
            fit_b = np.bincount(inv_b[:hb], minlength=uniq.size).astype(float)
            count_a = (na - fit_a) * (ka / (ka - ha))
            count_b = (nb - fit_b) * (kb / (kb - hb))
            eligible = np.flatnonzero(fit_a + fit_b >= self.min_count)
            tot_a, tot_b = ha, hb
        if eligible.size == 0:
            return None
        values = pooled_rows[first[eligible]]
        ratio = np.log((fit_a[eligible] + 0.5) / tot_a) - np.log((fit_b[eligible] + 0.5) / tot_b)
        ca_e, cb_e = count_a[eligible], count_b[eligible]
        orders = [np.argsort(-ratio, kind="stable"), np.argsort(ratio, kind="stable")]
        ca = np.concatenate([np.cumsum(ca_e[o]) for o in orders])
        cb = np.concatenate([np.cumsum(cb_e[o]) for o in orders])
        m = eligible.size

        def make(i: int) -> Event:
            order = orders[i // m]
            chosen = np.sort(order[: i % m + 1])
            return SetEvent(tuple(tuple(float(x) for x in values[j]) for j in chosen))

        return Candidates(ca, cb, make)


_KNOWN: tuple[weakref.ref[Any], weakref.ref[Any], int, float] | None = None
"""What is known of the pooled distinct rows of the last selection outputs (a, b) looked at:
(a, b, at least, at most). Every distinguisher of a `choose_events` call gets the same two arrays,
and the histogram (which counts them) and each learned statistic and the magnitude family (which
ask `few_distinct`) otherwise count them again, each time the same answer. The arrays are held
weakly and compared by identity: a dead or different array is a fresh question."""


def _known(a: NDArray[Any], b: NDArray[Any]) -> tuple[int, float]:
    k = _KNOWN
    if k is not None and k[0]() is a and k[1]() is b:
        return k[2], k[3]
    return 0, np.inf


def _learn(a: NDArray[Any], b: NDArray[Any], *, at_least: int = 0, at_most: float = np.inf) -> None:
    global _KNOWN
    lo, hi = _known(a, b)
    try:
        _KNOWN = (weakref.ref(a), weakref.ref(b), max(lo, at_least), min(hi, at_most))
    except TypeError:  # pragma: no cover - every ndarray takes weak references
        _KNOWN = None


def few_distinct(a: NDArray[np.float64], b: NDArray[np.float64], *, limit: int, repeats: int) -> bool:
    """The histogram's case: the pooled rows of `a` and `b` take at most min(`limit`, rows /
    `repeats`) distinct values (as `row_keys`), each seen `repeats` times on average. A continuous
    sample smaller than `limit` has about as many distinct values as rows and is not in this case.
    A prefix is counted first, so continuous outputs are recognised cheaply, and what is learned of
    the pair's count is kept for the next distinguisher asking (`_KNOWN`): the answer is the same."""
    if limit <= 0:
        return False
    cap = min(limit, (a.shape[0] + b.shape[0]) // repeats)
    lo, hi = _known(a, b)
    if hi <= cap or lo > cap:
        return hi <= cap
    pooled = np.concatenate([a, b])
    more = more_distinct_rows(pooled[: 2 * (limit + 1)], cap) or more_distinct_rows(pooled, cap)
    if more:
        _learn(a, b, at_least=cap + 1)
    else:
        _learn(a, b, at_most=cap)
    return not more


def __getattr__(name: str) -> Any:
    """`BASE_DISTINGUISHERS`, kept for importers: the registry's cheap default members."""
    if name == "BASE_DISTINGUISHERS":
        return members(DEFAULT, cost=CHEAP)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
