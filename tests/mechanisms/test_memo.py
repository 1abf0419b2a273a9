"""`mechanisms.memo`: a table or guide reused from an earlier call changes no draw (the set-cover
learners' per-dataset tables, the convex probe's arrangement table, the fast engine's guides)."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.mechanisms.geometric import scl, scl_fast
from dpaudit.mechanisms.memo import Memo
from dpaudit.mechanisms.registry import resolve
from dpaudit.neighbors.base import Dataset


def test_make_runs_once_per_key_and_the_oldest_entry_goes_first() -> None:
    memo, calls = Memo(2), []
    a, b, c = object(), object(), object()

    def make(tag: str) -> str:
        calls.append(tag)
        return tag

    assert memo.get((a,), 1, lambda: make("a1")) == "a1"
    assert memo.get((a,), 1, lambda: make("again")) == "a1"  # kept
    assert memo.get((b,), 1, lambda: make("b1")) == "b1"  # another object: its own entry
    assert memo.get((a,), 2, lambda: make("a2")) == "a2"  # another extra: its own entry; a1 dropped
    assert memo.get((b,), 1, lambda: make("b1 anew")) == "b1"  # kept, and now the latest used
    assert memo.get((a,), 1, lambda: make("a1 anew")) == "a1 anew"  # a2 dropped
    assert memo.get((c,), 1, lambda: make("c1")) == "c1"  # b1 dropped
    assert memo.get((b,), 1, lambda: make("b1 anew")) == "b1 anew"
    assert calls == ["a1", "b1", "a2", "a1 anew", "c1", "b1 anew"]


@pytest.mark.parametrize("name", ["geo_union_grid3", "geo_conj_small", "geo_convex_probe"])
def test_draws_are_the_same_from_kept_tables_as_from_fresh_ones(name: str) -> None:
    mech, _ = resolve(name)
    pair = mech.neighbor_pairs()[0]
    copy = Dataset(pair.dataset.X.copy(), None if pair.dataset.y is None else pair.dataset.y.copy())

    def draws(dataset: Dataset, seed: int) -> bytes:
        return np.asarray(mech.sample(dataset, 300, rng=np.random.default_rng(seed))).tobytes()

    scl.TABLES.clear()
    scl_fast.GUIDES.clear()
    fresh = [draws(pair.dataset, s) for s in (1, 2)]
    scl.TABLES.clear()
    scl_fast.GUIDES.clear()
    fresh.append(draws(pair.neighbor, 3))
    scl.TABLES.clear()
    scl_fast.GUIDES.clear()
    warm = draws(pair.dataset, 0)  # fills the memos
    kept = [draws(pair.dataset, 1), draws(copy, 2)]  # the same object, then equal content
    kept.append(draws(pair.neighbor, 3))  # other content: its own table
    assert kept == fresh
    assert warm != fresh[0]  # the seed still matters
