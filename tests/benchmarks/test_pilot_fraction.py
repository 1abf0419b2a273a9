"""`benchmarks/pilot_fraction.py`: twins through the sequential default route at several pilot
fractions, and its table (rows only where the search mattered or a fraction changed the verdict)."""

from __future__ import annotations

from benchmarks.pilot_fraction import Outcome, audit, label, parse, table, twins


def test_a_twin_decided_in_the_first_round_draws_no_pilot() -> None:
    o = audit("laplace_sum_range_bug", 0.05, 0)
    assert o.violation and o.first_round and o.pilot == 0 and o.detectable
    assert "laplace_sum_range_bug" in twins() and "laplace_sum" not in twins()


def _o(name: str, fraction: float | None, violation: bool, *, first: bool = False, pilot: int = 0) -> Outcome:
    return Outcome(
        name=name,
        fraction=fraction,
        violation=violation,
        epsilon=0.5,
        first_round=first,
        pilot=pilot,
        detectable=True,
    )


def test_table_keeps_the_rows_where_the_pilot_mattered_and_counts_every_twin() -> None:
    outcomes = [
        _o("early", None, True, first=True),
        _o("early", 0.05, True, first=True),
        _o("lost", None, True, pilot=100),
        _o("lost", 0.05, False, pilot=25),
        _o("same", None, False, pilot=100),
        _o("same", 0.05, False, pilot=25),
        Outcome(
            name="hidden",
            fraction=None,
            violation=False,
            epsilon=0.1,
            first_round=False,
            pilot=10,
            detectable=False,
        ),
        Outcome(
            name="hidden",
            fraction=0.05,
            violation=False,
            epsilon=0.1,
            first_round=False,
            pilot=5,
            detectable=False,
        ),
    ]
    lines = table(outcomes, [(None, True), (0.05, True)])
    rows = [line for line in lines if line.startswith("| `")]
    assert [r.split(" | ")[0] for r in rows] == ["| `lost`", "| `same`"]
    assert "| auto | 2/4 | 1 | 210 | 0 |" in lines and "| 0.05 | 1/4 | 1 | 55 | 0 |" in lines  # counted


def test_settings_parse_and_one_search_runs_no_rounds() -> None:
    assert parse("auto") == (None, True) and parse("0.05/one") == (0.05, False)
    assert label((None, False)) == "auto, one search"
    # a twin the first round does not decide, at its registered budget: two search rounds, unless
    # asked for one; the pilot counts both rounds'
    two = audit("agnostic_learner_half_split", None, 0)
    one = audit("agnostic_learner_half_split", None, 0, rounds=False)
    assert not two.first_round and not one.first_round and two.pilot != one.pilot
    assert two.drawn > two.pilot > 0 and one.drawn > one.pilot > 0
    assert "laplace_sum" in twins(buggy=False) and "laplace_sum_range_bug" not in twins(buggy=False)
