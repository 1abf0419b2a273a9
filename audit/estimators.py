"""Distinguishers: events chosen on the selection split (DESIGN.md, "Statistics").

A distinguisher looks at selection-split outputs from both sides of a pair and proposes
candidate events S with their selection counts. `choose_event` scores every candidate in
both directions by the ε it is *projected* to certify on fresh samples
(`bounds.projected_epsilon`) and keeps the best. The chosen event is then certified on
samples never used to choose it, which is what makes the final bound valid: scanning
thresholds on the certification samples and reporting the maximum would not be.

Events must be picklable: certification maps each streamed chunk to its indicator in a
worker process.

`choose_events` serves several objectives (the runner's primary test and its profile points) from
one proposal per distinguisher, and records in `Selection.considered` every distinguisher that
proposed, with its best projected value: what the choice was made among. The default set
(`DEFAULT_DISTINGUISHERS`) is `BASE_DISTINGUISHERS` plus the learned scores of `audit.learned`,
which apply to vector outputs only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from audit.bounds import projected_bounds
from audit.objectives import EpsilonAt, Objective

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

if TYPE_CHECKING:
    DEFAULT_DISTINGUISHERS: tuple[Distinguisher, ...]

_DEFAULTS: tuple[Distinguisher, ...] | None = None


def default_distinguishers() -> tuple[Distinguisher, ...]:
    """`BASE_DISTINGUISHERS` plus the learned scores of `audit.learned` for vector outputs.

    The learned ones (logistic regression on the coordinates, with and without squared
    features, and fixed linear projections) return no candidates on 1-D outputs and when the
    histogram already applies (at most `HistogramDistinguisher.max_bins` distinct outputs:
    every event on such a support is a set of values, and the histogram's likelihood-ratio
    ordering already ranks them), and fit on a capped subsample of the selection split
    (`audit.learned.DEFAULT_MAX_FIT` rows per side), so a scalar or small discrete audit pays
    nothing for them. `DEFAULT_DISTINGUISHERS` (a lazily built module attribute: `audit.learned`
    imports this module) is this tuple.
    """
    global _DEFAULTS
    if _DEFAULTS is None:
        from audit.learned import default_learned_distinguishers

        _DEFAULTS = (*BASE_DISTINGUISHERS, *default_learned_distinguishers())
    return _DEFAULTS


def __getattr__(name: str) -> Any:
    if name == "DEFAULT_DISTINGUISHERS":
        return default_distinguishers()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


SCREEN_SIZE = 64


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
    (both directions), in the order tried: the record of what the choice was made among."""

    event: Event
    dataset_is_p: bool
    projected: float
    distinguisher: str
    considered: tuple[tuple[str, float], ...] = ()


def _best_of(
    cand: Candidates,
    n_a: int,
    n_b: int,
    obj: Objective,
    certify_total: int,
    failure_probability: float,
) -> tuple[float, int, bool]:
    """(projected value, candidate index, dataset_is_p) of the best candidate for `obj`."""
    best: tuple[float, int, bool] = (-np.inf, 0, True)
    for counts_p, counts_q, n_p, n_q, dataset_is_p in (
        (cand.counts_a, cand.counts_b, n_a, n_b, True),
        (cand.counts_b, cand.counts_a, n_b, n_a, False),
    ):
        # cheap normal-approximation screen, then the exact projection on the top few
        rough = obj.score(*_rough_bounds(counts_p, counts_q, n_p, n_q, certify_total))
        top = np.argsort(-rough, kind="stable")[:SCREEN_SIZE]
        exact = obj.score(
            *projected_bounds(
                counts_p[top],
                counts_q[top],
                selection_total_p=n_p,
                selection_total_q=n_q,
                certify_total_p=certify_total,
                certify_total_q=certify_total,
                failure_probability=failure_probability,
            )
        )
        j = int(np.argmax(exact))
        value = float(exact[j])
        if value > best[0] or (dataset_is_p and best[0] == -np.inf):
            best = (value, int(top[j]), dataset_is_p)
    return best


def choose_events(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    certify_total: int,
    failure_probability: float,
    objectives: Sequence[Objective],
    distinguishers: Sequence[Distinguisher] | None = None,
) -> list[Selection]:
    """`choose_event` for several objectives at once: each distinguisher proposes (and fits)
    once, and its candidates are scored for every objective. One Selection per objective."""
    dists = default_distinguishers() if distinguishers is None else distinguishers
    proposals = [(d.name, d.propose(a, b)) for d in dists]
    out = []
    for obj in objectives:
        best: Selection | None = None
        considered: list[tuple[str, float]] = []
        for name, cand in proposals:
            if cand is None:
                continue
            value, k, dataset_is_p = _best_of(
                cand, a.shape[0], b.shape[0], obj, certify_total, failure_probability
            )
            considered.append((name, value))
            if best is None or value > best.projected:
                best = Selection(cand.make_event(k), dataset_is_p, value, name)
        if best is None:  # pragma: no cover - the threshold distinguisher always proposes
            raise RuntimeError("no distinguisher applies to these outputs")
        out.append(
            Selection(best.event, best.dataset_is_p, best.projected, best.distinguisher, tuple(considered))
        )
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
) -> Selection:
    """Pick the (event, direction) whose projected certified interval maximises `objective`
    (default: ε at `delta`) among the candidates of `distinguishers` (default:
    `DEFAULT_DISTINGUISHERS`).

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
    )[0]
