"""The public Python API (`dpaudit.audit`, `dpaudit.gate`), the shipped JSON Schema, and the one
import name: user folders called `reports/` or `mechanisms/` do not shadow dpaudit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import numpy as np
import pytest

import dpaudit
from dpaudit.app.cli.entry import main
from dpaudit.app.result_schema import SCHEMA_PATH, result_schema
from dpaudit.reports.schema import to_json_dict

ROOT = Path(__file__).resolve().parents[1]


def _cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["run", *argv, "--json"]) in (0, 1)
    return json.loads(capsys.readouterr().out)


def test_audit_matches_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """`dpaudit.audit(name, ...)` is `dpaudit run name ...`: same bound, same verdict, and a
    command that reproduces it."""
    for pairs in ("all", "registered"):
        result = dpaudit.audit("laplace_sum_range_bug", num_samples=40_000, seed=3, pairs=pairs)
        cli = _cli_json(
            capsys, "laplace_sum_range_bug", "--num-samples", "40000", "--seed", "3", "--pairs", pairs
        )
        assert result.epsilon_lower_bound == cli["epsilon_lower_bound"] > 1.0
        assert result.verdict.value == cli["verdict"] == "violation_found"
        assert result.command == cli["command"]


def test_audit_of_a_user_mechanism_on_explicit_pairs() -> None:
    def noisy_count(ds: dpaudit.Dataset, rng: np.random.Generator) -> float:
        return float(ds.X.sum() + rng.laplace(0.0, 1.0))

    mech = dpaudit.from_callable(
        noisy_count,
        name="noisy_count",
        claim=dpaudit.PrivacyClaim(
            epsilon=0.5, relation=dpaudit.Relation.REPLACE_ONE, reference="test claim"
        ),
        domain=dpaudit.Domain(num_features=1),
    )
    pair = dpaudit.NeighborPair(
        dataset=dpaudit.Dataset([[0.0], [0.0]]),
        neighbor=dpaudit.Dataset([[1.0], [0.0]]),
        relation=dpaudit.Relation.REPLACE_ONE,
        description="one record 0 → 1",
    )
    result = dpaudit.audit(mech, pairs=[pair], num_samples=200_000, seed=0)
    assert result.verdict is dpaudit.Verdict.VIOLATION_FOUND  # true ε = 1 > 0.5
    assert len(result.pairs) == 1 and 0.5 < result.epsilon_lower_bound <= 1.0
    with pytest.raises(ValueError, match="pairs must be"):
        dpaudit.audit(mech, pairs="everything")


def test_gate_runs_a_config(tmp_path: Path) -> None:
    config = tmp_path / "dpaudit.toml"
    config.write_text(
        '[[audit]]\nmechanism = "laplace_sum"\nnum_samples = 10000\nseed = 1\n'
        '[[audit]]\nmechanism = "laplace_sum_range_bug"\nnum_samples = 10000\nseed = 1\n',
        encoding="utf-8",
    )
    outcome = dpaudit.gate(config, out=tmp_path / "out")
    assert outcome.exit_code == 1
    assert [o.result.verdict.value for o in outcome.outcomes] == ["no_violation_found", "violation_found"]
    assert (tmp_path / "out" / "laplace_sum.json").exists()


def test_shipped_schema_is_generated_and_validates_results(capsys: pytest.CaptureFixture[str]) -> None:
    """The shipped schema is this version's generator output, and real results (a violation
    with an infinite ratio, a search-route learner) validate against it."""
    shipped = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert shipped == result_schema()
    validator = jsonschema.Draft202012Validator(shipped)
    validator.check_schema(shipped)
    results = [
        _cli_json(
            capsys, "above_threshold_no_query_noise", "--num-samples", "20000", "--pairs", "registered"
        ),
        _cli_json(capsys, "em_learner", "--num-samples", "20000"),
        to_json_dict(dpaudit.audit("gaussian_sum", num_samples=20_000, pairs="registered")),
    ]
    for data in results:
        assert not list(validator.iter_errors(data)), data["mechanism"]
    broken = {**results[0], "verdict": "passed"}
    assert list(validator.iter_errors(broken))


def _run(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_user_folders_named_like_ours_do_not_shadow_dpaudit(tmp_path: Path) -> None:
    """A user's `reports/`, `mechanisms/`, `audit.py` or `neighbors.py` in the working directory
    (first on sys.path for `python -m`) do not break dpaudit: it imports only `dpaudit.*`."""
    for pkg in ("reports", "mechanisms"):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("raise ImportError('user package imported')\n")
    for mod in ("audit", "neighbors"):
        (tmp_path / f"{mod}.py").write_text("raise ImportError('user module imported')\n")
    listed = _run(tmp_path, "-m", "dpaudit", "list")
    assert listed.returncode == 0 and "laplace_sum" in listed.stdout, listed.stderr
    ran = _run(
        tmp_path,
        "-m",
        "dpaudit",
        "run",
        "laplace_sum",
        "--num-samples",
        "20000",
        "--out",
        "o",
        "--format",
        "html",
    )
    assert ran.returncode == 0, ran.stderr
    api = _run(
        tmp_path, "-c", "import dpaudit; print(dpaudit.audit('laplace_sum', num_samples=20000).verdict)"
    )
    assert api.returncode == 0 and "no_violation_found" in api.stdout, api.stderr


def test_the_wheel_installs_one_import_name(tmp_path: Path) -> None:
    """The built wheel holds `dpaudit/` (with `py.typed` and the schema) and its dist-info, and no
    top-level `audit`, `mechanisms`, `neighbors` or `reports`. Built from a copy of the sources, so
    nothing is written into the checkout."""
    src = tmp_path / "src"
    skip = shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "audit-reports"
    )
    shutil.copytree(ROOT, src, symlinks=True, ignore=skip)
    wheel_dir = tmp_path / "wheel"
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheel_dir), str(src)]
    built = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    (wheel,) = wheel_dir.glob("dpaudit-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"dpaudit"}, tops
    needed = [
        "py.typed",
        "result.schema.json",
        "engine/runner/procedure.py",
        "mechanisms/accountants/accountant_table.json",
        "mechanisms/registry.py",
        "mechanisms/whitebox_cache.json",  # the registered pairs' white-box values (package data)
        "app/cli/entry.py",
        "reports/templates/report.html.j2",
        "reports/templates/report.css",
    ]
    assert not [n for n in needed if f"dpaudit/{n}" not in names]
