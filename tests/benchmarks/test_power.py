"""benchmarks/power.py: the white-box pair search and the row verdicts it prints."""

from __future__ import annotations

import dataclasses

import pytest

from benchmarks.power import PowerRow, status, white_box_search
from dpaudit.mechanisms.reference import LaplaceSum, RandomizedResponse


def test_white_box_search_reaches_the_known_worst_case() -> None:
    """Randomized response is ε-DP with every replace-one pair at exactly ε: the search's best
    is ε; on the Laplace sum the range-spanning pair's ε = claim is found from templates alone."""
    rr = RandomizedResponse(epsilon=1.3)
    best, tried, scored, desc, data = white_box_search(rr, rr.neighbor_pairs(), delta=0.0, seconds=2.0)
    assert best == pytest.approx(1.3) and scored >= 1 and tried >= scored and desc and data
    lap = LaplaceSum(epsilon=0.7)
    best, _, scored, _, _ = white_box_search(lap, (), delta=0.0, seconds=2.0)
    assert scored > 1 and best == pytest.approx(0.7)


def test_row_status_words() -> None:
    row = PowerRow(
        name="x",
        family="000,001",
        twin_of=None,
        detectable=True,
        claim=1.0,
        registered_exact=0.5,
        search_exact=0.5,
        search_ranked=1,
        search_tried=1,
        search_best_pair="p",
        search_best_data="",
        certified=0.4,
        exit_code=0,
        utility=None,
        utility_bound=None,
        seconds=1.0,
    )
    assert status(row) == "ok"
    assert status(dataclasses.replace(row, exit_code=1)) == "FALSE ALARM"
    twin = dataclasses.replace(row, twin_of="y")
    assert status(dataclasses.replace(twin, exit_code=1)) == "caught"
    assert status(twin) == "missed"
    assert status(dataclasses.replace(twin, detectable=False)) == "missed (listed undetectable)"


def test_pair_text_prints_an_empty_side() -> None:
    """An add/remove pair against the empty dataset (the keep-positives twins' pair) prints."""
    import numpy as np

    from benchmarks.power import pair_text
    from dpaudit.neighbors.base import Dataset, NeighborPair, Relation

    pair = NeighborPair(
        dataset=Dataset(np.zeros((0, 2))),
        neighbor=Dataset(np.ones((1, 2))),
        relation=Relation.ADD_REMOVE_ONE,
        description="one record vs none",
    )
    assert pair_text(pair).splitlines()[1:] == ["      A: (empty)", "      B: (1,1)x1"]
