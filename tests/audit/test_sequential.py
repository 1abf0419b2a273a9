"""Certificates that stop when decided (issue 44, item 3): the confidence sequence
(audit/runner/sequence.py), the runner's stopping rule (audit/runner/stopping.py), the budget fitted
to a mechanism's cost (audit/runner/budget.py) and their CLI and gate faces.

Statistical statements: the buggy randomized-response twin (true ε = ln 3 · 2 vs claim 1 here:
p = 0.75 against 0.25 … see mechanisms) is certified above its claim by a wide margin at a few
hundred samples, so stopping at the first look is deterministic at these seeds; the slack
mechanism below (true ε = 0.5 against a claim of 2) leaves the claim out of reach at the first
looks (its optimistic projection certifies ε ≈ 1.2 at the cap); coverage of the bound is
measured in benchmarks/stopping_coverage.py, not here.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
import pytest

from dpaudit.app.baseline import recount_samples
from dpaudit.app.cli.entry import main
from dpaudit.app.route import pairs_for
from dpaudit.engine.bounds import cp_lower, cp_upper
from dpaudit.engine.distinguishers import default_distinguishers
from dpaudit.engine.progress import Progress
from dpaudit.engine.runner import budget as budget_module
from dpaudit.engine.runner import run_audit
from dpaudit.engine.runner.budget import CostBudget, budget_from_cost, duration, round_down
from dpaudit.engine.runner.plan import plan_audit
from dpaudit.engine.runner.procedure import certify_sequential, probe_layout, select_events
from dpaudit.engine.runner.sequence import look_schedule, optimistic_counts, sequence_bounds
from dpaudit.engine.runner.stopping import CAP, FUTILITY, VIOLATION, sequential_layout
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import PrivacyClaim
from dpaudit.mechanisms.registry import resolve
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

# --------------------------------------------------------------------------- the sequence


@pytest.mark.parametrize("cap", [1, 200, 255, 256, 257, 1000, 9_000, 180_000, 10**6, 10**9])
def test_per_look_levels_sum_to_at_most_the_share(cap: int) -> None:
    s = look_schedule(cap)
    assert s.looks[-1] == cap
    assert list(s.looks) == sorted(set(s.looks))  # strictly increasing
    assert sum(s.shares) <= 1.0
    assert sum(s.level(j, 0.05) for j in range(len(s.looks))) <= 0.05
    assert s.shares[-1] == 0.5  # half the budget at the cap, where the power is
    assert len(s.looks) <= 12 and (cap < 512 or s.looks[0] >= 256)


def test_sequence_bounds_are_clopper_pearson_at_the_looks_share() -> None:
    s = look_schedule(10_000)
    for j, n in enumerate(s.looks):
        p_lo, q_hi = sequence_bounds(n // 2, n // 10, schedule=s, j=j, test_level=0.05)
        half = 0.05 * s.shares[j] / 2
        assert p_lo == pytest.approx(float(cp_lower(n // 2, n, half)))
        assert q_hi == pytest.approx(float(cp_upper(n // 10, n, half)))


def test_optimistic_counts_lean_towards_a_violation_within_the_remaining_draws() -> None:
    kp, kq = np.array([50.0, 0.0, 100.0]), np.array([10.0, 0.0, 100.0])
    up, down = optimistic_counts(kp, kq, n=100, cap=1000)
    assert np.all(up >= kp + 900 * kp / 100) and np.all(up <= kp + 900)
    assert np.all(down <= kq + 900 * kq / 100) and np.all(down >= kq)
    assert up[1] > 0  # an event never seen on P may still be at the cap


# --------------------------------------------------------------------------- the runner


def _rr(name: str) -> tuple[object, list[NeighborPair]]:
    mechanism, _ = resolve(name, {})
    return mechanism, pairs_for(mechanism)


def test_a_clear_violation_stops_early_with_fewer_samples_than_the_cap() -> None:
    mechanism, pairs = _rr("randomized_response_half_flip")
    config = AuditConfig(num_samples=50_000, seed=3, sequential=True)
    r = run_audit(mechanism, pairs, config, show_progress=False)  # type: ignore[arg-type]
    seq = r.extra["sequential"]
    assert isinstance(seq, dict)
    assert r.violation and seq["reason"] == VIOLATION
    assert r.certification_samples == seq["stopped_at"] < seq["cap"] == config.split()[1]
    assert r.num_samples == r.selection_samples + r.certification_samples
    # the stopping look's certificate: β_t times its share, at its n
    assert r.test_level == pytest.approx(0.05 / 1 * seq["share"])
    assert r.pairs[0].estimate.p_total == seq["stopped_at"]


def test_a_correct_tight_mechanism_runs_to_the_cap_without_a_violation() -> None:
    mechanism, pairs = _rr("randomized_response")
    r = run_audit(
        mechanism, pairs, AuditConfig(num_samples=20_000, seed=3, sequential=True), show_progress=False
    )  # type: ignore[arg-type]
    seq = r.extra["sequential"]
    assert isinstance(seq, dict)
    assert not r.violation and seq["reason"] in (CAP, FUTILITY)
    exact = r.pairs[0].exact_epsilon
    assert exact is not None and r.epsilon_lower_bound <= exact


class Slack:
    """Randomized response at true ε = 0.5 claiming ε = 2: correct with slack."""

    name = "slack_rr"
    claim = PrivacyClaim(epsilon=2.0, relation=Relation.REPLACE_ONE, reference="test fixture")
    domain = Domain(num_features=1, feature_low=0.0, feature_high=1.0)
    seedable = True

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        pair = NeighborPair(
            dataset=Dataset([[0.0]]),
            neighbor=Dataset([[1.0]]),
            relation=Relation.REPLACE_ONE,
            description="0 vs 1",
        )
        return (pair,)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> np.ndarray:
        keep = rng.random(num_samples) < math.exp(0.5) / (1 + math.exp(0.5))
        bit = float(dataset.X[0, 0] > 0.5)
        return np.where(keep, bit, 1.0 - bit)


def test_a_correct_mechanism_with_slack_stops_for_futility_with_a_valid_bound() -> None:
    m = Slack()
    config = AuditConfig(num_samples=100_000, seed=0, sequential=True)
    r = run_audit(m, list(m.neighbor_pairs()), config, show_progress=False)  # type: ignore[arg-type]
    seq = r.extra["sequential"]
    assert isinstance(seq, dict)
    assert not r.violation and seq["reason"] == FUTILITY
    assert seq["stopped_at"] < seq["cap"] // 4
    assert r.epsilon_lower_bound <= 0.5  # valid: below the true ε


def test_fixed_n_is_unchanged_when_stopping_is_off() -> None:
    mechanism, pairs = _rr("randomized_response")
    off = run_audit(mechanism, pairs, AuditConfig(num_samples=5_000, seed=1), show_progress=False)  # type: ignore[arg-type]
    again = run_audit(
        mechanism,  # type: ignore[arg-type]
        pairs,
        AuditConfig(num_samples=5_000, seed=1, sequential=False),
        show_progress=False,
    )
    assert "sequential" not in off.extra
    assert off.certification_samples == AuditConfig(num_samples=5_000).split()[1]
    assert off.epsilon_lower_bound == again.epsilon_lower_bound
    assert off.pairs[0].estimate == again.pairs[0].estimate


def test_the_progress_line_names_the_look_and_an_eta() -> None:
    mechanism, pairs = _rr("randomized_response")
    config = AuditConfig(num_samples=5_000, seed=1, sequential=True)
    plan = plan_audit(mechanism, pairs, config)  # type: ignore[arg-type]
    seq = sequential_layout(plan.certification_samples, probe_layout(mechanism, plan, config).chunk)  # type: ignore[arg-type]
    stream = io.StringIO()
    progress = Progress("rr", 2 * config.num_samples, enabled=True, stream=stream, delay=0.0)
    dists = default_distinguishers(mechanism)  # type: ignore[arg-type]
    selected = select_events(mechanism, plan, config, seq.layout, distinguishers=dists, progress=progress)  # type: ignore[arg-type]
    certify_sequential(mechanism, plan, config, seq, selected, progress=progress)  # type: ignore[arg-type]
    text = stream.getvalue()
    assert "eta" in text and "%" in text
    assert "certification (look " in text or "selection" in text


# --------------------------------------------------------------------------- budget from cost


class Counted:
    """A mechanism whose every sample costs 0.09 s on a fake clock (no sleeping)."""

    name = "counted"
    claim = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="test fixture")
    domain = Domain(num_features=1, feature_low=0.0, feature_high=1.0)
    seedable = True

    def __init__(self) -> None:
        self.clock = 0.0

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> np.ndarray:
        self.clock += 0.09 * num_samples
        return rng.laplace(size=num_samples)


def test_the_budget_fits_the_measured_cost_and_is_stated_up_front(monkeypatch: pytest.MonkeyPatch) -> None:
    m = Counted()
    monkeypatch.setattr(budget_module.time, "perf_counter", lambda: m.clock)
    b = budget_from_cost(m, Dataset([[0.0]]), pairs=1, workers=1, time_budget=360.0)  # type: ignore[arg-type]
    assert b.seconds_per_sample == pytest.approx(0.09)
    assert b.num_samples == 2000  # 360 s / (2 sides × 1 pair × 0.09 s)
    msg = b.message("counted")
    assert "≈ 6 min for 2,000 samples per side at 0.09 s each" in msg
    slow = budget_from_cost(m, Dataset([[0.0]]), pairs=4, workers=1, time_budget=60.0)  # type: ignore[arg-type]
    assert slow.num_samples == budget_module.MIN_BUDGET and "over the time budget" in slow.message("c")


def test_budget_helpers() -> None:
    assert round_down(2_345) == 2_300 and round_down(55_555) == 55_000 and round_down(99) == 99
    assert (
        duration(12e-6) == "12 µs"
        and duration(0.09) == "0.09 s"
        and duration(0.0031) == "3.1 ms"
        and duration(360) == "6 min"
    )
    assert duration(7200) == "2 h"
    b = CostBudget(num_samples=1000, seconds_per_sample=0.01, pairs=2, workers=2, time_budget=10)
    assert b.estimate_seconds == pytest.approx(20.0)


def test_a_user_mechanism_without_a_budget_gets_one_from_its_cost(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "tests.user_mechanisms:laplace_callable", "--time-budget", "1"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "samples per side at" in err and "--time-budget 1 s" in err
    assert "sequential: stopped at" in out


def test_no_sequential_keeps_the_fixed_n_audit_at_the_fitted_budget(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["run", "tests.user_mechanisms:laplace_callable", "--time-budget", "0.5", "--no-sequential"]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0 and "samples per side at" in err and "sequential:" not in out


@pytest.mark.parametrize(("name", "code"), [("randomized_response_half_flip", 1), ("randomized_response", 0)])
def test_exit_codes_with_sequential(name: str, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", name, "--num-samples", "20000", "--sequential", "--pairs", "registered", "--json"]
    assert main(argv) == code
    out = capsys.readouterr().out
    assert '"sequential"' in out and "--sequential" in out


# --------------------------------------------------------------------------- the gate


@pytest.mark.parametrize(("key", "sequential"), [("", True), ("sequential = false\n", False)])
def test_the_gate_stops_when_decided_unless_told_not_to(
    key: str,
    sequential: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    toml = f'{key}[[audit]]\nmechanism = "randomized_response_half_flip"\nnum_samples = 20000\nseed = 1\n'
    (tmp_path / "dpaudit.toml").write_text(toml, encoding="utf-8")
    assert main(["gate", "--out", "out", "--jobs", "1"]) == 1
    capsys.readouterr()
    result = json.loads((tmp_path / "out" / "randomized_response_half_flip.json").read_text(encoding="utf-8"))
    assert ("--sequential" in result["command"]) is sequential
    if sequential:
        assert result["extra"]["sequential"]["reason"] == VIOLATION
        assert result["certification_samples"] < AuditConfig(num_samples=20_000).split()[1]
    else:
        assert "sequential" not in result["extra"]
        assert result["certification_samples"] == AuditConfig(num_samples=20_000).split()[1]


def test_the_python_api_passes_sequential_through() -> None:
    import dpaudit

    r = dpaudit.audit(
        "randomized_response_half_flip", num_samples=20_000, pairs="registered", sequential=True
    )
    assert r.violation and "--sequential" in r.command
    seq = r.extra["sequential"]
    assert isinstance(seq, dict) and seq["stopped_at"] < seq["cap"]


def test_a_sequential_audit_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    mechanism, pairs = _rr("randomized_response")
    config = AuditConfig(num_samples=5_000, seed=2, sequential=True)
    path = tmp_path / "ck.jsonl"
    first = run_audit(mechanism, pairs, config, show_progress=False, checkpoint_path=path)  # type: ignore[arg-type]
    again = run_audit(mechanism, pairs, config, show_progress=False, checkpoint_path=path, resume=True)  # type: ignore[arg-type]
    assert again.pairs[0].estimate == first.pairs[0].estimate
    assert again.extra["sequential"] == first.extra["sequential"]


def test_witness_recounts_keep_the_cap_of_a_sequential_audit() -> None:
    mechanism, pairs = _rr("randomized_response_half_flip")
    r = run_audit(mechanism, pairs, AuditConfig(num_samples=20_000, sequential=True), show_progress=False)  # type: ignore[arg-type]
    assert r.certification_samples < recount_samples(r) == AuditConfig(num_samples=20_000).split()[1]
    fixed = run_audit(mechanism, pairs, AuditConfig(num_samples=2_000), show_progress=False)  # type: ignore[arg-type]
    assert recount_samples(fixed) == fixed.certification_samples
