"""Every command dpaudit prints runs as printed and reproduces the figure: the result's `command`
(JSON, Markdown, HTML and JUnit reproduce blocks), `dpaudit plan`'s command, the gate's and the
API's. Each is run through `cli.main(shlex.split(command)[1:] + ["--json"])`."""

from __future__ import annotations

import html
import json
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dpaudit
import dpaudit.app.cli.entry as cli
from dpaudit.reports.junit import render_junit
from dpaudit.reports.schema import read_json


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = cli.main(list(argv))
    return code, capsys.readouterr().out


def _rerun(capsys: pytest.CaptureFixture[str], command: str) -> dict[str, Any]:
    argv = shlex.split(command)
    assert argv[:2] == ["dpaudit", "run"], command
    code, out = _main(capsys, *argv[1:], "--json")
    assert code in (cli.EXIT_OK, cli.EXIT_VIOLATION), command
    data: dict[str, Any] = json.loads(out)
    return data


def _same_figure(original: dict[str, Any], again: dict[str, Any]) -> None:
    for key in ("epsilon_lower_bound", "delta_lower_bound", "verdict", "num_samples", "seed"):
        assert again[key] == original[key], key
    assert again["command"] == original["command"]


@pytest.mark.parametrize(
    "argv",
    [
        # the default route (falls back to the registered pairs at this budget), profile options and
        # a failure probability that `:g` would round
        ["laplace_sum", "--num-samples", "20000", "--seed", "3", "--failure-probability", "0.0123456789",
         "--profile-deltas", "0.001"],
        ["laplace_sum", "--num-samples", "40000", "--pairs", "all", "--seed", "1"],  # the search
        ["laplace_sum_range_bug", "--num-samples", "20000", "--pairs", "registered"],  # a twin
        ["agnostic_learner_small_eps", "--num-samples", "20000", "--pairs", "registered", "--gdp"],  # learner
    ],
)  # fmt: skip
def test_the_result_command_reproduces_in_every_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
) -> None:
    code, out = _main(capsys, "run", *argv, "--json", "--out", str(tmp_path), "--format", "json,md,html")
    assert code in (cli.EXIT_OK, cli.EXIT_VIOLATION)
    original = json.loads(out)
    command = original["command"]
    stem = next(tmp_path.glob("*.json")).stem
    assert command in (tmp_path / f"{stem}.md").read_text(encoding="utf-8").splitlines()
    assert html.escape(command, quote=False) in (tmp_path / f"{stem}.html").read_text(encoding="utf-8")
    assert f"reproduce: {command}" in render_junit([read_json(tmp_path / f"{stem}.json")])
    _same_figure(original, _rerun(capsys, command))


def test_the_plan_command_runs_the_planned_audit(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["plan", "laplace_sum", "--target-epsilon", "0.3", "--pilot-samples", "5000", "--seed", "2"]
    code, out = _main(capsys, *argv, "--json")
    assert code == cli.EXIT_OK
    planned = json.loads(out)
    assert planned["num_samples"] is not None and planned["command"]
    _, text = _main(capsys, *argv)
    assert f"Run it: {planned['command']}" in text
    again = _rerun(capsys, planned["command"])
    assert again["num_samples"] == planned["num_samples"] and again["seed"] == 2
    assert again["failure_probability"] == planned["failure_probability"]
    assert again["command"].endswith("--pairs registered")  # the plan's (registered) pairs
    assert _rerun(capsys, again["command"])["epsilon_lower_bound"] == again["epsilon_lower_bound"]


@pytest.mark.parametrize("pairs", ["registered", "all"])
def test_the_gate_command_reproduces_its_audit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, pairs: str
) -> None:
    config = tmp_path / "dpaudit.toml"
    config.write_text(
        f'seed = 2\npairs = "{pairs}"\nnum_samples = 40000\n[[audit]]\nmechanism = "laplace_sum"\n',
        encoding="utf-8",
    )
    code, _ = _main(capsys, "gate", str(config), "--out", str(tmp_path / "out"))
    assert code in (cli.EXIT_OK, cli.EXIT_VIOLATION)
    original = json.loads((tmp_path / "out" / "laplace_sum.json").read_text(encoding="utf-8"))
    again = _rerun(capsys, original["command"])
    for key in ("epsilon_lower_bound", "verdict", "num_samples", "seed", "failure_probability"):
        assert again[key] == original[key], key


def test_the_api_command_reproduces(capsys: pytest.CaptureFixture[str]) -> None:
    result = dpaudit.audit("laplace_sum", num_samples=20000, seed=5, failure_probability=0.07)
    again = _rerun(capsys, result.command)
    assert again["epsilon_lower_bound"] == pytest.approx(result.epsilon_lower_bound, rel=0, abs=0)
    assert again["verdict"] == result.verdict.value and again["command"] == result.command


def test_the_plan_command_runs_for_a_mechanism_without_registered_pairs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A user's mechanism with no registered pairs: the printed command must not ask for them
    (`--pairs registered` exits 2 there); it runs the default route on the planned budget."""
    argv = ["plan", "tests.user_mechanisms:laplace_callable", "--target-epsilon", "0.3"]
    code, out = _main(capsys, *argv, "--pilot-samples", "2000", "--seed", "1", "--json")
    assert code == cli.EXIT_OK
    planned = json.loads(out)
    assert planned["command"] and "--pairs" not in planned["command"]
    again = _rerun(capsys, planned["command"])
    assert again["num_samples"] == planned["num_samples"] and again["seed"] == 1


def _noisy_sum(ds: dpaudit.Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
    return float(ds.X.sum()) + rng.laplace(0.0, 1.0, n)


BLIND = dpaudit.from_callable(
    name="blind_noisy_sum",
    claim=dpaudit.PrivacyClaim(epsilon=1.0, relation=dpaudit.Relation.REPLACE_ONE, reference="user's claim"),
    domain=dpaudit.Domain(num_features=1, min_size=2, max_size=2),
    batch_fn=_noisy_sum,
)
"""A mechanism without registered pairs: at a budget too small to search (below the racing
plan's 485 samples per side, issue 44), `run` audits its boundary templates (issue 42: the
printed command used to say `--pairs registered`, exit 2); above it, it races blind."""


def test_a_blind_mechanism_on_its_templates_prints_a_command_that_reproduces(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out = _main(capsys, "run", f"{__name__}:BLIND", "--num-samples", "400", "--json")
    assert code in (cli.EXIT_OK, cli.EXIT_VIOLATION)
    original = json.loads(out)
    assert original["command"].endswith("--pairs templates")
    assert any("boundary template pairs" in w for w in original["warnings"])
    _same_figure(original, _rerun(capsys, original["command"]))
    code, out = _main(capsys, "run", f"{__name__}:BLIND", "--num-samples", "2000", "--json")
    raced = json.loads(out)
    assert code in (cli.EXIT_OK, cli.EXIT_VIOLATION) and raced["command"].endswith("--pairs all")
    assert "search" in raced["extra"] and not any("boundary template pairs" in w for w in raced["warnings"])
    _same_figure(raced, _rerun(capsys, raced["command"]))


def test_the_pytest_plugin_reproduce_command_reproduces(capsys: pytest.CaptureFixture[str]) -> None:
    from dpaudit.app.pytest_plugin import PrivacyViolationError, assert_no_violation
    from dpaudit.reports.schema import to_json_dict

    with pytest.raises(PrivacyViolationError) as info:
        assert_no_violation("laplace_sum_range_bug", num_samples=20_000, seed=4)
    result = info.value.result
    assert f"reproduce: {result.command}" in str(info.value)
    assert result.command.endswith("--pairs registered")
    _same_figure(json.loads(json.dumps(to_json_dict(result))), _rerun(capsys, result.command))
