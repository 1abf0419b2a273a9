"""Distinguishers: events chosen on the selection split (DESIGN.md, "Statistics").

A distinguisher looks at selection-split outputs from both sides of a pair and proposes
candidate events S with their selection counts. `choose_event` scores every candidate in
both directions by the ε it is *projected* to certify on fresh samples
(`bounds.projected_bounds` at shading `SELECTION_PESSIMISM`) and keeps the best. The chosen
event is then certified on samples never used to choose it, which is what makes the final bound
valid: scanning thresholds on the certification samples and reporting the maximum would not be.

Adaptive top-k (`choose_events`). When the selection split cannot tell which of a few
*different* events is best — a rare event with a high likelihood ratio seen ~10² times next to a
large weak one — the Selection also lists up to `MAX_CERTIFIED` − 1 runners-up: candidates whose
optimistic projection (point estimates of the selection frequencies) exceeds the chosen one's
projection, and whose selection counts differ by ≥ `DISTINCT_FACTOR` from those already kept.
The runner certifies all k of them at β_t/k each and reports the best. Validity: k and the events
are functions of the selection split alone, hence fixed before the certification split is drawn;
given them, each of the 2k one-sided Clopper–Pearson intervals fails with probability ≤ β_t/(2k),
so by the union bound all hold together with probability ≥ 1 − β_t, and then every one of the k
certified values, in particular the largest, is a valid bound: the test keeps its failure
probability β_t. (Reporting the best of k events certified at the full β_t each would not be
valid.) Measured on SelectHalfplane's standalone pairs (benchmarks/geometric.py) this trades a
Bonferroni loss of ≈ 2–3 % on the seeds where k > 1 for removing the seeds on which a poor event
was chosen.

Events must be picklable: certification maps each streamed chunk to its indicator in a
worker process.

`choose_events` serves several objectives (the runner's primary test and its profile points) from
one proposal per distinguisher, and records in `Selection.considered` every distinguisher that
proposed, with its best projected value: what the choice was made among. The default set
(`distinguishers.DEFAULT_DISTINGUISHERS`) is `BASE_DISTINGUISHERS` plus the learned scores of `learned`,
which apply to vector outputs only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from dpaudit.engine.bounds import projected_bounds
from dpaudit.engine.objectives import EpsilonAt, Objective

Array = NDArray[Any]


def as_rows(outputs: Array) -> NDArray[np.float64]:
    """Outputs as a 2-D float64 array (samples, features); -0.0 normalised to 0.0."""
    arr = np.asarray(outputs, dtype=np.float64).reshape(outputs.shape[0], -1)
    return arr + 0.0


def row_keys(rows: NDArray[np.float64]) -> Array:
    """One hashable/sortable key per row: the value itself (1 column) or its bytes."""
    if rows.shape[1] == 1:
        return rows[:, 0]
    contiguous = np.ascontiguousarray(rows)
    return contiguous.view(np.dtype((np.void, 8 * rows.shape[1]))).ravel()


@runtime_checkable
class Event(Protocol):
    def indicator(self, outputs: Array) -> NDArray[np.bool_]: ...

    def describe(self) -> str: ...


@dataclass(frozen=True, slots=True)
class ThresholdEvent:
    """{s(x) ≥ t} or {s(x) ≤ t}, where s is one coordinate or a linear projection."""

    threshold: float
    upper: bool
    coordinate: int | None = None
    projection: tuple[float, ...] | None = None

    def score(self, outputs: Array) -> NDArray[np.float64]:
        rows = as_rows(outputs)
        if self.projection is not None:
            return rows @ np.asarray(self.projection)
        return rows[:, self.coordinate or 0]

    def indicator(self, outputs: Array) -> NDArray[np.bool_]:
        s = self.score(outputs)
        return s >= self.threshold if self.upper else s <= self.threshold

    def to_spec(self) -> dict[str, Any]:
        return {
            "type": "threshold",
            "threshold": self.threshold,
            "upper": self.upper,
            "coordinate": self.coordinate,
            "projection": None if self.projection is None else list(self.projection),
        }

    def describe(self) -> str:
        if self.projection is not None:
            what = "w·x"
        elif self.coordinate:
            what = f"x[{self.coordinate}]"
        else:
            what = "x"
        return f"{what} {'≥' if self.upper else '≤'} {self.threshold:.6g}"


@dataclass(frozen=True, slots=True)
class SetEvent:
    """{x ∈ V} for a finite set V of exact output values (rows)."""

    values: tuple[tuple[float, ...], ...]

    def _keys(self) -> Array:
        return np.sort(row_keys(np.asarray(self.values, dtype=np.float64).reshape(len(self.values), -1)))

    def indicator(self, outputs: Array) -> NDArray[np.bool_]:
        if not self.values:
            return np.zeros(outputs.shape[0], dtype=bool)
        return np.isin(row_keys(as_rows(outputs)), self._keys())

    def to_spec(self) -> dict[str, Any]:
        return {"type": "set", "values": [list(v) for v in self.values]}

    def describe(self) -> str:
        shown = ", ".join(
            str(v[0]) if len(v) == 1 else "(" + ",".join(f"{x:g}" for x in v) + ")" for v in self.values[:6]
        )
        more = f", … ({len(self.values)} values)" if len(self.values) > 6 else ""
        return f"x ∈ {{{shown}{more}}}"


def event_from_spec(spec: dict[str, Any]) -> Event:
    """Rebuild an event from `event.to_spec()` (stored in results, checkpoints and baselines)."""
    kind = spec.get("type")
    if kind == "threshold":
        proj = spec.get("projection")
        return ThresholdEvent(
            threshold=float(spec["threshold"]),
            upper=bool(spec["upper"]),
            coordinate=None if spec.get("coordinate") is None else int(spec["coordinate"]),
            projection=None if proj is None else tuple(float(x) for x in proj),
        )
    if kind == "set":
        return SetEvent(tuple(tuple(float(x) for x in v) for v in spec["values"]))
    factory = EVENT_TYPES.get(str(kind))
    if factory is None:
        raise ValueError(f"unknown event type {kind!r}")
    return factory(spec)


EVENT_TYPES: dict[str, Callable[[dict[str, Any]], Event]] = {}
"""Extra event types (e.g. learned scores) register a `from_spec` here under their `type`."""


def event_spec(event: Event) -> dict[str, Any] | None:
    """The event's spec, or None if it cannot be serialised."""
    to_spec = getattr(event, "to_spec", None)
    return to_spec() if callable(to_spec) else None


@dataclass(frozen=True, slots=True)
class Candidates:
    """Candidate events with their selection counts on side a (dataset) and b (neighbor)."""

    counts_a: NDArray[np.float64]
    counts_b: NDArray[np.float64]
    make_event: Callable[[int], Event]


class Distinguisher(Protocol):
    @property
    def name(self) -> str: ...

    def propose(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Candidates | None: ...


def threshold_grid(pooled: NDArray[np.float64], *, grid: int, tails: int) -> NDArray[np.float64]:
    """Quantile grid plus the most extreme values (tail events matter when δ is small)."""
    s = np.sort(pooled)
    return np.unique(np.concatenate([_sorted_quantiles(s, grid), s[:tails], s[-tails:]]))


def _sorted_quantiles(s: NDArray[np.float64], grid: int) -> NDArray[np.float64]:
    """`np.quantile(s, linspace(0, 1, grid))` (method "linear", bit for bit: numpy's lerp) on an
    already sorted `s`, without numpy's partition per quantile (≈ 100× faster at 2048 points)."""
    n = s.size
    idx = np.linspace(0.0, 1.0, grid) * (n - 1)
    lo = np.floor(idx).astype(np.intp)
    hi = np.minimum(lo + 1, n - 1)
    t = idx - lo
    a, b = s[lo], s[hi]
    d = b - a
    return np.where(t >= 0.5, b - d * (1 - t), a + d * t)


def tail_counts(
    sa: NDArray[np.float64], sb: NDArray[np.float64], ts: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Counts of {s ≥ t} and {s ≤ t} on both sides for every threshold t."""
    a, b = np.sort(sa), np.sort(sb)
    ge_a = a.size - np.searchsorted(a, ts, side="left")
    ge_b = b.size - np.searchsorted(b, ts, side="left")
    le_a = np.searchsorted(a, ts, side="right")
    le_b = np.searchsorted(b, ts, side="right")
    return ge_a.astype(float), ge_b.astype(float), le_a.astype(float), le_b.astype(float)


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
        scores: list[
            tuple[NDArray[np.float64], NDArray[np.float64], int | None, tuple[float, ...] | None]
        ] = []
        for j in range(min(d, self.max_coordinates)):
            scores.append((a[:, j], b[:, j], j, None))
        if d > 1:
            sd = np.sqrt(0.5 * (a.var(axis=0) + b.var(axis=0))) + 1e-12
            w = (a.mean(axis=0) - b.mean(axis=0)) / sd**2
            if np.any(w != 0):
                w = w / np.max(np.abs(w))
                scores.append((a @ w, b @ w, None, tuple(float(x) for x in w)))
        ca, cb, specs = [], [], []
        for sa, sb, coord, proj in scores:
            ts = threshold_grid(np.concatenate([sa, sb]), grid=self.grid, tails=self.tails)
            ge_a, ge_b, le_a, le_b = tail_counts(sa, sb, ts)
            ca += [ge_a, le_a]
            cb += [ge_b, le_b]
            specs += [(float(t), True, coord, proj) for t in ts]
            specs += [(float(t), False, coord, proj) for t in ts]

        def make(i: int) -> Event:
            t, upper, coord, proj = specs[i]
            return ThresholdEvent(threshold=t, upper=upper, coordinate=coord, projection=proj)

        return Candidates(np.concatenate(ca), np.concatenate(cb), make)


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
    the choice against learned scores that certified ≈ 0.9. With few values (large counts) the
    in-sample ranking is kept: its optimism is small and it uses every selection sample.
    """

    name: str = "histogram"
    max_bins: int = 4096
    min_count: int = 5
    holdout_above: int = 64

    def propose(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Candidates | None:
        ka, kb = row_keys(a), row_keys(b)
        uniq, inv = np.unique(np.concatenate([ka, kb]), return_inverse=True)
        if uniq.size > self.max_bins:
            return None
        pooled_rows = np.concatenate([a, b])
        first = np.zeros(uniq.size, dtype=np.intp)
        first[inv[::-1]] = np.arange(inv.size)[::-1]
        inv_a, inv_b = inv[: ka.size], inv[ka.size :]
        na = np.bincount(inv_a, minlength=uniq.size).astype(float)
        nb = np.bincount(inv_b, minlength=uniq.size).astype(float)
        eligible = np.flatnonzero(na + nb >= self.min_count)
        # counts that rank the values (fit) and counts the candidates report (count)
        fit_a, fit_b, count_a, count_b = na, nb, na, nb
        tot_a, tot_b = a.shape[0], b.shape[0]
        if eligible.size > self.holdout_above and min(ka.size, kb.size) >= 4:
            ha, hb = ka.size // 2, kb.size // 2
            fit_a = np.bincount(inv_a[:ha], minlength=uniq.size).astype(float)
            fit_b = np.bincount(inv_b[:hb], minlength=uniq.size).astype(float)
            count_a = (na - fit_a) * (ka.size / (ka.size - ha))
            count_b = (nb - fit_b) * (kb.size / (kb.size - hb))
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


BASE_DISTINGUISHERS: tuple[Distinguisher, ...] = (
    HistogramDistinguisher(),
    ThresholdDistinguisher(),
)
"""The distinguishers that need no fitting: exact-value histogram and tail thresholds."""

SCREEN_SIZE = 64

SELECTION_PESSIMISM = 0.05
"""Level of the one-sided Clopper–Pearson shading of selection frequencies in the projection that
ranks candidates (`bounds.projected_bounds`). It guards against the winner's curse over many
candidates; 0.01 shaded events seen ~10² times so much more than ones seen ~10⁴–10⁵ times that
a likelihood-ratio-optimal but rare event lost to a large, weak one (SelectHalfplane's asymmetric
replace: target seen ≈ 127 vs 27 times; projected 0.61 against 0.53 where it certifies 1.36 and
the large event 0.54). At 0.05 that pair's mean bound/exact went 0.851 → 0.873 in the selection
simulator (the tiny-event pairs unchanged; 0.3 and 0.5 let noise win there: 0.93, 0.83)."""

MAX_CERTIFIED = 4
"""At most this many events are certified per test (the chosen one plus runners-up)."""

DISTINCT_FACTOR = 2.0
"""A runner-up is certified only if, in the same direction, its selection count on the P side or
on the Q side differs by at least this factor from every event already kept: events with nearly
the same counts certify nearly the same (and strongly correlated) value, so certifying both
would only cost Bonferroni budget."""

PLAUSIBLE_PESSIMISM = 0.5
"""Shading of the *optimistic* projection u that decides whether a runner-up could be the best:
0.5 is the point estimate (the median of the Clopper–Pearson posterior)."""


def _rough_bounds(
    kp: NDArray[np.float64], kq: NDArray[np.float64], n_p: int, n_q: int, n_cert: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Normal-approximation stand-in for `projected_bounds`, used only to shortlist events."""
    p = np.maximum(kp - 2.3 * np.sqrt(kp + 1), 0) / n_p
    q = np.minimum((kq + 2.3 * np.sqrt(kq + 1) + 1) / n_q, 1.0)
    p_lo = np.maximum(p - 2.5 * np.sqrt(p / n_cert), 0.0)
    q_hi = np.minimum(q + 2.5 * np.sqrt(q / n_cert) + 1 / n_cert, 1.0)
    return p_lo, q_hi


@dataclass(frozen=True, slots=True)
class Selection:
    """The event chosen on the selection split for one pair and objective; `projected` is the
    objective's projected certified value (ε for the default objective). `considered` lists
    every distinguisher that proposed candidates with the best projected value among them
    (both directions), in the order tried: the record of what the choice was made among.

    `also` are runners-up to certify *as well* (adaptive top-k, see `choose_events`): the test
    then certifies the k = 1 + len(also) events of `certified` at failure probability β_t/k each
    (Bonferroni within the test) and reports the best. A caller that certifies only `event`
    (at the full β_t) ignores `also` and stays valid."""

    event: Event
    dataset_is_p: bool
    projected: float
    distinguisher: str
    considered: tuple[tuple[str, float], ...] = ()
    also: tuple[Selection, ...] = ()

    @property
    def certified(self) -> tuple[Selection, ...]:
        """The events this test certifies: the chosen one first, then the runners-up."""
        return (self, *self.also)


@dataclass(frozen=True, slots=True)
class _Shortlisted:
    """Screened candidates of one distinguisher in one direction: projected value `v` (at
    `SELECTION_PESSIMISM`), optimistic value `u` (at `PLAUSIBLE_PESSIMISM`), selection counts."""

    name: str
    cand: Candidates
    dataset_is_p: bool
    index: NDArray[np.intp]
    v: NDArray[np.float64]
    u: NDArray[np.float64]
    kp: NDArray[np.float64]
    kq: NDArray[np.float64]


def _shortlist(
    name: str,
    cand: Candidates,
    n_a: int,
    n_b: int,
    obj: Objective,
    certify_total: int,
    failure_probability: float,
    pessimism: float,
) -> list[_Shortlisted]:
    """Both directions of one distinguisher's candidates: a cheap normal-approximation screen,
    then the projection (`bounds.projected_bounds`) of the top `SCREEN_SIZE`."""
    out = []
    for counts_p, counts_q, n_p, n_q, dataset_is_p in (
        (cand.counts_a, cand.counts_b, n_a, n_b, True),
        (cand.counts_b, cand.counts_a, n_b, n_a, False),
    ):
        rough = obj.score(*_rough_bounds(counts_p, counts_q, n_p, n_q, certify_total))
        top = np.argsort(-rough, kind="stable")[:SCREEN_SIZE]
        kp, kq = counts_p[top], counts_q[top]
        v, u = (
            obj.score(
                *projected_bounds(
                    kp,
                    kq,
                    selection_total_p=n_p,
                    selection_total_q=n_q,
                    certify_total_p=certify_total,
                    certify_total_q=certify_total,
                    failure_probability=failure_probability,
                    pessimism=shade,
                )
            )
            for shade in (pessimism, max(pessimism, PLAUSIBLE_PESSIMISM))
        )
        out.append(_Shortlisted(name, cand, dataset_is_p, top, v, u, kp, kq))
    return out


def _distinct(kp: float, kq: float, kept: Sequence[tuple[bool, float, float]], dataset_is_p: bool) -> bool:
    """Whether (kp, kq) in this direction differs by ≥ `DISTINCT_FACTOR` on some side from every kept."""
    limit = math.log(DISTINCT_FACTOR)
    for is_p, kp2, kq2 in kept:
        if is_p != dataset_is_p:
            continue
        if abs(math.log((kp + 1) / (kp2 + 1))) < limit and abs(math.log((kq + 1) / (kq2 + 1))) < limit:
            return False
    return True


def _choose(
    lists: Sequence[_Shortlisted], max_events: int
) -> tuple[tuple[float, _Shortlisted, int], list[tuple[float, _Shortlisted, int]]]:
    """(best, runners-up) as (projected value, shortlist, position) from the pooled shortlists.

    Best: the largest projected value `v` (the first one in the order tried on ties). Runners-up,
    taken in decreasing optimistic value `u` while fewer than `max_events` are kept: every
    candidate whose u *exceeds* the best's v (it may plausibly certify more than the chosen event:
    the selection data cannot tell them apart) and that is distinct from those kept (`_distinct`).
    """
    best: tuple[float, _Shortlisted, int] | None = None
    for sl in lists:
        if sl.v.size == 0:
            continue
        j = int(np.argmax(sl.v))
        if best is None or float(sl.v[j]) > best[0]:
            best = (float(sl.v[j]), sl, j)
    if best is None:  # pragma: no cover - every proposal has candidates
        raise RuntimeError("no candidates to choose from")
    v_best, bsl, bj = best
    kept = [(bsl.dataset_is_p, float(bsl.kp[bj]), float(bsl.kq[bj]))]
    pool = [(float(sl.u[j]), n, j) for n, sl in enumerate(lists) for j in range(sl.u.size)]
    pool.sort(key=lambda t: -t[0])  # stable: order tried on ties
    runners_up: list[tuple[float, _Shortlisted, int]] = []
    for u, n, j in pool:
        if len(kept) >= max_events or not u > v_best:
            break
        sl = lists[n]
        if sl is bsl and j == bj:
            continue
        if _distinct(float(sl.kp[j]), float(sl.kq[j]), kept, sl.dataset_is_p):
            kept.append((sl.dataset_is_p, float(sl.kp[j]), float(sl.kq[j])))
            runners_up.append((float(sl.v[j]), sl, j))
    return best, runners_up


def _selection_of(
    sl: _Shortlisted,
    j: int,
    value: float,
    considered: tuple[tuple[str, float], ...] = (),
    also: tuple[Selection, ...] = (),
) -> Selection:
    return Selection(sl.cand.make_event(int(sl.index[j])), sl.dataset_is_p, value, sl.name, considered, also)


def choose_events(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    certify_total: int,
    failure_probability: float,
    objectives: Sequence[Objective],
    distinguishers: Sequence[Distinguisher] | None = None,
    max_events: int = MAX_CERTIFIED,
    pessimism: float = SELECTION_PESSIMISM,
) -> list[Selection]:
    """`choose_event` for several objectives at once: each distinguisher proposes (and fits)
    once, and its candidates are scored for every objective. One Selection per objective.

    Adaptive top-k: besides the best candidate (largest projected value v, shading
    `pessimism`), each Selection lists in `also` up to `max_events` − 1 runners-up whose
    optimistic projection u (point estimates) exceeds the best's v and whose counts are distinct
    from those kept (`_choose`). Everything here is a function of the selection split only, so the
    number k of events and the events themselves are fixed before certification; certifying the
    k events at β_t/k each keeps the test's failure probability at β_t. `max_events=1` gives the
    single-event choice."""
    if max_events < 1:
        raise ValueError("max_events must be ≥ 1")
    dists = BASE_DISTINGUISHERS if distinguishers is None else distinguishers
    proposals = [(d.name, d.propose(a, b)) for d in dists]
    out = []
    for obj in objectives:
        lists: list[_Shortlisted] = []
        considered: list[tuple[str, float]] = []
        for name, cand in proposals:
            if cand is None:
                continue
            mine = _shortlist(
                name, cand, a.shape[0], b.shape[0], obj, certify_total, failure_probability, pessimism
            )
            lists += mine
            considered.append((name, max(float(np.max(sl.v)) if sl.v.size else -np.inf for sl in mine)))
        if not lists:  # pragma: no cover - the threshold distinguisher always proposes
            raise RuntimeError("no distinguisher applies to these outputs")
        (value, sl, j), runners_up = _choose(lists, max_events)
        also = tuple(_selection_of(s, k, v) for v, s, k in runners_up)
        out.append(_selection_of(sl, j, value, tuple(considered), also))
    return out


def choose_event(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    certify_total: int,
    failure_probability: float,
    delta: float = 0.0,
    objective: Objective | None = None,
    distinguishers: Sequence[Distinguisher] | None = None,
    max_events: int = 1,
) -> Selection:
    """Pick the (event, direction) whose projected certified interval maximises `objective`
    (default: ε at `delta`) among the candidates of `distinguishers` (default:
    `BASE_DISTINGUISHERS`; the runner passes `distinguishers.DEFAULT_DISTINGUISHERS`). With
    `max_events` > 1 the runners-up to certify as well are in `Selection.also` (see
    `choose_events`).

    `a` are outputs on the pair's dataset, `b` on its neighbour (selection split only).
    """
    obj: Objective = objective if objective is not None else EpsilonAt(delta)
    return choose_events(
        a,
        b,
        certify_total=certify_total,
        failure_probability=failure_probability,
        objectives=[obj],
        distinguishers=distinguishers,
        max_events=max_events,
    )[0]
