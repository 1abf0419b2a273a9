"""The HTML report: every section, the verdict wording, embedded PNG plots (present exactly when
their data is), no external resources, escaping, graceful degradation on older results and
without matplotlib, and the run index."""

from __future__ import annotations

import base64
import dataclasses
import functools
import html
import re
import struct
import sys
from html.parser import HTMLParser
from typing import Any

import pytest

from audit.estimators import ThresholdDistinguisher
from audit.runner import run_audit
from audit.types import AuditConfig, AuditResult
from mechanisms.buggy import LaplaceSumRangeBug
from mechanisms.reference import LaplaceSum
from reports.html import LOWER_BOUND_NOTE, NO_MATPLOTLIB, render_html, render_index_html
from reports.schema import from_json_dict, to_json_dict
from tests.reports.fixtures import make_result, older

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
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


def images(p: Page) -> dict[str, bytes]:
    """figure id → decoded PNG; asserts every <img> is an embedded PNG."""
    out = {}
    figures = [a.get("id") for t, a in p.starts if t == "figure"]
    imgs = p.tags("img")
    assert len(figures) == len(imgs)
    prefix = "data:image/png;base64,"
    for ident, img in zip(figures, imgs, strict=True):
        src = str(img["src"])
        assert src.startswith(prefix), src[:40]
        assert img.get("alt")
        png = base64.b64decode(src[len(prefix) :], validate=True)
        assert png.startswith(PNG_MAGIC) and len(png) > 1000
        out[str(ident)] = png
    return out


def png_size(png: bytes) -> tuple[int, int]:
    width, height = struct.unpack(">II", png[16:24])
    return width, height


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
    assert tables[:2] == ["claims", "pairs"]
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
    assert len(rows) == len(violating) + sum(c.exceeded for c in bad.claims)


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
    pngs = images(p)
    assert set(pngs) == {"plot-region", "plot-profile", "plot-trajectory"}
    for png in pngs.values():
        width, height = png_size(png)
        assert 600 <= width <= 1280 and 300 <= height <= 800  # readable on a 1280 px page unscaled


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
    assert rows[0][4] == "violation found"
    assert rows[1][4] == "no violation found at this power; finding about the paper's statement"
    assert rows[2][4] == "no violation found at this power"
    assert all("ε = 1, δ = 1e-05" in row[2] for row in rows)
    hrefs = [a["href"] for a in p.tags("a")]
    assert hrefs == [h for name in ("d_bad", "c_finding", "a_ok", "b_ok") for h in [f"{name}.html"] * 2]
    assert "1 violation(s) found" in p.all_text()
    with pytest.raises(ValueError):
        render_index_html(results, links[:1])


def test_index_family_from_result_extra() -> None:
    r = dataclasses.replace(make_result(), extra={"family": "000, 001"})
    assert index_rows(render_index_html([r], ["x.html"]))[0][1] == "000, 001"
