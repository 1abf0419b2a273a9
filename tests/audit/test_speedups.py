"""The main job's speed-ups change no figure (issue 44, last "Done when" item): each faster path is
checked against the computation it replaced, to the last bit.

- Clopper–Pearson bounds evaluate the inverse incomplete beta once per distinct (a, b) pair;
- the magnitude distinguisher's sign and tail checks run over all columns at once;
- the pilot projects every distinguisher's screened events in one call and keeps the first best.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from scipy import special

from dpaudit.engine import bounds
from dpaudit.engine.bounds import cp_lower, cp_upper, epsilon_from_bounds, projected_bounds
from dpaudit.engine.distinguishers import (
    DEFAULT_DISTINGUISHERS,
    Distinguisher,
    for_outputs,
    magnitude,
    pilot_distinguishers,
)
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

    monkeypatch.setattr(bounds.special, "betaincinv", counting)
    cp_lower(k, 16, 0.25)
    assert evaluated == [np.unique(k[k > 0]).size]


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
            top = ranking._screened(kp, kq, n_p, n_q, total, delta)
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
