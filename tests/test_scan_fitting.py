"""`dpaudit scan`'s budget fitted to the timeout and its rows' reproduce commands (issue 44): an
export whose measured cost does not fit the timeout is audited at the largest budget that does,
and says so in its row, the table and scan.json; a budget that fits is left alone; a row that
still runs out of time is "timed out"; every row's printed command reproduces its certified ε to
the last bit. The cost is a fake clock (the timing monkeypatched), except for the timeout, which
sleeps."""

from __future__ import annotations

import functools
import importlib.util
import json
import shlex
import time
from pathlib import Path

import numpy as np
import pytest

from dpaudit.app import scan as scan_wing
from dpaudit.app.cli import main
from dpaudit.app.scan import TIMEOUT_SHARE, ScanConfig, Target, render, scan, to_json
from dpaudit.app.scan.table import line
from dpaudit.engine.runner import budget as budget_module
from dpaudit.mechanisms.base import Mechanism, PrivacyClaim, from_callable
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

PAIR = NeighborPair(dataset=Dataset([[0.0]]), neighbor=Dataset([[1.0]]), relation=Relation.REPLACE_ONE,
                    description="one value 0 → 1")
CLAIM = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="a fake library")


def _laplace(scale: float, ds: Dataset, rng: np.random.Generator) -> float:
    return float(ds.X.sum() + rng.laplace(0.0, scale))


def _slow(ds: Dataset, rng: np.random.Generator) -> float:
    time.sleep(0.01)
    return float(ds.X.sum() + rng.laplace(0.0, 1.0))


def fake(name: str, scale: float) -> Mechanism:
    """Laplace noise of `scale` on one value in [0, 1], claimed ε = 1 (a bug when scale < 1)."""
    return from_callable(functools.partial(_laplace, scale), name=name, claim=CLAIM,
                         domain=Domain(num_features=1, min_size=1, max_size=1), pairs=(PAIR,))


def slow() -> Mechanism:
    domain = Domain(num_features=1, min_size=1, max_size=1)
    return from_callable(_slow, name="slow", claim=CLAIM, domain=domain, pairs=(PAIR,))


def target(export: str, scale: float) -> Target:
    build = functools.partial(fake, export, scale)
    return Target(library="fakelib", export=export, kind="mechanism", build=build)


def fake_library() -> list[Target]:
    return [target("noise.Correct", 1.0), target("noise.Buggy", 0.1), target("noise.BuggyToo", 0.3),
            Target(library="fakelib", export="noise.Abstract", kind="mechanism", reason="a base class")]


def _cost(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """A fake clock: every mechanism measures at `seconds` per sample."""
    monkeypatch.setattr(budget_module, "measured_seconds_per_sample", lambda *a, **k: seconds)


def test_a_budget_that_does_not_fit_the_timeout_is_fitted_and_said(monkeypatch: pytest.MonkeyPatch) -> None:
    _cost(monkeypatch, 0.01)  # 20,000 per side would be 400 s of sampling; 40 % of 300 s fits 6,000
    config = ScanConfig(num_samples=20_000, seed=0, timeout=300.0, fit_budget=True)
    rows = scan([target("noise.Buggy", 0.1)], config)
    row = rows[0]
    assert TIMEOUT_SHARE == 0.4
    assert row.num_samples == 6_000 and row.seconds_per_sample == 0.01
    assert row.result is not None and row.result.num_samples == 6_000
    said = "budget fitted to the 300 s timeout: 6,000 of 20,000 samples per side at 0.01 s per sample"
    assert row.budget_note == said
    assert row.flagged and said in line(row) and row.witness in line(row)
    assert "--budget 6000" in row.command
    text = render(rows, config, "fakelib", "1.0")
    assert "at 20,000 samples per side (1 fitted lower to the 300 s timeout)" in text
    record = to_json(rows, config, "fakelib", "1.0")["rows"][0]  # type: ignore[index]
    assert (record["num_samples"], record["budget_note"], record["seconds_per_sample"]) == (6_000, said, 0.01)


def test_no_fitting_when_the_budget_fits_or_is_given(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _cost(monkeypatch, 1e-6)
    config = ScanConfig(num_samples=4_000, seed=0, fit_budget=True)
    row = scan([target("noise.Correct", 1.0)], config)[0]
    assert (row.num_samples, row.budget_note, row.seconds_per_sample) == (4_000, "", 1e-6)
    assert "fitted" not in render([row], config, "fakelib", "1.0")
    _cost(monkeypatch, 10.0)  # far too slow, but --budget is audited as given
    monkeypatch.setitem(scan_wing.LIBRARIES, "fakelib", fake_library)
    assert main(["scan", "fakelib", "--only", "noise.Correct", "--budget", "3000", "--jobs", "1",
                 "--out", str(tmp_path)]) == 0
    record = json.loads((tmp_path / "scan.json").read_text())
    assert record["budget_fitted_to_timeout"] is False
    assert [(r["num_samples"], r["budget_note"], r["seconds_per_sample"]) for r in record["rows"]] == [
        (3_000, "", None)
    ]


def test_an_export_too_slow_for_any_budget_is_audited_at_the_floor_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _cost(monkeypatch, 1.0)
    row = scan([target("noise.Correct", 1.0)], ScanConfig(num_samples=20_000, fit_budget=True))[0]
    assert row.num_samples == 1_000 and row.status == "no_violation_found"
    assert row.budget_note == ("too slow for the 300 s timeout at 1 s per sample: ≈ 33 min of sampling "
                               "for 1,000 of 20,000 samples per side, audited anyway")


def test_a_timeout_is_still_a_timed_out_row() -> None:
    """A real 10 ms per sample: the timing fits nothing into 40 % of 2 s, the floor is audited
    anyway and the timeout ends it: a row, not a crash."""
    slow_target = Target(library="fakelib", export="noise.Slow", kind="mechanism", build=slow)
    start = time.perf_counter()
    row = scan([slow_target], ScanConfig(num_samples=4_000, timeout=2.0, fit_budget=True))[0]
    assert row.status == "timed out" and row.detail == "no decision within 2 s"
    assert time.perf_counter() - start < 10
    assert row.num_samples == 1_000 and row.budget_note.startswith("too slow for the 2 s timeout at ")
    assert "timed out" in line(row) and "too slow" in line(row)


def test_every_rows_printed_command_reproduces_its_bound_to_the_last_bit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three exports audited, the budget fitted (8,000 of 20,000): each row's command, run alone,
    gives the same certified ε bit for bit. Before, a row ran at seed + its index and β / 3, and
    its command (`--only`, index 0, β / 1) at neither."""
    _cost(monkeypatch, 0.0075)
    monkeypatch.setitem(scan_wing.LIBRARIES, "fakelib", fake_library)
    monkeypatch.setitem(scan_wing.LIBRARY_BUDGETS, "fakelib", 20_000)
    assert main(["scan", "fakelib", "--seed", "3", "--jobs", "1", "--out", str(tmp_path / "all")]) == 1
    table = json.loads((tmp_path / "all" / "scan.json").read_text())
    rows = [r for r in table["rows"] if r["status"] != "not built"]
    assert len(rows) == 3 and {r["num_samples"] for r in rows} == {8_000}
    assert all(r["failure_probability"] == pytest.approx(0.05 / 3) for r in rows)
    printed = capsys.readouterr().out
    for row in rows:
        assert "--budget 8000" in row["command"] and "--seed 3" in row["command"]
        if row["status"] == "violation_found":
            assert row["command"] in printed  # the table prints a flagged row's command
        args = shlex.split(row["command"])
        assert args[:2] == ["dpaudit", "scan"]
        out = tmp_path / row["export"]
        main([*args[1:], "--jobs", "1", "--out", str(out)])
        again = json.loads((out / "scan.json").read_text())["rows"]
        assert [r["export"] for r in again] == [row["export"]]  # `--only noise.Buggy` is not BuggyToo
        assert again[0]["status"] == row["status"]
        assert float(again[0]["certified_epsilon"]).hex() == float(row["certified_epsilon"]).hex()
        assert again[0]["seed"] == row["seed"] and again[0]["command"] == row["command"]


def test_a_rows_seed_depends_on_its_name_not_its_position() -> None:
    seed = scan_wing.row_seed
    assert seed(0, "fakelib.noise.Buggy") == seed(0, "fakelib.noise.Buggy")
    seeds = {seed(0, "fakelib.noise.Buggy"), seed(1, "fakelib.noise.Buggy"), seed(0, "fakelib.noise.Correct")}
    assert len(seeds) == 3


@pytest.mark.skipif(importlib.util.find_spec("diffprivlib") is None, reason="diffprivlib not installed")
def test_a_diffprivlib_model_records_its_spends_on_an_accountant_of_its_own() -> None:
    """Not diffprivlib's process-wide default accountant, whose growing list of spends a random
    forest deep-copies into every tree (its fits slowed with every fit before them)."""
    from diffprivlib.accountant import BudgetAccountant

    from dpaudit.app.scan.diffprivlib_targets import DOCUMENTED
    from dpaudit.mechanisms.libraries import ModelMaker

    default = BudgetAccountant.load_default(None)
    spent = len(default.spent_budget)
    make = ModelMaker("RandomForestClassifier", {"epsilon": 1.0, "bounds": DOCUMENTED["bounds"],
                                                "classes": [0.0, 1.0, 2.0], "n_estimators": 3})
    forest = make(np.random.default_rng(0))
    assert forest.accountant is not default and forest.estimator.accountant is not default
    forest.fit(np.random.default_rng(1).uniform(-1.0, 1.0, (12, 2)), np.resize([0.0, 1.0, 2.0], 12))
    assert len(default.spent_budget) == spent and len(forest.accountant.spent_budget) == 1
    assert BudgetAccountant.load_default(None) is default
