"""`dpaudit gate` running one-run audits (`train` in an `[[audit]]`; app/gate_one_run*.py).

The training functions below are defined here and imported by the gate as
`tests.test_gate_one_run:<name>`. `train` is a Gaussian mechanism per canary: its score is
SHIFT·included + N(0, 1), so including or excluding one canary shifts that canary's score by
SHIFT = 2 and nothing else: μ-GDP with μ = 2 (ε ≈ 10 at δ = 1e-5). Every audit is seeded, so each
outcome is deterministic: with 1,000 canaries the one-run bound certifies ε ≥ 3.05 (seed 0), far
above a claimed ε = 0.5 (a violation) and below the true curve (no violation, as it must be with
probability ≥ 1 − β for any seed).
"""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from dpaudit.app.baseline.core import read_baseline
from dpaudit.app.cli.entry import main
from dpaudit.app.gate.config import load_config
from dpaudit.app.gate.one_run import ONE_RUN_STATUS
from dpaudit.app.gate.one_run_config import OneRunSpec

HERE = "tests.test_gate_one_run"
SHIFT = 2.0
CALLS: list[int] = []
"""One entry per call of `train` (resume must not train again)."""


def train(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Gaussian scores shifted by SHIFT for the included canaries (μ-GDP, μ = SHIFT)."""
    CALLS.append(included.size)
    return SHIFT * included + rng.standard_normal(included.size)


def boom(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    raise RuntimeError("training diverged\nat step 3")


def slow(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    time.sleep(5)
    return included.astype(float)


NOT_CALLABLE = 3

MECHANISM = '[[audit]]\nmechanism = "randomized_response"\nnum_samples = 10000\nseed = 1\nname = "rr"\n'


def one_run_toml(claim: str, *, name: str = "sgd", fn: str = "train", extra: str = "") -> str:
    return f'[[audit]]\ntrain = "{HERE}:{fn}"\ncanaries = 1000\n{claim}\nname = "{name}"\n{extra}'


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def gate_json(out: Path) -> dict:
    return json.loads((out / "gate.json").read_text())


# --------------------------------------------------------------------------- verdicts and outputs
def test_mechanism_and_one_run_audit_with_a_true_claim_exit_0(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(in_tmp / "dpaudit.toml", MECHANISM + one_run_toml(f"gdp = {SHIFT}"))
    code, out, err = run(capsys, "gate", "--out", "out")
    assert code == 0, out + err
    assert "[2/2] sgd" in out and "one run" in out and ONE_RUN_STATUS in out
    assert "0 violation(s), 0 regression(s)" in out
    o = in_tmp / "out"
    assert {"rr.json", "rr.md", "sgd.json", "sgd.md", "gate.json", "gate.md", "junit.xml"} <= {
        p.name for p in o.iterdir()
    }
    rr, sgd = gate_json(o)["audits"]
    assert (rr["kind"], sgd["kind"]) == ("mechanism", "one_run")
    assert sgd["regression_status"] == ONE_RUN_STATUS and sgd["spec"] == f"{HERE}:train"
    # verdict only: the whole failure probability goes to the verdict, none to regression tests
    assert sgd["violation_failure_probability"] == 0.05 and sgd["regression_failure_probability"] == 0
    assert rr["violation_failure_probability"] == 0.025
    result = json.loads((o / "sgd.json").read_text())
    assert result["extra"]["one_run"]["m"] == 1000 and result["extra"]["gate"]["audit"] == "sgd"
    assert 0 < result["epsilon_lower_bound"] < result["claim"]["epsilon"]
    assert "sgd" in (o / "gate.md").read_text() and "One-run audits" in (o / "gate.md").read_text()
    names = [c.get("name") for c in ET.parse(o / "junit.xml").getroot().iter("testcase")]
    assert names == ["rr", "sgd"]  # the audits' names (two audits of one function stay apart)
    # the result's command is `dpaudit one-run`, and it reproduces the gate's certificate exactly
    argv = result["command"].split()[1:]
    assert argv[0] == "one-run"
    code, stdout, _ = run(capsys, *argv, "--json")
    rerun = json.loads(stdout)
    assert code == 0 and rerun["command"] == result["command"]
    assert rerun["epsilon_lower_bound"] == result["epsilon_lower_bound"]
    assert rerun["extra"]["one_run"] == result["extra"]["one_run"]


def test_a_claim_far_below_the_truth_exits_1_naming_the_audit(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = 'method = "both"\nk_plus = 100\nk_minus = 100\n'
    write(in_tmp / "dpaudit.toml", MECHANISM + one_run_toml("epsilon = 0.5", name="sgd-low", extra=extra))
    code, out, _ = run(capsys, "gate", "--out", "out")
    assert code == 1, out
    assert "[2/2] sgd-low" in out and "VIOLATION FOUND" in out and "1 violation(s)" in out
    gate = gate_json(in_tmp / "out")
    assert gate["exit_code"] == 1
    assert [(a["name"], a["violation"]) for a in gate["audits"]] == [("rr", False), ("sgd-low", True)]
    info = json.loads((in_tmp / "out" / "sgd-low.json").read_text())["extra"]["one_run"]
    assert info["methods"] == "both" and (info["k_plus"], info["k_minus"]) == (100, 100)
    suite = ET.parse(in_tmp / "out" / "junit.xml").getroot()
    assert suite.get("failures") == "1"
    (failed,) = [c for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed.get("name") == "sgd-low"


# --------------------------------------------------------------------------- configuration errors
@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            f'[[audit]]\nmechanism = "laplace_sum"\ntrain = "{HERE}:train"\ncanaries = 10\nepsilon = 1\n',
            "give 'mechanism' (a mechanism audit) or 'train' (a one-run audit), not both",
        ),
        (f'[[audit]]\ntrain = "{HERE}:train"\nepsilon = 1\n', "missing required key 'canaries'"),
        (one_run_toml("epsilon = 1", extra='method = "best"\n'), "'method' must be one of snj, fdp, both"),
        (
            one_run_toml("epsilon = 1", extra="num_samples = 1000\n"),
            "'num_samples' applies to mechanism audits",
        ),
        ('[[audit]]\nmechanism = "laplace_sum"\ncanaries = 10\n', "'canaries' applies to one-run audits"),
        ('[[audit]]\nmechanism = "laplace_sum"\nepsilon = 1\n', "'epsilon' applies to one-run audits"),
        (one_run_toml("epsilon = 1", fn="missing"), "has no attribute 'missing'"),
        (one_run_toml("epsilon = 1", fn="NOT_CALLABLE"), "is not callable"),
        (f'[[audit]]\ntrain = "{HERE}"\ncanaries = 10\nepsilon = 1\n', "package.module:attribute"),
        (one_run_toml(""), "no claim"),
        (one_run_toml("epsilon = 1\ngdp = 1"), "give the claim once"),
        (one_run_toml('accountant = "1,2"'), "'accountant' expects"),
        (one_run_toml("epsilon = 1", extra="k_plus = 2000\n"), "'k_plus' + 'k_minus'"),
        (one_run_toml("epsilon = 1", extra="canaris = 3\n"), "did you mean 'canaries'?"),
        (MECHANISM + one_run_toml("epsilon = 1", name="rr"), "[[audit]] #2: duplicate audit name 'rr'"),
    ],
)
def test_bad_one_run_configs_exit_2_before_anything_runs(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], text: str, needle: str
) -> None:
    write(in_tmp / "dpaudit.toml", text)
    CALLS.clear()
    code, out, err = run(capsys, "gate")
    assert code == 2 and not out and not CALLS  # validated before any audit ran
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("dpaudit: error: dpaudit.toml: [[audit]] #"), lines[0]
    assert needle in lines[0], lines[0]


def test_the_claim_keys_build_the_claims_of_dpaudit_one_run(in_tmp: Path) -> None:
    text = (
        one_run_toml("epsilon = 1\ndelta = 1e-6", name="a")
        + one_run_toml("gdp = 2", name="b")
        + one_run_toml('accountant = "1.0,0.01,100"', name="c", extra='relation = "replace_one"\n')
    )
    a, b, c = load_config(write(in_tmp / "dpaudit.toml", text)).audits
    assert isinstance(a, OneRunSpec) and isinstance(b, OneRunSpec) and isinstance(c, OneRunSpec)
    assert (a.claim.epsilon, a.claim.delta, a.method, a.designs) == (
        1.0,
        1e-6,
        "fdp",
        None,
    )  # the default method (issue 37)
    assert (
        b.claim.curve is not None
        and b.claim.delta == 1e-5
        and b.claim.epsilon == pytest.approx(9.997, abs=1e-3)
    )
    assert c.claim.curve is not None and c.claim.relation.value == "replace_one"
    assert ("--accountant", "1.0,0.01,100") in c.claim_flags and c.claim_flags[-1] == (
        "--relation",
        "replace_one",
    )


# --------------------------------------------------------------------------- failures mid-run
def test_a_failing_training_function_exits_2_in_one_line(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        in_tmp / "dpaudit.toml", one_run_toml("gdp = 2") + one_run_toml("epsilon = 1", name="bad", fn="boom")
    )
    code, _, err = run(capsys, "gate", "--out", "out")
    assert code == 2 and "Traceback" not in err
    (line,) = err.strip().splitlines()
    words = "the training function raised RuntimeError: training diverged at step 3"
    assert line == f"dpaudit: error: {HERE}:boom: {words}"
    gate = gate_json(in_tmp / "out")  # the finished audit was written before the failure
    assert [a["name"] for a in gate["audits"]] == ["sgd"] and gate["pending"] == ["bad"]


def test_the_timeout_stops_the_training(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "dpaudit.toml", one_run_toml("epsilon = 1", fn="slow", extra="timeout = 0.3\n"))
    start = time.perf_counter()
    code, _, err = run(capsys, "gate")
    assert code == 2 and time.perf_counter() - start < 4
    (line,) = err.strip().splitlines()
    assert "0.3 s timeout (in the training function)" in line


# --------------------------------------------------------------------------- resume and baselines
def test_resume_reuses_a_finished_one_run_result(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "dpaudit.toml", one_run_toml("gdp = 2"))
    CALLS.clear()
    assert run(capsys, "gate", "--out", "out")[0] == 0 and len(CALLS) == 1
    first = (in_tmp / "out" / "sgd.json").read_text()
    code, out, _ = run(capsys, "gate", "--out", "out", "--resume")
    assert code == 0 and "reused" in out and len(CALLS) == 1  # not trained again
    assert (in_tmp / "out" / "sgd.json").read_text() == first and gate_json(in_tmp / "out")["audits"][0][
        "reused"
    ]
    # another seed is another audit: trained again, not reused
    write(in_tmp / "dpaudit.toml", one_run_toml("gdp = 2", extra="seed = 3\n"))
    code, out, _ = run(capsys, "gate", "--out", "out", "--resume")
    assert code == 0 and "reused" not in out and len(CALLS) == 2
    assert json.loads((in_tmp / "out" / "sgd.json").read_text())["seed"] == 3


def test_update_baseline_leaves_one_run_audits_out(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(in_tmp / "dpaudit.toml", MECHANISM + one_run_toml("gdp = 2"))
    code, out, _ = run(capsys, "gate", "--update-baseline", "--baseline", "b.json")
    assert code == 0 and "sgd: one-run audit, verdict only: not stored in the baseline" in out
    assert "baseline written: b.json (1 audit(s))" in out
    assert set(read_baseline(in_tmp / "b.json").audits) == {"rr"}
    # against that baseline: the mechanism audit is compared, the one-run audit is verdict only
    code, out, err = run(capsys, "gate", "--baseline", "b.json", "--out", "out")
    assert code == 0, out + err
    assert "absent from baseline" not in err
    rr, sgd = gate_json(in_tmp / "out")["audits"]
    assert rr["regression_status"] == "compared" and sgd["regression_status"] == ONE_RUN_STATUS
    assert sgd["regression_checks"] == [] and sgd["regression"] is False
    suite = ET.parse(in_tmp / "out" / "junit.xml").getroot()
    (case,) = [c for c in suite.iter("testcase") if c.get("name") == "sgd: regression"]
    skipped = case.find("skipped")
    assert skipped is not None and "one-run audit" in skipped.get("message", "")
    # a baseline entry whose name is now a one-run audit is ignored with a warning (never compared)
    write(in_tmp / "dpaudit.toml", one_run_toml("gdp = 2", name="rr"))
    code, _, err = run(capsys, "gate", "--baseline", "b.json")
    assert code == 0 and "baseline audit 'rr' is now a one-run audit" in err
