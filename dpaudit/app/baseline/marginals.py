"""Witnesses chosen at gate time from a baseline's coordinate marginals (the privacy gate).

A stored witness event E is chosen by the baseline's run, so the regression test can only see a
rise of the loss on E. A change that moves the outputs elsewhere (E no longer occurs) leaves
that test with nothing to compare. So a baseline also stores, per pair, the counts of the events

    {x_c ≥ e} and {x_c ≤ e},   c among the first `MARGINAL_COORDINATES` output coordinates,
                                e on a grid of ≤ `MARGINAL_EDGES` edges per coordinate,

on both sides, from n fresh samples per side (streams (pair, side, MARGINAL_PHASE, chunk) of the
baseline's seed; the edges are values seen on another `EDGE_SAMPLES` per side, phase EDGE_PHASE,
which are not counted). The same counts on n/4 further samples per side (phase RANKING_PHASE)
are stored for ranking only. At gate time, one of these events per pair is chosen on fresh
samples of the *current* mechanism (phase SELECT_PHASE of the gate's seed): the one closest to
being flagged, i.e. with the largest lax lower bound on today's loss ln((P − δ)/Q) minus the
larger of the lax upper bound on the baseline's from the ranking counts and the floor below,
either direction. It then enters the
regression test as one more witness, with the stored counts of that event as its baseline counts,
flagging only when today's lower bound also exceeds max(0, the bounds of the pair's stored
witnesses) (`baseline.witness_floor`: a rise of a loss that was negative is no regression).

Why the test stays valid. Given the chosen event E*, (a) today's re-count (REGRESSION_PHASE) is
independent of the SELECT_PHASE samples E* was chosen on, so it is Binomial given E*; (b) the
stored counts come from the baseline's MARGINAL_PHASE samples, drawn before and independently of
today's choice, with edges fixed on other samples, so they are Binomial given E* as well: E* is
a function of the edges, the ranking counts, the stored witnesses' counts (the floor) and
today's selection samples only, never of the stored marginal counts it is tested against.
The comparison of `baseline.compare` is therefore exactly the stored-witness comparison, and
fails with probability ≤ β_i. Each pair with marginals adds one comparison to the audit's
Bonferroni count m_a, fixed before any sampling (a pair whose choice finds no usable event keeps
its share unused).

What it adds: a regression that shows on a single output coordinate (a count, a step, a noisy
statistic) is caught even when the baseline's own witness never occurs today. What it does not:
an event no coordinate threshold captures, or an event the baseline never saw on the Q side
(its upper bound is then +∞).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from dpaudit.engine.bounds import cp_lower, cp_upper, epsilon_from_bounds
from dpaudit.engine.events import EventShapeError, ThresholdEvent, as_rows
from dpaudit.engine.sampling import Task, auto_chunk_size, chunk_sizes, draw, run_tasks
from dpaudit.mechanisms.base import Mechanism
from dpaudit.neighbors.base import Dataset

from .format import BaselineAudit, BaselineEvent, PairMarginals

MARGINAL_COORDINATES = 32
"""How many leading output coordinates get marginals (the runner's scanning convention too)."""
MARGINAL_EDGES = 32
"""Most edges per coordinate (its distinct values, or quantiles of the edge sample)."""
EDGE_SAMPLES = 2_000
"""Samples per side the edges are read from (never counted)."""
MARGINAL_PHASE = 111
"""Spawn-key phase of the stored marginal counts (the baseline's seed)."""
EDGE_PHASE = 112
"""Spawn-key phase of the edge samples (the baseline's seed)."""
RANKING_PHASE = 113
"""Spawn-key phase of the baseline's ranking counts (the baseline's seed; never tested on)."""
SELECT_PHASE = 120
"""Spawn-key phase of the gate's choice of an event among the marginals (the gate's seed)."""
SELECTION_FRACTION = 4
"""The choice draws num_samples // SELECTION_FRACTION per side (at least `EDGE_SAMPLES`)."""
SELECTION_LEVEL = 0.5
"""Failure probability of the lax bound that ranks candidate events (ranking only)."""

Table = list[list[NDArray[np.int64]]]
"""[kind][coordinate] → counts per edge (kind 0: #{x_c ≥ e}, kind 1: #{x_c ≤ e})."""


def edges_from(rows: NDArray[np.float64]) -> tuple[tuple[int, ...], tuple[tuple[float, ...], ...]]:
    """(coordinates, edges): per leading coordinate with ≥ 2 finite values, its distinct values,
    or `MARGINAL_EDGES` quantiles of them (values that occurred) when there are more."""
    coords, edges = [], []
    for c in range(min(rows.shape[1], MARGINAL_COORDINATES)):
        col = rows[:, c][np.isfinite(rows[:, c])]
        values = np.unique(col)
        if values.size < 2:
            continue
        if values.size > MARGINAL_EDGES:
            qs = np.linspace(0.0, 1.0, MARGINAL_EDGES)
            values = np.unique(np.quantile(col, qs, method="inverted_cdf"))
        coords.append(c)
        edges.append(tuple(float(v) for v in values))
    return tuple(coords), tuple(edges)


def count_chunk(
    mechanism: Mechanism,
    dataset: Dataset,
    coordinates: tuple[int, ...],
    edges: tuple[tuple[float, ...], ...],
    size: int,
    seed: int,
    key: tuple[int, ...],
) -> tuple[list[list[int]], list[list[int]]]:
    """#{x_c ≥ e} and #{x_c ≤ e} per coordinate and edge on one chunk: the counts
    `ThresholdEvent(coordinate=c, threshold=e)` gives (NaN satisfies neither)."""
    rows = as_rows(draw(mechanism, dataset, size, seed, key))
    if coordinates and rows.shape[1] <= max(coordinates):
        raise EventShapeError(f"marginals of coordinate {max(coordinates)} met outputs of {rows.shape[1]}")
    ge, le = [], []
    for c, e in zip(coordinates, edges, strict=True):
        col = np.sort(rows[:, c][~np.isnan(rows[:, c])])
        grid = np.asarray(e)
        ge.append((col.size - np.searchsorted(col, grid, side="left")).tolist())
        le.append(np.searchsorted(col, grid, side="right").tolist())
    return ge, le


def _count(
    mechanism: Mechanism,
    datasets: tuple[Dataset, Dataset],
    pair_index: int,
    coordinates: tuple[int, ...],
    edges: tuple[tuple[float, ...], ...],
    *,
    num_samples: int,
    seed: int,
    phase: int,
    jobs: int,
    backend: str,
) -> list[Table]:
    """[side][kind][coordinate] counts (kind 0: ≥ e, 1: ≤ e) on `num_samples` per side of the
    streams (pair_index, side, phase, chunk)."""
    chunk = auto_chunk_size(max(sum(len(e) for e in edges), 64))
    totals: list[Table] = [
        [[np.zeros(len(e), dtype=np.int64) for e in edges] for _ in range(2)] for _ in range(2)
    ]
    tasks = [
        Task(count_chunk, (mechanism, ds, coordinates, edges, size, seed, (pair_index, s, phase, c)), size, s)
        for s, ds in enumerate(datasets)
        for c, size in enumerate(chunk_sizes(num_samples, chunk))
    ]

    def done(task: Task, result: tuple[list[list[int]], list[list[int]]]) -> None:
        for kind in range(2):
            for j, row in enumerate(result[kind]):
                totals[task.tag][kind][j] += np.asarray(row, dtype=np.int64)

    run_tasks(tasks, jobs=jobs, backend=backend, on_done=done)
    return totals


def pair_marginals(
    mechanism: Mechanism,
    event: BaselineEvent,
    *,
    num_samples: int,
    seed: int,
    jobs: int = 1,
    backend: str = "loky",
) -> PairMarginals | None:
    """The stored marginals of `event`'s pair (None when no leading coordinate varies)."""
    datasets = (event.dataset, event.neighbor)
    key = event.pair_index
    sample = [
        as_rows(draw(mechanism, ds, EDGE_SAMPLES, seed, (key, s, EDGE_PHASE, 0)))
        for s, ds in enumerate(datasets)
    ]
    if sample[0].shape[1] != sample[1].shape[1]:
        return None
    coordinates, edges = edges_from(np.concatenate(sample))
    if not coordinates:
        return None
    n_rank = _selection_size(num_samples)

    def count(n: int, phase: int) -> list[Table]:
        return _count(
            mechanism, datasets, key, coordinates, edges,
            num_samples=n, seed=seed, phase=phase, jobs=jobs, backend=backend,
        )  # fmt: skip

    counts, ranking = count(num_samples, MARGINAL_PHASE), count(n_rank, RANKING_PHASE)
    return PairMarginals(
        pair_index=key,
        coordinates=coordinates,
        edges=edges,
        at_least=_frozen(counts, 0),
        at_most=_frozen(counts, 1),
        total=num_samples,
        ranking_at_least=_frozen(ranking, 0),
        ranking_at_most=_frozen(ranking, 1),
        ranking_total=n_rank,
    )


def _frozen(counts: list[Table], kind: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    return tuple(tuple(tuple(int(k) for k in row) for row in counts[s][kind]) for s in range(2))


def _selection_size(num_samples: int) -> int:
    return max(num_samples // SELECTION_FRACTION, EDGE_SAMPLES)


def baseline_marginals(
    mechanism: Mechanism,
    entry: BaselineAudit,
    *,
    num_samples: int,
    seed: int,
    jobs: int = 1,
    backend: str = "loky",
) -> tuple[PairMarginals, ...]:
    """Marginals of every pair with a stored witness (one per pair, in pair order)."""
    first: dict[int, BaselineEvent] = {}
    for e in entry.events:
        first.setdefault(e.pair_index, e)
    out = []
    for e in first.values():
        try:
            m = pair_marginals(mechanism, e, num_samples=num_samples, seed=seed, jobs=jobs, backend=backend)
        except EventShapeError:  # outputs of varying width: no coordinate is common to every sample
            continue
        if m is not None:
            out.append(m)
    return tuple(out)


def _lax_loss(p: NDArray[np.int64], q: NDArray[np.int64], n: int, delta: float) -> NDArray[np.float64]:
    """The rank: a lower bound on ln((P − δ)/Q) at failure probability SELECTION_LEVEL."""
    level = SELECTION_LEVEL / 2
    return epsilon_from_bounds(cp_lower(p, n, level), cp_upper(q, n, level), delta=delta)


def choose_event(
    mechanism: Mechanism,
    marginals: PairMarginals,
    witness: BaselineEvent,
    *,
    num_samples: int,
    seed: int,
    jobs: int = 1,
    backend: str = "loky",
    floor: float = 0.0,
) -> BaselineEvent | None:
    """The event among `marginals` closest to being flagged, as a witness carrying the *stored*
    counts of that event (None when no event has a finite rank). Its rank is the lax lower
    bound on today's loss (fresh SELECT_PHASE samples of the current mechanism) minus the larger
    of two levels: the lax upper bound on the baseline's loss from the ranking counts (never the
    stored counts the test uses; 0 when the entry has none) and `floor`, which a chosen event
    must also exceed (`baseline.witness_floor`). `witness` gives the pair and δ."""
    n_sel = _selection_size(num_samples)
    counts = _count(
        mechanism, (witness.dataset, witness.neighbor), witness.pair_index, marginals.coordinates,
        marginals.edges, num_samples=n_sel, seed=seed, phase=SELECT_PHASE, jobs=jobs, backend=backend,
    )  # fmt: skip
    best: tuple[float, int, int, int, int] | None = None  # (rank, coordinate index, edge, kind, direction)
    for j in range(len(marginals.coordinates)):
        for kind in range(2):
            a, b = counts[0][kind][j], counts[1][kind][j]
            for direction, (p, q) in enumerate(((a, b), (b, a))):
                ranks = _lax_loss(p, q, n_sel, witness.delta) - np.maximum(
                    _baseline_upper(marginals, j, kind, direction, witness.delta), floor
                )
                ranks = np.where(np.isnan(ranks), -np.inf, ranks)
                i = int(np.argmax(ranks))
                if math.isfinite(ranks[i]) and (best is None or ranks[i] > best[0]):
                    best = (float(ranks[i]), j, i, kind, direction)
    return None if best is None else _as_witness(marginals, witness, *best[1:])


def _baseline_upper(m: PairMarginals, j: int, kind: int, direction: int, delta: float) -> NDArray[np.float64]:
    """Lax upper bounds on the baseline's loss per edge, from the ranking counts (0 without)."""
    if not m.ranking_total:
        return np.zeros(len(m.edges[j]))
    table = m.ranking_at_least if kind == 0 else m.ranking_at_most
    a, b = np.asarray(table[0][j]), np.asarray(table[1][j])
    p, q = (a, b) if direction == 0 else (b, a)
    level = SELECTION_LEVEL / 2
    p_hi, q_lo = cp_upper(p, m.ranking_total, level) - delta, cp_lower(q, m.ranking_total, level)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p_hi > 0, np.log(np.maximum(p_hi, 1e-300)), -np.inf) - np.log(q_lo)


def _as_witness(
    m: PairMarginals, witness: BaselineEvent, j: int, i: int, kind: int, direction: int
) -> BaselineEvent:
    """The chosen event with its stored counts (p on the side `direction` names)."""
    table = m.at_least if kind == 0 else m.at_most
    k_dataset, k_neighbor = table[0][j][i], table[1][j][i]
    kp, kq = (k_dataset, k_neighbor) if direction == 0 else (k_neighbor, k_dataset)
    event = ThresholdEvent(threshold=m.edges[j][i], upper=kind == 0, coordinate=m.coordinates[j])
    return dataclasses.replace(
        witness,
        event_spec=event.to_spec(),
        event=f"{event.describe()} (chosen today from the baseline's marginals)",
        direction=("dataset>neighbor", "neighbor>dataset")[direction],
        p_count=kp,
        p_total=m.total,
        q_count=kq,
        q_total=m.total,
        epsilon_lower_bound=-math.inf,
    )


def usable_marginals(
    base: BaselineAudit, usable: Sequence[BaselineEvent]
) -> list[tuple[PairMarginals, BaselineEvent]]:
    """Marginals whose pair still has a comparable stored witness (decided before sampling)."""
    witness: dict[int, BaselineEvent] = {}
    for e in usable:
        witness.setdefault(e.pair_index, e)
    return [(m, witness[m.pair_index]) for m in base.marginals if m.pair_index in witness]


def choose_events(
    mechanism: Mechanism,
    chosen: Sequence[tuple[PairMarginals, BaselineEvent]],
    num_samples: int,
    seed: int,
    jobs: int,
    backend: str,
    warnings: list[str],
    floors: dict[int, float],
) -> list[BaselineEvent]:
    """`choose_event` for each (marginals, witness) with its pair's floor; a pair whose outputs
    no longer have the marginals' coordinates is skipped with a line in `warnings`."""
    out = []
    for marg, witness in chosen:
        try:
            e = choose_event(
                mechanism,
                marg,
                witness,
                num_samples=num_samples,
                seed=seed,
                jobs=jobs,
                backend=backend,
                floor=floors[marg.pair_index],
            )
        except EventShapeError as exc:
            warnings.append(
                f"pair {marg.pair_index + 1}: no event chosen from the baseline's marginals ({exc})"
            )
            continue
        if e is not None:
            out.append(e)
    return out
