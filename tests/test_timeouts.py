"""`dpaudit run --timeout`, the gate's `timeout` and `dpaudit.audit(timeout=...)`: a mechanism whose
sample() never returns ends the audit with exit 2 and one line naming the mechanism and the phase."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dpaudit
import dpaudit.app.cli.entry as cli
from dpaudit.app.gate.config import load_config
from dpaudit.engine.sampling import AuditTimeout, audit_session, draw
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.registry import RegistryEntry, entries
from tests import user_mechanisms

SLEEPS = "tests.user_mechanisms:sleeps_mech"
ROOT = Path(__file__).resolve().parents[1]
needs_alarm = pytest.mark.skipif(
    not hasattr(signal, "setitimer") or signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, None),
    reason="SIGALRM unavailable or taken (the timeout then only checks between sample() calls)",
)


def _dpaudit(
    *argv: str, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "dpaudit", *argv]
    return subprocess.run(
        cmd,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=None if env is None else {**os.environ, **env},
    )


def test_a_hanging_sample_exits_2_naming_mechanism_and_phase() -> None:
    start = time.monotonic()
    done = _dpaudit("run", SLEEPS, "--pairs", "registered", "--num-samples", "4000", "--timeout", "1.5")
    assert time.monotonic() - start < 60
    assert done.returncode == cli.EXIT_USAGE, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "user_sleeps" in done.stderr and "1.5 s timeout" in done.stderr
    assert "pair 1 certification" in done.stderr and "in sample()" in done.stderr


def test_a_hanging_sample_in_a_worker_process_exits_2(tmp_path: Path) -> None:
    """The timeout is one deadline for the whole audit, so on a loaded machine starting two worker
    processes can outlast 3 s before the hang: the mechanism marks the moment it hangs, and an
    attempt whose deadline came earlier must name an earlier phase; the timeout is then tripled
    until the deadline lands in the hang, whose message must name certification."""
    for seconds in (3, 9, 27):
        marker = tmp_path / f"hung-{seconds}"
        done = _dpaudit(
            *("run", SLEEPS, "--pairs", "registered", "--num-samples", "20000"),
            *("--timeout", str(seconds), "--jobs", "2"),
            env={user_mechanisms.HANG_MARKER: str(marker)},
        )
        assert done.returncode == cli.EXIT_USAGE, done.stderr
        assert done.stderr.count("\n") == 1 and "user_sleeps" in done.stderr
        if marker.exists():
            break
        assert "certification" not in done.stderr, done.stderr  # not yet hanging: an earlier phase
    assert marker.exists(), "the audit never reached the hanging sample()"
    assert "pair 1 certification" in done.stderr


def test_the_default_search_route_is_bounded_too() -> None:
    done = _dpaudit("run", SLEEPS, "--num-samples", "4000", "--timeout", "1.5")
    assert done.returncode == cli.EXIT_USAGE, done.stderr
    assert done.stderr.count("\n") == 1 and "user_sleeps" in done.stderr and "timeout" in done.stderr


@needs_alarm
def test_run_all_keeps_the_audits_finished_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fast = entries()["laplace_sum"]
    hanging = RegistryEntry(
        name="user_sleeps", factory=user_mechanisms.SleepsInSample, family="test", summary="hangs"
    )
    monkeypatch.setattr(cli, "entries", lambda: {"laplace_sum": fast, "user_sleeps": hanging})
    real = cli.resolve
    monkeypatch.setattr(
        cli, "resolve", lambda spec, params: real(f"{SLEEPS}" if spec == "user_sleeps" else spec, params)
    )
    code = cli.main(
        [
            "run",
            "--all",
            "--pairs",
            "registered",
            "--num-samples",
            "4000",
            "--timeout",
            "2",
            "--out",
            str(tmp_path),
            "--jobs",
            "1",  # in this process, where the patched registry is seen
        ]
    )
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE
    assert "user_sleeps" in err.splitlines()[-1] and "timeout" in err.splitlines()[-1]
    assert (tmp_path / "laplace_sum.json").is_file()
    assert not (tmp_path / "user_sleeps.json").exists()


@needs_alarm
def test_the_api_raises_audit_timeout() -> None:
    with pytest.raises(AuditTimeout, match=r"user_sleeps.*pair 1 certification"):
        dpaudit.audit(user_mechanisms.SleepsInSample(), num_samples=4000, pairs="registered", timeout=1.0)


def test_the_gate_timeout_applies_per_audit_and_as_a_default(tmp_path: Path) -> None:
    config = tmp_path / "dpaudit.toml"
    config.write_text(
        # fixed n: SleepsInSample hangs in a certification chunk of more than 2,000 samples, and
        # the sequential audit's first looks draw smaller chunks
        'timeout = 30\npairs = "registered"\nnum_samples = 4000\nsequential = false\n'
        '[[audit]]\nmechanism = "laplace_sum"\n'
        f'[[audit]]\nmechanism = "{SLEEPS}"\ntimeout = 1.5\n',
        encoding="utf-8",
    )
    specs = load_config(config).audits
    assert [s.timeout for s in specs] == [30.0, 1.5]
    done = _dpaudit("gate", str(config), "--out", str(tmp_path / "out"))
    assert done.returncode == cli.EXIT_USAGE, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "user_sleeps" in last and "1.5 s timeout" in last and "pair 1 certification" in last
    assert (tmp_path / "out" / "laplace_sum.json").is_file()


@pytest.mark.parametrize("value", ["-1", "0", '"soon"', "true"])
def test_a_bad_gate_timeout_is_a_config_error(tmp_path: Path, value: str) -> None:
    config = tmp_path / "dpaudit.toml"
    config.write_text(f'timeout = {value}\n[[audit]]\nmechanism = "laplace_sum"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="'timeout' must be a positive number of seconds"):
        load_config(config)


@pytest.mark.parametrize("value", ["0", "-3", "nan", "soon"])
def test_a_bad_timeout_option_is_a_usage_error(capsys: pytest.CaptureFixture[str], value: str) -> None:
    assert cli.main(["run", "laplace_sum", f"--timeout={value}"]) == cli.EXIT_USAGE
    assert "seconds" in capsys.readouterr().err


def test_audit_config_rejects_a_non_positive_timeout() -> None:
    with pytest.raises(ValueError, match="timeout"):
        AuditConfig(timeout=0.0)


def test_an_expired_deadline_stops_before_the_next_call_without_an_alarm() -> None:
    """Where no alarm can be set (a worker thread), the deadline is checked before each call."""
    mech = dpaudit.mechanisms.registry.resolve("laplace_sum", {})[0]
    dataset = mech.neighbor_pairs()[0].dataset
    with audit_session(mech.name, timeout=60) as session:
        session.deadline = time.time() - 1
        with pytest.raises(AuditTimeout, match=r"laplace_sum.*pair 1 selection"):
            draw(mech, dataset, 10, 0, (0, 0, 0, 0))
    assert draw(mech, dataset, 10, 0, (0, 0, 0, 0)).shape[0] == 10  # no session: no limit


@needs_alarm
def test_run_all_side_by_side_reports_a_worker_timeout_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With audits side by side (`run --all --jobs 2`), a timeout raised in a worker process is
    exit 2 with one line naming the mechanism, as in turn."""
    table = {k: v for k, v in entries().items() if k in {"geo_conj_small", "hs_stl"}}
    monkeypatch.setattr(cli, "entries", lambda: table)
    argv = [
        "run",
        "--all",
        "--pairs",
        "registered",
        "--timeout",
        "0.3",
        "--out",
        str(tmp_path),
        "--jobs",
        "2",
    ]
    assert cli.main(argv) == cli.EXIT_USAGE
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("dpaudit: error: mechanism") and "timeout" in last
