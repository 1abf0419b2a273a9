"""Floating-point events asked for by the user (issue 29, item 7): `dpaudit run --floating-point`,
`dpaudit.audit(floating_point=True)` and the gate key `floating_point`, for a mechanism that does
not declare `floating_point` (code the user did not write, audited through `module:attr`).

Held-out check: a naive `x + rng.laplace(0, 1/ε)` sum, declared nowhere, is flagged at 10⁶ samples
with the flag and not without it. With the flag the lattice event "outputs in (−1/2, 1/2) that are
not multiples of 2^-53" has probability ≈ 0.3 on D = {0} and exactly 0 on D′ = {1} (Mironov 2012,
Section 3), so the certified bound is the infinite-witness one (≈ 10.9 at 10⁶ per side), far above
ε = 1 for every seed. Without it the events are those of a Laplace mechanism over the reals, whose
true ε is 1: flagged with probability ≤ 0.05 per seed; seed 0 is a fixed, deterministic run.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import dpaudit
from dpaudit.app.cli.entry import main
from dpaudit.app.gate.config import GateConfigError, load_config
from dpaudit.engine.distinguishers import (
    DEFAULT_DISTINGUISHERS,
    FLOAT_DISTINGUISHERS,
    audits_float_bits,
    default_distinguishers,
)
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import PrivacyClaim, from_callable
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

EPSILON = 1.0
N = 1_000_000


def _naive_sum(ds: Dataset, n: int, rng: np.random.Generator) -> np.ndarray:
    return ds.X[:, 0].sum() + rng.laplace(0.0, 1.0 / EPSILON, size=n)


naive_laplace = from_callable(
    batch_fn=_naive_sum,
    name="user_naive_laplace",
    claim=PrivacyClaim(epsilon=EPSILON, relation=Relation.REPLACE_ONE, reference="textbook Laplace"),
    domain=Domain(num_features=1, feature_low=0.0, feature_high=1.0),
    pairs=(
        NeighborPair(
            dataset=Dataset(np.array([[0.0]])),
            neighbor=Dataset(np.array([[1.0]])),
            relation=Relation.REPLACE_ONE,
            description="one record 0 → 1",
        ),
    ),
)


def test_the_flag_adds_the_float_events_to_an_undeclared_mechanism() -> None:
    assert not audits_float_bits(naive_laplace)
    assert audits_float_bits(naive_laplace, floating_point=True)
    assert default_distinguishers(naive_laplace) == DEFAULT_DISTINGUISHERS
    assert default_distinguishers(naive_laplace, floating_point=True) == FLOAT_DISTINGUISHERS
    assert not AuditConfig().floating_point


def test_naive_float_laplace_flagged_with_the_flag_and_missed_without() -> None:
    flagged = dpaudit.audit(naive_laplace, num_samples=N, pairs="registered", floating_point=True)
    assert flagged.violation and flagged.pairs[0].estimate.infinite_witness
    assert flagged.epsilon_lower_bound > 10.0
    assert "multiples of 2^" in flagged.pairs[0].estimate.event
    assert "--floating-point" in flagged.command.split()
    missed = dpaudit.audit(naive_laplace, num_samples=N, pairs="registered")
    assert not missed.violation and missed.epsilon_lower_bound < EPSILON
    assert "--floating-point" not in missed.command


def test_cli_flag_on_module_attr(capsys: pytest.CaptureFixture[str]) -> None:
    target = "tests.audit.test_floating_point_flag:naive_laplace"
    code = main(
        ["run", target, "--num-samples", str(N), "--pairs", "registered", "--floating-point", "--json"]
    )
    out = capsys.readouterr().out
    assert code == 1
    result = json.loads(out)
    assert "--floating-point" in result["command"] and result["pairs"][0]["estimate"]["infinite_witness"]
    assert main(["run", target, "--num-samples", str(N), "--pairs", "registered"]) == 0


def _gate_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "dpaudit.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_gate_key_per_audit_and_default(tmp_path: Path) -> None:
    target = "tests.audit.test_floating_point_flag:naive_laplace"
    cfg = load_config(
        _gate_file(
            tmp_path,
            f'[[audit]]\nmechanism = "{target}"\nname = "a"\nfloating_point = true\n'
            f'[[audit]]\nmechanism = "{target}"\nname = "b"\n',
        )
    )
    assert [a.floating_point for a in cfg.audits] == [True, False]
    cfg = load_config(_gate_file(tmp_path, f'floating_point = true\n[[audit]]\nmechanism = "{target}"\n'))
    assert cfg.audits[0].floating_point
    with pytest.raises(GateConfigError, match="'floating_point' must be true or false"):
        load_config(_gate_file(tmp_path, f'[[audit]]\nmechanism = "{target}"\nfloating_point = "yes"\n'))


def test_gate_runs_the_audit_with_the_float_events(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    target = "tests.audit.test_floating_point_flag:naive_laplace"
    _gate_file(tmp_path, f'[[audit]]\nmechanism = "{target}"\nnum_samples = 200000\nfloating_point = true\n')
    assert main(["gate", "--out", "out"]) == 1
    result = json.loads((tmp_path / "out" / "user_naive_laplace.json").read_text())
    assert result["verdict"] == "violation_found" and "--floating-point" in result["command"]
    capsys.readouterr()
