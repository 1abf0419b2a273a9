"""Issue 42: report files as a user expects them: permissions from the umask, `--format` only with
`--out`, and a run index rebuilt from every result in the folder on each write."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from dpaudit.app.cli.commands import write_outputs
from dpaudit.app.cli.entry import main
from dpaudit.app.cli.indexes import results_on_disk, write_indexes
from dpaudit.engine.types import Verdict
from dpaudit.reports.figures_one_run import ONE_RUN_CAPTION
from tests.reports.fixtures import make_result


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_report_files_follow_the_umask(tmp_path: Path, umask: None) -> None:
    r = make_result()
    write_outputs(r, tmp_path / "a", ["json", "md", "html"])
    modes = {p.name: _mode(p) for p in (tmp_path / "a").iterdir()}
    assert modes == {"fixture_mech.json": 0o644, "fixture_mech.md": 0o644, "fixture_mech.html": 0o644}
    os.umask(0o077)
    write_outputs(r, tmp_path / "b", ["json"])
    assert _mode(tmp_path / "b" / "fixture_mech.json") == 0o600


def test_format_without_out_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "laplace_sum", "--format", "html"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--format needs --out" in err[0]


def test_one_audit_into_an_all_folder_rebuilds_its_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = dataclasses.replace(make_result(mechanism="laplace_sum", violation=True), command="stale")
    others = [make_result(mechanism="other_a"), make_result(mechanism="other_b")]
    for r in [stale, *others]:
        write_outputs(r, tmp_path, ["json", "html"])
    write_indexes(tmp_path, [stale, *others], html=True)
    assert "laplace_sum" in (tmp_path / "index.html").read_text()
    argv = ["run", "laplace_sum", "--num-samples", "20000", "--pairs", "registered", "--out", str(tmp_path)]
    assert (
        main([*argv, "--format", "json"]) == 0
    )  # no html written this time: the index is rebuilt all the same
    capsys.readouterr()
    index = {row["mechanism"]: row for row in json.loads((tmp_path / "index.json").read_text())}
    assert set(index) == {"laplace_sum", "other_a", "other_b"}
    assert (
        index["laplace_sum"]["verdict"] == Verdict.NO_VIOLATION_FOUND.value
    )  # the fresh result, not the stale one
    page = (tmp_path / "index.html").read_text()
    assert "<strong>0 violation(s) found</strong>" in page and "other_b" in page
    assert "3 mechanism(s) audited" in (tmp_path / "index.md").read_text()


def test_a_folder_without_an_index_gets_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", "laplace_sum", "--num-samples", "20000", "--pairs", "registered", "--out", str(tmp_path)]
    assert main(argv) == 0
    capsys.readouterr()
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [
        "laplace_sum.html",
        "laplace_sum.json",
        "laplace_sum.md",
    ]


def test_results_on_disk_skip_what_is_not_a_result(tmp_path: Path) -> None:
    write_outputs(make_result(mechanism="kept"), tmp_path, ["json"])
    (tmp_path / "index.json").write_text("[]")
    (tmp_path / "notes.json").write_text('{"a": 1}')
    (tmp_path / "broken.json").write_text("{")
    assert [r.mechanism for r in results_on_disk(tmp_path)] == ["kept"]
    assert results_on_disk(tmp_path, skip=[make_result(mechanism="kept")]) == []


def test_the_one_run_caption_states_the_refutation_rule_for_curves() -> None:
    text = str(ONE_RUN_CAPTION)
    assert "on or below the solid one <em>everywhere</em>" in text
    assert "Lying below it somewhere is not enough" in text
    assert "The claim is refuted when the dotted curve lies below the solid one." not in text
