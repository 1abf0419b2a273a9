"""The white-box reference (`audit.whitebox`): per-pair exact ε in the result, never in the verdict."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from dpaudit.engine.runner import whitebox
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.runner.whitebox import DEFAULT_METHOD, white_box_reference
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms import oracle_budget
from dpaudit.mechanisms.reference import LaplaceSum, RandomizedResponse
from dpaudit.neighbors.base import NeighborPair
from dpaudit.reports.html import render_html
from dpaudit.reports.markdown import render_markdown
from dpaudit.reports.schema import from_json_dict, to_json_dict

CFG = AuditConfig(num_samples=20_000, seed=4)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Declining(LaplaceSum):
    name: str = "declining"

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        raise NotImplementedError("no oracle for this pair shape")


@dataclass(frozen=True, slots=True, kw_only=True)
class _Broken(LaplaceSum):
    name: str = "broken_oracle"

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        raise ZeroDivisionError("oops")


@dataclass(frozen=True, slots=True, kw_only=True)
class _Huge(LaplaceSum):
    """An oracle that says ε = ∞: it must not turn the verdict."""

    name: str = "huge_oracle"
    exact_epsilon_method = "a made-up upper bound"

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        return math.inf


def test_each_pair_carries_the_oracle_value_and_round_trips() -> None:
    m = RandomizedResponse(epsilon=1.2)
    pairs = m.neighbor_pairs()
    r = run_audit(m, pairs, CFG)
    for p, pair in zip(r.pairs, pairs, strict=True):
        assert p.exact_epsilon == m.exact_epsilon(pair, delta=p.claim.delta)
        assert p.exact_epsilon_method == DEFAULT_METHOD
    d = to_json_dict(r)
    assert [p["exact_epsilon"] for p in d["pairs"]] == [p.exact_epsilon for p in r.pairs]
    assert from_json_dict(d).pairs == r.pairs


def test_no_oracle_declining_or_failing_oracle_gives_null_not_an_error() -> None:
    pairs = LaplaceSum().neighbor_pairs()
    declined = run_audit(_Declining(), pairs, CFG)
    broken = run_audit(_Broken(), pairs, CFG)
    assert all(p.exact_epsilon is None for p in (*declined.pairs, *broken.pairs))
    assert declined.pairs[0].exact_epsilon_method == "no oracle for this pair shape"
    assert "ZeroDivisionError" in broken.pairs[0].exact_epsilon_method
    assert to_json_dict(declined)["pairs"][0]["exact_epsilon"] is None

    class _NoOracle:  # an object with no exact_epsilon attribute at all
        pass

    assert white_box_reference(_NoOracle(), pairs[0], delta=0.0).epsilon is None  # type: ignore[arg-type]


def test_reference_never_enters_the_verdict() -> None:
    pairs = LaplaceSum().neighbor_pairs()
    plain = to_json_dict(run_audit(LaplaceSum(name="huge_oracle"), pairs, CFG))
    huge = to_json_dict(run_audit(_Huge(), pairs, CFG))
    assert all(p["exact_epsilon"] == "inf" for p in huge["pairs"])
    for d in (plain, huge):
        d.pop("elapsed_seconds")
        for p in d["pairs"]:
            p.pop("exact_epsilon")
            p.pop("exact_epsilon_method")
    assert plain == huge  # same verdict, bounds, findings: only the reference differs


def test_reports_show_claim_exact_and_certified_side_by_side() -> None:
    m = LaplaceSum()
    r = run_audit(m, m.neighbor_pairs(), CFG)
    md = render_markdown(r)
    assert "White-box reference (never used in the verdict): ε = 1" in md
    assert "certified/white-box = " in md
    page = render_html(r)
    verdict = page[page.index('<section id="verdict"') : page.index("</section>", page.index('id="verdict"'))]
    assert '<svg class="verdict-bars"' in verdict
    assert "white-box ε" in verdict and "certified ε" in verdict and "claim ε (replace-one)" in verdict
    without = dataclasses.replace(r, pairs=tuple(dataclasses.replace(p, exact_epsilon=None) for p in r.pairs))
    assert "White-box reference" not in render_markdown(without)
    assert "white-box ε" not in render_html(without).split('id="verdict"')[1].split("</section>")[0]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Slow(LaplaceSum):
    """An enumeration that would never finish, counting its work as the long oracles do."""

    name: str = "slow_oracle"

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        while True:
            oracle_budget.charge("list paths", 1)


def test_a_long_oracle_declines_at_its_work_budget_not_after_seconds() -> None:
    """The budget counts operations: the same pair declines with the same reason however loaded
    the machine is, and outside the engine's reference (tests, the cache builder) it is free."""
    pair = LaplaceSum().neighbor_pairs()[0]
    ref = whitebox.white_box_reference(_Slow(), pair, delta=0.0)
    assert ref.epsilon is None and "work budget" in ref.note and "list paths" in ref.note
    assert "operations, not seconds" in ref.note
    with oracle_budget.enforced(math.inf) as spent:
        for _ in range(3):
            oracle_budget.charge("list paths", 10**6)
    assert spent == {"list paths": 3e6}


def test_a_learner_audit_beside_a_cpu_bound_process_gives_the_same_json() -> None:
    """Issue 28: a registered learner with an oracle, run twice at the same seed, once beside
    processes busy-looping on every core, gives identical JSON apart from `elapsed_seconds`. The
    white-box values come from the shipped cache (the default route certifies registered pairs
    here) or from the oracle under its work budget counted in operations (the blind search
    certifies a generated pair), never from a clock."""
    base = [sys.executable, "-m", "dpaudit", "run", "geo_conj_small", "--num-samples", "4000", "--seed", "2"]
    commands = [[*base, "--json"], [*base, "--pairs", "search", "--json"]]
    env = {**os.environ, "CI": "true"}

    def run(cmd: list[str]) -> dict[str, Any]:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env, timeout=600)
        assert proc.returncode in (0, 1), proc.stderr
        data = json.loads(proc.stdout)
        data.pop("elapsed_seconds")
        return dict(data)

    idle = [run(cmd) for cmd in commands]
    spin = [sys.executable, "-c", "while True: pass"]
    busy = [subprocess.Popen(spin) for _ in range(len(os.sched_getaffinity(0)))]
    try:
        loaded = [run(cmd) for cmd in commands]
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert loaded == idle
    for result in idle:
        assert all(p["exact_epsilon"] is not None for p in result["pairs"]), result["pairs"]
    registered = {p["description"] for p in idle[0]["pairs"]}
    assert not registered & {p["description"] for p in idle[1]["pairs"]}  # generated: oracle run live
