"""`dpaudit gate`: run the configured audits, fail CI on a violation or a privacy regression.

Procedure (issue 8, item 2):

1. Read and validate the configuration (audit/gate_config.py) and, with `--baseline`, the
   baseline file (audit/baseline.py) *before* any sampling: a bad file costs nothing. An audit
   name the baseline holds under another mechanism is a mismatch (exit 2); a configured audit
   absent from the baseline gets a warning and no regression test; baseline audits no longer
   configured are ignored with a warning.
2. Run every audit in order. Each result is written under `--out` as soon as it is finished
   (`<name>.json`, `<name>.md`, and `gate.json` updated), so a crash or a later error loses
   nothing already computed; certification and re-count chunks are checkpointed under
   `--out/.checkpoints` and `--resume` continues from them (and reuses finished results whose
   configuration key matches).
3. With a baseline entry, re-count the baseline's certified events on the current mechanism and
   flag a regression when the current loss on an event is certified above the baseline's
   (audit/baseline.py derives the test and its false-alarm probability).
4. Print a summary, write `junit.xml` (one testcase per pair and per regression comparison),
   `gate.json` and `gate.md` under `--out`; with `--update-baseline`, write the baseline from
   this run's results (no regression test against the file being replaced: updating means
   accepting the current state).

Exit code: 1 if any audit's certified bound exceeds its *proved* claim (a violation; a bound
above only a paper's stated claim is a finding, never a failure, see specs/ERRATA.md) or any
regression is flagged, else 0; input errors are exit 2 via the CLI.

Error budget. An audit configured with failure_probability β_a spends β_a/2 on its violation
tests (run_audit at β_a/2) and β_a/2 on its regression tests (Bonferroni over its compared
events), whether or not a baseline is given, so the audit result of a configuration does not
depend on the baseline. The gate wrongly exits 1 with probability ≤ Σ_a β_a. To reproduce an
audit's result with `dpaudit run`, pass `--failure-probability β_a/2` (the `command` field of
its result JSON does).

This module must not import reports/ (dependency direction, DESIGN.md); the CLI hands it the
JSON writer/reader and the renderers in a `GateIO`.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from dpaudit.app.baseline import (
    Baseline,
    BaselineAudit,
    BaselineError,
    RegressionReport,
    baseline_audit_from_result,
    read_baseline,
    regression_checks,
    stale_message,
    write_baseline,
)
from dpaudit.app.gate_config import AuditSpec, GateConfig
from dpaudit.engine.checkpoint import audit_key
from dpaudit.engine.jsonnum import json_number
from dpaudit.engine.outfiles import write_text
from dpaudit.engine.runner import package_version, run_audit
from dpaudit.engine.search import search_and_certify
from dpaudit.engine.types import AuditConfig, AuditResult
from dpaudit.mechanisms.base import Mechanism, claims_of
from dpaudit.neighbors.base import NeighborPair

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


def _registered_pairs(mechanism: Mechanism) -> list[NeighborPair]:
    registered = getattr(mechanism, "neighbor_pairs", None)
    return list(registered()) if callable(registered) else []


@dataclass(frozen=True, slots=True, kw_only=True)
class GateIO:
    """What the gate needs from outside audit/: pairs, result files and renderers (from the CLI)."""

    pairs_for: Callable[[Mechanism], Sequence[NeighborPair]] = _registered_pairs
    write_result: Callable[[AuditResult, Path], None] | None = None
    read_result: Callable[[Path], AuditResult] | None = None
    render_markdown: Callable[[AuditResult], str] | None = None
    render_junit: Callable[[Sequence[AuditResult]], str] | None = None
    summary: Callable[[AuditResult], str] | None = None
    stdout: TextIO | None = None
    stderr: TextIO | None = None

    def say(self, text: str) -> None:
        print(text, file=self.stdout or sys.stdout, flush=True)

    def warn(self, text: str) -> None:
        print(f"dpaudit: warning: {text}", file=self.stderr or sys.stderr, flush=True)


@dataclass(slots=True, kw_only=True)
class AuditOutcome:
    spec: AuditSpec
    result: AuditResult
    pairs: tuple[NeighborPair, ...]
    regression: RegressionReport | None
    regression_status: str
    """"compared", "not in baseline", "no baseline" or "baseline updated"."""
    reused: bool = False
    warnings: list[str] = field(default_factory=list)

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
    return {
        "name": o.spec.name,
        "mechanism": r.mechanism,
        "spec": o.spec.mechanism_spec,
        "parameters": dict(o.spec.params),
        "verdict": r.verdict.value,
        "violation": r.violation,
        "epsilon_lower_bound": json_number(r.epsilon_lower_bound),
        "claim": r.claim.to_dict(),
        "result_file": f"{o.spec.name}.json",
        "failure_probability": o.spec.failure_probability,
        "violation_failure_probability": r.failure_probability,
        "regression_failure_probability": o.spec.failure_probability * (1 - VIOLATION_SHARE),
        "regression_status": o.regression_status,
        "regression": reg is not None and reg.regression,
        "regression_samples": None if reg is None else reg.num_samples,
        "regression_checks": [] if reg is None else [c.to_dict() for c in reg.checks],
        "reused": o.reused,
        "warnings": o.warnings,
    }


# --------------------------------------------------------------------------- helpers
def _command(spec: AuditSpec, beta_v: float) -> str:
    parts = ["dpaudit", "run", spec.mechanism_spec]
    for k, v in spec.params:
        parts += ["--param", f"{k}={v}"]
    parts += ["--num-samples", str(spec.num_samples), "--seed", str(spec.seed)]
    parts += ["--failure-probability", f"{beta_v:g}"]
    if spec.pairs != "registered":
        parts += ["--pairs", spec.pairs]
    return shlex.join(parts)


def _key(spec: AuditSpec) -> str:
    """Hash of everything that determines an audit's result (to reuse it on --resume)."""
    return audit_key(
        {
            "name": spec.name,
            "spec": spec.mechanism_spec,
            "mechanism": spec.mechanism.name,
            "params": list(spec.params),
            "claims": [c.to_dict() for c in claims_of(spec.mechanism)],
            "num_samples": spec.num_samples,
            "seed": spec.seed,
            "failure_probability": spec.failure_probability,
            "violation_share": VIOLATION_SHARE,
            "pairs": spec.pairs,
            "version": package_version(),
        }
    )


def _load_baseline(config: GateConfig, path: Path) -> tuple[Baseline, list[str]]:
    baseline = read_baseline(path)
    warnings = []
    configured = {s.name: s for s in config.audits}
    for spec in config.audits:
        entry = baseline.audits.get(spec.name)
        if entry is not None and entry.mechanism != spec.mechanism.name:
            raise BaselineError(
                f"{path}: audit {spec.name!r} is mechanism {entry.mechanism!r} in the baseline but "
                f"{spec.mechanism.name!r} in {config.path}; give the audit another name or refresh "
                "the baseline with --update-baseline"
            )
    for name in baseline.audits:
        if name not in configured:
            warnings.append(f"{path}: baseline audit {name!r} is no longer configured; ignored")
    return baseline, warnings


class _Runner:
    def __init__(self, config: GateConfig, options: GateOptions, io: GateIO) -> None:
        self.config = config
        self.options = options
        self.io = io
        self.out = options.out

    def checkpoint(self, name: str) -> Path | None:
        return self.out / ".checkpoints" / f"{name}.jsonl" if self.out else None

    def reuse(self, spec: AuditSpec, key: str) -> AuditResult | None:
        """A finished result of the same audit under --out (only with --resume)."""
        if not (self.options.resume and self.out and self.io.read_result) or spec.pairs != "registered":
            return None
        path = self.out / f"{spec.name}.json"
        if not path.is_file():
            return None
        try:
            result = self.io.read_result(path)
        except ValueError:
            self.io.warn(f"{path} is unreadable; recomputing {spec.name!r}")
            return None
        gate = result.extra.get("gate")
        return result if isinstance(gate, dict) and gate.get("key") == key else None

    def audit(self, spec: AuditSpec) -> tuple[AuditResult, tuple[NeighborPair, ...], bool]:
        beta_v = spec.failure_probability * VIOLATION_SHARE
        key = _key(spec)
        mechanism = spec.mechanism
        reused = self.reuse(spec, key)
        if reused is not None:
            return reused, tuple(self.io.pairs_for(mechanism)), True
        config = AuditConfig(
            num_samples=spec.num_samples,
            seed=spec.seed,
            failure_probability=beta_v,
            jobs=self.options.jobs,
            backend=self.options.backend,
        )
        command = _command(spec, beta_v)
        if spec.pairs == "registered":
            pairs = tuple(self.io.pairs_for(mechanism))
            result = run_audit(
                mechanism,
                pairs,
                config,
                parameters=spec.params,
                command=command,
                checkpoint_path=self.checkpoint(spec.name),
                resume=self.options.resume,
            )
        else:
            found = search_and_certify(
                mechanism,
                config,
                registered=tuple(self.io.pairs_for(mechanism)) if spec.pairs == "all" else (),
                parameters=spec.params,
                command=command,
            )
            result, pairs = found.certified, found.certified_pairs
        gate_extra = {
            "audit": spec.name,
            "key": key,
            "config": str(self.config.path),
            "failure_probability": spec.failure_probability,
            "violation_failure_probability": beta_v,
            "regression_failure_probability": spec.failure_probability - beta_v,
        }
        result = dataclasses.replace(result, extra={**result.extra, "gate": gate_extra})
        return result, pairs, False

    def write_result(self, spec: AuditSpec, result: AuditResult) -> None:
        if self.out is None:
            return
        self.out.mkdir(parents=True, exist_ok=True)
        if self.io.write_result is not None:
            self.io.write_result(result, self.out / f"{spec.name}.json")
        if self.io.render_markdown is not None:
            write_text(self.out / f"{spec.name}.md", self.io.render_markdown(result))
        ckpt = self.checkpoint(spec.name)
        if ckpt is not None:
            ckpt.unlink(missing_ok=True)

    def regression(self, spec: AuditSpec, result: AuditResult, entry: BaselineAudit) -> RegressionReport:
        report = self._recount(spec, result, entry)
        changed = _changed_parameters(entry.parameters, result.parameters)
        if changed:
            line = stale_message(f"audit {spec.name!r}", f"parameters changed ({changed})")
            report = dataclasses.replace(
                report, warnings=(*report.warnings, line), stale=(*report.stale, line)
            )
        return report

    def _recount(self, spec: AuditSpec, result: AuditResult, entry: BaselineAudit) -> RegressionReport:
        ckpt = self.out / ".checkpoints" / f"{spec.name}.regression.jsonl" if self.out else None
        report = regression_checks(
            spec.mechanism,
            entry,
            num_samples=result.certification_samples,
            seed=spec.seed,
            failure_probability=spec.failure_probability * (1 - VIOLATION_SHARE),
            jobs=self.options.jobs,
            backend=self.options.backend,
            checkpoint_path=ckpt,
            resume=self.options.resume,
        )
        if ckpt is not None:
            ckpt.unlink(missing_ok=True)
        return report


def _changed_parameters(old: Sequence[tuple[str, str]], new: Sequence[tuple[str, str]]) -> str:
    """'k: a → b, …' for the parameters that differ between the baseline and today ('' if none)."""
    a, b = dict(old), dict(new)
    keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    return ", ".join(f"{k}: {a.get(k, '(unset)')} → {b.get(k, '(unset)')}" for k in keys)


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _print_outcome(io: GateIO, o: AuditOutcome) -> None:
    r = o.result
    if o.reused:
        io.say("  (finished result reused from --out)")
    if io.summary is not None:
        io.say("  " + io.summary(r).replace("\n", "\n  "))
    else:
        verdict = "VIOLATION FOUND" if r.violation else "no violation found at this power"
        io.say(
            f"  {r.mechanism}: {verdict}; certified ε ≥ {_fmt(r.epsilon_lower_bound)} "
            f"(claim {r.claim.epsilon:g})"
        )
    if o.regression is None:
        io.say(f"  regression test: none ({o.regression_status})")
        return
    reg = o.regression
    words = "REGRESSION FOUND" if reg.regression else "no regression found"
    io.say(
        f"  regression test vs baseline: {words} ({len(reg.checks)} event(s), "
        f"{reg.num_samples:,} fresh samples/side, failure probability {reg.failure_probability:g})"
    )
    for c in reg.checks:
        io.say(f"    {c.describe()}")


def _markdown(outcome: GateOutcome) -> str:
    lines = [
        "# dpaudit gate",
        "",
        f"Configuration `{outcome.config.path}`"
        + (f", baseline `{outcome.baseline_path}`" if outcome.baseline_path else ", no baseline")
        + f". Exit code **{outcome.exit_code}**.",
        "",
        "| audit | mechanism | verdict | certified ε ≥ | claim ε | regression |",
        "|---|---|---|---|---|---|",
    ]
    for o in outcome.outcomes:
        r = o.result
        verdict = "**violation found**" if r.violation else "no violation found at this power"
        if o.regression is None:
            reg = o.regression_status
        else:
            reg = "**regression found**" if o.regressed else "no regression found"
        lines.append(
            f"| {o.spec.name} | `{r.mechanism}` | {verdict} | {_fmt(r.epsilon_lower_bound)} | "
            f"{r.claim.epsilon:g} | {reg} |"
        )
    lines += [
        "",
        f"The gate exits 1 wrongly with probability ≤ {outcome.failure_probability:g} (the sum of the "
        "audits' failure probabilities; each spends half on its violation tests and half on its regression "
        "tests). A certified bound below the claim proves nothing more than that no violation was found at "
        "this power.",
    ]
    lines += [f"- warning: {w}" for w in outcome.warnings]
    return "\n".join(lines) + "\n"


def _junit(outcome: GateOutcome, base_xml: str) -> str:
    """The reports' JUnit for the results, plus one testcase per regression comparison."""
    suite = ET.fromstring(base_xml)
    tests = int(suite.get("tests", "0"))
    failures = int(suite.get("failures", "0"))
    skipped = int(suite.get("skipped", "0"))
    summary = suite.find("system-out")
    if summary is not None:
        suite.remove(summary)
    for o in outcome.outcomes:
        cls = o.result.mechanism
        if o.regression is None:
            if o.regression_status == "not in baseline":
                case = ET.SubElement(
                    suite, "testcase", {"classname": cls, "name": f"{o.spec.name}: regression"}
                )
                ET.SubElement(
                    case, "skipped", {"message": "audit absent from the baseline: no regression test"}
                )
                tests += 1
                skipped += 1
            continue
        for c in o.regression.checks:
            name = f"{o.spec.name}: regression on pair {c.pair_index + 1} ({c.description})"
            case = ET.SubElement(suite, "testcase", {"classname": cls, "name": name})
            tests += 1
            if c.regression:
                failures += 1
                fail = ET.SubElement(case, "failure", {"message": c.describe(), "type": "PrivacyRegression"})
                fail.text = json.dumps(c.to_dict(), ensure_ascii=False, indent=1)
            out = ET.SubElement(case, "system-out")
            out.text = c.describe()
    if summary is not None:
        suite.append(summary)
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("skipped", str(skipped))
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"




def _write_summary(outcome: GateOutcome, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "gate.json", json.dumps(outcome.to_dict(), indent=2, ensure_ascii=False) + "\n")


# --------------------------------------------------------------------------- entry point
def run_gate(config: GateConfig, options: GateOptions, io: GateIO | None = None) -> GateOutcome:
    """Run the gate (see the module docstring); `outcome.exit_code` is the CLI's exit code.

    Raises BaselineError / GateUsageError (ValueErrors, exit 2 in the CLI) before any sampling
    for a bad baseline or bad options; a mechanism failing mid-run raises its MechanismError
    after the audits finished before it have been written."""
    io = io or GateIO()
    runner = _Runner(config, options, io)
    baseline_path = options.baseline or config.baseline
    baseline: Baseline | None = None
    outcome = GateOutcome(config=config, options=options, baseline_path=baseline_path)
    if options.update_baseline:
        baseline_path = outcome.baseline_path = baseline_path or DEFAULT_BASELINE
    elif baseline_path is not None:
        baseline, warnings = _load_baseline(config, baseline_path)
        outcome.warnings += warnings
        for w in warnings:
            io.warn(w)

    for spec in config.audits:
        io.say(f"[{spec.index}/{len(config.audits)}] {spec.name} ({spec.mechanism_spec})")
        result, pairs, reused = runner.audit(spec)
        runner.write_result(spec, result)  # written at once: a later crash loses nothing finished
        o = AuditOutcome(
            spec=spec, result=result, pairs=pairs, regression=None, regression_status="", reused=reused
        )
        o.warnings += [f"{spec.name}: {w}" for w in result.warnings]
        if options.update_baseline:
            o.regression_status = "baseline updated"
        elif baseline is None:
            o.regression_status = "no baseline"
        elif spec.name not in baseline.audits:
            o.regression_status = "not in baseline"
            o.warnings.append(
                f"{spec.name}: absent from baseline {baseline_path}; no regression test "
                "(add it with --update-baseline)"
            )
        else:
            o.regression = runner.regression(spec, result, baseline.audits[spec.name])
            o.regression_status = "compared"
            o.warnings += [f"{spec.name}: {w}" for w in o.regression.warnings]
        for w in o.warnings:
            io.warn(w)
        outcome.outcomes.append(o)
        outcome.warnings += o.warnings
        _print_outcome(io, o)
        if runner.out is not None:
            _write_summary(outcome, runner.out)

    if options.update_baseline and baseline_path is not None:
        new = Baseline(
            audits={
                o.spec.name: baseline_audit_from_result(o.spec.name, o.spec.mechanism_spec, o.result, o.pairs)
                for o in outcome.outcomes
            },
            package_version=package_version(),
        )
        write_baseline(new, baseline_path)
        if any(o.violation for o in outcome.outcomes):
            w = f"baseline {baseline_path} written from a run with violations"
            outcome.warnings.append(w)
            io.warn(w)
        io.say(f"baseline written: {baseline_path} ({len(new.audits)} audit(s))")

    if runner.out is not None:
        _write_summary(outcome, runner.out)
        write_text(runner.out / "gate.md", _markdown(outcome))
        if io.render_junit is not None:
            base_xml = io.render_junit([o.result for o in outcome.outcomes])
            write_text(runner.out / "junit.xml", _junit(outcome, base_xml))

    violations = sum(o.violation for o in outcome.outcomes)
    regressions = sum(o.regressed for o in outcome.outcomes)
    io.say(
        f"gate: {len(outcome.outcomes)} audit(s), {violations} violation(s), {regressions} regression(s) "
        f"→ exit {outcome.exit_code}; the gate exits 1 wrongly with probability "
        f"≤ {outcome.failure_probability:g} "
        "(each audit's failure probability, half to violation tests, half to regression tests)"
    )
    return outcome
