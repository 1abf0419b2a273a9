"""JUnit XML: one testcase per pair, one failure per violating pair, verdicts as properties."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

from reports.junit import render_junit
from reports.markdown import fmt
from tests.reports.test_html import audit


def test_counts_match_pairs_and_violations() -> None:
    results = [audit("laplace_sum"), audit("laplace_sum_range_bug")]
    root = ET.fromstring(render_junit(results))
    assert root.tag == "testsuite" and root.get("name") == "dpaudit"
    cases = root.findall("testcase")
    failures = root.findall("testcase/failure")
    n_pairs = sum(len(r.pairs) for r in results)
    n_violations = sum(p.violation for r in results for p in r.pairs)
    assert n_violations >= 1
    assert len(cases) == n_pairs == int(root.get("tests", "-1"))
    assert len(failures) == n_violations == int(root.get("failures", "-1"))
    assert root.get("errors") == "0"
    for r in results:
        mine = [c for c in cases if c.get("classname") == r.mechanism]
        assert [c.get("name") for c in mine] == [p.description for p in r.pairs]
        for c, p in zip(mine, r.pairs, strict=True):
            f = c.find("failure")
            assert (f is not None) == p.violation
            if f is not None:
                msg = f.get("message", "")
                assert p.description in msg
                assert fmt(p.estimate.epsilon_lower_bound) in msg
                assert f"ε = {fmt(p.claim.epsilon)}" in msg
    props = {p.get("name"): p.get("value") for p in root.findall("properties/property")}
    for r in results:
        assert props[f"{r.mechanism}.verdict"] == r.verdict.value
    out = root.find("system-out")
    assert out is not None and out.text is not None
    assert "No violation found at this power" in out.text and "Violation found" in out.text


def test_well_formed_with_hostile_text() -> None:
    r = audit("laplace_sum_range_bug")
    pair = dataclasses.replace(r.pairs[0], description='<a & "b"> \x01 ]]>')
    r2 = dataclasses.replace(r, mechanism="m<&>", pairs=(pair, *r.pairs[1:]))
    root = ET.fromstring(render_junit([r2]))
    assert root.findall("testcase")[0].get("name") == '<a & "b"> \ufffd ]]>'
    assert root.findall("testcase")[0].get("classname") == "m<&>"


def test_empty_run() -> None:
    root = ET.fromstring(render_junit([]))
    assert root.get("tests") == "0" and root.get("failures") == "0"
