"""Issue 42, item 3: the verdict "inconclusive", in every format.

`agnostic_learner_amplified` at 20,000 samples certifies no loss on any pair ("0 (no evidence)")
and a one-run audit of a claim above its design's ceiling has no power: both are inconclusive in
the JSON (verdict and `inconclusive_reason`, read back), Markdown, the HTML verdict box (its own
class), JUnit (a skipped testcase with the reason, from `report` and from the gate) and the console;
the exit code stays 0. Old result files (no reason field) still read.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from dpaudit.app.cli.entry import main
from dpaudit.engine.types import Verdict
from dpaudit.reports.junit import render_junit
from dpaudit.reports.schema import from_json_dict, read_json

HERE = "tests.test_inconclusive"


def fair_coin(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Scores that ignore the canaries (perfectly private)."""
    return rng.random(included.size)


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def _check_files(folder: Path, stem: str, reason_start: str) -> None:
    data = json.loads((folder / f"{stem}.json").read_text())
    assert data["verdict"] == "inconclusive" and data["inconclusive_reason"].startswith(reason_start)
    back = read_json(folder / f"{stem}.json")
    assert back.verdict is Verdict.INCONCLUSIVE and back.inconclusive_reason == data["inconclusive_reason"]
    md = (folder / f"{stem}.md").read_text()
    assert f"**Verdict: inconclusive ({data['inconclusive_reason']})" in md
    page = (folder / f"{stem}.html").read_text()
    assert 'class="verdict inconclusive"' in page and "Inconclusive: " + reason_start in page
    suite = ET.fromstring(render_junit([back]))
    assert suite.get("skipped") == "1" and suite.get("failures") == "0"
    skipped = suite.find("testcase/skipped")
    assert skipped is not None and skipped.get("message", "").startswith(f"inconclusive: {reason_start}")


def test_no_evidence_registered_audit_is_inconclusive(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["run", "agnostic_learner_amplified", "--num-samples", "20000", "--pairs", "registered"]
    code, out = _main(capsys, *argv, "--out", str(tmp_path), "--format", "json,md,html")
    assert code == 0 and "INCONCLUSIVE (no evidence" in out
    _check_files(tmp_path, "agnostic_learner_amplified", "no evidence")


def test_no_power_one_run_audit_is_inconclusive(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["one-run", f"{HERE}:fair_coin", "--canaries", "100", "--epsilon", "8", "--method", "snj"]
    code, out = _main(capsys, *argv, "--out", str(tmp_path), "--format", "json,md,html")
    assert code == 0 and "INCONCLUSIVE (no power" in out
    stem = next(tmp_path.glob("*.json")).stem  # the file is named after the training function
    _check_files(tmp_path, stem, "no power")


def test_the_gate_skips_an_inconclusive_audit_in_junit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dpaudit.toml").write_text(
        f'[[audit]]\ntrain = "{HERE}:fair_coin"\ncanaries = 100\nepsilon = 8\nmethod = "snj"\nname = "coin"\n'
    )
    code, out = _main(capsys, "gate", "--out", "out")
    assert code == 0 and "1 inconclusive" in out
    suite = ET.fromstring((tmp_path / "out" / "junit.xml").read_text())
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    skipped = cases["coin"].find("skipped")
    assert skipped is not None and "no power" in skipped.get("message", "")
    assert "inconclusive (no power" in (tmp_path / "out" / "gate.md").read_text()


def test_a_conclusive_audit_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _main(
        capsys, "run", "laplace_sum", "--num-samples", "20000", "--pairs", "registered", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "no_violation_found" and "inconclusive_reason" not in data


def test_an_old_result_file_still_reads(capsys: pytest.CaptureFixture[str]) -> None:
    _, out = _main(capsys, "run", "laplace_sum", "--num-samples", "2000", "--pairs", "registered", "--json")
    data = json.loads(out)
    data["schema_version"] = 2
    data.pop("inconclusive_reason", None)
    old = from_json_dict(data)
    assert old.verdict.value == data["verdict"] and old.inconclusive_reason is None


def test_run_all_closing_line_counts_inconclusive_audits_apart() -> None:
    """`run --all`'s last line never folds an inconclusive audit into "no violation found"."""
    import argparse
    from types import SimpleNamespace

    from dpaudit.app.cli.entry import _closing_line

    def result(name: str, inconclusive: bool) -> SimpleNamespace:
        return SimpleNamespace(mechanism=name, violation=False, inconclusive=inconclusive, warnings=())

    args = argparse.Namespace(format=None, out=None)
    line = _closing_line([result("a", False), result("b", True), result("c", True)], args, 3.0)
    assert "3 audits, no violation found, 2 inconclusive (no power or no evidence)" in line
    assert "inconclusive" not in _closing_line([result("a", False)], args, 1.0)
