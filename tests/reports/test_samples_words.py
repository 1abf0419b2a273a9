"""The samples sentence (`reports/samples_words.py`) is the same in the console summary, the
Markdown report and the HTML page, and says what a sequential search drew where it stopped."""

from __future__ import annotations

import html

from dpaudit.app.route import Route, certify
from dpaudit.app.summary import summary
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.registry import resolve
from dpaudit.reports.html import render_html
from dpaudit.reports.markdown import render_markdown
from dpaudit.reports.samples_words import samples_sentence, sequential_lines


def test_every_format_prints_the_same_samples_sentence_and_stop() -> None:
    mechanism, _ = resolve("randomized_response", {})
    config = AuditConfig(num_samples=150_000, seed=1, sequential=True)
    r = certify(mechanism, config, Route(mode="all"), show_progress=False).result
    sentence = samples_sentence(r)
    assert "a first round on the registered pairs drew" in sentence
    assert "a first search round (a budget of 30,000 per side and pair) drew" in sentence
    (stop,) = sequential_lines(r)
    assert sentence in summary(r) and stop in summary(r)
    assert sentence in render_markdown(r) and stop.removeprefix("sequential: ") in render_markdown(r)
    page = render_html(r)
    assert html.escape(sentence) in page and html.escape(stop.removeprefix("sequential: ")) in page


def test_a_sequential_search_says_what_it_certified_where_it_stopped() -> None:
    r = certify(
        resolve("private_decision_list", {})[0],
        AuditConfig(num_samples=1_000_000, seed=0, sequential=True),
        Route(mode="all"),
        show_progress=False,
    ).result
    seq, search = r.extra["sequential"], r.extra["search"]
    assert isinstance(seq, dict) and isinstance(search, dict)
    assert seq["stopped_at"] < seq["cap"]  # stopped for futility
    said = f"{r.certification_samples:,} per side spent certifying the pair (a cap of {int(seq['cap']):,})"
    assert said in samples_sentence(r)
