"""`dpaudit gate`: exit codes, config validation, baselines, outputs and resume (in-process CLI).

Every audit here is seeded, so each outcome is deterministic. The statistical statements behind
them: a correct mechanism is flagged (violation or regression) with probability ≤ the audit's
failure_probability (0.05) for a fresh seed; the buggy twin (true ε = 2 vs claim 1) and the
injected regression (ε 0.5 → 1.0 on the same event) are caught with certified margins of
≈ 0.9 and ≈ 0.4 in ε at these budgets (tests/quality/test_gate.py measures the power).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dpaudit.app.baseline.core import BASELINE_KIND, BASELINE_VERSION, read_baseline
from dpaudit.app.cli.entry import main

ROOT = Path(__file__).resolve().parents[2]
N = 10_000


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def audit_toml(mechanism: str, *, params: str = "", name: str = "", seed: int = 1, n: int = N) -> str:
    lines = ["[[audit]]", f'mechanism = "{mechanism}"', f"num_samples = {n}", f"seed = {seed}"]
    if params:
        lines.append(f"params = {{ {params} }}")
    if name:
        lines.append(f'name = "{name}"')
    return "\n".join(lines) + "\n"


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def one_error_line(err: str, file_name: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"dpaudit: error: {file_name}"), lines[0]
    assert "Traceback" not in err
    return lines[0]


# --------------------------------------------------------------------------- exit codes
def test_correct_mechanism_exits_0(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "dpaudit.toml", audit_toml("laplace_sum") + audit_toml("randomized_response"))
    code, out, _ = run(capsys, "gate")
    assert code == 0, out
    assert "no violation found at this power" in out and "0 violation(s), 0 regression(s)" in out


def test_buggy_twin_exits_1(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "dpaudit.toml", audit_toml("laplace_sum") + audit_toml("laplace_sum_range_bug"))
    code, out, _ = run(capsys, "gate", "--out", "out")
    assert code == 1 and "VIOLATION FOUND" in out
    gate = json.loads((in_tmp / "out" / "gate.json").read_text())
    assert [a["violation"] for a in gate["audits"]] == [False, True] and gate["exit_code"] == 1
    # the violation tests run at half the audit's budget (the other half is for regressions)
    assert gate["audits"][1]["violation_failure_probability"] == pytest.approx(0.025)


def make_baseline(in_tmp: Path, capsys: pytest.CaptureFixture[str], params: str) -> Path:
    cfg = write(in_tmp / "base.toml", audit_toml("laplace_sum", params=params, name="lap"))
    code, out, _ = run(capsys, "gate", "--config", str(cfg), "--update-baseline", "--baseline", "b.json")
    assert code == 0 and "baseline written: b.json" in out
    return in_tmp / "b.json"


def test_injected_regression_exits_1(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_baseline(in_tmp, capsys, "epsilon = 0.5")
    # the same audit name now runs ε = 1.0: its claim is met (no violation) but its loss doubled
    write(in_tmp / "dpaudit.toml", audit_toml("laplace_sum", params="epsilon = 1.0", name="lap", seed=2))
    code, out, _ = run(capsys, "gate", "--baseline", "b.json", "--out", "out")
    assert code == 1, out
    assert "REGRESSION FOUND" in out and "0 violation(s), 1 regression(s)" in out
    gate = json.loads((in_tmp / "out" / "gate.json").read_text())
    (audit,) = gate["audits"]
    assert audit["violation"] is False and audit["regression"] is True
    assert audit["regression_status"] == "compared"
    checks = audit["regression_checks"]
    assert len(checks) == 4 and all(c["new_lower"] > c["baseline_upper"] for c in checks if c["regression"])
    assert all(c["test_level"] == pytest.approx(0.025 / 4) for c in checks)  # Bonferroni over 4
    suite = ET.parse(in_tmp / "out" / "junit.xml").getroot()
    failures = [f for f in suite.iter("failure") if f.get("type") == "PrivacyRegression"]
    assert failures and int(suite.get("failures", "0")) == len(failures)
    assert "regression" in (in_tmp / "out" / "gate.md").read_text()


def test_unchanged_mechanism_against_its_baseline_exits_0(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_baseline(in_tmp, capsys, "epsilon = 1.0")
    write(in_tmp / "dpaudit.toml", audit_toml("laplace_sum", params="epsilon = 1.0", name="lap"))
    code, out, _ = run(capsys, "gate", "--baseline", "b.json")
    assert code == 0, out
    assert "no regression found (4 event(s)" in out  # 2 witnesses + 2 chosen today
    assert "power: detects a rise of a witness's loss ≥ " in out and "w.p. ≥ 0.8" in out


def test_update_baseline_round_trip(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "dpaudit.toml", audit_toml("laplace_sum") + audit_toml("randomized_response"))
    code, _, _ = run(capsys, "gate", "--update-baseline", "--out", "out")
    assert code == 0
    path = in_tmp / "dpaudit-baseline.json"  # the default baseline file
    data = json.loads(path.read_text())
    assert data["kind"] == BASELINE_KIND and data["baseline_version"] == BASELINE_VERSION == 2
    baseline = read_baseline(path)
    assert set(baseline.audits) == {"laplace_sum", "randomized_response"}
    for name, entry in baseline.audits.items():
        result = json.loads((in_tmp / "out" / f"{name}.json").read_text())
        assert [e.event_spec for e in entry.events] == [p["event_spec"] for p in result["pairs"]]
        # the witnesses' counts are a fresh re-count of the certification split per side (baseline.py;
        # a sequential audit's: the fixed-n split of its budget, `recount_samples`)
        recount = result["extra"].get("sequential", {}).get("cap", result["certification_samples"])
        assert [(e.p_total, e.q_total) for e in entry.events] == [(recount,) * 2 for _ in result["pairs"]]
    gate = json.loads((in_tmp / "out" / "gate.json").read_text())
    assert all(a["detectable_increase"] is not None and a["detection_power"] == 0.8 for a in gate["audits"])
    # the same configuration and seed gate against its own baseline: compared, no regression
    code, out, _ = run(capsys, "gate", "--baseline", str(path))
    assert code == 0 and out.count("regression test vs baseline: no regression found") == 2


def test_pyproject_table_is_found(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        in_tmp / "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.dpaudit]\nnum_samples = 5000\nseed = 3\n\n'
        '[[tool.dpaudit.audit]]\nmechanism = "exponential_mechanism"\n',
    )
    code, out, _ = run(capsys, "gate")
    assert code == 0 and "exponential_mechanism" in out and "samples: 5,000 asked" in out


def test_user_mechanism_by_module_attribute(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "dpaudit.toml", audit_toml("tests.user_mechanisms:laplace_callable"))
    code, out, _ = run(capsys, "gate")
    assert code == 0 and "user_laplace" in out


# --------------------------------------------------------------------------- input errors
GOOD = audit_toml("laplace_sum")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[[audit]\nmechanism = 'x'\n", "invalid TOML"),
        ("num_sample = 1000\n" + GOOD, "unknown key 'num_sample' (did you mean 'num_samples'?)"),
        (
            GOOD + '[[audit]]\nmechanism = "randomized_response"\nnum_sample = 1000\n',
            "[[audit]] #2: unknown key 'num_sample' (did you mean 'num_samples'?)",
        ),
        ("[[audit]]\nseed = 1\n", "[[audit]] #1: missing required key 'mechanism'"),
        (
            '[[audit]]\nmechanism = "lapace_sum"\n',
            "unknown mechanism 'lapace_sum' (did you mean 'laplace_sum'",
        ),
        ('[[audit]]\nmechanism = "no_such_module:thing"\n', "cannot import 'no_such_module'"),
        ('[[audit]]\nmechanism = "laplace_sum"\nparams = { eps = 1 }\n', "unknown parameter 'eps'"),
        ('[[audit]]\nmechanism = "laplace_sum"\nparams = { epsilon = -1 }\n', "cannot build 'laplace_sum'"),
        ('[[audit]]\nmechanism = "laplace_sum"\nnum_samples = "1000"\n', "'num_samples' must be an integer"),
        (
            '[[audit]]\nmechanism = "laplace_sum"\nnum_samples = 10\n',
            "'num_samples' must be an integer ≥ 200",
        ),
        ('[[audit]]\nmechanism = "laplace_sum"\nseed = -1\n', "'seed' must be a non-negative integer"),
        ('[[audit]]\nmechanism = "laplace_sum"\nfailure_probability = 1\n', "'failure_probability' must be"),
        ('[[audit]]\nmechanism = "laplace_sum"\npairs = "best"\n', "'pairs' must be one of"),
        ('[[audit]]\nmechanism = "laplace_sum"\nparams = 3\n', "'params' must be a table"),
        ('[[audit]]\nmechanism = "laplace_sum"\nname = "a/b"\n', "'name' must be"),
        ("mechanism = 3\n[[audit]]\nmechanism = 'laplace_sum'\n", "unknown key 'mechanism'"),
        ("seed = 1\n", "no audits configured"),
        ("audit = 3\n", "'audit' must be an array of tables"),
        ("baseline = 3\n" + GOOD, "'baseline' must be a file name"),
        (GOOD + GOOD, "[[audit]] #2: duplicate audit name 'laplace_sum'"),
    ],
)
def test_malformed_config_exits_2_with_one_line(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], text: str, needle: str
) -> None:
    write(in_tmp / "dpaudit.toml", text)
    code, _, err = run(capsys, "gate")
    assert code == 2
    line = one_error_line(err, "dpaudit.toml: ")
    assert needle in line, line


def test_pyproject_errors_name_the_file(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        in_tmp / "pyproject.toml",
        '[tool.dpaudit]\n[[tool.dpaudit.audit]]\nmechanism = "laplace_sum"\nbad = 1\n',
    )
    code, _, err = run(capsys, "gate")
    assert code == 2
    assert "[[tool.dpaudit.audit]] #1: unknown key 'bad'" in one_error_line(err, "pyproject.toml: ")
    write(in_tmp / "other.toml", "[tool.other]\nx = 1\n")
    write(in_tmp / "pyproject.toml", '[project]\nname = "x"\n')
    code, _, err = run(capsys, "gate", "--config", "pyproject.toml")
    assert code == 2 and "no [tool.dpaudit] table" in one_error_line(err, "pyproject.toml: ")


@pytest.mark.parametrize(
    "argv",
    [
        ["gate"],  # nothing to find in an empty directory
        ["gate", "--config", "missing.toml"],
        ["gate", "--resume"],
        ["gate", "--jobs", "0"],
        ["gate", "a.toml", "--config", "b.toml"],
    ],
)
def test_usage_errors_exit_2(in_tmp: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    if argv[1:] in (["--resume"], ["--jobs", "0"]):
        write(in_tmp / "dpaudit.toml", GOOD)
    code, _, err = run(capsys, *argv)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpaudit: error: ") and "Traceback" not in err


# --------------------------------------------------------------------------- baselines
def test_bad_baselines_exit_2_naming_the_file(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "dpaudit.toml", GOOD)
    cases = {
        "missing.json": None,
        "garbage.json": "not json",
        "list.json": "[]",
        "other.json": json.dumps({"kind": "something-else"}),
        "newer.json": json.dumps({"kind": BASELINE_KIND, "baseline_version": 99, "audits": {}}),
        "noversion.json": json.dumps({"kind": BASELINE_KIND, "audits": {}}),
        "noaudits.json": json.dumps({"kind": BASELINE_KIND, "baseline_version": BASELINE_VERSION}),
        "badaudit.json": json.dumps(
            {"kind": BASELINE_KIND, "baseline_version": BASELINE_VERSION, "audits": {"x": {"seed": 1}}}
        ),
        "version1.json": json.dumps({"kind": BASELINE_KIND, "baseline_version": 1, "audits": {}}),
    }
    for name, text in cases.items():
        if text is not None:
            write(in_tmp / name, text)
        code, out, err = run(capsys, "gate", "--baseline", name)
        assert code == 2, (name, err)
        one_error_line(err, f"{name}: ")
        assert out == ""  # validated before any audit runs


def test_mismatched_baseline_mechanism_exits_2(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_baseline(in_tmp, capsys, "epsilon = 1.0")  # audit "lap" is laplace_sum
    write(in_tmp / "dpaudit.toml", audit_toml("gaussian_sum", name="lap"))
    code, out, err = run(capsys, "gate", "--baseline", "b.json")
    assert code == 2 and out == ""
    line = one_error_line(err, "b.json: ")
    assert "'laplace_sum' in the baseline but 'gaussian_sum'" in line


def test_malformed_baseline_event_exits_2(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = make_baseline(in_tmp, capsys, "epsilon = 1.0")
    data = json.loads(path.read_text())
    data["audits"]["lap"]["events"][1]["p_count"] = data["audits"]["lap"]["events"][1]["p_total"] + 1
    write(path, json.dumps(data))
    write(in_tmp / "dpaudit.toml", audit_toml("laplace_sum", name="lap"))
    code, _, err = run(capsys, "gate", "--baseline", "b.json")
    assert code == 2 and "audit 'lap' event #2" in one_error_line(err, "b.json: ")


def test_nan_threshold_in_a_baseline_exits_2_naming_the_file(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A witness's threshold edited to NaN never holds: read as it is, the gate would call the
    baseline "no longer informative" and exit 0; it is refused before any audit runs."""
    path = make_baseline(in_tmp, capsys, "epsilon = 1.0")
    data = json.loads(path.read_text())
    data["audits"]["lap"]["events"][0]["event_spec"]["threshold"] = float("nan")
    write(path, json.dumps(data))  # the NaN literal json.dumps writes
    write(in_tmp / "dpaudit.toml", audit_toml("laplace_sum", name="lap"))
    code, out, err = run(capsys, "gate", "--baseline", "b.json")
    assert code == 2 and out == ""
    line = one_error_line(err, "b.json: ")
    assert "audit 'lap' event #1" in line and "'threshold'" in line and "NaN" in line


def test_audit_absent_from_baseline_warns_and_is_not_compared(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_baseline(in_tmp, capsys, "epsilon = 1.0")
    write(
        in_tmp / "dpaudit.toml",
        audit_toml("laplace_sum", params="epsilon = 1.0", name="lap") + audit_toml("randomized_response"),
    )
    code, out, err = run(capsys, "gate", "--baseline", "b.json", "--out", "out")
    assert code == 0, out
    assert "randomized_response: absent from baseline b.json; no regression test" in err
    gate = json.loads((in_tmp / "out" / "gate.json").read_text())
    assert [a["regression_status"] for a in gate["audits"]] == ["compared", "not in baseline"]
    suite = ET.parse(in_tmp / "out" / "junit.xml").getroot()
    assert int(suite.get("skipped", "0")) == 1


def test_baseline_from_config_key(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_baseline(in_tmp, capsys, "epsilon = 1.0")
    write(in_tmp / "dpaudit.toml", 'baseline = "b.json"\n' + audit_toml("laplace_sum", name="lap"))
    code, out, _ = run(capsys, "gate")
    assert code == 0 and "regression test vs baseline" in out


# --------------------------------------------------------------------------- outputs, crash, resume
def test_error_mid_run_keeps_finished_results(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        in_tmp / "dpaudit.toml",
        audit_toml("laplace_sum") + audit_toml("tests.user_mechanisms:raising_mech"),
    )
    code, _, err = run(capsys, "gate", "--out", "out")
    assert code == 2 and "kaboom" in err and len(err.strip().splitlines()) == 1
    out = in_tmp / "out"
    first = json.loads((out / "laplace_sum.json").read_text())
    assert first["mechanism"] == "laplace_sum" and first["extra"]["gate"]["audit"] == "laplace_sum"
    gate = json.loads((out / "gate.json").read_text())
    assert [a["name"] for a in gate["audits"]] == ["laplace_sum"] and gate["pending"] == ["user_raises"]
    # fix the config and resume: the finished audit is reused, not recomputed
    write(in_tmp / "dpaudit.toml", audit_toml("laplace_sum") + audit_toml("randomized_response"))
    code, stdout, _ = run(capsys, "gate", "--out", "out", "--resume")
    assert code == 0 and stdout.count("reused") == 1
    again = json.loads((out / "laplace_sum.json").read_text())
    assert again == first


def test_resume_recomputes_when_the_audit_changed(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "dpaudit.toml", audit_toml("laplace_sum", seed=1))
    assert run(capsys, "gate", "--out", "out")[0] == 0
    write(in_tmp / "dpaudit.toml", audit_toml("laplace_sum", seed=2))
    code, stdout, _ = run(capsys, "gate", "--out", "out", "--resume")
    assert code == 0 and "reused" not in stdout
    assert json.loads((in_tmp / "out" / "laplace_sum.json").read_text())["seed"] == 2


def test_outputs_and_reproduction_command(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "dpaudit.toml", audit_toml("randomized_response", seed=5))
    assert run(capsys, "gate", "--out", "out")[0] == 0
    out = in_tmp / "out"
    assert {p.name for p in out.iterdir()} >= {
        "randomized_response.json",
        "randomized_response.md",
        "gate.json",
        "gate.md",
        "junit.xml",
    }
    assert not (out / ".checkpoints" / "randomized_response.jsonl").exists()  # dropped once written
    result = json.loads((out / "randomized_response.json").read_text())
    # `dpaudit run` with the printed command reproduces the gate's audit result exactly
    argv = result["command"].split()[1:]
    code, stdout, _ = run(capsys, *argv, "--json")
    assert code == 0
    rerun = json.loads(stdout)
    assert [p["estimate"] for p in rerun["pairs"]] == [p["estimate"] for p in result["pairs"]]


def test_subprocess_exit_codes(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    write(tmp_path / "bug.toml", audit_toml("laplace_sum_range_bug"))
    write(tmp_path / "bad.toml", audit_toml("laplace_sum") + "num_sample = 3\n")
    proc = subprocess.run(
        [sys.executable, "-m", "dpaudit", "gate", "--config", "bug.toml"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert "VIOLATION FOUND" in proc.stdout and "Traceback" not in proc.stderr  # 1 from the verdict
    proc = subprocess.run(
        [sys.executable, "-m", "dpaudit", "gate", "--config", "bad.toml"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "dpaudit: error: bad.toml: [[audit]] #1: unknown key 'num_sample' (did you mean 'num_samples'?)"
    )


# --------------------------------------------------------------------------- stale baselines
def test_a_stale_baseline_is_named_and_strict_makes_it_exit_2(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stored event that no longer occurs gives "loss now ≥ −∞": true, but no check at all.
    The gate names it (and the changed parameters) and `--strict` fails with exit 2."""
    path = make_baseline(in_tmp, capsys, "epsilon = 1.0")
    data = json.loads(path.read_text())
    for event in data["audits"]["lap"]["events"]:  # an event far outside every output
        event["event_spec"].update(threshold=1e9, upper=True)
    path.write_text(json.dumps(data))
    write(in_tmp / "dpaudit.toml", audit_toml("laplace_sum", params="epsilon = 1.0", name="lap"))
    code, _, err = run(capsys, "gate", "--baseline", "b.json")
    assert code == 0
    assert "baseline no longer informative for pair 1" in err
    assert "re-run `dpaudit gate --update-baseline`" in err
    code, _, err = run(capsys, "gate", "--baseline", "b.json", "--strict")
    assert code == 2
    write(in_tmp / "dpaudit.toml", audit_toml("laplace_sum", params="epsilon = 0.9", name="lap"))
    make_baseline(in_tmp, capsys, "epsilon = 1.0")
    code, _, err = run(capsys, "gate", "--baseline", "b.json", "--strict")
    assert code == 2 and "parameters changed (epsilon: 1.0 → 0.9)" in err


def test_certified_witnesses_store_every_certified_event(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`witnesses = "certified"`: the baseline holds every event the pair's primary test
    certified (reported first), re-counted, and the gate compares each at β_reg / m."""
    write(in_tmp / "dpaudit.toml", 'witnesses = "certified"\n' + audit_toml("gaussian_sum", n=40_000))
    code, _, _ = run(capsys, "gate", "--update-baseline", "--out", "out")
    assert code == 0
    entry = read_baseline(in_tmp / "dpaudit-baseline.json").audits["gaussian_sum"]
    result = json.loads((in_tmp / "out" / "gaussian_sum.json").read_text())
    (primary,) = [t for t in result["extra"]["certified_events"] if t.get("primary")]
    specs = [r["spec"] for r in primary["events"]]
    assert len(entry.events) == len(specs) > 1
    assert entry.events[0].event_spec == result["pairs"][0]["event_spec"]
    assert sorted(map(json.dumps, (e.event_spec for e in entry.events))) == sorted(map(json.dumps, specs))
    recount = result["extra"].get("sequential", {}).get("cap", result["certification_samples"])
    assert all(e.p_total == recount for e in entry.events)
    code, out, _ = run(capsys, "gate", "--baseline", "dpaudit-baseline.json")
    assert code == 0 and f"({len(specs) + 1} event(s)," in out  # + one chosen today


def test_witnesses_key_is_validated(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "dpaudit.toml", 'witnesses = "all"\n' + audit_toml("laplace_sum"))
    code, _, err = run(capsys, "gate")
    assert code == 2
    assert "'witnesses' must be one of reported, certified" in one_error_line(err, "dpaudit.toml")


def test_two_audits_of_one_mechanism_get_their_own_junit_testcases(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JUnit names the gate's testcases by audit name: two audits of laplace_sum at different ε
    are two testcases (and two sets of properties), not one name twice."""
    write(
        in_tmp / "dpaudit.toml",
        audit_toml("laplace_sum", params="epsilon = 0.5", name="lap-half")
        + audit_toml("laplace_sum", params="epsilon = 1.0", name="lap-one"),
    )
    code, out, _ = run(capsys, "gate", "--out", "out")
    assert code == 0, out
    suite = ET.parse(in_tmp / "out" / "junit.xml").getroot()
    names = [c.get("name") for c in suite.iter("testcase")]
    assert names[:2] == ["lap-half", "lap-one"]
    props = {p.get("name") for p in suite.iter("property")}
    assert {"lap-half.verdict", "lap-one.verdict"} <= props
