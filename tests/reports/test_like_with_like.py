"""Issue 37: reports compare like with like (reports/comparisons.py)."""

from __future__ import annotations

import dataclasses

from dpaudit.engine.types import AuditResult
from dpaudit.neighbors.base import Relation
from dpaudit.reports.comparisons import index_ratios, white_box_words, white_box_worst
from dpaudit.reports.html import render_html
from dpaudit.reports.html_index import render_index_html
from dpaudit.reports.markdown import render_markdown
from tests.reports.fixtures import make_result


def _two_relations(*, curve: bool = False) -> AuditResult:
    """The verdict claim under replace-one; pair 1 under it (white-box 0.8), pair 2 under
    add/remove (white-box 3.4, larger, another relation)."""
    r = make_result(curve=curve, with_profile=curve)
    first = dataclasses.replace(r.pairs[0], exact_epsilon=0.8, exact_epsilon_method="oracle")
    second = dataclasses.replace(
        r.pairs[1], relation=Relation.ADD_REMOVE_ONE, exact_epsilon=3.4, exact_epsilon_method="oracle"
    )
    return dataclasses.replace(r, pairs=(first, second))


def test_the_white_box_beside_the_claim_is_under_its_relation() -> None:
    r = _two_relations()
    worst = white_box_worst(r)
    assert worst is not None and worst.index == 0 and worst.exact_epsilon == 0.8
    words = white_box_words(r) or ""
    assert "ε = 0.8 under replace_one (the claim's relation)" in words
    assert "ε = 3.4 under add_remove_one" in words and "not compared with it" in words
    assert "× the claim" not in words and "certified/white-box" in words
    ratio = max(r.epsilon_lower_bound, 0.0) / 0.8
    assert index_ratios(r)[1] == ratio
    page = render_html(r)
    assert "3.4" in page and "white-box (replace)" in page


def test_a_curve_claim_leads_with_its_profile_and_no_cross_relation_ratio() -> None:
    r = _two_relations(curve=True)
    assert "certified/white-box" not in (white_box_words(r) or "")  # no ratio against a curve's point
    md = render_markdown(r)
    assert md.index("| relation (claim) | δ |") < md.index("- Certified ε lower bound")
    page = render_html(r)
    assert page.index('<table class="relations">') < page.index("Certified ε lower bound")


def test_the_index_has_the_white_box_and_how_far_each_audit_got() -> None:
    rs = [_two_relations(), make_result(mechanism="no_oracle")]
    page = render_index_html(rs, ["a.html", "b.html"])
    assert "white-box ε (claim&#39;s relation)" in page or "white-box ε (claim's relation)" in page
    assert "certified of the white-box ε" in page and "certified of the claim" in page and "—" in page
