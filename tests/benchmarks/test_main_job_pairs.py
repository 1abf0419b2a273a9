"""`benchmarks/main_job_pairs.py`: the whole main job run from each checkout in turn, measured by
`os.wait4` (fake checkouts whose `python -m dpaudit` writes one result), and its summary."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.main_job_pairs import Run, main_job, results, summary

FAKE_MAIN = """
import json, sys, time
out = sys.argv[sys.argv.index("--out") + 1]
import pathlib
pathlib.Path(out).mkdir(parents=True, exist_ok=True)
sum(i * i for i in range(200_000))  # some CPU
pathlib.Path(out, "fake.json").write_text(json.dumps({"verdict": "VERDICT", "epsilon_lower_bound": 0.5}))
raise SystemExit(CODE)
"""


def fake_checkout(root: Path, *, verdict: str, code: int) -> Path:
    package = root / "dpaudit"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(FAKE_MAIN.replace("VERDICT", verdict).replace("CODE", str(code)))
    return root


def test_each_run_is_the_checkouts_own_dpaudit_measured_with_its_exit_code(tmp_path: Path) -> None:
    old = fake_checkout(tmp_path / "old", verdict="no_violation_found", code=0)
    new = fake_checkout(tmp_path / "new", verdict="violation_found", code=1)
    run_old = main_job(old, tmp_path / "out_old", "old")
    run_new = main_job(new, tmp_path / "out_new", "new")
    assert (run_old.code, run_new.code) == (0, 1)
    assert run_old.wall > 0 and run_old.cpu > 0 and run_old.peak_mb > 1
    assert results(tmp_path / "out_old") == {"fake": ("no_violation_found", 0.5)}
    assert results(tmp_path / "out_new") == {"fake": ("violation_found", 0.5)}


def test_results_read_verdicts_and_skip_other_json(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps({"verdict": "inconclusive", "epsilon_lower_bound": -0.1}))
    (tmp_path / "index.json").write_text(json.dumps([1, 2]))
    assert results(tmp_path) == {"a": ("inconclusive", -0.1)}


def test_summary_gives_each_sides_means_and_the_ratios() -> None:
    runs = [
        Run(side="old", wall=80.0, cpu=160.0, peak_mb=600.0, code=0),
        Run(side="new", wall=76.0, cpu=150.0, peak_mb=550.0, code=0),
        Run(side="old", wall=82.0, cpu=162.0, peak_mb=610.0, code=0),
        Run(side="new", wall=78.0, cpu=154.0, peak_mb=560.0, code=0),
    ]
    lines = summary(runs)
    assert lines[0] == "old: wall 80.0, 82.0 s (mean 81.0); CPU 160.0, 162.0 s (mean 161.0); peak 610 MB"
    assert lines[1] == "new: wall 76.0, 78.0 s (mean 77.0); CPU 150.0, 154.0 s (mean 152.0); peak 560 MB"
    assert lines[2] == "new/old: 0.951× wall, 0.944× CPU"
