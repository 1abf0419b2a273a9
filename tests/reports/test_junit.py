"""JUnit XML: one testcase per mechanism, one failure per violating mechanism naming the pair and
its bounds, findings in system-out."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

from dpaudit.reports.junit import render_junit
from dpaudit.reports.markdown import fmt
from tests.reports.fixtures import make_result


def test_one_testcase_per_mechanism_and_failure_count() -> None:
    results = [
        make_result(mechanism="ok"),
        make_result(mechanism="bad", violation=True, num_pairs=3),
        make_result(mechanism="finding", stated_exceeded=True),
        make_result(mechanism="bad2", violation=True),
    ]
    root = ET.fromstring(render_junit(results, families={"bad": "004"}))
    assert root.tag == "testsuite" and root.get("name") == "dpaudit"
    cases = root.findall("testcase")
    assert [c.get("name") for c in cases] == [r.mechanism for r in results]
    assert [c.get("classname") for c in cases] == ["dpaudit", "004", "dpaudit", "dpaudit"]
    assert int(root.get("tests", "-1")) == 4
    failures = root.findall("testcase/failure")
    assert len(failures) == 2 == int(root.get("failures", "-1"))
    assert root.get("errors") == "0"
    for case, r in zip(cases, results, strict=True):
        f = case.find("failure")
        assert (f is not None) == r.violation
        out = case.find("system-out")
        assert out is not None and out.text is not None
        assert r.command in out.text and f"seed: {r.seed}" in out.text
        if f is not None:
            msg = f.get("message", "")
            assert f.get("type") == "PrivacyViolation"
            for p in r.pairs:
                assert (p.description in msg) == p.violation
                if p.violation:
                    assert fmt(p.estimate.epsilon_lower_bound) in msg
                    assert fmt(p.estimate.delta_lower_bound) in msg
            assert f"ε = {fmt(r.claim.epsilon)}" in msg
    finding_out = cases[2].find("system-out")
    assert finding_out is not None and finding_out.text is not None
    assert "finding about the paper's statement" in finding_out.text
    assert "finding: " in finding_out.text  # the result's findings
    props = {p.get("name"): p.get("value") for p in root.findall("properties/property")}
    for r in results:
        assert props[f"{r.mechanism}.verdict"] == r.verdict.value
    summary = root.find("system-out")
    assert summary is not None and summary.text is not None
    assert "bad: violation found" in summary.text
    assert "ok: no violation found at this power" in summary.text


def test_well_formed_with_hostile_text() -> None:
    r = make_result(violation=True)
    pair = dataclasses.replace(r.pairs[0], description='<a & "b"> \x01 ]]>')
    r2 = dataclasses.replace(r, mechanism="m<&>", pairs=(pair, *r.pairs[1:]))
    root = ET.fromstring(render_junit([r2]))
    case = root.findall("testcase")[0]
    assert case.get("name") == "m<&>"
    failure = case.find("failure")
    assert failure is not None and '<a & "b"> \ufffd ]]>' in failure.get("message", "")


def test_empty_run() -> None:
    root = ET.fromstring(render_junit([]))
    assert root.get("tests") == "0" and root.get("failures") == "0"
