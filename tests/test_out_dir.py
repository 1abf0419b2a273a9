"""Nothing is written outside --out: names are made safe, links are replaced, never followed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import dpaudit.app.cli.entry as cli
from dpaudit.engine.checkpoint import Checkpoint, CheckpointError
from dpaudit.engine.outfiles import safe_stem, write_text


def _files(root: Path) -> set[Path]:
    return set(root.rglob("*"))


def test_safe_stem_keeps_safe_names_and_separates_cleaned_ones() -> None:
    assert safe_stem("laplace_sum") == "laplace_sum"
    for bad in ("../../escaped", "a/b", "a\\b", ".hidden", "x\ny", "..", ""):
        stem = safe_stem(bad)
        assert "/" not in stem and "\\" not in stem and not stem.startswith(".") and "\n" not in stem
    assert safe_stem("a/b") != safe_stem("a_b") and safe_stem("a/b") != safe_stem("a:b")


@pytest.mark.parametrize("attr", ["escaping_mech", "slashed_mech"])
def test_a_hostile_mechanism_name_stays_inside_out(
    attr: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "a" / "b" / "out"
    before = _files(tmp_path)
    code = cli.main(["run", f"tests.user_mechanisms:{attr}", "--num-samples", "3000", "--out", str(out)])
    capsys.readouterr()
    assert code == cli.EXIT_OK
    new = _files(tmp_path) - before
    assert all(p == out or out in p.parents or p in out.parents for p in new)
    written = sorted(p.suffix for p in out.iterdir() if p.is_file())
    assert written == [".html", ".json", ".md"]


def test_symlinks_in_out_are_replaced_not_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    (out / ".checkpoints").mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    for name in ("laplace_sum.md", "laplace_sum.json", ".checkpoints/laplace_sum.jsonl"):
        os.symlink(victim, out / name)
    argv = ["run", "laplace_sum", "--num-samples", "3000", "--pairs", "registered", "--out", str(out)]
    code = cli.main(argv)
    capsys.readouterr()
    assert code == cli.EXIT_OK
    assert victim.read_text() == "keep me"
    assert not (out / "laplace_sum.md").is_symlink()
    assert json.loads((out / "laplace_sum.json").read_text())["mechanism"] == "laplace_sum"


def test_write_text_is_atomic_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "x.md"
    write_text(target, "one")
    write_text(target, "two")
    assert target.read_text() == "two" and sorted(tmp_path.iterdir()) == [target]


def test_checkpoint_with_a_cut_header_restarts_and_a_wrong_record_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"type": "hea')  # killed while writing the header
    ck = Checkpoint(path, "k", resume=True)
    ck.record_selection(0, 0, {"x": 1})
    assert json.loads(path.read_text().splitlines()[0])["key"] == "k"
    path.write_text(json.dumps({"type": "header", "key": "k", "version": 1}) + "\n" + '{"type": "chunk"}\n')
    with pytest.raises(CheckpointError, match="malformed record"):
        Checkpoint(path, "k", resume=True)


def test_a_newline_in_a_name_does_not_break_the_markdown_heading(tmp_path: Path) -> None:
    cli.main(["run", "tests.user_mechanisms:slashed_mech", "--num-samples", "3000", "--out", str(tmp_path)])
    md = next(tmp_path.glob("*.md")).read_text()
    assert md.splitlines()[0] == "# dpaudit: `team/laplace v2`"
