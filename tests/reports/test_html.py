"""The HTML report: every section, embedded PNG figure, no external resources, escaping."""

from __future__ import annotations

import base64
import dataclasses
import functools
import sys
from html.parser import HTMLParser

import pytest

from audit.estimators import ThresholdDistinguisher
from audit.runner import run_audit
from audit.types import AuditConfig, AuditResult
from mechanisms.buggy import LaplaceSumRangeBug
from mechanisms.reference import LaplaceSum
from reports.html import LOWER_BOUND_NOTE, render_html, render_index_html
from reports.schema import from_json_dict, to_json_dict

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SECTIONS = ("title", "verdict", "claims", "pairs", "figure", "reproduce")


@functools.cache
def audit(name: str) -> AuditResult:
    """Real results at a small budget. The threshold distinguisher alone keeps the small budget
    meaningful for these continuous outputs (see the report of this change)."""
    m = {"laplace_sum": LaplaceSum(), "laplace_sum_range_bug": LaplaceSumRangeBug()}[name]
    return run_audit(
        m,
        m.neighbor_pairs(),
        AuditConfig(num_samples=20_000, seed=3),
        distinguishers=(ThresholdDistinguisher(),),
        command=f"dpaudit run {name} --num-samples 20000 --seed 3",
        show_progress=False,
    )


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.starts: list[tuple[str, dict[str, str | None]]] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self.in_script = False
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = dict(attrs)
        self.starts.append((tag, d))
        if d.get("id"):
            self.ids.add(str(d["id"]))
        self.in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = False

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self.in_script:
            self.scripts.append(data)

    def all_text(self) -> str:
        return " ".join(" ".join(self.text).split())

    def tags(self, name: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.starts if t == name]


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
    assert "@import" not in page_css(p)
    assert "url(" not in page_css(p)


def page_css(p: Page) -> str:
    return " ".join(p.text)  # <style> content is data; no url()/@import anywhere in text either


@pytest.mark.parametrize("name", ["laplace_sum", "laplace_sum_range_bug"])
def test_sections_figure_and_no_external_resources(name: str) -> None:
    r = audit(name)
    page = render_html(r)
    p = parse(page)
    assert set(SECTIONS) <= p.ids
    assert len(p.tags("style")) == 1
    assert_self_contained(p)
    text = p.all_text()
    assert r.mechanism in text
    assert r.command in text
    assert f"{r.seed}" in text and r.package_version in text
    assert f"{r.certification_samples:,} certification" in text
    assert " ".join(LOWER_BOUND_NOTE.split()) in text
    for pr in r.pairs:
        assert pr.description in text
    # one row per claim and per pair
    tables = [a.get("class") for a in p.tags("table")]
    assert tables == ["claims", "pairs"]
    assert len(p.tags("tr")) == 2 + len(r.claims) + len(r.pairs)
    imgs = p.tags("img")
    assert len(imgs) == 1
    src = str(imgs[0]["src"])
    prefix = "data:image/png;base64,"
    assert src.startswith(prefix)
    png = base64.b64decode(src[len(prefix) :], validate=True)
    assert png.startswith(PNG_MAGIC) and len(png) > 1000


def test_verdict_wording() -> None:
    good, bad = audit("laplace_sum"), audit("laplace_sum_range_bug")
    assert not good.violation and bad.violation  # the fixtures are what the tests assume
    good_text = parse(render_html(good)).all_text()
    bad_text = parse(render_html(bad)).all_text()
    assert "No violation found at this power" in good_text
    assert "Violation found" not in good_text.replace("No violation found", "")
    assert "Violation found" in bad_text and "No violation found at this power" not in bad_text
    assert "violation" in bad_text  # the violating pair is marked
    violating = [pr for pr in bad.pairs if pr.violation]
    assert violating
    rows = [a for a in parse(render_html(bad)).tags("tr") if a.get("class") == "violation"]
    assert len(rows) == len(violating) + sum(c.exceeded for c in bad.claims)


def test_text_is_escaped() -> None:
    r = audit("laplace_sum_range_bug")
    evil = '<script>alert("x")</script>'
    pair = dataclasses.replace(r.pairs[0], description=f"pair {evil}", tags=(evil,))
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
    assert f"mech{evil}" in text and f"pair {evil}" in text and f"finding {evil} & more" in text
    assert {"findings", "warnings"} <= p.ids
    index = render_index_html([r2], [f'x.html"><script>{evil}'])
    assert "<script" not in index
    assert not parse(index).tags("script")


def test_findings_and_warnings_only_when_present() -> None:
    r = dataclasses.replace(audit("laplace_sum"), warnings=(), findings=())
    p = parse(render_html(r))
    assert not {"findings", "warnings"} & p.ids


def test_round_trip_gives_same_html() -> None:
    for name in ("laplace_sum", "laplace_sum_range_bug"):
        r = audit(name)
        assert render_html(from_json_dict(to_json_dict(r))) == render_html(r)


def test_without_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    for mod in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg", "matplotlib.patches"):
        monkeypatch.setitem(sys.modules, mod, None)
    p = parse(render_html(audit("laplace_sum")))
    assert not p.tags("img")
    assert "figure" in p.ids
    assert "matplotlib is not installed" in p.all_text()


def test_index_page() -> None:
    results = [audit("laplace_sum"), audit("laplace_sum_range_bug")]
    links = ["laplace_sum.html", "laplace_sum_range_bug.html"]
    p = parse(render_index_html(results, links))
    assert_self_contained(p)
    assert [a["href"] for a in p.tags("a")] == links
    text = p.all_text()
    assert "No violation found at this power" in text and "Violation found" in text
    assert len(p.tags("tr")) == 1 + len(results)
    with pytest.raises(ValueError):
        render_index_html(results, links[:1])
