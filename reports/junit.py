"""JUnit XML for CI systems (docs/DESIGN.md, "reports/"). Renders results; computes nothing.

One `<testsuite name="dpaudit">` with one `<testcase>` per audited mechanism (`classname` =
"dpaudit" or the mechanism's family when known, `name` = mechanism, or the gate's audit name). A
mechanism whose verdict is "violation found" carries one `<failure>` whose message names each
violating pair with its certified ε and δ lower bounds and the claim it exceeds. The testcase's
`<system-out>` holds the verdict words, the claim, the certified bounds, the seed and the exact
command, then the findings (including "finding about the paper's statement" when only a stated
claim is exceeded) and the warnings. "No violation found at this power" is a pass in JUnit terms
only: a lower bound below the claim proves nothing more than that no violation was found at this
power."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence

from dpaudit.engine.types import AuditResult, PairResult

from .markdown import (
    INCONCLUSIVE_NOTE,
    STATED_FINDING,
    bound_words,
    claim_words,
    family_of,
    fmt,
    stated_exceeded,
    verdict_words,
)
from .words import witness_words

SUITE_NAME = "dpaudit"
FAILURE_TYPE = "PrivacyViolation"
LOWER_BOUND_NOTE = (
    "A certified lower bound below the claim proves nothing more than that no violation was found at "
    "this power."
)

# Characters XML 1.0 cannot carry at all, even escaped.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def _pair_words(p: PairResult) -> str:
    e = p.estimate
    witness = f" ({witness_words(e)})" if e.infinite_witness else ""
    return (
        f"pair {p.index + 1} “{p.description}”: certified ε ≥ {fmt(e.epsilon_lower_bound)}{witness}, "
        f"δ ≥ {fmt(e.delta_lower_bound)} at the claimed ε, exceeds the claim {claim_words(p.claim)} "
        f"[event {e.event}; {e.distinguisher}; P {e.p_count}/{e.p_total}, Q {e.q_count}/{e.q_total}]"
    )


def failure_message(r: AuditResult) -> str:
    """The failure message of a violating mechanism: every violating pair and its bounds."""
    bad = [p for p in r.pairs if p.violation]
    head = f"{r.mechanism}: violation found: certified ε ≥ {fmt(r.epsilon_lower_bound)} exceeds the claim "
    head += claim_words(r.claim)
    if not bad:
        return head
    return head + "; " + "; ".join(_pair_words(p) for p in bad)


def _details(r: AuditResult) -> str:
    lines = [
        f"{r.mechanism}: {verdict_words(r)}",
        f"claim (decides the verdict): {claim_words(r.claim)}",
        f"certified ε ≥ {bound_words(r.epsilon_lower_bound)}; certified δ ≥ {fmt(r.delta_lower_bound)} "
        f"at the claimed ε; confidence {1 - r.failure_probability:g}",
        f"samples per side and pair: {r.num_samples} ({r.selection_samples} selection + "
        f"{r.certification_samples} certification); {len(r.pairs)} pair(s)",
        f"seed: {r.seed}",
    ]
    if r.command:
        lines.append(f"reproduce: {r.command}")
    for p in r.pairs:
        e = p.estimate
        lines.append(
            f"pair {p.index + 1}: {p.description} ({p.relation.value}): certified ε ≥ "
            f"{fmt(e.epsilon_lower_bound)}, δ ≥ {fmt(e.delta_lower_bound)}"
            + (" [violation]" if p.violation else "")
        )
    for c in stated_exceeded(r):
        lines.append(
            f"{STATED_FINDING}: certified ε ≥ {fmt(c.epsilon_lower_bound)} exceeds the stated claim "
            f"{claim_words(c.claim)}"
        )
    lines += [f"finding: {f}" for f in r.findings]
    lines += [f"warning: {w}" for w in r.warnings]
    if r.inconclusive:
        lines.append(INCONCLUSIVE_NOTE)
    elif not r.violation:
        lines.append(LOWER_BOUND_NOTE)
    return "\n".join(lines)


def _sub(parent: ET.Element, tag: str, **attrs: str) -> ET.Element:
    return ET.SubElement(parent, tag, {k: _clean(v) for k, v in attrs.items()})


def render_junit(
    results: Sequence[AuditResult],
    *,
    families: Mapping[str, str] | None = None,
    names: Sequence[str] | None = None,
) -> str:
    """The JUnit document; `names` (one per result, e.g. the gate's audit names) name the
    testcases and prefix their properties instead of the mechanism, so that two audits of one
    mechanism (other parameters) stay apart."""
    if names is not None and len(names) != len(results):
        raise ValueError(f"{len(names)} names for {len(results)} results")
    suite = ET.Element("testsuite", {"name": SUITE_NAME})
    props = _sub(suite, "properties")
    failures = 0
    skipped = 0
    total_time = 0.0
    keys = [r.mechanism for r in results] if names is None else list(names)
    for key, r in zip(keys, results, strict=True):
        _sub(props, "property", name=f"{key}.verdict", value=r.verdict.value)
        _sub(props, "property", name=f"{key}.verdict_text", value=verdict_words(r))
        _sub(props, "property", name=f"{key}.claim", value=claim_words(r.claim))
        _sub(props, "property", name=f"{key}.epsilon_lower_bound", value=fmt(r.epsilon_lower_bound))
        _sub(props, "property", name=f"{key}.seed", value=str(r.seed))
        if r.command:
            _sub(props, "property", name=f"{key}.command", value=r.command)
        total_time += r.elapsed_seconds
        case = _sub(
            suite,
            "testcase",
            classname=family_of(r, families) or SUITE_NAME,
            name=key,
            time=f"{r.elapsed_seconds:.3f}",
        )
        details = _clean(_details(r))
        if r.violation:
            failures += 1
            failure = _sub(case, "failure", message=failure_message(r), type=FAILURE_TYPE)
            failure.text = details
        elif r.inconclusive:  # not a pass: skipped, with the reason (no power or no evidence)
            skipped += 1
            _sub(case, "skipped", message=f"inconclusive: {r.inconclusive_reason or 'no reason recorded'}")
        out = _sub(case, "system-out")
        out.text = details
    summary = _sub(suite, "system-out")
    summary.text = _clean(
        "\n".join(f"{k}: {verdict_words(r)}" for k, r in zip(keys, results, strict=True))
        + "\n"
        + LOWER_BOUND_NOTE
    )
    suite.set("tests", str(len(results)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", str(skipped))
    suite.set("time", f"{total_time:.3f}")
    ET.indent(suite)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"
