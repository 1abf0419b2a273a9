"""`benchmarks/expensive.py` (issue 44): samples per side read from result JSONs (a fixed-n
search, a sequential search stopped early, registered pairs), the bar, and the table written
between the README's markers, on fake results (no audit is run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.expensive import (
    BEGIN,
    END,
    ROWS,
    Outcome,
    bar,
    budget_of,
    command,
    read_outcome,
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
    skipped = next(r for r in ROWS if r.name == "opacus_expected_batch_size")
    assert "not installed: skipped" in table_line(skipped, None, None)

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
