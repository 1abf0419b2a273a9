"""`benchmarks/expensive.py` (issue 44): samples per side read from result JSONs (a fixed-n
search, a sequential search stopped early, registered pairs), the bar, the table written between
the README's markers, and the venv rows (both sides run with the venv's python, a missing venv
skipped with its reason), on fake results and a fake venv (no audit is run, no venv made)."""

from __future__ import annotations

import argparse
import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import expensive, known_bugs
from benchmarks.expensive import (
    BEGIN,
    END,
    ROWS,
    Outcome,
    bar,
    budget_of,
    command,
    interpreter,
    provenance,
    read_outcome,
    row_lines,
    samples_spent,
    table,
    table_line,
    write_readme,
)

ROW = next(r for r in ROWS if r.name == "laplace_sum_range_bug")


def fake(*, verdict: str, cert: int, seq: dict[str, Any] | None = None) -> dict[str, Any]:
    """A search-route result: pilot 400,000 + top-up 60,000, certification planned 1,540,000 on one pair."""
    search = {
        "pilot_samples": 400_000,
        "selection_topup_samples": 60_000,
        "certification_samples": 1_540_000,
        "certified_pairs": ["replace one record low → high"],
        "total_samples": 2_000_000,
    }
    extra: dict[str, Any] = {"search": search, **({"sequential": seq} if seq else {})}
    return {
        "verdict": verdict,
        "epsilon_lower_bound": 1.5,
        "selection_samples": 160_000,
        "certification_samples": cert,
        "pairs": [{}],
        "extra": extra,
    }


OLD = fake(verdict="violation_found", cert=1_540_000)
NEW = fake(verdict="violation_found", cert=752, seq={"stopped_at": 752, "cap": 1_540_000})


def keep(tmp: Path, side: str, result: dict[str, Any] | None, *, rc: int, seconds: float) -> Outcome:
    (tmp / f"{side}.json").write_text(json.dumps(result) if result else "")
    (tmp / f"{side}.meta.json").write_text(json.dumps({"rc": rc, "seconds": seconds, "reason": ""}))
    return read_outcome(tmp / f"{side}.json", tmp / f"{side}.meta.json")


def test_samples_spent_counts_the_pilot_and_where_certification_stopped() -> None:
    assert samples_spent(OLD) == 2_000_000
    assert samples_spent(NEW) == 400_000 + 60_000 + 752
    registered = {**OLD, "extra": {}, "pairs": [{}, {}], "selection_samples": 100_000}
    registered["certification_samples"] = 900
    assert samples_spent(registered) == 2 * 100_900
    # a first search round that did not decide drew on top of the second's; one that decided is
    # the result itself
    second = {**NEW, "extra": {**NEW["extra"], "search_rounds": {"decided": False, "drawn": 90_000}}}
    assert samples_spent(second) == 90_000 + 400_000 + 60_000 + 752
    decided = {**NEW, "extra": {**NEW["extra"], "search_rounds": {"decided": True, "drawn": 460_752}}}
    assert samples_spent(decided) == 460_752


def test_read_outcome_and_table(tmp_path: Path) -> None:
    old = keep(tmp_path, "old", OLD, rc=1, seconds=4.2)
    new = keep(tmp_path, "new", NEW, rc=1, seconds=3.6)
    assert (old.verdict, old.samples, new.samples) == ("violation", 2_000_000, 460_752)
    line = table_line(ROW, old, new, cap="default: 1,000,000")
    assert (
        "| 2,000,000 | 4 | default: 1,000,000 | violation (ε ≥ 1.50) "
        "| 460,752 | 4 | 0.2304 | no: 0.23 > 0.2 |" in line
    )
    assert line.endswith("| same as old |")
    control = Outcome(verdict="violation", samples=400_000, seconds=1.0, epsilon=1.25)
    assert table_line(ROW, old, new, control=control).endswith("| violation (ε ≥ 1.25), 400,000 |")
    failed = keep(tmp_path, "bad", None, rc=2, seconds=1.0)
    assert (failed.verdict, failed.samples) == ("exit 2", None)
    assert "| — |" in table_line(ROW, failed, new)
    lacking = Outcome(verdict="x", samples=None, seconds=None)
    assert "not installed: skipped" in table_line(ROW, None, lacking)

    readme = tmp_path / "README.md"
    readme.write_text(f"# B\n\nbefore\n\n{BEGIN}\nstale\n{END}\n\nafter\n")
    write_readme(table([line]), readme)
    text = readme.read_text()
    assert "stale" not in text and line in text
    assert text.startswith("# B\n\nbefore\n") and text.endswith("\n\nafter\n")
    write_readme(table([line]), readme)  # idempotent
    assert readme.read_text() == text
    readme.write_text("no markers")
    with pytest.raises(SystemExit):
        write_readme("x", readme)


def test_budget_read_from_the_old_command() -> None:
    old = {"command": "dpaudit run laplace_sum_range_bug --num-samples 1000000 --seed 0"}
    assert budget_of(ROW, old) == 1_000_000
    assert budget_of(ROW, None) is None
    assert command(ROW, sequential=True, num_samples=200)[-4:] == [
        "0",
        "--num-samples",
        "200",
        "--sequential",
    ]


def test_bar() -> None:
    def o(verdict: str, n: int | None) -> Outcome:
        return Outcome(verdict=verdict, samples=n, seconds=1.0)

    assert bar(o("violation", 1000), o("violation", 200)) == "yes"
    assert bar(o("violation", 1000), o("violation", 201)) == "no: 0.201 > 0.2"
    assert bar(o("no violation", 1000), o("violation", 5000)) == "yes: new verdict"
    assert bar(o("violation", 1000), o("no violation", 10)) == "no: verdict differs"
    assert bar(o("violation", 1000), o("exit 2", None)) == "no: no new result"
    assert bar(o("no violation", 1000), o("inconclusive", 200)) == "yes (both not flagged)"
    assert bar(o("no violation", 1000), o("inconclusive", 300)) == "no: 0.3 > 0.2 (both not flagged)"


VENV_ROWS = [r for r in ROWS if r.venv]


def test_venv_rows_run_the_version_with_the_bug() -> None:
    """smartnoise-synth and Opacus run in a known-bugs venv, at a version whose row expects a violation."""
    assert {r.name for r in VENV_ROWS} == {"smartnoise_dpcovariance", "opacus_expected_batch_size"}
    for row in VENV_ROWS:
        constants = known_bugs.read_row(known_bugs.ROWS / f"{row.name}.py")
        assert dict(constants["VERSIONS"])[row.venv] == "violation"  # type: ignore[call-overload]
        assert row.venv in dict(constants["REQUIREMENTS"])  # type: ignore[call-overload]
        assert row.known_bug and not row.requires


def test_command_of_a_venv_row_runs_the_venvs_python() -> None:
    row = next(r for r in VENV_ROWS if r.name == "opacus_expected_batch_size")
    cmd = command(row, sequential=True, num_samples=4000, python="/v/bin/python")
    assert cmd[:5] == [
        "/v/bin/python",
        "-m",
        "dpaudit",
        "run",
        "known_bugs_rows.opacus_expected_batch_size:mechanism",
    ]
    assert cmd[-3:] == ["--num-samples", "4000", "--sequential"]
    assert command(ROW, sequential=False, num_samples=None)[0] == sys.executable


def args_for(tmp: Path, *, old: Path, new: Path) -> argparse.Namespace:
    return argparse.Namespace(
        cache=tmp / "cache",
        make_venvs=False,
        old=old,
        new=new,
        work=tmp / "work",
        timeout=60.0,
        reuse=False,
        reuse_any=False,
        kept_commit=[],
        fractions=[1.0, 0.2],
        new_args="",
    )


def test_a_missing_venv_is_skipped_with_its_reason(tmp_path: Path) -> None:
    row = next(r for r in VENV_ROWS if r.name == "smartnoise_dpcovariance")
    python, why = interpreter(row, cache=tmp_path, make=False)
    assert python == ""
    where = tmp_path / "smartnoise-synth-1.0.5"
    assert why == f"no venv: skipped (smartnoise-synth 1.0.5 not made at {where}; --make-venvs)"
    half_made = known_bugs.venv_python(tmp_path, "smartnoise-synth", "1.0.5")  # no marker: interrupted
    half_made.parent.mkdir(parents=True)
    half_made.touch()
    assert interpreter(row, cache=tmp_path, make=False)[0] == ""
    lines = row_lines(row, args_for(tmp_path, old=tmp_path, new=tmp_path))
    assert len(lines) == 2 and all(why.split(" (")[0] in ln for ln in lines)
    assert all("| synthesizer; venv: smartnoise-synth 1.0.5 |" in ln for ln in lines)
    assert not (tmp_path / "work").exists()  # nothing ran


def fake_venv(cache: Path, result: dict[str, Any]) -> Path:
    """A venv whose "python" prints `result` and logs its working directory, PYTHONPATH and arguments."""
    python = known_bugs.venv_python(cache, "opacus", "1.6.0")
    python.parent.mkdir(parents=True)
    (python.parent.parent / known_bugs.MARKER).write_text("{}")
    (cache / "result.json").write_text(json.dumps(result))
    python.write_text(
        f'#!/bin/sh\necho "$PWD|$PYTHONPATH|$*" >> {cache}/calls\ncat {cache}/result.json\nexit 1\n'
    )
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return python


def test_both_sides_of_a_venv_row_run_in_the_venv_with_their_checkout(tmp_path: Path) -> None:
    row = next(r for r in VENV_ROWS if r.name == "opacus_expected_batch_size")
    result = {**NEW, "command": "dpaudit run x --num-samples 20000"}
    fake_venv(tmp_path / "cache", result)
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    lines = row_lines(row, args_for(tmp_path, old=old, new=new))
    calls = [c.split("|") for c in (tmp_path / "cache" / "calls").read_text().splitlines()]
    rows_dir = str(tmp_path / "work" / "rows")
    assert [(c[0], c[1]) for c in calls] == [
        (str(old), f"{old}:{rows_dir}"),
        (str(new), f"{new}:{rows_dir}"),
        (str(new), f"{new}:{rows_dir}"),
        (str(old), f"{old}:{rows_dir}"),
    ]
    assert [c[2].split()[-3:] for c in calls] == [
        ["0", "--num-samples", "20000"],
        ["--num-samples", "20000", "--sequential"],
        ["--num-samples", "4000", "--sequential"],
        ["0", "--num-samples", "4000"],
    ]
    assert (tmp_path / "work" / "rows" / "known_bugs_rows").resolve() == known_bugs.ROWS
    meta = json.loads((tmp_path / "work" / "new-1" / f"{row.name}.meta.json").read_text())
    assert meta["venv"] == str(tmp_path / "cache" / "opacus-1.6.0")
    assert lines[0].startswith(
        "| `opacus_expected_batch_size` | training; venv: opacus 1.6.0 | violation (ε ≥ 1.50) |"
    )
    assert "| default: 20,000 | violation (ε ≥ 1.50) | 460,752 |" in lines[0]
    assert "| 0.2 × default: 4,000 |" in lines[1]
    again = row_lines(
        row, argparse.Namespace(**{**vars(args_for(tmp_path, old=old, new=new)), "reuse": True})
    )
    assert len((tmp_path / "cache" / "calls").read_text().splitlines()) == 4  # kept runs read, none re-run
    assert [ln.split("|")[:9] for ln in again] == [ln.split("|")[:9] for ln in lines]


def test_reuse_any_reads_runs_of_another_checkout_and_names_their_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--reuse` re-runs a side kept from another checkout; `--reuse-any` reads it, and the header
    names each side's commits (a run kept before commits were recorded by `--kept-commit`)."""
    monkeypatch.setattr(expensive, "commit_of", lambda home: f"c-{home.name}")
    row = next(r for r in VENV_ROWS if r.name == "opacus_expected_batch_size")
    fake_venv(tmp_path / "cache", {**NEW, "command": "dpaudit run x --num-samples 20000"})
    calls = tmp_path / "cache" / "calls"
    for name in ("old", "new", "other"):
        (tmp_path / name).mkdir()
    base = vars(args_for(tmp_path, old=tmp_path / "old", new=tmp_path / "new"))
    row_lines(row, argparse.Namespace(**base))
    assert len(calls.read_text().splitlines()) == 4
    other = {**base, "new": tmp_path / "other", "reuse": True}
    row_lines(row, argparse.Namespace(**other))
    assert len(calls.read_text().splitlines()) == 6  # the two new sides re-run from "other"
    row_lines(row, argparse.Namespace(**{**other, "new": tmp_path / "new", "reuse_any": True}))
    assert len(calls.read_text().splitlines()) == 6  # kept runs of "other" read
    meta = tmp_path / "work" / "new-0.2" / f"{row.name}.meta.json"
    older = {k: v for k, v in json.loads(meta.read_text()).items() if k != "commit"}
    meta.write_text(json.dumps({**older, "home": "/gone"}))
    shown = argparse.Namespace(**{**other, "kept_commit": ["/gone=abc1234"]})
    both = f"`c-other` ({row.name}); `abc1234` ({row.name})"
    assert provenance([row], shown) == f"old = `c-old`, new = {both}"
