"""Issue 42: reports compare within one relation (reports/relations.py and its renderers)."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest

from dpaudit.engine.types import ClaimCurve, CurveKind, Relation
from dpaudit.reports.comparisons import index_ratios, white_box_words
from dpaudit.reports.figures import drawn_epsilon_at
from dpaudit.reports.html import render_html
from dpaudit.reports.html_index import render_index_html
from dpaudit.reports.markdown import render_index_markdown, render_markdown
from dpaudit.reports.relations import claim_groups, delta_words, relation_rows, view
from tests.reports.fixtures import make_result, two_relation_result


def _verdict_section(page: str) -> str:
    start = page.index('<section id="verdict"')
    return page[start : page.index("</section>", start)]


def test_rows_stay_within_their_claim_and_the_verdict_relation_leads() -> None:
    r = two_relation_result()
    rows = relation_rows(r)
    assert [row.claim.relation for row in rows] == [Relation.ADD_REMOVE_ONE] * 4 + [Relation.REPLACE_ONE] * 4
    assert [row.delta for row in rows[:4]] == [1e-5, 1e-3, 1e-2, 1e-1]
    for row in rows:
        assert row.pair.claim == row.claim  # the certified value comes from a pair under this claim
        assert row.pair.relation == row.claim.relation
        if row.headline:
            assert row.claimed == row.claim.epsilon_at(row.claim.delta) == row.claim.epsilon
            assert row.certified == row.pair.estimate.epsilon_lower_bound
        else:
            assert row.claimed == pytest.approx(row.claim.epsilon_at(row.delta))
        assert row.ratio == pytest.approx(max(row.certified, 0.0) / row.claimed)
    # the replace-one pair's certified ε at 10⁻² (0.384) is above the add/remove claim there (0.24):
    # it is compared with its own claim (0.48), never with the add/remove one
    at = {(row.claim.relation, row.delta): row for row in rows}
    rep = at[(Relation.REPLACE_ONE, 1e-2)]
    assert rep.certified > at[(Relation.ADD_REMOVE_ONE, 1e-2)].claimed and rep.ratio == pytest.approx(0.8)
    assert not any(row.exceeds for row in rows)


def test_the_verdict_box_leads_with_the_relation_table() -> None:
    r = two_relation_result()
    box = _verdict_section(render_html(r))
    table = box.index('<table class="relations">')
    assert table < box.index("verdict-bars") and table < box.index('<dl class="facts">')
    first = re.search(r"<tbody>\s*<tr[^>]*>(.*?)</tr>", box[table:], re.S)
    assert first is not None
    cells = re.findall(r"<td[^>]*>(.*?)</td>", first.group(1))
    assert cells[0] == "add/remove (verdict)" and cells[1].startswith("10⁻⁵")
    assert cells[2] == "0.75" and cells[-1] == "pair 1"
    body = box[table : box.index("</table>", table)]
    assert body.count("add/remove (verdict)") == 4 and body.count("replace-one") == 4
    assert "pair 2" in body and "0.80" in body
    assert "Privacy profile (certified of claimed)" not in box  # the old cross-relation line is gone


def test_markdown_leads_with_the_same_table() -> None:
    md = render_markdown(two_relation_result())
    head = md.index("| relation (claim) | δ | claimed ε(δ) | certified ε(δ) | certified / claimed | pair |")
    assert head < md.index("- Claim (decides the verdict)")
    lines = md[head:].splitlines()[2:10]
    assert lines[0].startswith("| add/remove (verdict) | 10⁻⁵ (claim's δ) | 0.75 |")
    assert all(" | pair 1 |" in line for line in lines[:4]) and all(
        " | pair 2 |" in line for line in lines[4:]
    )


def test_a_profile_point_exceeding_its_own_claim_is_marked() -> None:
    r = two_relation_result(violation=True)
    (row,) = [row for row in relation_rows(r) if row.exceeds]
    assert (
        row.claim.relation is Relation.ADD_REMOVE_ONE
        and row.delta == 1e-2
        and row.ratio == pytest.approx(1.3)
    )
    assert '<tr class="violation"><td>add/remove (verdict)</td><td class="num">10⁻²</td>' in render_html(r)


def test_each_figure_holds_one_relation() -> None:
    pytest.importorskip("matplotlib")
    r = two_relation_result()
    groups = claim_groups(r)
    assert [c.relation for c, _ in groups] == [Relation.ADD_REMOVE_ONE, Relation.REPLACE_ONE]
    for claim, pairs in groups:
        v = view(r, claim, pairs)
        assert v.claim == claim and all(p.claim == claim for p in v.pairs)
        assert all(pt.pair_index in {p.index for p in pairs} for pt in v.profile)
    page = render_html(r)
    for ident in ("plot-region", "plot-region-2", "plot-profile", "plot-profile-2", "plot-trajectory-2"):
        assert f'<figure id="{ident}"' in page
    start = page.index('<figure id="plot-profile"')
    profile = page[start : page.index("</figure>", start)]
    assert "add/remove pairs" in profile and "replace-one" not in profile  # legend names the relation
    assert "linear interpolation of ε in log δ" in page  # the caption says how the curve is drawn
    start = page.index('<figure id="plot-trajectory-2"')
    trajectory = page[start : page.index("</figure>", start)]
    assert "pair 2 (replace-one)" in trajectory and "pair 1 " not in trajectory


def test_accountant_curves_are_drawn_smooth_between_tabulated_points() -> None:
    claim = two_relation_result().claim
    assert claim.curve is not None
    (d1, e1), (d2, e2) = claim.curve.points[9:11]
    mid = math.sqrt(d1 * d2)
    drawn = drawn_epsilon_at(claim, mid)
    assert claim.epsilon_at(mid) == e1  # the comparison's value: the staircase
    assert e2 < drawn < e1 and drawn == pytest.approx((e1 + e2) / 2)  # linear in log δ
    assert drawn_epsilon_at(claim, d2) == pytest.approx(e2)  # exact at a tabulated δ
    gdp = dataclasses.replace(claim, curve=ClaimCurve(kind=CurveKind.GDP, parameter=1.0))
    assert drawn_epsilon_at(gdp, 1e-3) == gdp.epsilon_at(1e-3)  # other curves as they are


def test_the_index_divides_by_one_named_denominator_per_column() -> None:
    r = two_relation_result()
    page = render_index_html([r, dataclasses.replace(r, mechanism="other")], ["a.html", "b.html"])
    assert "certified of the claim at δ = 10⁻⁵, add/remove" in page
    assert "certified of the white-box ε at δ = 10⁻⁵, add/remove (exact only)" in page
    of_claim, _ = index_ratios(r)
    assert of_claim == pytest.approx(r.epsilon_lower_bound / r.claim.epsilon)
    assert f'<td class="num">{of_claim:.2f}</td>' in page
    # claims at different δ and relations: the header says so and each cell names its own
    mixed = render_index_html([r, make_result(mechanism="point")], ["a.html", "b.html"])
    assert "at the row&#39;s δ and relation" in mixed
    assert "(δ = 10⁻⁵, add/remove)" in mixed and "(δ = 10⁻⁵, replace-one)" in mixed


def test_an_upper_bound_is_never_a_denominator() -> None:
    r = make_result()
    first = dataclasses.replace(
        r.pairs[0], exact_epsilon=r.claim.epsilon, exact_epsilon_method="upper bound: Gaussian-DP profile"
    )
    r = dataclasses.replace(r, pairs=(first, *r.pairs[1:]))
    assert index_ratios(r)[1] is None
    assert "certified/white-box" not in (white_box_words(r) or "")
    exact = dataclasses.replace(
        r, pairs=(dataclasses.replace(first, exact_epsilon_method="exact"), *r.pairs[1:])
    )
    assert index_ratios(exact)[1] == pytest.approx(max(r.epsilon_lower_bound, 0.0) / r.claim.epsilon)
    assert "(upper bound)" in render_index_html([r], ["a.html"])


class _Inconclusive(str):
    """A verdict reading "inconclusive" before `Verdict.INCONCLUSIVE` exists (the reports read the string)."""

    value = "inconclusive"


def test_inconclusive_rows_are_listed_apart_with_a_badge() -> None:
    done = make_result(mechanism="done")
    stuck = dataclasses.replace(make_result(mechanism="stuck"), verdict=_Inconclusive("inconclusive"))
    page = render_index_html([stuck, done], ["stuck.html", "done.html"])
    apart = page.index('<section id="inconclusive">')
    assert page.index("<code>done</code>") < apart < page.index("<code>stuck</code>")
    assert '<span class="badge inconclusive">inconclusive</span>' in page[apart:]
    assert "1 inconclusive" in page
    md = render_index_markdown([stuck, done])
    assert md.index("[done]") < md.index("**Inconclusive**") < md.index("[stuck]")


def test_the_witness_is_in_the_verdict_box() -> None:
    r = make_result(violation=True)
    box = _verdict_section(render_html(r))
    p = r.pairs[0]
    e = p.estimate
    assert "<strong>Witness</strong>: pair 1: replace record 0 low → high (replace-one)" in box
    assert f"{e.p_count:,}/{e.p_total:,} on D" in box and f"{e.q_count:,}/{e.q_total:,} on D′" in box
    assert e.event.replace("≥", "≥") in box
    assert "Witness" not in _verdict_section(render_html(make_result()))  # no violation, no witness


def test_delta_words() -> None:
    assert [delta_words(d) for d in (1e-5, 1e-2, 0.1, 1.0, 2e-5)] == ["10⁻⁵", "10⁻²", "10⁻¹", "1", "2e-05"]


def test_a_one_run_result_has_no_witness_of_two_datasets() -> None:
    r = make_result(violation=True, num_pairs=1)
    info = {"m": 1000, "k_plus": 250, "k_minus": 250, "included": 500, "correct": 489, "guesses": 500}
    info |= {"choice_of_k": "fixed", "headline_method": "snj"}
    one_run = dataclasses.replace(r, extra={**r.extra, "one_run": info})
    assert "Witness" not in _verdict_section(render_html(one_run))
