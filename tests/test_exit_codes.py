"""The exit-code contract: 0/1 are verdicts only; 2 usage, input or the user's mechanism failing
(one line); 3 an internal error of dpaudit (one line naming a traceback file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit import cli


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main(list(argv))
    return code, capsys.readouterr().err


def test_sys_exit_inside_a_mechanism_is_a_mechanism_failure(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(capsys, "run", "tests.user_mechanisms:exiting_mech", "--num-samples", "2000")
    assert code == cli.EXIT_USAGE
    assert err.count("\n") == 1 and "user_exits" in err and "sys.exit(3)" in err


def test_an_empty_exception_message_still_names_the_cause(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(capsys, "run", "tests.user_mechanisms:silent_error_mech", "--num-samples", "2000")
    assert code == cli.EXIT_USAGE
    assert err.count("\n") == 1 and "ValueError" in err and "user_silent_error" in err


def test_an_internal_error_exits_3_with_a_traceback_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("side")

    monkeypatch.setattr(cli, "run_audit", broken)
    monkeypatch.setattr(cli, "search_and_certify", broken)
    code, err = _run(capsys, "run", "laplace_sum", "--num-samples", "2000")
    assert code == cli.EXIT_INTERNAL
    assert err.count("\n") == 1 and "internal error: KeyError" in err
    path = Path(err.split("traceback in ")[1].rstrip(")\n"))
    try:
        assert "Traceback" in path.read_text() and "KeyError" in path.read_text()
    finally:
        path.unlink()
    with pytest.raises(KeyError):  # --debug shows the traceback (after the subcommand, too)
        cli.main(["run", "laplace_sum", "--num-samples", "2000", "--debug"])
