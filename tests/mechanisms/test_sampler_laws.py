"""Faster samplers, same law (issue 28, item 2).

Each fast sampler here keeps the generator's calls (order and sizes) of the code it replaces and
computes the same function of them, so the check is stronger than a two-sample test: at fixed
seeds the new outputs equal the old ones, bit for bit (SetCoverLearner's per-state engine) or up
to float rounding (HS-StL on distinct examples with multiplicities). A test failing here means
the law changed (or the stream did), whatever the tolerance of a statistical test would say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from dpaudit.mechanisms.boosting.hsstl import HSStL, project_dense
from dpaudit.mechanisms.geometric import scl_fast
from dpaudit.mechanisms.geometric.scl import SetCoverLearner
from dpaudit.mechanisms.registry import entries
from dpaudit.neighbors.base import Dataset


def _scl_names() -> list[str]:
    out = []
    for name, e in entries().items():
        if e.family == "002" and isinstance(e.build(), SetCoverLearner):
            out.append(name)
    return out


def _generic(mech: Any, dataset: Dataset, n: int, seed: int, monkeypatch: pytest.MonkeyPatch) -> NDArray[Any]:
    with monkeypatch.context() as m:
        m.setattr(scl_fast, "applicable", lambda *a, **k: False)
        return np.asarray(mech.sample(dataset, n, rng=np.random.default_rng(seed)))


def _fast(mech: Any, dataset: Dataset, n: int, seed: int) -> NDArray[Any]:
    return np.asarray(mech.sample(dataset, n, rng=np.random.default_rng(seed)))


@pytest.mark.parametrize("name", _scl_names())
def test_set_cover_fast_engine_equals_generic_on_registered_pairs(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every registered SetCoverLearner (correct and twins), every registered pair, both sides:
    identical outputs at the same seed (twins that override a step hook take the generic
    engine either way, which this also pins)."""
    mech: Any = entries()[name].build()
    for i, pair in enumerate(mech.neighbor_pairs()):
        for side in (pair.dataset, pair.neighbor):
            a = _generic(mech, side, 600, i, monkeypatch)
            b = _fast(mech, side, 600, i)
            assert np.array_equal(a, b), f"{name} pair {i} (n = {side.n})"


def _random_grid_dataset(rng: np.random.Generator, d: int, rows: int) -> Dataset:
    X = rng.integers(0, d + 1, size=(rows, 2)).astype(float)
    y = (rng.random(rows) < 0.5).astype(float)
    return Dataset(X, y)


@pytest.mark.parametrize(
    "name", ["geo_halfplane_grid4", "geo_union_grid3", "geo_conj_small", "geo_keep_pos_hunt"]
)
def test_set_cover_fast_engine_equals_generic_on_wide_supports(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Generated-pair-like data: many support points, hundreds of groups (the bisection draw,
    lazy states and rows), more runs than one batch."""
    mech = entries()[name].build()
    rng = np.random.default_rng(11)
    for trial in range(2):
        if name == "geo_conj_small":
            X = (rng.random((40, 16)) < 0.5).astype(float)
            ds = Dataset(X, (rng.random(40) < 0.5).astype(float))
        else:
            ds = _random_grid_dataset(rng, 4 if name != "geo_union_grid3" else 3, 40)
        n = 9000 if trial == 0 and name == "geo_halfplane_grid4" else 700
        assert np.array_equal(_generic(mech, ds, n, trial, monkeypatch), _fast(mech, ds, n, trial)), name


def test_set_cover_fast_engine_equal_when_its_caches_overflow(monkeypatch: pytest.MonkeyPatch) -> None:
    """The row and state budgets (memory bounds) only clear caches: outputs stay identical."""
    mech = entries()["geo_halfplane_grid4"].build()
    ds = _random_grid_dataset(np.random.default_rng(3), 4, 50)
    want = _generic(mech, ds, 2000, 5, monkeypatch)
    monkeypatch.setattr(scl_fast, "ROW_BUDGET", 4000)
    monkeypatch.setattr(scl_fast, "STATE_BUDGET", 4)
    monkeypatch.setattr(scl_fast, "MIN_STATES", 3)
    assert np.array_equal(want, _fast(mech, ds, 2000, 5))


def test_set_cover_fast_engine_is_used_by_the_correct_learners() -> None:
    """The speed-up is real only if the correct learners take it."""
    for name in _scl_names():
        e = entries()[name]
        mech: Any = e.build()
        tab, _ = mech.table(mech.neighbor_pairs()[0].dataset)
        W = mech.noise(np.random.default_rng(0), 4, mech.T)
        if not e.buggy:
            assert scl_fast.applicable(mech, SetCoverLearner, tab, W), name


@dataclass(frozen=True, slots=True, kw_only=True)
class _HSStLGeneric(HSStL):
    """HS-StL on every example (overriding `_weights` turns the distinct-example path off)."""

    name: str = "hs_stl"

    def _weights(self, log_mu: NDArray[np.float64]) -> NDArray[np.float64]:
        return project_dense(log_mu, self.kappa) / (self.kappa * self.n)


def test_hsstl_on_distinct_examples_equals_every_example() -> None:
    """Registered pairs (duplicates: 2 distinct examples of 40) and a dataset with a few
    repeated values: the same transcripts at the same seed, up to float rounding."""
    fast, slow = HSStL(), _HSStLGeneric()
    rng = np.random.default_rng(4)
    X = rng.choice([-1.0, -0.5, 0.25, 1.0], size=(40, 1))
    y = rng.choice([-1.0, 1.0], size=40)
    sides = [s for p in fast.neighbor_pairs() for s in (p.dataset, p.neighbor)] + [Dataset(X, y)]
    for i, side in enumerate(sides):
        a = slow.sample(side, 3000, rng=np.random.default_rng(i))
        b = fast.sample(side, 3000, rng=np.random.default_rng(i))
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-9)


def test_weighted_projection_equals_the_projection_of_the_expanded_rows() -> None:
    rng = np.random.default_rng(8)
    for _ in range(20):
        mult = rng.integers(1, 6, size=5).astype(float)
        log_mu = np.log(0.25) - 2.0 * rng.random((50, 5)) * rng.integers(0, 4, size=(50, 1))
        expanded = np.repeat(log_mu, mult.astype(int), axis=1)
        want = project_dense(expanded, 0.25)
        got = np.repeat(project_dense(log_mu, 0.25, mult), mult.astype(int), axis=1)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["private_decision_list_medium", "private_decision_list"])
def test_decision_list_dropping_finished_runs_changes_no_output(name: str) -> None:
    """Runs whose truth table is final leave the working arrays; the outputs are those of
    running every run through all |F| + 1 steps (same seed, bit for bit)."""
    _same_outputs_with_shortcut_off(name, "drop_finished_runs", 2000)


def _same_outputs_with_shortcut_off(name: str, flag: str, num_samples: int) -> None:
    """The registered mechanism's outputs equal, bit for bit at the same seed, those of its class
    with the class flag `flag` (a sampler shortcut) set to False, on every registered pair."""
    mech: Any = entries()[name].build()
    full = type("Full", (type(mech),), {flag: False, "__slots__": ()})()
    for i, pair in enumerate(mech.neighbor_pairs()):
        for side in (pair.dataset, pair.neighbor):
            a = full.sample(side, num_samples, rng=np.random.default_rng(i))
            b = mech.sample(side, num_samples, rng=np.random.default_rng(i))
            assert np.array_equal(a, b), f"{name} pair {i}"


def test_set_cover_results_do_not_depend_on_the_number_of_workers() -> None:
    """An audit of every registered geo_conj_small pair gives the same events and bounds in one
    process and on two workers (a table shared across `sample` calls once served the wrong
    dataset, so pair 8 chose `fisher(x) ≥ 7.70` on two workers and `≤ −5.55` in one process)."""
    from dpaudit.engine.runner.procedure import run_audit
    from dpaudit.engine.types import AuditConfig

    mech = entries()["geo_conj_small"].build()
    pairs = list(mech.neighbor_pairs())
    runs = [run_audit(mech, pairs, AuditConfig(num_samples=50_000, seed=0, jobs=j)) for j in (1, 2)]
    one, two = ([(p.estimate.event, p.estimate.epsilon_lower_bound) for p in r.pairs] for r in runs)
    assert one == two


def _lwy_names() -> list[str]:
    from dpaudit.mechanisms.agnostic.lwy import AgnosticLearner

    return [n for n, e in entries().items() if isinstance(e.build(), AgnosticLearner)]


@pytest.mark.parametrize("name", _lwy_names())
def test_lwy_output_law_once_per_distinct_split_changes_no_output(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Li–Wang–Ye learners (the agnostic learner, private prediction, the amplified learner)
    compute a run's relabelling / output law once per distinct split in a block; the outputs
    equal computing it for every run (same seed, bit for bit), on every registered pair, twins
    included."""
    from dpaudit.mechanisms.agnostic import amplified, lwy

    mech: Any = entries()[name].build()

    def every_row(counts: NDArray[Any]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        rows = np.arange(counts.shape[0])
        return rows, rows

    for i, pair in enumerate(mech.neighbor_pairs()):
        for side in (pair.dataset, pair.neighbor):
            fast = mech.sample(side, 800, rng=np.random.default_rng(i))
            with monkeypatch.context() as m:
                m.setattr(lwy, "distinct_rows", every_row)
                m.setattr(amplified, "distinct_rows", every_row)
                slow = mech.sample(side, 800, rng=np.random.default_rng(i))
            assert np.array_equal(fast, slow), f"{name} pair {i}"


def test_distinct_rows_packs_and_falls_back_alike() -> None:
    """`distinct_rows` gives the same grouping through its packed int64 key and through
    `np.unique(axis=0)` (forced by counts too large to pack)."""
    from dpaudit.mechanisms.agnostic._common import distinct_rows

    rng = np.random.default_rng(3)
    small = rng.integers(0, 3, size=(500, 6)).astype(float)
    for counts in (small, small * 2.0**40):
        first, inverse = distinct_rows(counts)
        assert np.array_equal(counts[first][inverse], counts)
        assert len(first) == len({tuple(r) for r in counts})


def _winnow_names() -> list[str]:
    from dpaudit.mechanisms.decision_lists.winnow import DPWinnow

    return [n for n, e in entries().items() if isinstance(e.build(), DPWinnow)]


@pytest.mark.parametrize("name", _winnow_names())
def test_winnow_skipping_capped_runs_changes_no_output(name: str) -> None:
    """DP-Winnow's sampler stops updating a run once it reached its cap of updates (its release
    is final) but still draws its per-round Laplace noise; the outputs equal the straightforward
    loop over every run (a reference copy below), same seed, bit for bit, twins included."""
    mech: Any = entries()[name].build()
    for i, pair in enumerate(mech.neighbor_pairs()):
        for side in (pair.dataset, pair.neighbor):
            fast = mech.sample(side, 1500, rng=np.random.default_rng(i))
            slow = _winnow_every_run(mech, side, 1500, np.random.default_rng(i))
            assert np.array_equal(fast, slow), f"{name} pair {i}"


def _winnow_every_run(mech: Any, dataset: Dataset, R: int, rng: np.random.Generator) -> NDArray[Any]:
    """DP-Winnow's loop as first written: every run updated on every round."""
    Z = mech.features(dataset.X)
    y = np.asarray(dataset.y, dtype=np.float64) if dataset.y is not None else np.ones(dataset.n)
    yz = y[:, None] * Z
    d, T, cap, m = Z.shape[1], mech.horizon, mech._cap(), mech.num_draws
    theta, b_thr, b_q = mech.margin / 2, 2.0 / mech.epsilon0, 4.0 / mech.epsilon0
    s, wt = np.zeros((R, d)), np.full((R, d), 1.0 / d)
    k, cnt, first = np.zeros(R, dtype=np.intp), np.zeros(R), np.full(R, -1, dtype=np.intp)
    lhat = mech.threshold + rng.laplace(0.0, b_thr, size=R)
    out_t, out_c = np.full((R, cap), T + 1, dtype=np.int32), np.zeros((R, cap, d), dtype=np.int32)
    shadow = np.zeros((R, cap, d)) if mech.release_shadow else None
    for t in range(T):
        if mech.cache_on_shadow:
            sh = np.exp(s - s.max(axis=1, keepdims=True))
            cached = (sh @ yz[t]) / sh.sum(axis=1) < theta
        else:
            cached = (wt @ yz[t]) < theta
        first = np.where(cached & (first < 0), t, first)
        cnt += cached
        noisy = cnt + rng.laplace(0.0, b_q, size=R)
        idx = np.flatnonzero((k < cap) & (noisy >= lhat) & mech._queried(cached))
        if idx.size == 0:
            continue
        upd = idx[first[idx] >= 0]
        s[upd] += mech.run_learning_rate() * yz[first[upd]]
        p = np.exp(s[idx] - s[idx].max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        counts = rng.multinomial(m, p)
        wt[idx] = counts / m
        out_t[idx, k[idx]], out_c[idx, k[idx]] = t + 1, counts
        if shadow is not None:
            shadow[idx, k[idx]] = p
        k[idx] += 1
        cnt[idx], first[idx] = 0, -1
        if mech.reinitialise_svt:
            lhat[idx] = mech.threshold + rng.laplace(0.0, b_thr, size=idx.size)
    parts = [out_t.astype(np.float64), out_c.reshape(R, cap * d).astype(np.float64)]
    if shadow is not None:
        parts.append(shadow.reshape(R, cap * d))
    return np.concatenate(parts, axis=1)


def _winnow_names() -> list[str]:
    from dpaudit.mechanisms.decision_lists.winnow import DPWinnow

    return [n for n, e in entries().items() if isinstance(e.build(), DPWinnow)]


@pytest.mark.parametrize("name", _winnow_names())
def test_winnow_stopping_once_every_run_is_capped_changes_no_output(name: str) -> None:
    """DP-Winnow stops drawing once every run has made its last update; the outputs are those of
    drawing the query noise through the whole stream (same seed, bit for bit), on every registered
    variant (the twins change the cache test, the SVT schedule, the cap)."""
    _same_outputs_with_shortcut_off(name, "stop_when_final", 3000)


@pytest.mark.parametrize("width", [1, 19, 63, 64, 70])
def test_set_cover_probe_columns_on_bits_equal_the_row_by_row_ones(width: int) -> None:
    """The released probe columns, taken on int64 bit masks where the probe fits (≤ 63 points),
    equal the row-by-row computation they replaced: OR of the removals, and the first removing
    step written from the last step to the first (wider probes take that computation itself)."""
    rng = np.random.default_rng(width)
    removes = rng.random((30, width)) < 0.1
    h = rng.integers(0, 30, size=(12, 500))
    seen = np.zeros((500, width), dtype=bool)
    first = np.full((500, width), 15, dtype=np.int32)
    for j in range(12):
        seen |= removes[h[j]]
    for j in range(11, -1, -1):
        first[removes[h[j]]] = j + 1
    assert np.array_equal(scl_fast._ever_removed(removes, h), seen)
    assert np.array_equal(scl_fast._first_removal(removes, h, 14), first)
    assert seen.any() and not seen.all() and (first <= 12).any() and (first == 15).any()


def _rows_select(logw: np.ndarray, avail: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """The decision-list learner's selection as it was written one run per row (the reference)."""
    top = np.where(avail, logw, -np.inf).max(axis=1, keepdims=True)
    w = np.exp(np.minimum(logw - top, 0.0)) * avail
    cum = np.cumsum(w, axis=1)
    u = uniform * cum[:, -1]
    return np.minimum((cum <= u[:, None]).sum(axis=1), logw.shape[1] - 1)


def _rows_sample(mech: Any, dataset: Dataset, num_samples: int, rng: np.random.Generator) -> np.ndarray:
    """The decision-list sampler as it was written one run per row, without dropping finished runs
    (the reference the faster sampler is pinned to)."""
    from dpaudit.mechanisms.decision_lists.rivest import evaluate_features

    feats = mech.features_for(dataset)
    Xu, ypos, mult = mech._compress(dataset)
    Fd = evaluate_features(feats, Xu).astype(np.float64)
    Fp_bool = evaluate_features(feats, mech.probe)
    pos, neg = mult * ypos, mult * ~ypos
    R, Fp, P = num_samples, Fd.shape[1], Fp_bool.shape[0]
    c = mech.weight()
    mask = np.ones((R, Xu.shape[0]), dtype=bool)
    used = np.zeros((R, Fp), dtype=bool)
    assigned = np.zeros((R, P), dtype=bool)
    pred = np.full((R, P), -1, dtype=np.int8)
    for _ in range(Fp):
        uniform = rng.random(R)
        m = mech.score_mask(mask).astype(np.float64)
        logw = np.concatenate([-c * ((m * neg) @ Fd), -c * ((m * pos) @ Fd)], axis=1)
        choice = _rows_select(logw, np.concatenate([~used, ~used], axis=1), uniform)
        f, b = choice % Fp, (choice < Fp).astype(np.int8)
        active = np.asarray(mask.any(axis=1)) if mech.stop_when_covered else np.ones(R, dtype=bool)
        if not active.any():
            break
        mask &= ~(mech.removed(Fd[:, f].T > 0.5, b, ypos) & active[:, None])
        newly = Fp_bool[:, f].T & ~assigned & active[:, None]
        pred = np.where(newly, b[:, None], pred)
        assigned |= newly
        used[np.arange(R)[active], f[active]] = True
    return pred


def _decision_list_names() -> list[str]:
    from dpaudit.mechanisms.decision_lists.rivest import PrivateDecisionList

    return [n for n, e in entries().items() if isinstance(e.build(), PrivateDecisionList)]


@pytest.mark.parametrize("name", _decision_list_names())
def test_decision_list_sampler_equals_the_run_per_row_reference(name: str) -> None:
    """The decision-list learner's sampler (features × runs arrays, weights accumulated in place)
    gives the outputs of the run-per-row sampler it replaced, bit for bit, on every registered
    variant (the twins change the weight, the score, the removal and the stopping rule), on its
    registered pairs and on random datasets with repeated records."""
    mech: Any = entries()[name].build()
    rng = np.random.default_rng(7)
    sides = [s for p in mech.neighbor_pairs() for s in (p.dataset, p.neighbor)]
    for n in (5, 12):
        X = (rng.random((n, mech.num_features)) < 0.4).astype(float)
        sides.append(Dataset(X, (rng.random(n) < 0.5).astype(float)))
    for i, side in enumerate(sides):
        want = _rows_sample(mech, side, 1500, np.random.default_rng(i))
        got = mech.sample(side, 1500, rng=np.random.default_rng(i))
        assert np.array_equal(want, got), f"{name} side {i}"
