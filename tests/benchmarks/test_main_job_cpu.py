"""The main job's speed tables (issue 44): `main_job_cpu.py` on two checkouts of this tree (same
bounds to the last bit, one row per audit) and `compare_runs.py --seconds` on run folders."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.compare_runs import seconds, seconds_table
from benchmarks.main_job_cpu import Row, main_job_names, measure, table

ROOT = Path(__file__).resolve().parents[2]


def test_main_job_cpu_measures_each_audit_on_both_sides_back_to_back(tmp_path: Path) -> None:
    names = main_job_names(ROOT)
    assert "laplace_sum" in names and "geo_halfplane_grid4" in names
    assert not any(n.startswith(("diffprivlib", "opendp", "opacus")) for n in names)
    rows = measure(ROOT, ROOT, ["report_noisy_max"], seed=0, warmup="exponential_mechanism", work=tmp_path)
    assert [r.name for r in rows] == ["report_noisy_max"]
    assert rows[0].cpu_a > 0 and rows[0].cpu_b > 0
    assert rows[0].eps_a == rows[0].eps_b  # the same tree twice: the same bound to the last bit
    text = table(rows, "a", "b")
    assert "| `report_noisy_max` |" in text and "| certified ε equal to the last bit | 1 of 1 |" in text


def test_main_job_cpu_table_orders_by_growth_and_totals() -> None:
    rows = [Row("small", 1.0, 1.5, 0.5, 0.5), Row("big", 10.0, 8.0, 1.0, 1.25)]
    lines = table(rows, "old", "new").splitlines()
    assert lines[2].startswith("| `small` | 1.0 | 1.5 | 1.50 |")
    assert lines[3].startswith("| `big` | 10.0 | 8.0 | 0.80 |")
    assert lines[4] == "| certified ε equal to the last bit | 1 of 2 | | | | |"
    assert lines[5] == "| total (2 audits) | 11.0 | 9.5 | 0.86 | | |"


def test_compare_runs_seconds_sums_seeds_and_keeps_audits_in_every_run(tmp_path: Path) -> None:
    def write(d: Path, name: str, secs: float) -> None:
        d.mkdir(exist_ok=True)
        (d / f"{name}.json").write_text(json.dumps({"mechanism": name, "elapsed_seconds": secs}))

    a0, a1, b0, b1 = (tmp_path / x for x in ("a0", "a1", "b0", "b1"))
    for d, s in ((a0, 1.0), (a1, 2.0), (b0, 4.0), (b1, 5.0)):
        write(d, "m", s)
    write(a0, "only_once", 3.0)
    a, b = seconds([a0, a1]), seconds([b0, b1])
    assert a == {"m": 3.0} and b == {"m": 9.0}
    assert seconds_table(a, b, "old", "new").splitlines()[2] == "| `m` | 3.0 | 9.0 | 3.00 |"
