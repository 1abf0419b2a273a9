"""The shipped white-box cache (`mechanisms/whitebox_cache.json`): every registered pair has its
entry, the entries are what the oracles compute, and an audit reads them instead of the oracle."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from typing import Any

import pytest

from dpaudit.engine.runner import whitebox
from dpaudit.mechanisms import whitebox_cache
from dpaudit.mechanisms.oracle_budget import LIMITS
from dpaudit.mechanisms.registry import entries

REBUILD = "rebuild with `python -m dpaudit.mechanisms.whitebox_cache --write`"


def _shipped() -> list[dict[str, Any]]:
    return list(json.loads(whitebox_cache.CACHE_FILE.read_text(encoding="utf-8"))["entries"])


def _within_budget(entry: dict[str, Any]) -> bool:
    return all(spent <= LIMITS[unit] for unit, spent in entry["work"].items())


RECHECK_TERMS = 2e6
"""Entries recomputed here: every one whose oracle sums at most this many softmax terms (about
0.1 s of one core; 361 of 522 entries, 15 s in all) and each mechanism's cheapest when it is
within the live budget; all of them
with `python -m dpaudit.mechanisms.whitebox_cache --check` (minutes)."""

BY_MECHANISM: dict[str, list[dict[str, Any]]] = defaultdict(list)
for _e in _shipped():
    BY_MECHANISM[_e["mechanism"]].append(_e)


def _rechecked(entries_of: list[dict[str, Any]]) -> list[dict[str, Any]]:
    cheapest = min(entries_of, key=lambda e: sum(e["work"].values()))
    if not _within_budget(cheapest):  # minutes of one core: left to --check
        cheapest = {}
    return [e for e in entries_of if e is cheapest or e["work"].get("softmax terms", 0) <= RECHECK_TERMS]


def test_every_registered_pair_has_its_shipped_entry() -> None:
    shipped = {e["key"] for e in _shipped()}
    missing = [
        f"{name} pair {i}"
        for name, i, mech, pair, delta in whitebox_cache.registered_cases()
        if whitebox_cache.cache_key(mech, pair, delta) not in shipped
    ]
    assert not missing, f"no shipped white-box value for {missing[:10]} ({len(missing)}): {REBUILD}"


@pytest.mark.parametrize("name", sorted(BY_MECHANISM))
def test_shipped_values_are_the_oracles(name: str) -> None:
    """The shipped values are the oracles' (a sample: `RECHECK_TERMS`)."""
    if name not in entries():
        pytest.fail(f"{name} is no longer registered: {REBUILD}")
    mech = entries()[name].build()
    pairs = list(mech.neighbor_pairs())  # type: ignore[attr-defined]
    for e in _rechecked(BY_MECHANISM[name]):
        pair = pairs[e["pair"]]
        assert whitebox_cache.cache_key(mech, pair, e["delta"]) == e["key"], REBUILD
        got, _ = whitebox_cache.compute(mech, pair, e["delta"])
        want = e["exact_epsilon"]
        if want is None:
            assert got.epsilon is None and got.note == e["note"], (name, e["pair"])
        else:
            assert got.epsilon is not None and math.isclose(
                got.epsilon, float(want), rel_tol=1e-9, abs_tol=1e-12
            ), (
                name,
                e["pair"],
                got,
                want,
                REBUILD,
            )


def test_an_audit_reads_the_shipped_value_and_a_live_oracle_declines_over_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The most expensive registered pair: the reference is the shipped value without running
    the oracle; run live (no cache) under a budget it exceeds, it declines with the reason."""
    over = [e for e in _shipped() if not _within_budget(e) and e["exact_epsilon"] is not None]
    assert over, "expected at least one registered pair whose oracle exceeds its live budget"
    e = max(over, key=lambda x: sum(x["work"].values()))
    mech = entries()[e["mechanism"]].build()
    pair = mech.neighbor_pairs()[e["pair"]]  # type: ignore[attr-defined]
    calls: list[int] = []
    cls = type(mech)
    real = cls.exact_epsilon  # type: ignore[attr-defined]
    monkeypatch.setattr(cls, "exact_epsilon", lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    ref = whitebox.white_box_reference(mech, pair, delta=e["delta"])
    assert ref.epsilon == max(float(e["exact_epsilon"]), 0.0) and not calls
    monkeypatch.setattr(whitebox, "lookup", lambda *a: None)
    monkeypatch.setattr(whitebox, "BUDGET_SCALE", 1e-3)  # decline early: the test stays fast
    ref = whitebox.white_box_reference(mech, pair, delta=e["delta"])
    assert ref.epsilon is None and "work budget" in ref.note and calls
