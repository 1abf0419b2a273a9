"""The gate's inputs and outcome: options, the I/O it is handed, and what each audit produced.

`GateOptions` are the command-line options, `GateIO` what the gate needs from outside the engine
(result writer/reader and renderers from reports/, handed in by `app.gate_io` so the gate never
imports reports/), and `GateOutcome`/`AuditOutcome` the record of a run with its exit
code and its JSON form (`gate.json`). The error budget is stated here (`VIOLATION_SHARE`): each
audit spends β_a/2 on its violation tests and β_a/2 on its regression tests, so by the union
bound the gate wrongly exits 1 with probability ≤ Σ_a β_a (`GateOutcome.failure_probability`).
A one-run audit (gate_one_run.py) has no regression test and spends its whole β_a on its verdict.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from dpaudit.engine.jsonnum import json_number
from dpaudit.engine.runner import package_version
from dpaudit.engine.types import AuditResult
from dpaudit.neighbors.base import NeighborPair

from ..baseline import DETECTION_POWER, BaselineAudit, RegressionReport, entry_detectable_increase
from .config import AuditSpec, GateConfig
from .one_run_config import OneRunSpec

DEFAULT_BASELINE = Path("dpaudit-baseline.json")
VIOLATION_SHARE = 0.5
"""Share of each audit's failure_probability spent on its violation tests (the rest: regressions)."""
GATE_KIND = "dpaudit-gate"
GATE_VERSION = 1


class GateUsageError(ValueError):
    """Bad gate options (exit 2)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GateOptions:
    baseline: Path | None = None
    update_baseline: bool = False
    out: Path | None = None
    resume: bool = False
    jobs: int = 1
    backend: str = "loky"
    strict: bool = False
    """A baseline that no longer informs a regression test is a failure (exit 2), not a warning."""

    def __post_init__(self) -> None:
        if self.resume and self.out is None:
            raise GateUsageError("--resume needs --out (checkpoints live under the output directory)")
        if self.jobs == 0 or self.jobs < -1:
            raise GateUsageError("--jobs must be ≥ 1 or -1")


@dataclass(frozen=True, slots=True, kw_only=True)
class GateIO:
    """What the gate needs from outside audit/: result files, renderers and console summaries
    (`app.gate_io.gate_io`); the pairs come from the route (`app.route`)."""

    write_result: Callable[[AuditResult, Path], None] | None = None
    read_result: Callable[[Path], AuditResult] | None = None
    render_markdown: Callable[[AuditResult], str] | None = None
    render_junit: Callable[..., str] | None = None
    """`reports.junit.render_junit`: called with the results and `names=` the audits' names."""
    summary: Callable[[AuditResult], str] | None = None
    stdout: TextIO | None = None
    stderr: TextIO | None = None

    def say(self, text: str) -> None:
        print(text, file=self.stdout or sys.stdout, flush=True)

    def warn(self, text: str) -> None:
        print(f"dpaudit: warning: {text}", file=self.stderr or sys.stderr, flush=True)


@dataclass(slots=True, kw_only=True)
class AuditOutcome:
    spec: AuditSpec | OneRunSpec
    result: AuditResult
    pairs: tuple[NeighborPair, ...]
    regression: RegressionReport | None
    regression_status: str
    """"compared", "not in baseline", "no baseline", "baseline updated", or for a one-run audit
    `gate_one_run.ONE_RUN_STATUS` (verdict only)."""
    reused: bool = False
    warnings: list[str] = field(default_factory=list)
    baseline_entry: BaselineAudit | None = None
    """The entry `--update-baseline` wrote for this audit (None otherwise)."""

    @property
    def detectable_increase(self) -> tuple[float, int | None] | None:
        """Power: (smallest rise of a witness event's loss the regression test flags with probability
        ≥ DETECTION_POWER, its pair index) against the compared baseline, or, after
        `--update-baseline`, against the entry written; None when there is neither."""
        if self.regression is not None:
            return self.regression.detectable_increase
        if self.baseline_entry is not None:
            return entry_detectable_increase(
                self.baseline_entry, self.spec.failure_probability * (1 - VIOLATION_SHARE)
            )
        return None

    @property
    def one_run(self) -> bool:
        """A one-run audit (`train`): verdict only, never compared with a baseline."""
        return isinstance(self.spec, OneRunSpec)

    @property
    def regression_failure_probability(self) -> float:
        """β_a's share for regression tests: half of it, none for a one-run audit (verdict only)."""
        return 0.0 if self.one_run else self.spec.failure_probability * (1 - VIOLATION_SHARE)

    @property
    def violation(self) -> bool:
        return self.result.violation

    @property
    def regressed(self) -> bool:
        return self.regression is not None and self.regression.regression


@dataclass(slots=True, kw_only=True)
class GateOutcome:
    config: GateConfig
    options: GateOptions
    baseline_path: Path | None
    outcomes: list[AuditOutcome] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def stale(self) -> list[str]:
        return [w for o in self.outcomes if o.regression is not None for w in o.regression.stale]

    @property
    def exit_code(self) -> int:
        """1 on a violation or a regression (a verdict outranks everything); else 2 under
        `--strict` when a baseline no longer informs its test; else 0."""
        if any(o.violation or o.regressed for o in self.outcomes):
            return 1
        return 2 if self.options.strict and self.stale else 0

    @property
    def failure_probability(self) -> float:
        """Bound on the probability that the gate wrongly exits 1 (Σ_a β_a)."""
        return sum(o.spec.failure_probability for o in self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": GATE_KIND,
            "gate_version": GATE_VERSION,
            "package_version": package_version(),
            "config": str(self.config.path),
            "baseline": None if self.baseline_path is None else str(self.baseline_path),
            "update_baseline": self.options.update_baseline,
            "exit_code": self.exit_code,
            "failure_probability": self.failure_probability,
            "violation_share": VIOLATION_SHARE,
            "audits": [_outcome_dict(o) for o in self.outcomes],
            "pending": [s.name for s in self.config.audits[len(self.outcomes) :]],
            "warnings": list(self.warnings),
        }


def _outcome_dict(o: AuditOutcome) -> dict[str, Any]:
    r = o.result
    reg = o.regression
    power = o.detectable_increase
    return {
        "name": o.spec.name,
        "kind": "one_run" if o.one_run else "mechanism",
        "mechanism": r.mechanism,
        "spec": o.spec.mechanism_spec,
        "parameters": dict(o.spec.params) if isinstance(o.spec, AuditSpec) else {},
        "verdict": r.verdict.value,
        "violation": r.violation,
        "epsilon_lower_bound": json_number(r.epsilon_lower_bound),
        "claim": r.claim.to_dict(),
        "result_file": f"{o.spec.name}.json",
        "failure_probability": o.spec.failure_probability,
        "violation_failure_probability": r.failure_probability,
        "regression_failure_probability": o.regression_failure_probability,
        "regression_status": o.regression_status,
        "regression": reg is not None and reg.regression,
        "regression_samples": None if reg is None else reg.num_samples,
        "regression_checks": [] if reg is None else [c.to_dict() for c in reg.checks],
        "detectable_increase": None if power is None else json_number(power[0]),
        "detectable_increase_pair": None if power is None or power[1] is None else power[1] + 1,
        "detection_power": DETECTION_POWER,
        "reused": o.reused,
        "warnings": o.warnings,
    }
