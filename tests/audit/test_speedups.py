"""The main job's speed-ups change no figure (issue 44, last "Done when" item): each faster path is
checked against the computation it replaced, to the last bit.

- Clopper–Pearson bounds evaluate the inverse incomplete beta once per distinct (a, b) pair, and
  look up the values already computed in a bounded memo;
- the magnitude distinguisher's sign and tail checks run over all columns at once;
- the pilot projects every distinguisher's screened events in one call and keeps the first best;
- the threshold grids and tail counts of all statistics are computed at once (`grids`), and only
  the quantile points straddling a change of value are interpolated;
- the screens (the pilot's and the selection's) rank the runs of consecutive candidates with equal
  counts, not every candidate;
- the learned statistics' candidates go through the same grids;
- the state-trajectory model bins its step samples by one stable sort, not a mask per bin, and
  takes its bin edges and medians from the pooled states sorted once;
- the histogram declines a wide selection split on a prefix that already has too many values, and
  it and the learned statistics' gate count distinct rows on a hash of their bits first;
- what is known of a selection split's distinct rows is kept for the next distinguisher asking
  (the histogram's count, each gate's answer), and the trajectory statistic projects each
  structure once for its two models;
- the histogram groups a selection split's rows on their hashes before sorting the distinct ones,
  and a set event looks its members up by hash, each match checked bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from scipy import special

from dpaudit.engine import bounds, distinguishers, events
from dpaudit.engine.bounds import cp_lower, cp_upper, epsilon_from_bounds, projected_bounds
from dpaudit.engine.distinguishers import (
    DEFAULT_DISTINGUISHERS,
    Candidates,
    Distinguisher,
    EpsilonAt,
    GaussianMu,
    ThresholdDistinguisher,
    choose_events,
    count_runs,
    default_distinguishers,
    for_outputs,
    grids,
    magnitude,
    pilot_distinguishers,
    selection,
)
from dpaudit.engine.distinguishers.base import HistogramDistinguisher
from dpaudit.engine.distinguishers.learned import fitted, state_trajectory
from dpaudit.engine.events import more_distinct_rows, row_keys, unique_row_keys
from dpaudit.engine.search import ranking
from dpaudit.engine.search.ranking import PILOT_SELECTION_PESSIMISM, pilot_event


def _plain_lower(k: np.ndarray, n: float, beta: float) -> np.ndarray:
    out = np.zeros(k.shape)
    pos = k > 0
    out[pos] = special.betaincinv(k[pos], n - k[pos] + 1.0, beta)
    return out


def _plain_upper(k: np.ndarray, n: float, beta: float) -> np.ndarray:
    out = np.ones(k.shape)
    below = k < n
    out[below] = special.betaincinv(k[below] + 1.0, n - k[below], 1.0 - beta)
    return out


def test_cp_bounds_on_distinct_pairs_equal_the_elementwise_ones_and_evaluate_fewer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(0)
    k = rng.integers(0, 17, size=500).astype(float)  # a pilot's counts: few distinct values
    real = rng.uniform(0, 16, size=300)  # projected counts are real-valued
    for counts in (k, real, np.concatenate([k, real])):
        assert np.array_equal(cp_lower(counts, 16, 0.25), _plain_lower(counts, 16.0, 0.25))
        assert np.array_equal(cp_upper(counts, 16, 0.25), _plain_upper(counts, 16.0, 0.25))
    evaluated: list[int] = []
    real_betaincinv = special.betaincinv

    def counting(a: np.ndarray, b: np.ndarray, y: float) -> np.ndarray:
        evaluated.append(np.asarray(a).size)
        return real_betaincinv(a, b, y)

    reversed_plain, short_plain = _plain_lower(k[::-1], 16.0, 0.25), _plain_lower(k[:7], 16.0, 0.25)
    monkeypatch.setattr(bounds.special, "betaincinv", counting)
    monkeypatch.setattr(bounds, "_MEMO", {})
    cp_lower(k, 16, 0.25)
    assert evaluated == [np.unique(k[k > 0]).size]
    assert np.array_equal(cp_lower(k[::-1], 16, 0.25), reversed_plain)
    assert np.array_equal(cp_lower(k[:7], 16, 0.25), short_plain)  # a short array
    assert evaluated == [np.unique(k[k > 0]).size]  # both answered from the memo


def test_betaincinv_memo_is_bounded_and_keyed_by_the_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """The memo of inverse incomplete beta values never holds more than `MEMO_MAX` entries, and
    a value is only ever reused for the same (a, b, level)."""
    monkeypatch.setattr(bounds, "_MEMO", {})
    monkeypatch.setattr(bounds, "MEMO_MAX", 40)
    rng = np.random.default_rng(1)
    for n in (16, 17, 30, 31):
        for level in (0.25, 0.05):
            counts = rng.integers(0, n + 1, size=60).astype(float)
            assert np.array_equal(cp_lower(counts, n, level), _plain_lower(counts, float(n), level))
            assert np.array_equal(cp_upper(counts, n, level), _plain_upper(counts, float(n), level))
            assert len(bounds._MEMO) <= 40


def test_magnitude_checks_over_all_columns_equal_the_per_column_ones() -> None:
    def two_signed(a: np.ndarray, b: np.ndarray) -> bool:
        lo = min(float(a.min(initial=0.0)), float(b.min(initial=0.0)))
        hi = max(float(a.max(initial=0.0)), float(b.max(initial=0.0)))
        return lo < 0.0 < hi

    def heavy(a: np.ndarray, b: np.ndarray) -> bool:
        for x in (a, b):
            if x.size >= 8:
                q1, med, q3 = np.quantile(x, (0.25, 0.5, 0.75))
                if float(np.quantile(np.abs(x - med), 0.99)) > magnitude.HEAVY_RATIO * float(q3 - q1):
                    return True
        return False

    rng = np.random.default_rng(1)
    draws = (
        lambda n, d: rng.standard_cauchy((n, d)),
        lambda n, d: rng.normal(size=(n, d)),
        lambda n, d: rng.integers(-2, 3, (n, d)).astype(float),
        lambda n, d: np.abs(rng.normal(size=(n, d))),
    )
    for trial in range(400):
        n, d = int(rng.integers(1, 60)), int(rng.integers(1, 8))
        a, b = draws[trial % 4](n, d), draws[trial % 4](n, d)
        expected = [j for j in range(d) if two_signed(a[:, j], b[:, j]) and heavy(a[:, j], b[:, j])]
        signed = np.flatnonzero(magnitude._two_signed(a, b))
        assert [int(j) for j in signed[magnitude._heavy(a[:, signed], b[:, signed])]] == expected


def _screened_every_candidate(
    kp: np.ndarray, kq: np.ndarray, n_p: int, n_q: int, total: int, delta: float
) -> np.ndarray:
    """The pilot's screen as it was: the `SCREEN_SIZE` best of every candidate, not of runs."""
    if kp.size <= ranking.SCREEN_SIZE:
        return np.arange(kp.size)
    rough = ranking._rough_epsilon(kp, kq, n_p, n_q, total, delta)
    return ranking.stable_top(-rough, ranking.SCREEN_SIZE)


def _block_by_block(
    a: np.ndarray, b: np.ndarray, *, total: int, delta: float, dists: Sequence[Distinguisher]
) -> tuple[str, bool, float, str] | None:
    """The pilot's event choice as it was: one projection per distinguisher and direction, a
    later block winning only when strictly better."""
    best: tuple[str, bool, float, str] | None = None
    for dist in for_outputs(dists, a, b):
        cand = dist.propose(a, b)
        if cand is None:
            continue
        for kp, kq, n_p, n_q, is_p in (
            (cand.counts_a, cand.counts_b, a.shape[0], b.shape[0], True),
            (cand.counts_b, cand.counts_a, b.shape[0], a.shape[0], False),
        ):
            if len(kp) == 0:
                continue
            kp, kq = np.asarray(kp, dtype=float), np.asarray(kq, dtype=float)
            top = _screened_every_candidate(kp, kq, n_p, n_q, total, delta)
            p_lo, q_hi = projected_bounds(
                kp[top],
                kq[top],
                selection_total_p=n_p,
                selection_total_q=n_q,
                certify_total_p=total,
                certify_total_q=total,
                bound_level=0.05,
                pessimism=PILOT_SELECTION_PESSIMISM,
            )
            with np.errstate(divide="ignore", invalid="ignore"):
                eps = np.nan_to_num(epsilon_from_bounds(p_lo, q_hi, delta=delta), nan=-np.inf)
            j = int(np.argmax(eps))
            if best is None or float(eps[j]) > best[2]:
                best = (cand.make_event(int(top[j])).describe(), is_p, float(eps[j]), dist.name)
    return best


@pytest.mark.parametrize("kind", ["continuous", "discrete", "vector", "heavy", "unequal"])
def test_pilot_event_in_one_projection_equals_block_by_block(kind: str) -> None:
    rng = np.random.default_rng(2)
    dists = pilot_distinguishers(DEFAULT_DISTINGUISHERS)
    for _ in range(12):
        n_a, n_b = int(rng.integers(8, 200)), int(rng.integers(8, 200))
        n_b = n_b if kind == "unequal" else n_a
        shift = float(rng.uniform(0, 2))
        if kind == "discrete":
            a = rng.integers(0, 4, (n_a, 1)).astype(float)
            b = np.minimum(rng.integers(0, 4, (n_b, 1)) + (shift > 1), 4).astype(float)
        elif kind == "vector":
            a, b = rng.normal(size=(n_a, 3)), rng.normal(size=(n_b, 3)) + shift
        elif kind == "heavy":
            a, b = 1.0 / rng.normal(size=(n_a, 2)), rng.standard_cauchy((n_b, 2))
        else:
            a, b = rng.laplace(size=(n_a, 1)), rng.laplace(size=(n_b, 1)) + shift
        for total, delta in ((10_000, 0.0), (200_000, 1e-5)):
            got = pilot_event(
                a, b, projected_total=total, projected_level=0.05, delta=delta, distinguishers=dists
            )
            want = _block_by_block(a, b, total=total, delta=delta, dists=dists)
            assert want is not None and got is not None
            assert (got.event.describe(), got.dataset_is_p, got.projected, got.distinguisher) == want


def _quantile_grid(pooled: np.ndarray, grid: int, tails: int) -> np.ndarray:
    """The threshold grid by its definition: numpy's linear quantiles and the extreme values."""
    s = np.sort(pooled)
    return np.unique(np.concatenate([np.quantile(s, np.linspace(0, 1, grid)), s[:tails], s[-tails:]]))


def _rows(rng: np.random.Generator, kind: int, k: int, n: int) -> np.ndarray:
    if kind == 0:  # continuous: every quantile point interpolated
        return rng.normal(size=(k, n))
    if kind == 1:  # few distinct values: only the points straddling a change
        return rng.integers(-3, 4, size=(k, n)).astype(float)
    if kind == 2:  # both in one matrix, and a constant row
        x = np.round(rng.normal(size=(k, n)), int(rng.integers(0, 3))) + 1e15
        x[0] = 2.5
        return x
    x = rng.integers(-1, 2, size=(k, n)).astype(float) * 0.0  # −0.0 and 0.0: one by one
    x[rng.random((k, n)) < 0.02] = np.inf
    x[rng.random((k, n)) < 0.02] = np.nan
    return x


def test_threshold_grids_of_all_rows_equal_the_grid_of_each() -> None:
    rng = np.random.default_rng(3)
    paths = set()
    for trial in range(400):
        kind, k, n = trial % 4, int(rng.integers(1, 7)), int(rng.integers(1, 700))
        grid, tails = int(rng.choice([2, 9, 64, 2048])), int(rng.choice([0, 1, 5, 256]))
        x = _rows(rng, kind, k, n)
        with np.errstate(invalid="ignore"):
            got = grids.threshold_grids(x, grid=grid, tails=tails)
            for j in range(k):
                one = grids.threshold_grid(x[j], grid=grid, tails=tails)
                assert got[j].tobytes() == one.tobytes()
                if kind < 3:
                    assert one.tobytes() == _quantile_grid(x[j], grid, tails).tobytes()
        paths.add((kind, n <= 2 * tails or tails == 0))
    assert len(paths) == 8  # every kind with the extremes all of s and not


def test_tail_counts_of_all_rows_equal_the_counts_of_each() -> None:
    rng = np.random.default_rng(4)
    for kind in range(3):
        a, b = _rows(rng, kind, 5, 90), _rows(rng, kind, 5, 130)
        ts = grids.threshold_grids(np.concatenate([a, b], axis=1), grid=2048, tails=256)
        for j, counts in enumerate(grids.tail_counts_rows(a, b, ts)):
            want = grids.tail_counts(a[j], b[j], ts[j])
            assert all(np.array_equal(g, w) for g, w in zip(counts, want, strict=True))


@pytest.mark.parametrize("n", [60, 700, 3000])
def test_tail_grid_counts_in_blocks_equal_one_statistic_at_a_time(n: int) -> None:
    """Many statistics (blocks of several, a −0.0 and a NaN row among them), as a vector output's."""
    rng = np.random.default_rng(12)
    stats = []
    for j in range(40):
        x = _rows(rng, j % 3, 2, n)
        if j == 7:
            x[0, :3] = -0.0
        if j == 11:
            x[1, 5] = np.nan
        stats.append((x[0, : n // 2], x[1]))
    with np.errstate(invalid="ignore"):
        ts, counts = grids.tail_grid_counts(stats, grid=2048, tails=256)
        for (sa, sb), t, c in zip(stats, ts, counts, strict=True):
            one = grids.threshold_grid(np.concatenate([sa, sb]), grid=2048, tails=256)
            assert t.tobytes() == one.tobytes()
            assert all(np.array_equal(x, y) for x, y in zip(c, grids.tail_counts(sa, sb, one), strict=True))


def _shortlist_every_candidate(
    name: str,
    cand: Candidates,
    n_a: int,
    n_b: int,
    obj: selection.Objective,
    certify_total: int,
    test_level: float,
    pessimism: float,
) -> list[selection._Shortlisted]:
    """The selection's shortlist as it was: the `SCREEN_SIZE` best of every candidate."""
    out = []
    for counts_p, counts_q, n_p, n_q, is_p in cand.directions(n_a, n_b):
        rough = obj.value(*selection._rough_bounds(counts_p, counts_q, n_p, n_q, certify_total))
        top = np.argsort(-rough, kind="stable")[: selection.SCREEN_SIZE]
        kp, kq = counts_p[top], counts_q[top]
        v, u = (
            obj.value(
                *projected_bounds(
                    kp,
                    kq,
                    selection_total_p=n_p,
                    selection_total_q=n_q,
                    certify_total_p=certify_total,
                    certify_total_q=certify_total,
                    bound_level=test_level,
                    pessimism=shade,
                )
            )
            for shade in (pessimism, max(pessimism, selection.PLAUSIBLE_PESSIMISM))
        )
        out.append(
            selection._Shortlisted(
                name=name, candidates=cand, dataset_is_p=is_p, index=top, kp=kp, kq=kq, n_p=n_p, n_q=n_q,
                v=v, u=u,
            )
        )
    return out


@pytest.mark.parametrize("kind", ["continuous", "discrete", "vector", "few_values"])
def test_selection_over_runs_of_equal_counts_equals_every_candidate(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(5)
    dists = default_distinguishers()
    objectives = (EpsilonAt(0.0), EpsilonAt(1e-5), GaussianMu())
    for _ in range(4):
        n = int(rng.integers(40, 400))
        shift = float(rng.uniform(0, 1.5))
        if kind == "discrete":
            a = rng.integers(0, 6, (n, 1)).astype(float)
            b = np.minimum(rng.integers(0, 6, (n, 1)) + (shift > 0.7), 6).astype(float)
        elif kind == "vector":
            a, b = rng.normal(size=(n, 4)), rng.normal(size=(n, 4)) + shift
        elif kind == "few_values":  # vectors of a few values per coordinate, as the geometric learners'
            a = rng.integers(0, 3, (n, 6)).astype(float)
            b = rng.integers(0, 3 + (shift > 0.7), (n, 6)).astype(float)
        else:
            a, b = rng.laplace(size=(n, 1)), rng.laplace(size=(n, 1)) + shift
        args = dict(certify_total=5000, test_level=0.01, objectives=objectives, distinguishers=dists)
        got = choose_events(a, b, **args)  # type: ignore[arg-type]
        with monkeypatch.context() as m:
            m.setattr(selection, "_shortlist", _shortlist_every_candidate)
            want = choose_events(a, b, **args)  # type: ignore[arg-type]
        assert got == want


def test_grid_candidates_repeat_counts_in_runs_the_screens_skip() -> None:
    """The runs are what the speed-up rests on: a grid of 2,048 quantiles of 138 values proposes
    far more candidates than it has runs of distinct counts (and each run once when screened)."""
    rng = np.random.default_rng(6)
    a, b = rng.normal(size=(69, 3)), rng.normal(size=(69, 3)) + 0.5
    cand = ThresholdDistinguisher().propose(a, b)
    assert cand is not None
    starts, sizes = count_runs(cand.counts_a, cand.counts_b)
    assert int(sizes.sum()) == cand.counts_a.size and cand.counts_a.size > 10 * starts.size
    ca, cb = cand.counts_a, cand.counts_b
    for s, z in zip(starts, sizes, strict=True):
        assert np.all(ca[s : s + z] == ca[s]) and np.all(cb[s : s + z] == cb[s])
    assert np.all((np.diff(ca[starts]) != 0) | (np.diff(cb[starts]) != 0))


class _Affine:
    """A learned statistic stand-in: w·x + c, non-finite when `broken`."""

    def __init__(self, w: np.ndarray, c: float, broken: bool = False) -> None:
        self.w, self.c, self.broken = w, c, broken

    def apply(self, rows: np.ndarray) -> np.ndarray:
        out = rows @ self.w + self.c
        if self.broken:
            out[0] = np.nan
        return out

    def event(self, threshold: float, upper: bool) -> tuple[float, float, bool]:
        return (float(self.c), threshold, upper)  # type: ignore[return-value]


def test_learned_statistic_candidates_equal_the_statistic_by_statistic_loop() -> None:
    rng = np.random.default_rng(7)
    stats = [_Affine(rng.normal(size=3), float(c), broken=c == 1) for c in range(4)]
    eval_a, eval_b = np.round(rng.normal(size=(150, 3)), 1), np.round(rng.normal(size=(170, 3)), 1) + 0.3
    got = fitted.statistic_candidates(stats, eval_a, eval_b, total_a=300, total_b=340, grid=2048, tails=256)
    ca, cb, specs = [], [], []
    for sc in stats:
        sa, sb = sc.apply(eval_a), sc.apply(eval_b)
        if not (np.all(np.isfinite(sa)) and np.all(np.isfinite(sb))):
            continue
        ts = grids.threshold_grid(np.concatenate([sa, sb]), grid=2048, tails=256)
        ge_a, ge_b, le_a, le_b = grids.tail_counts(sa, sb, ts)
        ca += [ge_a * 2.0, le_a * 2.0]
        cb += [ge_b * 2.0, le_b * 2.0]
        specs += [sc.event(float(t), True) for t in ts] + [sc.event(float(t), False) for t in ts]
    assert got is not None
    assert np.array_equal(got.counts_a, np.concatenate(ca))
    assert np.array_equal(got.counts_b, np.concatenate(cb))
    assert [got.make_event(i) for i in range(len(specs))] == specs


def test_state_bins_from_one_sort_equal_the_masks_per_bin() -> None:
    rng = np.random.default_rng(8)
    for n, steps in ((300, 20), (1000, 7), (40, 3)):
        y = rng.normal(size=(n, steps))
        z = state_trajectory._states(y)
        edges = np.quantile(z.ravel(), np.linspace(0.0, 1.0, state_trajectory.BINS + 1))[1:-1]
        index = np.searchsorted(edges, z)
        got = state_trajectory._binned(y, z, edges)
        assert len(got) == state_trajectory.BINS
        for j, (yj, zj) in enumerate(got):
            assert yj.tobytes() == y[index == j].tobytes() and zj.tobytes() == z[index == j].tobytes()


def test_state_model_moments_equal_the_masks_per_bin(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fitted model (every bin used) is the same as with the per-bin masks it replaced."""

    def masked(y: np.ndarray, z: np.ndarray, edges: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        index = np.searchsorted(edges, z)
        return [(y[index == j], z[index == j]) for j in range(state_trajectory.BINS)]

    rng = np.random.default_rng(9)
    theta_a, theta_b = np.zeros(4000), np.zeros(4000)
    a, b = np.empty((4000, 20)), np.empty((4000, 20))
    for t in range(20):  # a decaying gradient seen through a 10% inclusion mixture, as DP-SGD's
        g = np.minimum(1.0, np.exp(-4.0 * (theta_a - 0.5)))
        a[:, t] = rng.normal(size=4000) + (rng.random(4000) < 0.1) * g
        b[:, t] = rng.normal(size=4000)
        theta_a, theta_b = theta_a + 0.5 * a[:, t], theta_b + 0.5 * b[:, t]
    got = state_trajectory.fit_state_model(a, b, 1, iterates=False)
    monkeypatch.setattr(state_trajectory, "_binned", masked)
    assert got is not None and got == state_trajectory.fit_state_model(a, b, 1, iterates=False)


def test_histogram_declines_on_a_prefix_with_too_many_values() -> None:
    rng = np.random.default_rng(10)
    hist = HistogramDistinguisher(max_bins=64)
    wide = rng.normal(size=(400, 3))  # every row distinct: declined from the first 128 rows
    assert hist.propose(wide, wide) is None
    late = rng.integers(0, 4, (400, 2)).astype(float)
    late[300:] = rng.normal(size=(100, 2))  # few values in the prefix, too many in all
    assert hist.propose(late, late) is None
    few = rng.integers(0, 4, (400, 2)).astype(float)
    cand = hist.propose(few, few[::-1])
    assert cand is not None and cand.counts_a.size > 0


def test_more_distinct_rows_equals_counting_the_rows_bytes() -> None:
    rng = np.random.default_rng(11)
    for trial in range(300):
        n, d = int(rng.integers(1, 400)), int(rng.integers(1, 9))
        rows = rng.integers(0, int(rng.integers(1, 4)), (n, d)).astype(float)
        if trial % 3 == 0:
            rows[rng.random((n, d)) < 0.2] *= -1.0  # −0.0 is another row's bytes than 0.0
        if trial % 5 == 0:
            rows = rng.normal(size=(n, d))
        limit = int(rng.integers(0, 2 * n))
        assert more_distinct_rows(rows, limit) == (np.unique(row_keys(rows)).size > limit)


def _plain_few_distinct(a: np.ndarray, b: np.ndarray, limit: int, repeats: int) -> bool:
    """The gate as each distinguisher computed it before the pair's count was kept."""
    if limit <= 0:
        return False
    pooled = np.concatenate([a, b])
    return bool(np.unique(row_keys(pooled)).size <= min(limit, pooled.shape[0] // repeats))


def test_the_kept_distinct_count_answers_as_a_fresh_count() -> None:
    """`base.few_distinct` keeps what the histogram and earlier gates learned of the pair's
    distinct rows; every later question (any limit, any repeats, after the histogram or not)
    gets the answer a fresh count gives, and a different pair of arrays is never answered from
    the kept one."""
    rng = np.random.default_rng(12)
    few_distinct = distinguishers.base.few_distinct
    for trial in range(200):
        n, d = int(rng.integers(20, 3000)), int(rng.integers(1, 4))
        values = int(rng.choice([2, 5, 40, 5000]))
        a = rng.integers(0, values, (n, d)).astype(float)
        b = rng.integers(0, values, (int(rng.integers(20, 3000)), d)).astype(float)
        if trial % 4 == 0:
            a = rng.normal(size=a.shape)
        if trial % 2 == 0:
            HistogramDistinguisher(max_bins=int(rng.choice([8, 64, 4096]))).propose(a, b)
        for _ in range(3):
            limit, repeats = int(rng.choice([0, 4, 64, 4096])), int(rng.choice([1, 10, 100]))
            want = _plain_few_distinct(a, b, limit, repeats)
            assert few_distinct(a, b, limit=limit, repeats=repeats) == want
        assert few_distinct(a, b, limit=4096, repeats=10) == _plain_few_distinct(a, b, 4096, 10)
        c, e = rng.normal(size=a.shape), b.copy()  # another pair: same shapes, other rows
        assert few_distinct(c, e, limit=4096, repeats=10) == _plain_few_distinct(c, e, 4096, 10)


def _plain_bin_moments(ya: np.ndarray, yb: np.ndarray, za: np.ndarray, zb: np.ndarray) -> np.ndarray | None:
    """`state_trajectory._bin_moments` as it was: quantiles of the unsorted states, a mask per bin."""
    st = state_trajectory
    edges = np.quantile(np.concatenate([za.ravel(), zb.ravel()]), np.linspace(0.0, 1.0, st.BINS + 1))[1:-1]
    ia, ib = np.searchsorted(edges, za), np.searchsorted(edges, zb)
    rows, centred_a, centred_b = [], [], []
    for j in range(st.BINS):
        ra, rb = ya[ia == j], yb[ib == j]
        if ra.size < st.MIN_PER_BIN or rb.size < st.MIN_PER_BIN:
            continue
        knot = float(np.median(np.concatenate([za[ia == j], zb[ib == j]])))
        var_a, var_b = ra.var(), rb.var()
        se_dmu, se_mean = np.sqrt(var_a / ra.size + var_b / rb.size), np.sqrt(var_b / rb.size)
        rows.append((knot, rb.mean(), var_b, ra.mean() - rb.mean(), var_a - var_b, ra.size, se_dmu, se_mean))
        centred_a.append(ra - ra.mean())
        centred_b.append(rb - rb.mean())
    table = np.asarray(rows, dtype=np.float64)
    if table.shape[0] < 2 or np.any(np.diff(table[:, 0]) <= 0) or np.any(table[:, 2] <= 0):
        return None
    ca, cb = np.concatenate(centred_a), np.concatenate(centred_b)
    if float(ca.var() - cb.var()) <= st.EVIDENCE * st.variance_se(ca, cb):
        return None
    return table if st.state_dependent(table) else None


def test_state_bin_moments_from_sorted_states_equal_the_unsorted_quantiles() -> None:
    """Quantile edges and bin medians taken on the pooled states sorted once are those of the
    unsorted states to the last bit, on continuous and on tied (integer-coded) states."""
    rng = np.random.default_rng(13)
    fitted_some = 0
    for trial in range(40):
        n, t = int(rng.integers(200, 3000)), int(rng.integers(2, 30))
        ya, yb = rng.normal(size=(n, t)), rng.normal(size=(n, t))
        ya += (rng.random((n, t)) < 0.2) * np.linspace(2.0, 0.0, t)  # a state-dependent mixture
        if trial % 3 == 0:  # codes: many ties at the edges
            ya, yb = np.rint(ya * 2.0), np.rint(yb * 2.0)
        za, zb = state_trajectory._states(ya), state_trajectory._states(yb)
        got = state_trajectory._bin_moments(ya, yb, za, zb)
        want = _plain_bin_moments(ya, yb, za, zb)
        assert (got is None) == (want is None)
        if got is not None and want is not None:
            fitted_some += 1
            assert got.tobytes() == want.tobytes()
    assert fitted_some >= 5


def test_unique_row_keys_equal_numpys_unique_of_the_rows_bytes() -> None:
    """The histogram's distinct rows grouped on hashes first: the same distinct keys in the same
    order and the same inverse as `np.unique` of the rows' bytes (−0.0 against 0.0, NaNs, one and
    many columns, all distinct or few), and a forced hash collision falls back to `np.unique`."""
    rng = np.random.default_rng(14)
    for trial in range(300):
        n, d = int(rng.integers(1, 2500)), int(rng.integers(1, 70))
        rows = rng.integers(-2, int(rng.integers(1, 5)), (n, d)).astype(float)
        if trial % 3 == 0:
            rows[rng.random((n, d)) < 0.1] *= -1.0
        if trial % 7 == 0:
            rows[rng.random((n, d)) < 0.05] = np.nan
        if trial % 11 == 0:
            rows = rng.normal(size=(n, d))
        want_keys, want_inverse = np.unique(row_keys(rows), return_inverse=True)
        got_keys, got_inverse = unique_row_keys(rows)
        assert got_keys.dtype == want_keys.dtype and got_keys.tobytes() == want_keys.tobytes()
        assert got_inverse.tolist() == want_inverse.reshape(-1).tolist()


def test_unique_row_keys_survive_a_hash_collision(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [0.0, 5.0]])
    monkeypatch.setattr(events, "_row_hashes", lambda r: np.zeros(r.shape[0], dtype=np.uint64))
    keys, inverse = unique_row_keys(rows)
    want_keys, want_inverse = np.unique(row_keys(rows), return_inverse=True)
    assert keys.tobytes() == want_keys.tobytes() and inverse.tolist() == want_inverse.tolist()


def test_rows_in_equals_numpys_isin_of_the_rows_bytes() -> None:
    """`SetEvent`'s membership on hashes checked bit for bit: the same as `np.isin` of the rows'
    bytes, with repeated members, −0.0, NaNs and hash collisions (forced) among them."""
    rng = np.random.default_rng(15)
    for trial in range(300):
        n, m, d = int(rng.integers(1, 2000)), int(rng.integers(1, 40)), int(rng.integers(1, 50))
        rows = rng.integers(-2, 3, (n, d)).astype(float)
        members = rows[rng.integers(0, n, m)] if trial % 2 else rng.integers(-2, 3, (m, d)).astype(float)
        if trial % 5 == 0:
            rows[rng.random((n, d)) < 0.1] *= -1.0
            members[rng.random((m, d)) < 0.1] *= -1.0
        if trial % 7 == 0:
            rows[rng.random((n, d)) < 0.05] = np.nan
        want = np.isin(row_keys(rows), row_keys(members))
        assert events.rows_in(rows, members).tolist() == want.tolist()


def test_rows_in_survives_hash_collisions(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [0.0, 5.0]])
    for members in (np.array([[1.0, 2.0]]), np.array([[1.0, 2.0], [0.0, 5.0]]), np.array([[9.0, 9.0]])):
        want = np.isin(row_keys(rows), row_keys(members)).tolist()
        monkeypatch.setattr(events, "_row_hashes", lambda r: np.zeros(r.shape[0], dtype=np.uint64))
        assert events.rows_in(rows, members).tolist() == want  # every row's hash matches a member's
        monkeypatch.undo()


@pytest.mark.parametrize("width", [2, 3, 7, 16, 17, 42])
def test_row_hashes_added_column_by_column_equal_one_reduction(width: int) -> None:
    """`events._row_hashes` adds few columns one by one: the same uint64 sums (mod 2**64) as the
    reduction over the row, for widths on both sides of `_COLUMN_SUM_MAX`."""
    rng = np.random.default_rng(width)
    rows = rng.normal(size=(500, width))
    rows[::3] = np.round(rows[::3])  # repeated rows and integral values too
    bits = rows.view(np.uint64)
    mixed = (bits ^ (bits >> np.uint64(32))) * events._ROW_HASH[:width]
    reference = (mixed ^ (mixed >> np.uint64(29))).sum(axis=1, dtype=np.uint64)
    assert np.array_equal(events._row_hashes(rows), reference)
