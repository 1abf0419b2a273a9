"""The HTML report: every section, the verdict wording, inline SVG plots (present exactly when
their data is), no external resources, escaping, graceful degradation on older results and
without matplotlib, and the run index."""

from __future__ import annotations

import dataclasses
import functools
import html
import re
import sys
from html.parser import HTMLParser
from typing import Any

import pytest

from dpaudit.engine.distinguishers.selection import ThresholdDistinguisher
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig, AuditResult
from dpaudit.mechanisms.buggy import LaplaceSumRangeBug
from dpaudit.mechanisms.reference import LaplaceSum
from dpaudit.reports.figures import FIGURE_WIDTH_IN, ranges
from dpaudit.reports.figures_curves import MAX_LABELLED_PAIRS, trajectory_layout
from dpaudit.reports.figures_region import clusters, region_caption
from dpaudit.reports.html import LOWER_BOUND_NOTE, NO_MATPLOTLIB, render_html
from dpaudit.reports.html_index import render_index_html, run_command_template
from dpaudit.reports.relations import relation_rows
from dpaudit.reports.schema import from_json_dict, to_json_dict
from tests.reports.fixtures import estimate, make_result, older

SECTIONS = ("title", "verdict", "claims", "pairs", "plots", "reproduce")
MATPLOTLIB_MODULES = (
    "matplotlib",
    "matplotlib.figure",
    "matplotlib.backends.backend_agg",
    "matplotlib.patches",
    "matplotlib.lines",
)


@functools.cache
def audit(name: str) -> AuditResult:
    """Real results at a small budget. The threshold distinguisher alone keeps the small budget
    meaningful for these continuous outputs."""
    m = {"laplace_sum": LaplaceSum(), "laplace_sum_range_bug": LaplaceSumRangeBug()}[name]
    return run_audit(
        m,
        m.neighbor_pairs(),
        AuditConfig(num_samples=20_000, seed=3),
        distinguishers=(ThresholdDistinguisher(),),
        command=f"dpaudit run {name} --num-samples 20000 --seed 3",
        show_progress=False,
    )


@functools.cache
def full(**kwargs: Any) -> AuditResult:
    """A hand-built result with every optional field set (see tests/reports/fixtures.py)."""
    return make_result(with_profile=True, with_trajectory=True, with_selection=True, **kwargs)


@functools.cache
def full_page(**kwargs: Any) -> str:
    return render_html(full(**kwargs))


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.starts: list[tuple[str, dict[str, str | None]]] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self.in_script = False
        self.scripts: list[str] = []
        self._stack: list[str | None] = []
        self.by_class: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = dict(attrs)
        self.starts.append((tag, d))
        if d.get("id"):
            self.ids.add(str(d["id"]))
        self.in_script = tag == "script"
        if tag not in ("img", "br", "meta", "input", "hr"):
            self._stack.append(d.get("class"))
            if d.get("class"):
                self.by_class.setdefault(str(d["class"]), []).append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = False
        if self._stack:
            self._stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self.in_script:
            self.scripts.append(data)
        for cls in {c for c in self._stack if c}:
            self.by_class[cls][-1] += data

    def all_text(self) -> str:
        return " ".join(" ".join(self.text).split())

    def tags(self, name: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.starts if t == name]

    def class_text(self, cls: str) -> list[str]:
        return [" ".join(t.split()) for t in self.by_class.get(cls, [])]


def parse(page: str) -> Page:
    p = Page()
    p.feed(page)
    p.close()
    return p


def assert_self_contained(p: Page) -> None:
    for tag, attrs in p.starts:
        for key in ("src", "href", "srcset", "data", "action", "poster"):
            value = attrs.get(key)
            if value is None:
                continue
            v = value.strip().lower()
            assert not v.startswith(("http:", "https:", "//", "file:", "/", "ftp:")), (tag, key, value)
            if tag != "a":  # only hyperlinks may point to sibling pages; resources are inline
                assert v.startswith("data:"), (tag, key, value[:60])
        assert tag not in ("link", "script", "iframe", "object", "embed"), tag
        assert "url(" not in (attrs.get("style") or "")
    text = " ".join(p.text)  # <style> content is data: no url()/@import anywhere
    assert "@import" not in text and "url(" not in text


def images(p: Page) -> dict[str, tuple[int, int]]:
    """figure id → (width, height) in px of its inline SVG; asserts each figure holds one SVG with
    an accessible name and no <img>."""
    out = {}
    assert not p.tags("img")
    starts = [(t, a) for t, a in p.starts if t in ("figure", "svg")]
    for k, (tag, attrs) in enumerate(starts):
        if tag != "figure":
            continue
        svg_tag, svg = starts[k + 1]
        assert svg_tag == "svg" and svg.get("role") == "img" and svg.get("aria-label")
        out[str(attrs["id"])] = (int(str(svg["width"])), int(str(svg["height"])))
    return out


@pytest.mark.parametrize("name", ["laplace_sum", "laplace_sum_range_bug"])
def test_real_result_sections_and_no_external_resources(name: str) -> None:
    r = audit(name)
    p = parse(render_html(r))
    assert set(SECTIONS) <= p.ids
    assert len(p.tags("style")) == 1
    assert_self_contained(p)
    text = p.all_text()
    assert r.mechanism in text and r.command in text
    assert f"{r.seed}" in text and r.package_version in text
    assert f"{r.certification_samples:,} certification" in text
    assert " ".join(LOWER_BOUND_NOTE.split()) in text
    for pr in r.pairs:
        assert pr.description in text
        assert pr.estimate.distinguisher in text
    tables = [a.get("class") for a in p.tags("table")]
    assert tables[:3] == ["relations", "claims", "pairs"]
    assert "plot-region" in images(p)
    assert p.class_text("command") == [r.command]


def headline(r: AuditResult) -> str:
    (text,) = parse(render_html(r)).class_text("headline")
    return text


def test_verdict_wording_real_results() -> None:
    good, bad = audit("laplace_sum"), audit("laplace_sum_range_bug")
    assert not good.violation and bad.violation  # the fixtures are what the tests assume
    assert headline(good) == "no violation found at this power"
    assert headline(bad) == "violation found"
    good_page = parse(render_html(good))
    assert "violation found" not in good_page.all_text().lower().replace("no violation found", "")
    assert not good_page.class_text("finding-line")
    violating = [pr for pr in bad.pairs if pr.violation]
    assert violating
    rows = [a for a in parse(render_html(bad)).tags("tr") if a.get("class") == "violation"]
    exceeding = sum(row.exceeds for row in relation_rows(bad))  # the verdict box's relation table
    assert exceeding >= 1
    assert len(rows) == len(violating) + sum(c.exceeded for c in bad.claims) + exceeding


def test_verdict_wording_stated_finding() -> None:
    r = full(stated_exceeded=True)
    assert not r.violation and [c.exceeded for c in r.claims] == [False, True]
    p = parse(full_page(stated_exceeded=True))
    assert p.class_text("headline") == ["no violation found at this power"]
    (line,) = p.class_text("finding-line")
    assert line.startswith("finding about the paper's statement")
    assert r.claims[1].claim.reference in line
    assert "verdict finding" in [a.get("class") for a in p.tags("section")]
    # a violation with a stated claim also exceeded is a violation, not a "finding" headline
    v = full(violation=True)
    assert [c.exceeded for c in v.claims] == [True, True]
    assert parse(full_page(violation=True)).class_text("headline") == ["violation found"]


def test_every_claim_and_pair_detail_shown() -> None:
    r = full(violation=True, curve=True, num_pairs=3)
    p = parse(render_html(r, family="004 (test family)"))
    text = p.all_text()
    assert "004 (test family)" in text
    for c in r.claims:
        assert c.claim.reference in text and c.claim.kind.value in text
    assert r.claims[1].claim.note in text
    assert "0.5-GDP" in text  # the curve of the proved claim
    claim_rows = [a for t, a in p.starts if t == "tr"]
    assert len(claim_rows) >= 1 + len(r.claims) + 1 + len(r.pairs)
    for pr in r.pairs:
        assert pr.description in text
        assert all(tag in text for tag in pr.tags)
        assert pr.estimate.assumption in text
        assert f"{pr.estimate.p_count:,}/{pr.estimate.p_total:,}" in text
    # the estimators considered on the selection split, the chosen one marked once per pair
    assert "selection" in p.ids
    assert "logistic" in text
    assert len(p.class_text("badge chosen")) == len(r.pairs)
    # the profile table: one row per point, exceeded points flagged
    assert "profile" in p.ids
    assert len(p.class_text("badge violation")) >= sum(pt.exceeds_claim for pt in r.profile)


@pytest.mark.parametrize("kwargs", [{"violation": True}, {"stated_exceeded": True}, {}])
def test_plots_present_when_fields_are_set(kwargs: dict[str, bool]) -> None:
    p = parse(full_page(**kwargs))
    assert_self_contained(p)
    figs = images(p)
    assert set(figs) == {"plot-region", "plot-profile", "plot-trajectory"}
    widths = set()
    for size in figs.values():
        width, height = size
        widths.add(width)
        assert 300 <= height <= 800
    assert widths == {round(FIGURE_WIDTH_IN * 100)} and max(widths) <= 1000  # one width, fits 1280 px


def test_plots_absent_when_fields_are_empty() -> None:
    r = older(full(violation=True))
    p = parse(render_html(r))
    assert set(images(p)) == {"plot-region"}
    assert "profile" not in p.ids and "selection" not in p.ids
    assert "not recorded" in p.all_text()  # the assumption of an older result
    # only one of the two: profile without trajectory and the reverse
    only_traj = dataclasses.replace(r, pairs=full(violation=True).pairs, profile=())
    only_traj = dataclasses.replace(
        only_traj, pairs=tuple(dataclasses.replace(x, profile=()) for x in only_traj.pairs)
    )
    assert set(images(parse(render_html(only_traj)))) == {"plot-region", "plot-trajectory"}
    only_prof = dataclasses.replace(full(violation=True), pairs=r.pairs)
    assert set(images(parse(render_html(only_prof)))) == {"plot-region", "plot-profile"}


def test_profile_with_only_gdp_mu_has_no_profile_plot() -> None:
    r = full()
    mu_only = tuple(pt for pt in r.profile if pt.objective == "gdp_mu")
    r2 = dataclasses.replace(
        r, profile=mu_only, pairs=tuple(dataclasses.replace(x, profile=()) for x in r.pairs)
    )
    p = parse(render_html(r2))
    assert "profile" in p.ids  # the table still lists it
    assert "plot-profile" not in images(p)


def _strip_new_fields(d: dict[str, Any]) -> None:
    """Make a JSON dict look like one written before the privacy-profile fields existed."""
    for c in [d["claim"], *d["claims"], *(p["claim"] for p in d["pairs"])]:
        c.pop("curve", None)
    for p in d["pairs"]:
        p.pop("trajectory", None)
        p["estimate"].pop("assumption", None)
        for pt in p["profile"]:
            pt.pop("claimed", None)
            pt.pop("exceeds_claim", None)
    for pt in d["profile"]:
        pt.pop("claimed", None)
        pt.pop("exceeds_claim", None)
    d["extra"].pop("selection", None)


def test_older_json_renders() -> None:
    d = to_json_dict(full(violation=True, curve=True))
    _strip_new_fields(d)
    r = from_json_dict(d)
    p = parse(render_html(r))
    assert set(SECTIONS) <= p.ids
    assert p.class_text("headline") == ["violation found"]
    assert "plot-trajectory" not in images(p)
    assert "not recorded" in p.all_text()


def test_text_is_escaped() -> None:
    r = full(violation=True)
    evil = '<script>alert("x")</script>'
    pair = dataclasses.replace(r.pairs[0], description=f"pair {evil} $x$", tags=(evil,))
    r2 = dataclasses.replace(
        r,
        mechanism=f"mech{evil}",
        pairs=(pair, *r.pairs[1:]),
        warnings=(f"warn {evil}",),
        findings=(f"finding {evil} & more",),
        command=f"dpaudit run 'x{evil}'",
    )
    page = render_html(r2)
    assert "<script" not in page
    p = parse(page)
    assert not p.tags("script") and not p.scripts
    text = p.all_text()
    assert f"mech{evil}" in text and f"pair {evil} $x$" in text and f"finding {evil} & more" in text
    assert {"findings", "warnings"} <= p.ids
    index = render_index_html([r2], [f'x.html"><script>{evil}'])
    assert "<script" not in index
    assert not parse(index).tags("script")


def test_findings_and_warnings_only_when_present() -> None:
    r = dataclasses.replace(audit("laplace_sum"), warnings=(), findings=())
    p = parse(render_html(r))
    assert not {"findings", "warnings"} & p.ids


def test_round_trip_gives_same_html() -> None:
    for r in (audit("laplace_sum"), audit("laplace_sum_range_bug"), full(violation=True, curve=True)):
        assert render_html(from_json_dict(to_json_dict(r))) == render_html(r)


@pytest.mark.parametrize("r", [full(violation=True), make_result()], ids=["full", "bare"])
def test_without_matplotlib(monkeypatch: pytest.MonkeyPatch, r: AuditResult) -> None:
    for mod in MATPLOTLIB_MODULES:
        monkeypatch.setitem(sys.modules, mod, None)  # `import` now raises ImportError
    p = parse(render_html(r))
    assert not p.tags("img") and not p.tags("figure")
    assert set(SECTIONS) <= p.ids
    assert " ".join(NO_MATPLOTLIB.split()) in p.all_text()
    assert_self_contained(p)


def index_rows(page: str) -> list[list[str]]:
    body = page[page.index("<tbody>") : page.index("</tbody>")]
    return [
        [
            " ".join(html.unescape(re.sub(r"<[^>]+>", "", c)).split())
            for c in re.findall(r"<td[^>]*>(.*?)</td>", row)
        ]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body)
    ]


def test_index_page() -> None:
    results = [
        make_result(mechanism="b_ok"),
        make_result(mechanism="c_finding", stated_exceeded=True),
        make_result(mechanism="d_bad", violation=True),
        make_result(mechanism="a_ok"),
    ]
    links = [f"{r.mechanism}.html" for r in results]
    page = render_index_html(results, links, families={"d_bad": "004", "a_ok": "reference"})
    p = parse(page)
    assert_self_contained(p)
    assert {"title", "index"} <= p.ids
    rows = index_rows(page)
    assert [row[0] for row in rows] == ["d_bad", "c_finding", "a_ok", "b_ok"]  # violations first
    assert [row[1] for row in rows] == ["004", "—", "reference", "—"]
    verdict = 7  # after the white-box ε and the two "certified of" columns (issues 37, 42)
    assert rows[0][verdict] == "violation found"
    assert rows[1][verdict] == "no violation found at this power; finding about the paper's statement"
    assert rows[2][verdict] == "no violation found at this power"
    assert all("ε = 1, δ = 1e-05" in row[2] for row in rows)
    hrefs = [a["href"] for a in p.tags("a")]
    assert hrefs == [h for name in ("d_bad", "c_finding", "a_ok", "b_ok") for h in [f"{name}.html"] * 2]
    assert "1 violation(s) found" in p.all_text()
    with pytest.raises(ValueError):
        render_index_html(results, links[:1])


def test_index_family_from_result_extra() -> None:
    r = dataclasses.replace(make_result(), extra={"family": "000, 001"})
    assert index_rows(render_index_html([r], ["x.html"]))[0][1] == "000, 001"


# ---------------------------------------------------------------------------------------------
# layout: what a 1280 px screenshot showed clipped, repeated or unreadable


def table_rows(page: str, cls: str) -> list[tuple[str, list[str]]]:
    """(row class attribute, raw cell HTML) of each body row of the table of class `cls`."""
    start = page.index(f'<table class="{cls}">')
    body = page[page.index("<tbody>", start) : page.index("</tbody>", start)]
    return [
        (attrs, re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S))
        for attrs, row in re.findall(r"<tr([^>]*)>(.*?)</tr>", body, flags=re.S)
    ]


def cell_text(cell: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", cell)).split())


def test_pair_markers_in_the_first_column() -> None:
    r = full(violation=True, num_pairs=3)
    witness = dataclasses.replace(r.pairs[1], estimate=estimate(p_count=40, q_count=0))
    r = dataclasses.replace(r, pairs=(r.pairs[0], witness, r.pairs[2]))
    page = render_html(r)
    header = page[
        page.index('<table class="pairs">') : page.index("</thead>", page.index('<table class="pairs">'))
    ]
    assert header.count("<th>") <= 9  # was 15 columns, the last (markers) clipped at 1280 px
    rows = table_rows(page, "pairs")
    assert len(rows) == 3
    (attrs0, cells0), (_, cells1), (_, cells2) = rows
    assert 'class="violation"' in attrs0
    assert cell_text(cells0[0]) == "1 violation" and 'class="badge violation"' in cells0[0]
    assert cell_text(cells1[0]) == "2 one-sided witness (0 of 90,000 on D′)"
    assert 'class="badge witness"' in cells1[0]
    assert cell_text(cells2[0]) == "3"
    assert all("badge" not in c for _, cells in rows for c in cells[1:])


def test_each_distinct_assumption_once_per_page() -> None:
    r = full(num_pairs=4)
    a, b = "none: i.i.d. samples", "the outputs are exchangeable across runs (a long assumption)"
    pairs = tuple(
        dataclasses.replace(p, estimate=dataclasses.replace(p.estimate, assumption=a if p.index % 2 else b))
        for p in r.pairs
    )
    c = "μ-GDP trade-off curve (profile only)"
    profile = tuple(
        dataclasses.replace(pt, estimate=dataclasses.replace(pt.estimate, assumption=c))
        if pt.objective == "gdp_mu"
        else dataclasses.replace(pt, estimate=dataclasses.replace(pt.estimate, assumption=b))
        for pt in r.profile
    )
    page = render_html(dataclasses.replace(r, pairs=pairs, profile=profile))
    text = parse(page).all_text()  # visible text only: titles (hover text) are attributes
    for assumption in (a, b, c):
        assert text.count(assumption) == 1, assumption
    # numbered in order of first appearance; every row links to its footnote, which exists
    assert 'id="assumption-1"' in page and 'id="assumption-2"' in page and 'id="assumption-3"' in page
    for i, (_, cells) in enumerate(table_rows(page, "pairs")):
        assert f'href="#assumption-{2 if i % 2 else 1}"' in cells[2]
    assert [t for t in parse(page).class_text("fn-label")] == ["A1", "A2", "A3"]
    assert page.count('href="#assumption-3"') == 1  # only the μ-GDP profile point uses it


def test_negative_bounds_worded_not_bold() -> None:
    r = full(num_pairs=2)
    low = estimate(p_count=1500, q_count=1500)
    assert low.epsilon_lower_bound < 0  # the fixture is what the test assumes
    pairs = tuple(dataclasses.replace(p, estimate=low) for p in r.pairs)
    claims = tuple(dataclasses.replace(c, epsilon_lower_bound=low.epsilon_lower_bound) for c in r.claims)
    r = dataclasses.replace(r, pairs=pairs, claims=claims, epsilon_lower_bound=low.epsilon_lower_bound)
    raw = f"{low.epsilon_lower_bound:.4g}".replace("-", "−")
    words = f"0 (no evidence of privacy loss; raw {raw})"
    page = render_html(r)
    for _, cells in table_rows(page, "pairs"):
        assert cell_text(cells[-2]) == words
    for _, cells in table_rows(page, "claims"):
        assert cell_text(cells[7]) == words
    assert words in parse(page).class_text("verdict no-violation")[0]
    strong = re.findall(r"<strong>(.*?)</strong>", page)
    assert not [x for x in strong if re.search(r"[-−]\d", x)]  # no bold negative number anywhere
    # the index keeps it short, the raw value in the cell's title
    index = render_index_html([r], ["x.html"])
    assert index_rows(index)[0][3] == "0 (no evidence)"
    assert f'title="certified ε lower bound: {raw}"' in index


def many_pairs_result(num_pairs: int = 13) -> AuditResult:
    """A result whose proved claim is far above every pair's bound (as agnostic_learner's)."""
    r = full(num_pairs=num_pairs, stated_exceeded=True)
    far = dataclasses.replace(r.claim, epsilon=30.0)
    pairs = tuple(dataclasses.replace(p, claim=far) for p in r.pairs)
    claims = (dataclasses.replace(r.claims[0], claim=far), r.claims[1])
    return dataclasses.replace(r, claim=far, pairs=pairs, claims=claims)


def test_trajectory_with_many_pairs() -> None:
    r = many_pairs_result()
    layout = trajectory_layout(r)
    assert layout is not None
    assert len(layout.named) == MAX_LABELLED_PAIRS < len(r.pairs)
    assert len(layout.named) + len(layout.others) == len(r.pairs) and layout.not_drawn == 0
    bounds = [p.estimate.epsilon_lower_bound for p in layout.named]
    assert bounds == sorted(bounds, reverse=True)
    assert min(bounds) >= max(p.estimate.epsilon_lower_bound for p in layout.others)
    # the far proved claim (ε = 30) is marked above the plot; the stated one (0.5) is a line
    assert [c.epsilon for c, _ in layout.above] == [30.0]
    assert [c.epsilon for c, _, _ in layout.lines] == [0.5]
    assert layout.top < 2.0  # the y-range is the curves', not the claim's
    figs = images(parse(render_html(r)))
    width, height = figs["plot-trajectory"]
    assert width <= 1000 and height <= 800
    assert {size[0] for size in figs.values()} == {width}


def test_region_caption_matches_the_panels() -> None:
    wide = make_result()  # events of probability ≈ 0.02: the tail panel is drawn
    assert "Right" in region_caption(True) and region_caption(True).startswith("Left:")
    assert "Right" not in region_caption(False) and "Left" not in region_caption(False)
    common = dataclasses.replace(
        wide,
        pairs=tuple(
            dataclasses.replace(p, estimate=estimate(p_count=40_000, q_count=20_000)) for p in wide.pairs
        ),
    )
    for r, two in ((wide, True), (common, False)):
        page = render_html(r)
        fig = page[
            page.index('<figure id="plot-region"') : page.index(
                "</figure>", page.index('<figure id="plot-region"')
            )
        ]
        caption = cell_text(fig[fig.index("<figcaption>") :])
        assert ("Right" in caption) is two and ("Left:" in caption) is two
        width, height = images(parse(page))["plot-region"]
        assert width <= 1000 and (width > height)


def test_pair_labels_grouped() -> None:
    assert ranges([6, 7, 8]) == "6–8"
    assert ranges([1, 2, 3, 4, 5, 9, 10, 11, 12, 13]) == "1–5, 9–13"
    assert ranges([3, 1, 5]) == "1, 3, 5"
    groups = clusters([(0.17, 0.79), (0.175, 0.77), (0.17, 0.76), (1.0, 0.0), (0.99, 0.0), (0.5, 0.5)], 0.035)
    assert sorted(map(sorted, groups)) == [[0, 1, 2], [3, 4], [5]]


def test_verdict_box_has_no_blank_top() -> None:
    page = render_html(full())
    assert ".verdict h2 { margin-top: 0; }" in page


def test_index_run_context() -> None:
    results = [make_result(mechanism="b_ok"), make_result(mechanism="a_bad", violation=True)]
    results[1] = dataclasses.replace(results[1], elapsed_seconds=100.0)
    links = [f"{r.mechanism}.html" for r in results]
    page = render_index_html(results, links)
    p = parse(page)
    assert "run" in p.ids
    text = p.all_text()
    assert "Seed 7" in text and "Total elapsed 101.5 s (1 min 42 s)" in text
    template = "dpaudit run MECHANISM --num-samples 100000 --seed 7"
    assert run_command_template(results) == template
    assert p.class_text("command") == [template]
    given = "dpaudit run --all --num-samples 100000 --out reports"
    assert parse(render_index_html(results, links, command=given)).class_text("command") == [given]
    # commands that differ otherwise (or are missing) give no common command; seeds are listed
    mixed = [results[0], dataclasses.replace(results[1], command="", seed=8)]
    assert run_command_template(mixed) is None
    p2 = parse(render_index_html(mixed, links))
    assert not p2.class_text("command")
    assert "7, 8 (differs between mechanisms)" in p2.all_text()
    assert "Seed" not in parse(render_index_html([], [])).all_text()  # nothing to report, nothing shown


def test_search_section_lists_candidates_and_marks_the_certified() -> None:
    from tests.reports.test_markdown import search_extra

    r = dataclasses.replace(full(), extra={**full().extra, "search": search_extra()})
    page = parse(render_html(r))
    assert_self_contained(page)
    ids = [a.get("id") for a in page.tags("section")]
    assert ids.index("pairs") < ids.index("search") < ids.index("plots")
    rows = page.class_text("certified")
    assert len(rows) == 2  # rank 1 and the registered one at rank 25
    assert rows[0].startswith("1candidate pair 0") and rows[1].startswith("25candidate pair 24")
    assert "tried 30 candidate pair(s) and certified 2" in page.all_text()
    assert "… and 9 more candidate pair(s)" in page.all_text()
    # the registered route's result has no search section
    assert "search" not in [a.get("id") for a in parse(full_page()).tags("section")]


def test_script_in_mechanism_name_and_notes_is_escaped() -> None:
    """Every user-controlled string goes through the templates' autoescaping, figures included."""
    evil = '<script>alert("x")</script>'
    r = full(violation=True)
    claims = tuple(
        dataclasses.replace(
            c, claim=dataclasses.replace(c.claim, note=f"note {evil}", reference=f"ref {evil}")
        )
        for c in r.claims
    )
    pair = dataclasses.replace(r.pairs[0], description=f"pair {evil}")  # also a trajectory legend entry
    r = dataclasses.replace(r, mechanism=f"mech{evil}", claims=claims, pairs=(pair, *r.pairs[1:]))
    page = render_html(r, family=f"fam {evil}")
    assert "<script" not in page and "&lt;script&gt;" in page
    p = parse(page)
    assert not p.tags("script")
    assert "<code>mech&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</code>" in page
    text = p.all_text()
    for shown in (f"mech{evil}", f"note {evil}", f"ref {evil}", f"fam {evil}", f"pair {evil}"):
        assert shown in text, shown
    svg = page[page.index('<figure id="plot-trajectory"') :]
    assert (
        "pair 1 (replace-one): pair &lt;script&gt;" in svg
    )  # the legend, escaped by matplotlib's SVG writer
    for _, attrs in p.starts:  # nothing user-controlled becomes an attribute name or an event handler
        assert not any(k.startswith("on") for k in attrs)


def test_verdict_figure_and_region_at_the_top() -> None:
    """The verdict block carries the claim / white-box / certified bars; the privacy region comes
    right after the verdict, before the tables."""
    page = render_html(audit("laplace_sum_range_bug"))
    ids = [a.get("id") for a in parse(page).tags("section")]
    assert ids[:2] == ["verdict", "region"] and ids.index("region") < ids.index("claims")
    verdict = page[page.index('<section id="verdict"') : page.index("</section>")]
    assert '<svg class="verdict-bars"' in verdict and "white-box ε" in verdict
    assert verdict.index("verdict-bars") < verdict.index('<dl class="facts">')
    assert '<figure id="plot-region"' in page[: page.index('<section id="claims">')]


def test_templates_are_files_next_to_the_module() -> None:
    """The templates ship with the package (pyproject package-data: reports/templates/*)."""
    from dpaudit.reports import html as module

    names = {p.name for p in module.TEMPLATES.iterdir()}
    assert {"base.html.j2", "report.html.j2", "tables.html.j2", "index.html.j2", "report.css"} <= names
    assert module.environment().autoescape("report.html.j2")
