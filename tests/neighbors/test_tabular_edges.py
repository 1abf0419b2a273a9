"""Tabular columns at the edges of the doubles (issue 44, item 6): a numeric column over the whole
double range, and NaN / ±inf declared as record values (`NumericColumn(specials=...)`).

A release that raises on NaN input (scikit-learn's "Input X contains NaN", the input validation
where libraries break) is found blind at 1,000 samples per side once NaN is declared: the box's
corner puts the special in a row, the raise happens on that side only (an infinite witness);
its careful twin (NaN mapped to a bound, then clipped) is not flagged."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dpaudit
from dpaudit import CategoricalColumn, ClaimKind, NumericColumn, PrivacyClaim, Relation
from dpaudit.neighbors.base import Dataset, are_neighbors
from dpaudit.neighbors.tabular import TabularSpace, tabular_pairs

BIG = float(np.finfo(np.float64).max)
CLAIM = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="fake", kind=ClaimKind.PROVED)
SPECIAL = (
    NumericColumn(name="v", low=0.0, high=1.0, specials=(float("inf"), float("nan"))),
    CategoricalColumn(name="c", categories=("a", "b")),
)


def _clipped_sum(table: Any, rng: np.random.Generator) -> np.ndarray:
    v = np.asarray(table["v"], dtype=np.float64)
    return np.array([np.clip(v, -1.0, 1.0).sum() + rng.laplace(0.0, 2.0)])


def _reads_huge(table: Any, rng: np.random.Generator) -> np.ndarray:
    v = np.asarray(table["v"], dtype=np.float64)
    return np.array([np.clip(v, -1.0, 1.0).sum() + 10.0 * float(np.sum(v > 1e300)) + rng.laplace(0, 2.0)])


def _strict(table: Any, rng: np.random.Generator) -> np.ndarray:
    v = np.asarray(table["v"], dtype=np.float64)
    if np.isnan(v).any():
        raise ValueError("Input X contains NaN.")
    return np.array([np.clip(np.nan_to_num(v, posinf=1.0), 0, 1).sum() + rng.laplace(0.0, 1.0)])


def _careful(table: Any, rng: np.random.Generator) -> np.ndarray:
    v = np.nan_to_num(np.asarray(table["v"], dtype=np.float64), nan=0.0, posinf=1.0, neginf=0.0)
    return np.array([np.clip(v, 0, 1).sum() + rng.laplace(0.0, 1.0)])


@pytest.mark.parametrize("clips", [False, True])
def test_a_full_range_column_has_a_finite_box(clips: bool) -> None:
    col = NumericColumn(name="v", low=-BIG, high=BIG, clips=clips)
    assert col.record_range() == (-BIG, BIG)
    lo, hi = TabularSpace(columns=(col,)).domain().bounds()
    assert np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))


def test_a_full_range_column_is_audited_blind() -> None:
    cols = (NumericColumn(name="v", low=-BIG, high=BIG, clips=False),)
    clean = dpaudit.from_release(_clipped_sum, columns=cols, claim=CLAIM, name="clean", max_size=8)
    result = dpaudit.audit(clean, num_samples=1000, seed=0)
    assert result.verdict is not dpaudit.Verdict.VIOLATION_FOUND
    buggy = dpaudit.from_release(_reads_huge, columns=cols, claim=CLAIM, name="huge", max_size=8)
    assert dpaudit.audit(buggy, num_samples=2000, seed=0).verdict is dpaudit.Verdict.VIOLATION_FOUND


def test_specials_decode_encode_and_keep_neighbours() -> None:
    space = TabularSpace(columns=SPECIAL)
    lo, hi = space.domain().bounds()
    assert space.domain().num_features == 3 and (lo[1], hi[1]) == (0.0, 2.0)
    ds = Dataset(np.array([[0.3, 0.0, 1.0], [0.7, 1.2, 0.0], [0.1, 2.0, 1.0]]))
    table = space.decode(ds)
    assert table["v"][0] == 0.3 and table["v"][1] == np.inf and np.isnan(table["v"][2])
    assert np.array_equal(space.encode({k: list(v) for k, v in table.items()}).X[:, 1], [0.0, 1.0, 2.0])
    for pair in tabular_pairs(space, Relation.REPLACE_ONE):
        assert are_neighbors(pair.dataset, pair.neighbor, Relation.REPLACE_ONE)
    named = [p.description for p in tabular_pairs(space, Relation.REPLACE_ONE)]
    assert "replace a row by a non-number (special code 2)" in named
    with pytest.raises(ValueError, match="specials"):
        NumericColumn(name="w", low=0.0, high=1.0, specials=(1.0,))
    with pytest.raises(ValueError, match="not among its specials"):
        space.encode({"v": [-np.inf], "c": ["a"]})


def test_a_raise_on_nan_input_is_found_blind_and_the_careful_twin_is_not() -> None:
    strict = dpaudit.from_release(
        _strict, columns=SPECIAL, claim=CLAIM, name="strict", max_size=8, exceptions=(ValueError,)
    )
    result = dpaudit.audit(strict, num_samples=1000, seed=0)
    assert result.verdict is dpaudit.Verdict.VIOLATION_FOUND
    assert "raised ValueError: Input X contains NaN." in result.pairs[0].estimate.event
    careful = dpaudit.from_release(
        _careful, columns=SPECIAL, claim=CLAIM, name="careful", max_size=8, exceptions=(ValueError,)
    )
    assert dpaudit.audit(careful, num_samples=1000, seed=0).verdict is not dpaudit.Verdict.VIOLATION_FOUND
