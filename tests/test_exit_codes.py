"""The exit-code contract: 0/1 are verdicts only; 2 usage, input or the user's mechanism failing
(one line); 3 an internal error of dpaudit (one line naming a traceback file)."""

from __future__ import annotations

from pathlib import Path

import pytest

import dpaudit.app.cli.entry as cli
import dpaudit.app.route as app_route
from dpaudit import api


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

    monkeypatch.setattr(app_route, "run_audit", broken)
    monkeypatch.setattr(app_route, "search_and_certify", broken)
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


def _user_module(tmp_path: Path, name: str, body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / f"{name}.py").write_text(body)
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize(
    ("body", "needle"),
    [("raise RuntimeError('bad config')\n", "RuntimeError: bad config"), ("def (:\n", "syntax error")],
)
def test_a_user_module_that_fails_at_import_is_exit_2(
    body: str,
    needle: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    name = f"dpaudit_user_{abs(hash(body)) % 10**8}"
    _user_module(tmp_path, name, body, monkeypatch)
    code, err = _run(capsys, "run", f"{name}:m")
    assert code == cli.EXIT_USAGE and err.count("\n") == 1 and needle in err


def test_a_user_module_in_the_working_directory_imports_without_pythonpath(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "from tests.user_mechanisms import laplace_callable as m\n"
    _user_module(tmp_path, "dpaudit_cwd_user_mod", body, monkeypatch)
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", str(tmp_path))])
    code, _ = _run(capsys, "run", "dpaudit_cwd_user_mod:m", "--num-samples", "3000")
    assert code == cli.EXIT_OK


def test_a_closed_pipe_is_quiet() -> None:
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "dpaudit", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()
    assert proc.wait(timeout=60) == 0
    assert proc.stderr.read() == b""


def test_pairs_registered_without_registered_pairs_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(capsys, "run", "tests.user_mechanisms:laplace_callable", "--pairs", "registered")
    assert code == cli.EXIT_USAGE and err.count("\n") == 1 and "registers no neighbour pairs" in err


def test_a_failing_candidate_weakens_the_audit_visibly_and_strict_makes_it_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = cli.main(["run", "tests.user_mechanisms:picky_mech", "--num-samples", "40000"])
    out_err = capsys.readouterr()
    assert code == cli.EXIT_OK
    assert "audit weakened:" in out_err.err and "cannot handle a zero record" in out_err.err
    assert "audit weakened:" in out_err.out  # in the verdict text too
    code, err = _run(capsys, "run", "tests.user_mechanisms:picky_mech", "--num-samples", "40000", "--strict")
    assert code == cli.EXIT_USAGE and err.count("\n") == 1 and "audit weakened" in err


def test_a_weakened_audit_says_so_in_the_report_verdicts(tmp_path: Path) -> None:
    cli.main(["run", "tests.user_mechanisms:picky_mech", "--num-samples", "40000", "--out", str(tmp_path)])
    md = (tmp_path / "user_picky.md").read_text()
    verdict = md.split("\n\n")[1]
    assert verdict.startswith("**Verdict:") and "audit weakened: " in verdict
    html = (tmp_path / "user_picky.html").read_text()
    assert "audit weakened: " in html.split('id="verdict"')[1].split("</section>")[0]


def test_outputs_of_different_shapes_across_calls_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for route, n in (("registered", "4000"), ("all", "40000")):  # a search does not skip it as one pair
        code, err = _run(
            capsys, "run", "tests.user_mechanisms:shape_shifter", "--num-samples", n, "--pairs", route
        )
        assert code == cli.EXIT_USAGE, err
        assert err.count("\n") == 1 and "user_shape_shifter" in err
        assert "(n,) float64" in err and "(n, 3) int64" in err and " here and " in err and " before (" in err


def test_outputs_of_different_shapes_in_worker_processes_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", "tests.user_mechanisms:shape_shifter", "--num-samples", "4000", "--pairs", "registered"]
    code, err = _run(capsys, *argv, "--jobs", "2")
    assert code == cli.EXIT_USAGE, err
    assert err.count("\n") == 1 and "(n, 3) int64" in err


def test_a_claim_of_the_wrong_type_exits_2_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for extra in ([], ["--pairs", "registered"], ["--pairs", "search"]):
        code, err = _run(capsys, "run", "tests.user_mechanisms:dict_claim", "--num-samples", "2000", *extra)
        assert code == cli.EXIT_USAGE
        assert err == "dpaudit: error: mechanism 'user_dict_claim': claim must be a PrivacyClaim, got dict\n"


def test_a_claim_of_the_wrong_type_is_a_mechanism_error_in_the_api() -> None:
    from dpaudit.mechanisms.base import MechanismError
    from tests.user_mechanisms import dict_claim

    with pytest.raises(MechanismError, match="claim must be a PrivacyClaim, got dict"):
        api.audit(dict_claim, num_samples=2000)


@pytest.mark.parametrize("n", ["1e15", "1000000000000000", "1e30"])
@pytest.mark.parametrize("route", ["registered", "all"])
def test_an_absurd_num_samples_is_refused_up_front_with_figures(
    capsys: pytest.CaptureFixture[str], n: str, route: str
) -> None:
    code, err = _run(capsys, "run", "laplace_sum", "--num-samples", n, "--pairs", route)
    assert code == cli.EXIT_USAGE, err
    assert err.count("\n") == 1 and "out of reach for 'laplace_sum'" in err
    assert " s of sampling (" in err and " bytes for " in err


def test_an_absurd_num_samples_is_refused_by_the_api() -> None:
    from dpaudit.engine.runner.procedure import AuditInputError

    with pytest.raises(AuditInputError, match="out of reach"):
        api.audit("laplace_sum", num_samples=10**30)
