"""A mechanism that cannot be pickled to worker processes (issue 34, item 5) is sampled in-process
under `gate` (every core by default) and `run --jobs 2`, with one note, never exit 3
(`BrokenProcessPool`). The mechanism is Laplace(1) on a sum of records in [0, 1] under an ε = 1
replace-one claim, which it meets: exit 0 except with the audit's failure probability (0.05; the
seeds are fixed, so these runs are deterministic)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dpaudit.app.cli.entry import main
from dpaudit.engine.transport import ships
from tests.user_mechanisms import delegating, laplace_callable


def test_ships_tells_the_wrapper_from_a_plain_mechanism() -> None:
    assert ships((laplace_callable,), "loky")
    assert not ships((delegating,), "loky")
    assert ships((delegating,), "threading")


def test_gate_at_its_default_jobs_samples_in_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import dpaudit.app.cli.commands as cli_commands
    import dpaudit.app.cli.entry as cli

    monkeypatch.setattr(cli, "all_cores", lambda: 2)
    monkeypatch.setattr(cli_commands, "all_cores", lambda: 2)
    config = tmp_path / "dpaudit.toml"
    config.write_text(
        '[[audit]]\nmechanism = "tests.user_mechanisms:delegating"\nnum_samples = 20000\nseed = 1\n'
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    code = main(["gate", str(config)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "cannot be pickled" in err and "internal error" not in err


def test_run_with_two_jobs_samples_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["run", "tests.user_mechanisms:delegating", "--jobs", "2", "--num-samples", "20000", "--seed", "2"]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    assert "internal error" not in err
    assert os.cpu_count() is not None
