"""`benchmarks/snapshot.py` (issue 43): two snapshots are sorted into identical, identical after
the renames listed in CHANGELOG.md, differing only in prose, and differing; a main job's JSON
folders compare file by file with times dropped (fake results: no audit is run)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from benchmarks.snapshot import budgets_of, classify, compare_runs

EVENT = {"type": "score", "threshold": 0.5}
RESULT = {"verdict": "no_violation_found", "epsilon_lower_bound": 0.93, "events": [EVENT], "note": "a"}


def test_classify_sorts_each_result_by_what_changed() -> None:
    loose = {**RESULT, "seedable": False}
    old = {"same": RESULT, "renamed": RESULT, "worded": RESULT, "moved": RESULT, "gone": RESULT, "lib": loose}
    new = {
        "lib": {**loose, "epsilon_lower_bound": 0.91},
        "same": RESULT,
        "renamed": {**RESULT, "events": [{**EVENT, "type": "learned-statistic"}]},
        "worded": {**RESULT, "note": "b"},
        "moved": {**RESULT, "epsilon_lower_bound": 0.94},
    }
    assert classify(old, new) == {
        "identical": ["same"],
        "renamed": ["renamed"],
        "wording": ["worded"],
        "unseedable": ["lib"],
        "differs": ["gone", "moved"],
    }


def test_a_rename_is_only_the_listed_one() -> None:
    other = {**RESULT, "events": [{**EVENT, "type": "quantile"}]}
    assert classify({"x": RESULT}, {"x": other})["differs"] == ["x"]


def test_main_job_folders_compare_file_by_file_without_times(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for side, bound in (("old", 0.93), ("new", 0.93)):
        folder = tmp_path / side / "laplace_sum"
        folder.mkdir(parents=True)
        timed = {**RESULT, "epsilon_lower_bound": bound, "elapsed_seconds": 1.0 if side == "old" else 2.0}
        (folder / "result.json").write_text(json.dumps(timed))
    assert compare_runs(str(tmp_path / "old"), str(tmp_path / "new")) == 0
    assert "1 identical" in capsys.readouterr().out
    changed = {**RESULT, "verdict": "violation"}
    (tmp_path / "new" / "laplace_sum" / "result.json").write_text(json.dumps(changed))
    assert compare_runs(str(tmp_path / "old"), str(tmp_path / "new")) == 1


def test_budgets_take_a_mechanisms_smaller_default(monkeypatch: pytest.MonkeyPatch) -> None:
    import dpaudit.mechanisms.registry as registry

    known = registry.entries()
    model = dataclasses.replace(known["laplace_sum"], name="slow_model", default_num_samples=1_000)
    monkeypatch.setattr(registry, "entries", lambda: {**known, "slow_model": model})
    assert budgets_of(["laplace_sum", "slow_model", "unknown"], 20_000) == {
        "laplace_sum": 20_000,
        "slow_model": 1_000,
        "unknown": 20_000,
    }
