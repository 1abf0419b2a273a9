"""What a user of pytest or ruff expects of a command (issue 42, build item 9): `--version`, help
when no command is given, Ctrl-C that says how to continue (and no traceback during start-up),
a fast `--help`, samples asked vs spent in one sentence, and `AuditResult.to_json()` / `repr`."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dpaudit
import dpaudit.app.cli.entry as entry
import dpaudit.app.cli.front as front
from dpaudit.app.cli import main
from dpaudit.reports.schema import dumps, from_json_dict

ROOT = Path(__file__).resolve().parents[1]


def test_version_and_help_without_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"dpaudit {dpaudit.__version__}"
    for argv in ([], ["--debug"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert out.startswith("usage: dpaudit") and "one-run" in out and "--version" in out


def test_help_imports_neither_the_engine_nor_scipy() -> None:
    """`dpaudit --help` answers from the parser alone (`time python -m dpaudit --help`, 2 shared
    cores: 0.21–0.28 s wall, 0.06–0.08 s user; 2.3–3.1 s wall, 1.0 s user when it imported them)."""
    code = (
        "import sys, contextlib, io\n"
        "from dpaudit.app.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    for argv in (['--help'], ['run', '--help'], ['one-run', '--help']):\n"
        "        try: main(argv)\n"
        "        except SystemExit as e: assert e.code == 0\n"
        "heavy = ('scipy', 'dpaudit.engine.runner', 'dpaudit.reports', 'jinja2')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
    assert time.perf_counter() - start < 10  # generous: the import check above is the real test


def test_ctrl_c_during_start_up_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(front, "_load", interrupted)
    assert main(["run", "laplace_sum"]) == 130
    err = capsys.readouterr().err
    assert err == "dpaudit: interrupted during start-up\n"


def test_ctrl_c_prints_the_resume_command(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(entry, "_cmd_run", interrupted)
    argv = ["run", "laplace_sum", "--num-samples", "20000", "--out", str(tmp_path)]
    assert main(argv) == 130
    err = capsys.readouterr().err.strip()
    assert err == f"dpaudit: interrupted; continue with: {shlex.join(['dpaudit', *argv, '--resume'])}"
    assert main([*argv, "--resume"]) == 130  # already resuming: the same command, once --resume
    assert capsys.readouterr().err.count("--resume") == 1
    assert main(argv[:-2]) == 130  # no --out: nothing was checkpointed, nothing to resume
    assert capsys.readouterr().err.strip() == "dpaudit: interrupted"


def test_samples_asked_and_spent_in_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "laplace_sum", "--num-samples", "20000"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("samples:"))
    # the search's record: 7,000 pilot + 2 × 18,000 certifying = 43,000 (audit/search/certify.py)
    assert line.strip() == (
        "samples: 20,000 asked; 18,000 per side spent certifying each of 2 pairs, 7,000 on the pilot "
        "(selection included); 43,000 per side in all"
    )
    assert main(["run", "laplace_sum", "--num-samples", "20000", "--pairs", "registered"]) == 0
    out = capsys.readouterr().out
    expected = "samples: 20,000 asked; 20,000 per side spent on each of 2 pairs (2,000 choosing the event, "
    assert expected in out


def test_audit_result_to_json_and_repr() -> None:
    r = dpaudit.audit("laplace_sum", num_samples=5_000, seed=1)
    text = r.to_json()
    assert text == dumps(r) and from_json_dict(json.loads(text)).to_json() == text
    short = repr(r)
    assert short.startswith("AuditResult(laplace_sum: no_violation_found, certified ε ≥ ")
    assert "against proved ε=1 δ=0 (replace_one)" in short and "5,000 samples/side, seed 1)" in short
    assert len(short) < 200 and "\n" not in short


def test_a_sequential_audit_was_asked_its_cap(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", "laplace_sum_range_bug", "--num-samples", "200000", "--pairs", "registered"]
    argv.append("--sequential")
    assert main(argv) == 1
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("samples:"))
    spent = int(re.search(r"asked; ([\d,]+) per side drawn", line).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert "samples: 200,000 asked; " in line and spent < 200_000 and "round(s) of selection" in line
    assert re.search(r"sequential: round \d+ \(selection [\d,]+\) stopped at", out)
