"""`dpaudit scan`: every export a row, β split over the table, exit 1 only for a flagged row,
nothing crashes on a library that raises or will not build (fake libraries; the real diffprivlib
when installed)."""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from dpaudit.app import scan as scan_wing
from dpaudit.app.cli import main
from dpaudit.app.scan import ScanConfig, Target, render, scan
from dpaudit.mechanisms.base import Mechanism, PrivacyClaim, from_callable
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

PAIR = NeighborPair(dataset=Dataset([[0.0]]), neighbor=Dataset([[1.0]]), relation=Relation.REPLACE_ONE,
                    description="one value 0 → 1")


def _laplace(scale: float, ds: Dataset, rng: np.random.Generator) -> float:
    return float(ds.X.sum() + rng.laplace(0.0, scale))


def _boom(ds: Dataset, rng: np.random.Generator) -> float:
    raise RuntimeError("the library fell over")


def fake(name: str, scale: float) -> Mechanism:
    """Laplace noise of `scale` on one value in [0, 1], claimed ε = 1 (a bug when scale < 1)."""
    claim = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="a fake library")
    return from_callable(functools.partial(_laplace, scale), name=name, claim=claim,
                         domain=Domain(num_features=1, min_size=1, max_size=1), pairs=(PAIR,))


def raising() -> Mechanism:
    claim = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="a fake library")
    return from_callable(_boom, name="raises", claim=claim, domain=Domain(num_features=1), pairs=(PAIR,))


def unbuildable() -> Mechanism:
    raise ValueError("constructor needs a utility function")


def fake_library() -> list[Target]:
    return [
        Target(library="fakelib", export="noise.Correct", kind="mechanism",
               build=functools.partial(fake, "correct", 1.0)),
        Target(library="fakelib", export="noise.Buggy", kind="mechanism",
               build=functools.partial(fake, "buggy", 0.1)),
        Target(library="fakelib", export="noise.Raises", kind="mechanism", build=raising),
        Target(library="fakelib", export="noise.Unbuildable", kind="mechanism", build=unbuildable),
        Target(library="fakelib", export="noise.Abstract", kind="mechanism", reason="a base class"),
    ]


def test_scan_flags_the_bug_and_reports_every_export_as_a_row() -> None:
    rows = scan(fake_library(), ScanConfig(num_samples=20_000, seed=0))
    status = {r.target: r.status for r in rows}
    assert status == {
        "fakelib.noise.Correct": "no_violation_found",
        "fakelib.noise.Buggy": "violation_found",
        "fakelib.noise.Raises": "failed",
        "fakelib.noise.Unbuildable": "failed",
        "fakelib.noise.Abstract": "not built",
    }
    buggy = next(r for r in rows if r.flagged)
    assert buggy.certified is not None and buggy.certified > 1.0 and "0 → 1" in buggy.witness
    raised = next(r for r in rows if r.target.endswith("Raises"))
    assert "RuntimeError: the library fell over" in raised.detail


def test_beta_is_split_over_the_built_targets() -> None:
    rows = scan(fake_library()[:2], ScanConfig(num_samples=5_000, seed=0, failure_probability=0.1))
    assert all(r.result is not None and r.result.failure_probability == pytest.approx(0.05) for r in rows)
    text = render(rows, ScanConfig(num_samples=5_000), "fakelib", "1.0")
    assert "2 audited blind at 5,000 samples per side" in text and "β split over the 2 audits" in text


def test_the_command_exits_1_on_a_flag_and_writes_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(scan_wing.LIBRARIES, "fakelib", fake_library)
    code = main(["scan", "fakelib", "--budget", "20000", "--jobs", "1", "--out", str(tmp_path)])
    assert code == 1
    record = json.loads((tmp_path / "scan.json").read_text())
    assert [r["status"] for r in record["rows"]].count("violation_found") == 1
    assert "VIOLATION" in capsys.readouterr().out
    assert main(["scan", "fakelib", "--only", "Correct", "--budget", "20000", "--jobs", "1"]) == 0


def test_one_export_is_scanned_without_a_pool_of_idle_workers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(scan_wing.LIBRARIES, "fakelib", fake_library)
    assert main(["scan", "fakelib", "--only", "Correct", "--budget", "2000", "--jobs", "4"]) == 0
    assert "1 at a time" in capsys.readouterr().err


def test_the_default_budget_is_the_librarys(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert scan_wing.default_budget("diffprivlib") == 4_000  # IBM/differential-privacy-library#104
    default = scan_wing.DEFAULT_BUDGET
    assert scan_wing.default_budget("smartnoise") == scan_wing.default_budget("opendp") == default
    monkeypatch.setitem(scan_wing.LIBRARIES, "fakelib", fake_library)
    monkeypatch.setitem(scan_wing.LIBRARY_BUDGETS, "fakelib", 3_000)
    assert main(["scan", "fakelib", "--only", "Correct", "--jobs", "1"]) == 0
    assert "at 3,000 samples per side" in capsys.readouterr().out
    assert main(["scan", "fakelib", "--only", "Correct", "--jobs", "1", "--budget", "2000"]) == 0
    assert "at 2,000 samples per side" in capsys.readouterr().out


def test_unknown_library_and_empty_selection_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scan", "no_such_library"]) == 2
    monkeypatch.setitem(scan_wing.LIBRARIES, "fakelib", fake_library)
    assert main(["scan", "fakelib", "--only", "nothing-matches"]) == 2
    err = capsys.readouterr().err
    assert err.count("dpaudit: error:") == 2 and "Traceback" not in err


@pytest.mark.skipif(importlib.util.find_spec("diffprivlib") is None, reason="diffprivlib not installed")
def test_the_installed_diffprivlib_is_enumerated_and_its_exports_built() -> None:
    targets = scan_wing.library_targets("diffprivlib")
    names = {t.export for t in targets}
    assert {"models.LogisticRegression", "models.DecisionTreeClassifier", "tools.median",
            "mechanisms.LaplaceTruncated"} <= names
    built = [t for t in targets if t.build is not None]
    assert len(built) >= 30
    assert all(t.reason for t in targets if t.build is None)
    rows = scan([t for t in targets if t.export in ("tools.count_nonzero", "mechanisms.Snapping")],
                ScanConfig(num_samples=2_000, seed=0))
    assert [r.status for r in rows] == ["no_violation_found", "no_violation_found"]


@pytest.mark.skipif(importlib.util.find_spec("diffprivlib") is None, reason="diffprivlib not installed")
def test_a_bounded_diffprivlib_tool_is_also_given_a_value_outside_its_bounds() -> None:
    from dpaudit.app.scan.diffprivlib_targets import tool

    median = tool("median")
    assert [p.neighbor.X[-1, 0] for p in median.pairs] == [1.0, 1000.0]
    assert median.domain.feature_high == 1000.0
    assert [p.neighbor.X[-1, 0] for p in tool("count_nonzero").pairs] == [1.0]  # told no bounds
    median_target = scan_wing.library_targets("diffprivlib", ("tools.median",))
    rows = scan(median_target, ScanConfig(num_samples=1_000, seed=0))
    assert rows[0].status in ("no_violation_found", "inconclusive")  # it clips: 1000 is 1 to it


def _raises_on_one(ds: Dataset, rng: np.random.Generator) -> float:
    if ds.X.sum() > 0.5:
        raise ValueError("value out of range")
    return float(rng.laplace(0.0, 1.0))


def _small_on_one(ds: Dataset, rng: np.random.Generator) -> float:
    return float(rng.laplace(0.0, 1.0) + (-30.0 if ds.X.sum() > 0.5 else 0.0))


def test_the_witness_says_its_counts_once_and_oriented_to_the_pairs_dataset() -> None:
    """An outcome witness already says its counts ("raised ValueError: … on D′ in n of n, never on
    D"): the row must not repeat them. A threshold witness likelier on D′ (direction
    neighbor>dataset) gets its counts with D the pair's dataset, not the event's likelier side."""
    claim = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="a fake library")
    domain = Domain(num_features=1, min_size=1, max_size=1)
    raises = functools.partial(from_callable, _raises_on_one, name="raises", claim=claim, domain=domain,
                               pairs=(PAIR,), exceptions=(ValueError,))
    shifted = functools.partial(from_callable, _small_on_one, name="shifted", claim=claim, domain=domain,
                                pairs=(PAIR,))
    targets = [Target(library="fakelib", export="noise.Raises", kind="mechanism", build=raises),
               Target(library="fakelib", export="noise.Shifted", kind="mechanism", build=shifted)]
    rows = {r.target: r for r in scan(targets, ScanConfig(num_samples=2_000, seed=0))}
    said = rows["fakelib.noise.Raises"].witness
    assert said.startswith("one value 0 → 1: raised ValueError: value out of range on D′ in "), said
    assert said.endswith("never on D") and said.count(" of 1,000") == 1, said
    shift = rows["fakelib.noise.Shifted"].witness
    k_d, k_n = (int(x.split(" of ")[0].split()[-1].replace(",", "")) for x in shift.split(", ")[-2:])
    assert shift.endswith("on D′") and k_n > k_d, shift  # the event is likelier on D′
