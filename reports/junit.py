"""JUnit XML for CI dashboards (DESIGN.md, "reports/"). Renders results; computes nothing.

One `<testsuite name="dpaudit">`; one `<testcase>` per audited pair of every mechanism
(`classname` = mechanism, `name` = pair description). A pair whose certified bound exceeds its
claim carries a `<failure>` naming the pair, the certified bound and the claim. The suite's
`<properties>` record each mechanism's verdict, claim and certified ε; every testcase's
`<system-out>` carries its counts and bounds. "No violation found" is a pass in JUnit terms
only: a lower bound below the claim proves nothing more than that no violation was found at
this power. A mechanism whose verdict is a violation without any violating pair (not produced
by the runner) gets one extra failing testcase named "verdict", so the failure is never lost.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from audit.types import AuditResult, PairResult, PrivacyClaim
from reports.markdown import fmt

SUITE_NAME = "dpaudit"
FAILURE_TYPE = "PrivacyViolation"
VERDICT_WORDS = {
    "violation_found": "Violation found",
    "no_violation_found": "No violation found at this power",
}

# Characters XML 1.0 cannot carry at all, even escaped.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def _claim_words(c: PrivacyClaim) -> str:
    return f"ε = {fmt(c.epsilon)}, δ = {fmt(c.delta)} ({c.kind.value}, {c.relation.value}; {c.reference})"


def _failure_message(p: PairResult) -> str:
    e = p.estimate
    witness = " (infinite witness)" if e.infinite_witness else ""
    return (
        f"pair {p.description!r}: certified ε ≥ {fmt(e.epsilon_lower_bound)}{witness} exceeds the claim "
        f"{_claim_words(p.claim)}; certified δ ≥ {fmt(e.delta_lower_bound)} at the claimed ε"
    )


def _pair_details(r: AuditResult, p: PairResult) -> str:
    e = p.estimate
    lines = [
        f"mechanism: {r.mechanism}",
        f"pair {p.index + 1}: {p.description} ({p.relation.value}; tags: {', '.join(p.tags) or '-'})",
        f"claim: {_claim_words(p.claim)}",
        f"event: {e.event} ({e.distinguisher}, {e.direction})",
        f"P: {e.p_count}/{e.p_total}, lower bound {fmt(e.p_lower)}",
        f"Q: {e.q_count}/{e.q_total}, upper bound {fmt(e.q_upper)}",
        f"certified ε ≥ {fmt(e.epsilon_lower_bound)}" + (" (infinite witness)" if e.infinite_witness else ""),
        f"certified δ ≥ {fmt(e.delta_lower_bound)} at the claimed ε",
        f"per-test failure probability: {fmt(e.failure_probability)}",
        f"violation: {'yes' if p.violation else 'no'}",
    ]
    return "\n".join(lines)


def _sub(parent: ET.Element, tag: str, **attrs: str) -> ET.Element:
    return ET.SubElement(parent, tag, {k: _clean(v) for k, v in attrs.items()})


def render_junit(results: Sequence[AuditResult]) -> str:
    suite = ET.Element("testsuite", {"name": SUITE_NAME})
    props = _sub(suite, "properties")
    tests = failures = 0
    total_time = 0.0
    for r in results:
        _sub(props, "property", name=f"{r.mechanism}.verdict", value=r.verdict.value)
        _sub(props, "property", name=f"{r.mechanism}.verdict_text", value=VERDICT_WORDS[r.verdict.value])
        _sub(props, "property", name=f"{r.mechanism}.claim", value=_claim_words(r.claim))
        _sub(props, "property", name=f"{r.mechanism}.epsilon_lower_bound", value=fmt(r.epsilon_lower_bound))
        _sub(props, "property", name=f"{r.mechanism}.seed", value=str(r.seed))
        if r.command:
            _sub(props, "property", name=f"{r.mechanism}.command", value=r.command)
        per_case = r.elapsed_seconds / max(len(r.pairs), 1)
        total_time += r.elapsed_seconds
        for p in r.pairs:
            case = _sub(suite, "testcase", classname=r.mechanism, name=p.description, time=f"{per_case:.3f}")
            tests += 1
            if p.violation:
                failures += 1
                failure = _sub(case, "failure", message=_failure_message(p), type=FAILURE_TYPE)
                failure.text = _clean(_pair_details(r, p))
            out = _sub(case, "system-out")
            out.text = _clean(_pair_details(r, p))
        if r.violation and not any(p.violation for p in r.pairs):
            case = _sub(suite, "testcase", classname=r.mechanism, name="verdict", time="0.000")
            tests += 1
            failures += 1
            _sub(
                case,
                "failure",
                message=f"{r.mechanism}: certified ε ≥ {fmt(r.epsilon_lower_bound)} exceeds the claim "
                f"{_claim_words(r.claim)}",
                type=FAILURE_TYPE,
            )
    verdicts = "\n".join(f"{r.mechanism}: {VERDICT_WORDS[r.verdict.value]}" for r in results)
    summary = _sub(suite, "system-out")
    summary.text = _clean(
        verdicts + "\nA certified lower bound below the claim proves nothing more than that no "
        "violation was found at this power."
    )
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", "0")
    suite.set("time", f"{total_time:.3f}")
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
