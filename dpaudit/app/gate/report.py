"""Gate reporting: the console summary, `gate.md`, `gate.json` and the JUnit file of a gate run.

Rendering only; every number shown was computed by the run. The stated error bound is the
union bound over the configured audits: the gate exits 1 wrongly with probability ≤ Σ_a β_a,
each audit spending half of β_a on its violation tests and half on its regression tests (a
one-run audit, verdict only, spends all of it on its verdict).
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

from dpaudit.engine.outfiles import write_text
from dpaudit.engine.types import AuditResult

from ..baseline import DETECTION_POWER
from .types import AuditOutcome, GateIO, GateOutcome


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def power_text(o: AuditOutcome) -> str:
    """'detects a rise of a witness's loss ≥ Δ (pair j) w.p. ≥ 0.8', or why it detects none."""
    power = o.detectable_increase
    if power is None:
        return "—"
    rise, pair = power
    if pair is None:
        return "no comparable witness"
    if math.isinf(rise):
        return f"no rise of a witness's loss is detected w.p. ≥ {DETECTION_POWER:g} at this budget"
    return f"detects a rise of a witness's loss ≥ {rise:.3g} (pair {pair + 1}) w.p. ≥ {DETECTION_POWER:g}"


def print_baseline_power(io: GateIO, o: AuditOutcome) -> None:
    io.say(f"  {o.spec.name}: baseline witnesses re-counted; a gate run at this budget {power_text(o)}")


def print_outcome(io: GateIO, o: AuditOutcome) -> None:
    r = o.result
    if o.reused:
        io.say("  (finished result reused from --out)")
    if io.summary is not None:
        io.say("  " + io.summary(r).replace("\n", "\n  "))
    else:
        verdict = "VIOLATION FOUND" if r.violation else _quiet_verdict(r)
        io.say(
            f"  {r.mechanism}: {verdict}; certified ε ≥ {_fmt(r.epsilon_lower_bound)} "
            f"(claim {r.claim.epsilon:g})"
        )
    if o.one_run:
        io.say(f"  {o.regression_status}: it trains once, so there is nothing to re-count")
        return
    if o.regression is None:
        io.say(f"  regression test: none ({o.regression_status})")
        return
    reg = o.regression
    words = "REGRESSION FOUND" if reg.regression else "no regression found"
    io.say(
        f"  regression test vs baseline: {words} ({len(reg.checks)} event(s), "
        f"{reg.num_samples:,} fresh samples/side, failure probability {reg.failure_probability:g})"
    )
    io.say(f"  power: {power_text(o)}")
    for c in reg.checks:
        io.say(f"    {c.describe()}")


def markdown(outcome: GateOutcome) -> str:
    lines = [
        "# dpaudit gate",
        "",
        f"Configuration `{outcome.config.path}`"
        + (f", baseline `{outcome.baseline_path}`" if outcome.baseline_path else ", no baseline")
        + f". Exit code **{outcome.exit_code}**.",
        "",
        "| audit | mechanism | verdict | certified ε ≥ | claim ε | regression | detectable rise of loss |",
        "|---|---|---|---|---|---|---|",
    ]
    for o in outcome.outcomes:
        r = o.result
        verdict = "**violation found**" if r.violation else _quiet_verdict(r)
        if o.regression is None:
            reg = o.regression_status
        else:
            reg = "**regression found**" if o.regressed else "no regression found"
        lines.append(
            f"| {o.spec.name} | `{r.mechanism}` | {verdict} | {_fmt(r.epsilon_lower_bound)} | "
            f"{r.claim.epsilon:g} | {reg} | {power_text(o)} |"
        )
    lines += [
        "",
        f"The gate exits 1 wrongly with probability ≤ {outcome.failure_probability:g} (the sum of the "
        "audits' failure probabilities; each spends half on its violation tests and half on its regression "
        "tests). A certified bound below the claim proves nothing more than that no violation was found at "
        "this power.",
        "",
        f"Detectable rise: the smallest increase Δ of a baseline witness event's privacy loss "
        f"ln((P − δ)/Q) that the regression test flags with probability ≥ {DETECTION_POWER:g} at this "
        "budget (exact binomial power with the stored frequencies plugged in and the rise on the Q side, "
        "Q_new = Q·e^−Δ; smallest over the audit's witnesses).",
    ]
    if any(o.one_run for o in outcome.outcomes):
        lines += [
            "",
            "One-run audits (Steinke, Nasr & Jagielski 2023) train once: they are verdict only (no "
            "regression test, never stored in a baseline) and spend their whole failure probability on "
            "the verdict.",
        ]
    lines += [f"- warning: {w}" for w in outcome.warnings]
    return "\n".join(lines) + "\n"


def junit(outcome: GateOutcome, base_xml: str) -> str:
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
            reason = _skipped_regression(outcome, o)
            if reason:
                case = ET.SubElement(
                    suite, "testcase", {"classname": cls, "name": f"{o.spec.name}: regression"}
                )
                ET.SubElement(case, "skipped", {"message": reason})
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


def _skipped_regression(outcome: GateOutcome, o: AuditOutcome) -> str:
    """Why a compared baseline gave `o` no regression test ('' when there is no such testcase)."""
    if o.regression_status == "not in baseline":
        return "audit absent from the baseline: no regression test"
    compared = outcome.baseline_path is not None and not outcome.options.update_baseline
    if o.one_run and compared:
        return "one-run audit: verdict only (it trains once: nothing to re-count)"
    return ""


def write_summary(outcome: GateOutcome, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "gate.json", json.dumps(outcome.to_dict(), indent=2, ensure_ascii=False) + "\n")


def write_reports(outcome: GateOutcome, out: Path, io: GateIO) -> None:
    """`gate.json`, `gate.md` and (with a JUnit renderer) `junit.xml` under `out`."""
    write_summary(outcome, out)
    write_text(out / "gate.md", markdown(outcome))
    if io.render_junit is not None:
        outcomes = outcome.outcomes
        base_xml = io.render_junit([o.result for o in outcomes], names=[o.spec.name for o in outcomes])
        write_text(out / "junit.xml", junit(outcome, base_xml))


def _quiet_verdict(r: AuditResult) -> str:
    """The verdict of a result without a violation: inconclusive, or no violation at this power."""
    return f"inconclusive ({r.inconclusive_reason})" if r.inconclusive else "no violation found at this power"


def print_verdict(io: GateIO, outcome: GateOutcome) -> None:
    """The gate's closing line: counts, exit code and its false-alarm bound."""
    violations = sum(o.violation for o in outcome.outcomes)
    regressions = sum(o.regressed for o in outcome.outcomes)
    inconclusive = sum(o.result.inconclusive for o in outcome.outcomes)
    io.say(
        f"gate: {len(outcome.outcomes)} audit(s), {violations} violation(s), {regressions} regression(s)"
        + (f", {inconclusive} inconclusive (no power or no evidence: not a pass)" if inconclusive else "")
        + f" → exit {outcome.exit_code}; the gate exits 1 wrongly with probability "
        f"≤ {outcome.failure_probability:g} ({_budget_words(outcome)})"
    )


def _budget_words(outcome: GateOutcome) -> str:
    """How each audit spends its failure probability (the sum is the gate's bound)."""
    words = "each audit's failure probability, half to violation tests, half to regression tests"
    if any(o.one_run for o in outcome.outcomes):
        words += "; a one-run audit's all to its verdict"
    return words
