"""`dpaudit scan` (issue 44, item 5, first slice): the targets read from the installed
diffprivlib, one blind audit per target, one table, exit 1 if anything is flagged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dpaudit
from dpaudit import ClaimKind, NumericColumn, PrivacyClaim, Relation
from dpaudit.app import scan as scan_module
from dpaudit.app.cli.entry import main
from dpaudit.app.scan import ScanTarget, render, scan

CLAIM = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="fake", kind=ClaimKind.PROVED)
COLUMNS = (NumericColumn(name="v", low=0.0, high=1.0),)


def _unclipped(table: Any, rng: np.random.Generator) -> np.ndarray:
    return np.array([np.asarray(table["v"], dtype=np.float64).sum() + rng.laplace(0.0, 1.0)])


def _clipped(table: Any, rng: np.random.Generator) -> np.ndarray:
    return np.array([np.clip(np.asarray(table["v"], dtype=np.float64), 0, 1).sum() + rng.laplace(0.0, 1.0)])


FAKES = [
    ScanTarget(
        "fake.unclipped",
        "tool",
        lambda: dpaudit.from_release(_unclipped, columns=COLUMNS, claim=CLAIM, name="u", max_size=8),
    ),
    ScanTarget(
        "fake.clipped",
        "tool",
        lambda: dpaudit.from_release(_clipped, columns=COLUMNS, claim=CLAIM, name="c", max_size=8),
    ),
]


def test_scan_flags_the_bug_and_not_its_fix() -> None:
    rows = scan(FAKES, budget=500, seed=0)
    assert [r.flagged for r in rows] == [True, False]
    assert rows[0].epsilon > CLAIM.epsilon and "low corner → high corner" in rows[0].witness
    table = render(rows)
    assert "FLAGGED" in table and "clean" in table and table.count("\n") == 3


def test_cli_exit_codes_and_out(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(scan_module, "targets_of", lambda library: list(FAKES))
    assert main(["scan", "diffprivlib", "--only", "fake.clipped", "--budget", "500"]) == 0
    assert main(["scan", "diffprivlib", "--budget", "500", "--out", str(tmp_path)]) == 1
    assert "fake.unclipped" in (tmp_path / "scan.md").read_text() and (tmp_path / "scan.json").exists()
    assert main(["scan", "diffprivlib", "--only", "fake.nope"]) == 2
    assert "no such target" in capsys.readouterr().err


def test_diffprivlib_targets_are_read_from_the_installed_version() -> None:
    pytest.importorskip("diffprivlib")
    names = [t.name for t in scan_module.targets_of("diffprivlib")]
    assert {"tools.mean", "tools.var", "tools.count_nonzero", "tools.histogram"} <= set(names)
    assert main(["scan", "no_such_library"]) == 2
    mean = next(t for t in scan_module.targets_of("diffprivlib") if t.name == "tools.mean")
    (row,) = scan([mean], budget=500, seed=0)
    assert not row.flagged  # diffprivlib 0.6.6's mean clips to its bounds
