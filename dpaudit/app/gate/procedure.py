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
3. With a baseline entry, re-count the baseline's witness events on the current mechanism and
   flag a regression when the current loss on an event is certified above the baseline's
   (audit/baseline.py derives the test and its false-alarm probability); each report states the
   smallest rise of a witness's loss detected with probability ≥ 0.8 (baseline_stale.py).
4. Print a summary, write `junit.xml` (one testcase per pair and per regression comparison),
   `gate.json` and `gate.md` under `--out`; with `--update-baseline`, write the baseline from
   this run's results, each reported event re-counted on fresh streams (audit/baseline.py)
   (no regression test against the file being replaced: updating means
   accepting the current state).

One-run audits (`train` instead of `mechanism`; gate_one_run.py) train once and are verdict only:
no regression test (nothing to re-count), left out of `--update-baseline`'s file, their whole
failure probability spent on the verdict; their results, reports and exit codes are the others'.

Exit code: 1 if any audit's verdict is a violation (the one verdict rule of `run`,
`mechanisms.base.decides_verdict`: a bound above a paper's stated claim beside a proved one is a
finding, never a failure, see docs/specs/ERRATA.md; a lone stated claim decides) or any
regression is flagged, else 0; input errors are exit 2 via the CLI.

Error budget. An audit configured with failure_probability β_a spends β_a/2 on its violation
tests (run_audit at β_a/2) and β_a/2 on its regression tests (Bonferroni over its compared
events), whether or not a baseline is given, so the audit result of a configuration does not
depend on the baseline. The gate wrongly exits 1 with probability ≤ Σ_a β_a. To reproduce an
audit's result with `dpaudit run`, pass `--failure-probability β_a/2` (the `command` field of
its result JSON does).

This module must not import reports/ (dependency direction, docs/DESIGN.md); the CLI hands it the
JSON writer/reader and the renderers in a `GateIO`. Layout: options, I/O and outcome types in
`gate_types`, the summary and output files in `gate_report`; this module runs the audits.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Sequence
from pathlib import Path

from dpaudit.engine.checkpoint import audit_key
from dpaudit.engine.outfiles import write_text
from dpaudit.engine.runner import package_version
from dpaudit.engine.sampling import audit_session
from dpaudit.engine.types import AuditConfig, AuditResult
from dpaudit.mechanisms.base import claims_of
from dpaudit.neighbors.base import NeighborPair

from ..baseline import (
    Baseline,
    BaselineAudit,
    BaselineError,
    RegressionReport,
    baseline_audit_from_result,
    read_baseline,
    recount_samples,
    regression_checks,
    stale_message,
    write_baseline,
)
from ..route import Route, certify, pairs_for, template_pairs
from .config import AuditSpec, GateConfig
from .one_run import ONE_RUN_STATUS, one_run_key, run_one_run
from .one_run_config import OneRunSpec
from .report import (
    print_baseline_power,
    print_outcome,
    print_verdict,
    write_reports,
    write_summary,
)
from .types import (
    DEFAULT_BASELINE,
    GATE_KIND,
    GATE_VERSION,
    VIOLATION_SHARE,
    AuditOutcome,
    GateIO,
    GateOptions,
    GateOutcome,
    GateUsageError,
)

__all__ = [  # the config-driven run; options, I/O and outcome types are re-exported for importers
    "DEFAULT_BASELINE",
    "GATE_KIND",
    "GATE_VERSION",
    "VIOLATION_SHARE",
    "AuditOutcome",
    "GateIO",
    "GateOptions",
    "GateOutcome",
    "GateUsageError",
    "run_gate",
]


def _command(spec: AuditSpec, violation_failure_probability: float) -> str:
    parts = ["dpaudit", "run", spec.mechanism_spec]
    for k, v in spec.params:
        parts += ["--param", f"{k}={v}"]
    parts += ["--num-samples", str(spec.num_samples), "--seed", str(spec.seed)]
    parts += ["--failure-probability", f"{violation_failure_probability:g}"]
    if spec.floating_point:
        parts.append("--floating-point")
    if spec.sequential:
        parts.append("--sequential")
    return shlex.join(parts)  # the route appends the `--pairs` it audited (`dpaudit run` defaults to "all")


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
            **({"floating_point": True} if spec.floating_point else {}),
            **({"sequential": True} if spec.sequential else {}),
        }
    )


def _load_baseline(config: GateConfig, path: Path) -> tuple[Baseline, list[str]]:
    baseline = read_baseline(path)
    warnings = []
    configured = {s.name: s for s in config.audits}
    for spec in config.audits:
        entry = baseline.audits.get(spec.name)
        if entry is None:
            continue
        if isinstance(spec, OneRunSpec):
            warnings.append(
                f"{path}: baseline audit {spec.name!r} is now a one-run audit (verdict only, never "
                "compared); its baseline entry is ignored"
            )
        elif entry.mechanism != spec.mechanism.name:
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

    def reuse(self, name: str, key: str) -> AuditResult | None:
        """A finished result of the same audit under --out (only with --resume)."""
        if not (self.options.resume and self.out and self.io.read_result):
            return None
        path = self.out / f"{name}.json"
        if not path.is_file():
            return None
        try:
            result = self.io.read_result(path)
        except ValueError:
            self.io.warn(f"{path} is unreadable; recomputing {name!r}")
            return None
        gate = result.extra.get("gate")
        return result if isinstance(gate, dict) and gate.get("key") == key else None

    def audit(self, spec: AuditSpec) -> tuple[AuditResult, tuple[NeighborPair, ...], bool]:
        violation_failure_probability = spec.failure_probability * VIOLATION_SHARE
        key = _key(spec)
        mechanism = spec.mechanism
        reused = self.reuse(spec.name, key) if spec.pairs in {"registered", "templates"} else None
        if reused is not None:
            listed = template_pairs(mechanism) if spec.pairs == "templates" else pairs_for(mechanism)
            return reused, tuple(listed), True
        config = AuditConfig(
            num_samples=spec.num_samples,
            seed=spec.seed,
            failure_probability=violation_failure_probability,
            jobs=self.options.jobs,
            backend=self.options.backend,
            timeout=spec.timeout,
            floating_point=spec.floating_point,
            sequential=spec.sequential,
        )
        # the one route of `run` and `audit()` (its budget guard included); the mode is explicit: a
        # search the budget cannot support is an error, not a silent fallback to other pairs
        done = certify(
            mechanism,
            config,
            Route(mode=spec.pairs, explicit=True),
            parameters=spec.params,
            command=_command(spec, violation_failure_probability),
            checkpoint_path=self.checkpoint(spec.name) if spec.pairs in {"registered", "templates"} else None,
            resume=self.options.resume,
        )
        result, pairs = done.result, done.pairs
        gate_extra = {
            "audit": spec.name,
            "key": key,
            "config": str(self.config.path),
            "failure_probability": spec.failure_probability,
            "violation_failure_probability": violation_failure_probability,
            "regression_failure_probability": spec.failure_probability - violation_failure_probability,
        }
        result = dataclasses.replace(result, extra={**result.extra, "gate": gate_extra})
        return result, pairs, False

    def one_run(self, spec: OneRunSpec) -> tuple[AuditResult, bool]:
        """The one-run audit's result (trained once now, or reused under --resume) and whether reused."""
        key = one_run_key(spec)
        reused = self.reuse(spec.name, key)
        if reused is not None:
            return reused, True
        return run_one_run(spec, key=key, config_path=self.config.path, out=self.out), False

    def write_result(self, spec: AuditSpec | OneRunSpec, result: AuditResult) -> None:
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
            num_samples=recount_samples(result),
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


def _start(config: GateConfig, options: GateOptions, io: GateIO) -> tuple[GateOutcome, Baseline | None]:
    """The outcome to fill and the baseline to test against (None when updating or without one),
    read and checked before any sampling."""
    baseline_path = options.baseline or config.baseline
    outcome = GateOutcome(config=config, options=options, baseline_path=baseline_path)
    if options.update_baseline:
        outcome.baseline_path = baseline_path or DEFAULT_BASELINE
        return outcome, None
    if baseline_path is None:
        return outcome, None
    baseline, warnings = _load_baseline(config, baseline_path)
    outcome.warnings += warnings
    for w in warnings:
        io.warn(w)
    return outcome, baseline


def _run_one_run(runner: _Runner, spec: OneRunSpec) -> AuditOutcome:
    """Run a one-run audit and write its result at once (verdict only: no regression test)."""
    result, reused = runner.one_run(spec)
    runner.write_result(spec, result)
    o = AuditOutcome(
        spec=spec, result=result, pairs=(), regression=None, regression_status=ONE_RUN_STATUS, reused=reused
    )
    o.warnings += [f"{spec.name}: {w}" for w in result.warnings]
    return o


def _run_one(
    runner: _Runner, spec: AuditSpec | OneRunSpec, baseline: Baseline | None, baseline_path: Path | None
) -> AuditOutcome:
    """Audit `spec`, write its result at once, and run its regression test when the baseline has it."""
    if isinstance(spec, OneRunSpec):
        return _run_one_run(runner, spec)
    with audit_session(spec.mechanism.name, timeout=spec.timeout):  # the search's pilot draws too
        result, pairs, reused = runner.audit(spec)
    runner.write_result(spec, result)  # written at once: a later crash loses nothing finished
    o = AuditOutcome(
        spec=spec, result=result, pairs=pairs, regression=None, regression_status="", reused=reused
    )
    o.warnings += [f"{spec.name}: {w}" for w in result.warnings]
    if runner.options.update_baseline:
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
    return o


def _update_baseline(outcome: GateOutcome, baseline_path: Path, io: GateIO) -> None:
    """Write the baseline from this run's results (`--update-baseline`)."""
    jobs, backend = outcome.options.jobs, outcome.options.backend
    for o in outcome.outcomes:  # witnesses re-counted on fresh streams (baseline.py: why)
        if isinstance(o.spec, OneRunSpec):
            io.say(f"  {o.spec.name}: one-run audit, verdict only: not stored in the baseline")
            continue
        o.baseline_entry = baseline_audit_from_result(
            o.spec.name,
            o.spec.mechanism_spec,
            o.result,
            o.pairs,
            o.spec.mechanism,
            jobs=jobs,
            backend=backend,
            witnesses=o.spec.witnesses,
        )
        print_baseline_power(io, o)
    new = Baseline(
        audits={o.spec.name: o.baseline_entry for o in outcome.outcomes if o.baseline_entry is not None},
        package_version=package_version(),
    )
    write_baseline(new, baseline_path)
    if any(o.violation for o in outcome.outcomes):
        w = f"baseline {baseline_path} written from a run with violations"
        outcome.warnings.append(w)
        io.warn(w)
    io.say(f"baseline written: {baseline_path} ({len(new.audits)} audit(s))")


def run_gate(config: GateConfig, options: GateOptions, io: GateIO | None = None) -> GateOutcome:
    """Run the gate (see the module docstring); `outcome.exit_code` is the CLI's exit code.

    Raises BaselineError / GateUsageError (ValueErrors, exit 2 in the CLI) before any sampling
    for a bad baseline or bad options; a mechanism failing mid-run raises its MechanismError
    after the audits finished before it have been written."""
    io = io or GateIO()
    runner = _Runner(config, options, io)
    outcome, baseline = _start(config, options, io)
    for spec in config.audits:
        kind = ", one run" if isinstance(spec, OneRunSpec) else ""
        io.say(f"[{spec.index}/{len(config.audits)}] {spec.name} ({spec.mechanism_spec}{kind})")
        o = _run_one(runner, spec, baseline, outcome.baseline_path)
        for w in o.warnings:
            io.warn(w)
        outcome.outcomes.append(o)
        outcome.warnings += o.warnings
        print_outcome(io, o)
        if runner.out is not None:
            write_summary(outcome, runner.out)
    if options.update_baseline and outcome.baseline_path is not None:
        _update_baseline(outcome, outcome.baseline_path, io)
    if runner.out is not None:
        write_reports(outcome, runner.out, io)
    print_verdict(io, outcome)
    return outcome
