"""Self-contained HTML audit reports (DESIGN.md, "reports/"). Render a result; compute nothing.

`render_html(result)` is one page per audited mechanism, in this order (each a `<section>` whose
`id` is given):

- `title`: the mechanism, its family if known, the verdict in one line;
- `verdict`: "violation found" / "no violation found at this power" (plus "finding about the
  paper's statement" where only a STATED claim is exceeded), the claim deciding it, the
  certified ε and δ bounds, the confidence and the largest certifiable ε at this budget;
- `findings`, `warnings` (only when there are any);
- `claims`: every claim (proved/stated, ε, δ, curve, relation, reference, note) against its
  certified bounds;
- `pairs`: every neighbour pair in nine columns that fit a 1280 px page (number and markers —
  violation, infinite witness — first; description with relation and tags; chosen estimator
  with a footnote mark A1, A2, … for what its certificate assumes, each distinct assumption
  written once under the table; event; counts with P lower / Q upper; claimed ε; certified ε
  and δ), then the estimators considered on the selection split when the result records them
  (`extra["selection"]`);
- `search` (when the result came from a worst-case pair search, `extra["search"]`): the search's
  budget in one sentence, then the top `SEARCH_TOP` pairs it tried (plus any certified one further
  down) with source, pilot samples, pilot score and pilot ε, the certified ones marked, and a count
  of the rest;
- `profile` (when the result has profile points): each certified profile point vs the claim;
- `plots`: figures drawn with matplotlib (Agg), all FIGURE_WIDTH_IN × FIGURE_DPI = 1000 px wide,
  embedded as base64 PNG: the empirical privacy region (always; a log-axes tail panel only when
  an event is rare, and the caption describes exactly the panels drawn), the privacy profile
  (when it has points to draw) and the certified bound vs samples (when pairs carry a
  trajectory). Without matplotlib (the `plots` extra) the section holds a note instead;
- `reproduce`: the seed, the budget, the parameters and the exact command, copyable.

A certified lower bound ≤ 0 certifies nothing (ε ≥ 0 always holds): everywhere it reads
"0 (no evidence of privacy loss; raw −0.000347)", never a bold negative number.

`render_index_html(results, links)` is the table of contents of a run: the run's seed(s), budget,
total elapsed and command (given, or the results' common one), then one row per mechanism,
violations first.

The pages load nothing: the CSS is inline, there are no scripts, fonts, stylesheets or remote
images. The only arithmetic here is for drawing: point estimates k/n of recorded counts, and the
claim's own curve (`PrivacyClaim.delta_at` / `epsilon_at`), which is the claim, not a statistic.
Every bound shown is the one recorded in the result.
"""

from __future__ import annotations

import base64
import html
import io
import math
import shlex
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from dpaudit.engine.types import AuditResult, ClaimKind, PairResult, PrivacyClaim, ProfilePoint, Verdict
from dpaudit.reports.figures import verdict_bars_svg
from dpaudit.reports.markdown import (
    SEARCH_NOTE,
    SEARCH_TOP,
    STATED_FINDING,
    VERDICT_WORDS,
    assumption_words,
    bound_words,
    exact_words,
    family_of,
    fmt,
    search_record,
    search_shown,
    search_summary,
    selection_candidates,
    stated_exceeded,
    verdict_rank,
    verdict_words,
    weakened,
    white_box_words,
    white_box_worst,
)

VERDICT_DETAIL = {
    Verdict.VIOLATION_FOUND: "The certified lower bound on the realised privacy loss exceeds the proved "
    "claim, so the claim is refuted with the stated confidence.",
    Verdict.NO_VIOLATION_FOUND: "No violation found at this power: no certified lower bound exceeds the "
    "proved claim at this sample budget.",
}
LOWER_BOUND_NOTE = (
    "A certified lower bound below the claim proves nothing more than that no violation was found at "
    "this power; it is not evidence that the mechanism satisfies its claim."
)
NO_MATPLOTLIB = (
    "Plots not rendered: matplotlib is not installed (install the `plots` extra, "
    "`pip install dpaudit[plots]`, and render again with `dpaudit report RESULT.json --format html`)."
)
FIGURE_WIDTH_IN = 10.0  # every figure is 1000 px wide at FIGURE_DPI: one width on the page
FIGURE_DPI = 100
MAX_LABELLED_PAIRS = 5  # the trajectory legend names at most this many pairs; the rest are grey
MAX_TRAJECTORY_PAIRS = 60  # curves drawn at all (labelled + grey)
CLAIM_LINE_RANGE = 2.5  # draw a claim as a line only within this many data ranges of the curves' bottom
LABEL_RADIUS = 0.035  # region plot: markers closer than this (axes fraction) share one label
OTHER_COLOUR = "#afb8c1"

VIOLATION_COLOUR = "#cf222e"
OK_COLOUR = "#0969da"
PALETTE = (
    "#0969da",
    "#bf8700",
    "#1a7f37",
    "#8250df",
    "#57606a",
    "#bc4c00",
    "#6e7781",
    "#4d2d00",
    "#bf3989",
    "#116329",
)

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 80em; padding: 0 1em; color: #1b1f23; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #d0d7de; padding-bottom: 0.2em; margin-top: 1.6em; }
h3 { font-size: 1.05em; margin-top: 1.2em; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: #f6f8fa; padding: 0.8em; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
pre.command { border: 1px solid #d0d7de; user-select: all; -webkit-user-select: all; cursor: text; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.88em; }
th, td { border: 1px solid #d0d7de; padding: 0.3em 0.55em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.event { min-width: 9em; max-width: 22em; overflow-wrap: break-word; }
td.desc { min-width: 15em; max-width: 30em; overflow-wrap: break-word; }
td.idx { white-space: nowrap; font-variant-numeric: tabular-nums; }
td.idx .badge { display: block; margin-top: 0.25em; width: max-content; }
td.bound { text-align: right; min-width: 7.5em; max-width: 11em; font-variant-numeric: tabular-nums; }
td ul { margin: 0; padding-left: 1.2em; }
.nowrap { white-space: nowrap; }
a.fn { font-size: 0.8em; vertical-align: super; line-height: 0; text-decoration: none; font-weight: 600; }
ol.assumptions { font-size: 0.9em; padding-left: 0; list-style: none; }
ol.assumptions li { margin: 0.15em 0; }
ol.assumptions .fn-label { font-weight: 600; display: inline-block; min-width: 2.2em; }
.verdict { padding: 0.8em 1em; border-radius: 6px; border: 1px solid; margin-top: 1.2em; }
.verdict h2 { margin-top: 0; }
.verdict.violation { background: #ffebe9; border-color: #cf222e; }
.verdict.no-violation { background: #eef6ee; border-color: #2da44e; }
.verdict.finding { background: #fff8c5; border-color: #bf8700; }
.verdict .headline { font-size: 1.35em; font-weight: 700; margin: 0 0 0.3em 0; }
.verdict .finding-line { font-weight: 600; color: #7d4e00; }
.badge { display: inline-block; padding: 0 0.45em; border-radius: 0.8em; font-size: 0.8em;
         font-weight: 600; white-space: nowrap; }
.badge.violation { background: #cf222e; color: #fff; }
.badge.finding { background: #bf8700; color: #fff; }
.badge.witness { background: #8250df; color: #fff; }
.badge.verdict-claim { background: #0969da; color: #fff; }
.badge.chosen { background: #1a7f37; color: #fff; }
tr.violation td { background: #fff5f5; }
tr.finding td { background: #fffbe6; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1.2em; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
figure { margin: 0.8em 0 1.6em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #d0d7de; }
dl.run { margin: 0.8em 0; }
figcaption { font-size: 0.9em; color: #57606a; max-width: 1000px; }
.note { color: #57606a; font-style: italic; }
"""

_VIOLATION_ROW = ' class="violation"'


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def _page(title: str, body: list[str]) -> str:
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{_e(title)}</title>",
            f"<style>{CSS}</style>",
            "</head>",
            "<body>",
            *body,
            "</body>",
            "</html>",
            "",
        ]
    )


def _table(headers: Sequence[str], rows: Sequence[str], cls: str) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    return (
        f'<div class="scroll"><table class="{cls}">\n<thead><tr>{head}</tr></thead>\n<tbody>\n'
        + "\n".join(rows)
        + "\n</tbody></table></div>"
    )


def _count(k: int, n: int) -> str:
    return f"{k:,}/{n:,}"


def _claim_text(c: PrivacyClaim) -> str:
    curve = f", {c.curve.label()}" if c.curve is not None else ""
    return f"ε = {fmt(c.epsilon)}, δ = {fmt(c.delta)}{curve} ({c.kind.value}, {c.relation.value})"


def _verdict_class(r: AuditResult) -> str:
    return ("violation", "finding", "no-violation")[verdict_rank(r)]


def _minus(text: str) -> str:
    """A formatted number with a typographic minus sign."""
    return text.replace("-", "−")


def _is_evidence(value: float) -> bool:
    """A certified lower bound > 0 is evidence of privacy loss; ≤ 0 (or −∞) is none."""
    return not value <= 0


def _bound_words(value: float, pairs_checked: int | None = None, *, short: bool = False) -> str:
    """A certified lower bound in words. A bound ≤ 0 certifies nothing (ε ≥ 0 always holds), so it
    reads "0 (no evidence of privacy loss; raw −0.000347)" rather than a bare negative number;
    `short` gives "0 (no evidence)" for narrow cells (the caller shows the raw value elsewhere)."""
    if pairs_checked == 0:
        return bound_words(value, 0)
    if _is_evidence(value):
        return fmt(value)
    if short:
        return "0 (no evidence)"
    raw = "" if value == 0 else f"; raw {_minus(fmt(value))}"
    return f"0 (no evidence of privacy loss{raw})"


def _assumption_labels(r: AuditResult) -> dict[str, int]:
    """Each distinct certificate assumption on the page (as worded) → its footnote number, in order
    of first appearance: the pairs, then the profile points."""
    labels: dict[str, int] = {}
    texts = [p.estimate.assumption for p in r.pairs] + [pt.estimate.assumption for pt in _profile_points(r)]
    for text in texts:
        labels.setdefault(assumption_words(text), len(labels) + 1)
    return labels


def _assumption_ref(labels: Mapping[str, int], assumption: str) -> str:
    words = assumption_words(assumption)
    k = labels[words]
    return f'<a class="fn" href="#assumption-{k}" title="assumption A{k}: {_e(words)}">A{k}</a>'


def _assumption_list(labels: Mapping[str, int], texts: Iterable[str], intro: str) -> list[str]:
    """The footnote list of the assumptions among `texts` (each distinct one once)."""
    shown = sorted({labels[assumption_words(t)]: assumption_words(t) for t in texts}.items())
    if not shown:
        return []
    return [
        f'<p class="note">{_e(intro)}</p>',
        '<ol class="assumptions">',
        *[
            f'<li id="assumption-{k}"><span class="fn-label">A{k}</span> {_e(words)}</li>'
            for k, words in shown
        ],
        "</ol>",
    ]


# ---------------------------------------------------------------------------------------------
# sections


def _title_section(r: AuditResult, family: str) -> list[str]:
    fam = f" <span class='note'>({_e(family)})</span>" if family else ""
    return [
        '<header id="title">',
        f"<h1>dpaudit: <code>{_e(r.mechanism)}</code>{fam}</h1>",
        f"<p>Empirical privacy audit of <code>{_e(r.mechanism)}</code> on {len(r.pairs)} neighbour "
        f"pair(s), dpaudit {_e(r.package_version)}. Verdict: <strong>{_e(verdict_words(r))}</strong>.</p>",
        "</header>",
    ]


def _verdict_section(r: AuditResult) -> list[str]:
    out = [
        f'<section id="verdict" class="verdict {_verdict_class(r)}">',
        "<h2>Verdict</h2>",
        f'<p class="headline">{_e(VERDICT_WORDS[r.verdict])}</p>',
    ]
    for c in stated_exceeded(r):
        out.append(
            f'<p class="finding-line">{_e(STATED_FINDING)}: the certified ε ≥ '
            f"{_e(fmt(c.epsilon_lower_bound))} exceeds the paper's stated claim {_e(_claim_text(c.claim))} "
            f"({_e(c.claim.reference)}). The verdict uses the proved claim.</p>"
        )
    out.append(f"<p>{_e(VERDICT_DETAIL[r.verdict])} {_e(LOWER_BOUND_NOTE)}</p>")
    out += [f'<p class="finding-line">{_e(w)}</p>' for w in weakened(r)]
    facts = [
        ("Claim deciding the verdict", f"{_claim_text(r.claim)} — {r.claim.reference}"),
        ("Certified ε lower bound", _bound_words(r.epsilon_lower_bound)),
        ("Certified δ lower bound at the claimed ε", fmt(r.delta_lower_bound)),
        (
            "Confidence",
            f"all bounds hold simultaneously with probability ≥ {1 - r.failure_probability:g} "
            f"(per-test failure probability {fmt(r.per_test_failure_probability)})",
        ),
        ("Largest certifiable ε at this budget", fmt(r.epsilon_ceiling)),
    ]
    worst = white_box_worst(r)
    if worst is not None:
        facts.insert(2, ("White-box reference (not in the verdict)", white_box_words(r) or ""))
    points = _profile_points(r)
    if points:
        exceeded = sum(pt.exceeds_claim for pt in points)
        facts.append(("Privacy profile", f"{len(points)} certified point(s), {exceeded} exceeding the claim"))
    out += ['<dl class="facts">']
    out += [
        f"<dt>{_e(k)}</dt><dd>{_strong(v, i == 1 and _is_evidence(r.epsilon_lower_bound))}</dd>"
        for i, (k, v) in enumerate(facts)
    ]
    exact = None if worst is None else worst.exact_epsilon
    figure = f'<div class="verdict-figure">{verdict_bars_svg(r, exact=exact)}</div>'
    return [*out, "</dl>", figure, "</section>"]


def _claims_section(r: AuditResult) -> list[str]:
    rows = []
    for i, c in enumerate(r.claims, start=1):
        badges = ' <span class="badge verdict-claim">verdict</span>' if c.claim == r.claim else ""
        row_cls = ""
        if c.exceeded:
            stated = c.claim.kind is ClaimKind.STATED
            row_cls = ' class="finding"' if stated else _VIOLATION_ROW
            badges += (
                f' <span class="badge finding">{_e(STATED_FINDING)}</span>'
                if stated
                else ' <span class="badge violation">violation</span>'
            )
        note = f"<br><span class='note'>{_e(c.claim.note)}</span>" if c.claim.note else ""
        curve = c.claim.curve.label() if c.claim.curve is not None else "—"
        rows.append(
            f"<tr{row_cls}>"
            f'<td class="num">{i}</td><td>{_e(c.claim.kind.value)}{badges}</td>'
            f'<td class="num">{_e(fmt(c.claim.epsilon))}</td><td class="num">{_e(fmt(c.claim.delta))}</td>'
            f"<td>{_e(curve)}</td><td>{_e(c.claim.relation.value)}</td>"
            f"<td>{_e(c.claim.reference)}{note}</td>"
            f'<td class="bound">{_e(_bound_words(c.epsilon_lower_bound, c.pairs_checked))}</td>'
            f'<td class="num">{_e(fmt(c.delta_lower_bound))}</td>'
            f'<td class="num">{c.pairs_checked}</td><td>{"yes" if c.exceeded else "no"}</td></tr>'
        )
    headers = [
        "#",
        "kind",
        "ε",
        "δ",
        "curve",
        "relation",
        "reference",
        "certified ε",
        "certified δ at claim",
        "pairs",
        "exceeded",
    ]
    return [
        '<section id="claims">',
        "<h2>Claims</h2>",
        "<p>Every claim the mechanism carries, each against the certified bounds of the pairs it covers. "
        "<em>Proved</em> claims follow from the proof (or a derivation in the mechanism's docstring); "
        "<em>stated</em> claims are the paper's statement as written. The verdict uses the proved claim; "
        "exceeding only a stated claim is a finding about the paper. A curve claim (GDP, zCDP) asserts a "
        "whole privacy profile; its (ε, δ) is the point the headline verdict uses.</p>",
        _table(headers, rows, "claims"),
        "</section>",
    ]


def _list_section(ident: str, title: str, items: Sequence[str]) -> list[str]:
    if not items:
        return []
    return [
        f'<section id="{ident}">',
        f"<h2>{_e(title)}</h2>",
        "<ul>",
        *[f"<li>{_e(x)}</li>" for x in items],
        "</ul>",
        "</section>",
    ]


def _pair_row(p: PairResult, labels: Mapping[str, int]) -> str:
    e = p.estimate
    markers = []
    if p.violation:
        markers.append('<span class="badge violation">violation</span>')
    if e.infinite_witness:
        markers.append(
            '<span class="badge witness" title="the event never occurred on the Q side">'
            "infinite witness</span>"
        )
    meta = p.relation.value + (f" · {', '.join(p.tags)}" if p.tags else "")
    return (
        f"<tr{_VIOLATION_ROW if p.violation else ''}>"
        f'<td class="idx">{p.index + 1}{"".join(markers)}</td>'
        f'<td class="desc">{_e(p.description)}<br><span class="note">{_e(meta)}</span></td>'
        f'<td class="nowrap">{_e(e.distinguisher)} {_assumption_ref(labels, e.assumption)}</td>'
        f'<td class="event"><code>{_e(e.event)}</code><br>'
        f'<span class="note nowrap">{_e(e.direction)}</span></td>'
        f'<td class="num">{_e(_count(e.p_count, e.p_total))}<br>≥ {_e(fmt(e.p_lower))}</td>'
        f'<td class="num">{_e(_count(e.q_count, e.q_total))}<br>≤ {_e(fmt(e.q_upper))}</td>'
        f'<td class="num">{_e(fmt(p.claim.epsilon))}<br>'
        f'<span class="note">{_e(exact_words(p))}</span></td>'
        f'<td class="bound">{_e(_bound_words(e.epsilon_lower_bound))}</td>'
        f'<td class="num">{_e(fmt(e.delta_lower_bound))}</td></tr>'
    )


def _selection_rows(r: AuditResult) -> list[str]:
    rows = []
    for p in r.pairs:
        cands = selection_candidates(r, p)
        if not cands:
            continue
        cells = []
        for name, projected, chosen in cands:
            value = "—" if projected is None else fmt(projected)
            badge = ' <span class="badge chosen">chosen</span>' if chosen else ""
            cells.append(f"<li><code>{_e(name)}</code>: projected {_e(value)}{badge}</li>")
        rows.append(
            f'<tr><td class="num">{p.index + 1}</td><td>{_e(p.description)}</td>'
            f"<td><ul>{''.join(cells)}</ul></td></tr>"
        )
    return rows


def _pairs_section(r: AuditResult) -> list[str]:
    headers = [
        "#",
        "pair (relation · tags)",
        "estimator",
        "event (direction)",
        "P: count, lower bound",
        "Q: count, upper bound",
        "claim ε (white-box ε)",
        "certified ε",
        "certified δ at claim",
    ]
    labels = _assumption_labels(r)
    out = [
        '<section id="pairs">',
        "<h2>Pairs</h2>",
        "<p>For each neighbour pair: the estimator (distinguisher) and event chosen on the selection split, "
        "what the estimator's certificate assumes (A1, A2, … listed under the table), the event's counts "
        "on fresh certification samples on the side where it is more likely (P) and on the other side "
        "(Q), the one-sided Clopper–Pearson bounds P lower and Q upper, and the certified bounds "
        "ε ≥ ln((P lower − δ) / Q upper) and δ ≥ P lower − e<sup>ε</sup> Q upper at the claimed ε. "
        "A certified ε ≤ 0 is no evidence of privacy loss and reads 0, with the raw value.</p>",
        _table(headers, [_pair_row(p, labels) for p in r.pairs], "pairs"),
        *_assumption_list(
            labels, [p.estimate.assumption for p in r.pairs], "What each estimator's certificate assumes:"
        ),
    ]
    sel = _selection_rows(r)
    if sel:
        out += [
            '<h3 id="selection">Estimators considered on the selection split</h3>',
            "<p>Each candidate's projected objective on the selection split; the chosen one was then "
            "certified on fresh samples (only the chosen one's bound is a certificate).</p>",
            _table(["#", "pair", "candidates"], sel, "selection"),
        ]
    return [*out, "</section>"]


CERTIFIED_ROW = ' class="certified"'


def _search_section(r: AuditResult) -> list[str]:
    record = search_record(r)
    if record is None:
        return []
    shown, rest = search_shown(record, SEARCH_TOP)

    def num(x: float | int | None, fn: Any = fmt) -> str:
        return "?" if x is None else _e(fn(x))

    badge = '<span class="badge chosen">certified</span>'
    rows = [
        f'<tr{CERTIFIED_ROW if c.certified else ""}><td class="num">{c.rank}</td>'
        f"<td>{_e(c.description)}</td><td>{_e(c.relation)}</td><td>{_e(c.source)}</td>"
        f'<td class="num">{num(c.pilot_samples, lambda x: f"{x:,}")}</td>'
        f'<td class="num">{num(c.score)}</td><td class="num">{num(c.pilot_epsilon)}</td>'
        f"<td>{badge if c.certified else ''}</td></tr>"
        for c in shown
    ]
    out = [
        '<section id="search">',
        "<h2>Search</h2>",
        f"<p>{_e(search_summary(record))}</p>",
        f"<p>{_e(SEARCH_NOTE)}</p>",
        _table(
            ["rank", "pair", "relation", "source", "pilot samples", "pilot score", "pilot ε", "certified"],
            rows,
            "search",
        ),
    ]
    if rest:
        out.append(f"<p>… and {rest:,} more candidate pair(s), listed in the JSON report.</p>")
    return [*out, "</section>"]


def _profile_points(r: AuditResult) -> tuple[ProfilePoint, ...]:
    """The run-level profile (best over pairs) if recorded, else every pair's points."""
    return r.profile or tuple(pt for p in r.pairs for pt in p.profile)


def _profile_section(r: AuditResult) -> list[str]:
    points = _profile_points(r)
    if not points:
        return []
    labels = _assumption_labels(r)
    rows = []
    for pt in points:
        claimed = "—" if pt.claimed is None else fmt(pt.claimed)
        param = "—" if pt.parameter is None else fmt(pt.parameter)
        badge = ' <span class="badge violation">exceeds claim</span>' if pt.exceeds_claim else ""
        rows.append(
            f"<tr{_VIOLATION_ROW if pt.exceeds_claim else ''}><td>{_e(pt.label)}{badge}</td>"
            f"<td>{_e(pt.objective)}</td><td class='num'>{_e(param)}</td>"
            f"<td class='bound'>{_e(_bound_words(pt.value))}</td><td class='num'>{_e(claimed)}</td>"
            f"<td class='num'>{pt.pair_index + 1}</td>"
            f"<td class='nowrap'>{_e(pt.estimate.distinguisher)} "
            f"{_assumption_ref(labels, pt.estimate.assumption)}</td>"
            f"<td class='event'><code>{_e(pt.estimate.event)}</code></td></tr>"
        )
    headers = ["test", "objective", "at", "certified", "claimed", "pair", "estimator", "event"]
    in_pairs = {assumption_words(p.estimate.assumption) for p in r.pairs}
    new_here = [
        pt.estimate.assumption for pt in points if assumption_words(pt.estimate.assumption) not in in_pairs
    ]
    intro = (
        "What the profile's certificates assume, where not listed under Pairs:"
        if in_pairs
        else ("What each estimator's certificate assumes:")
    )
    return [
        '<section id="profile">',
        "<h2>Privacy profile</h2>",
        "<p>Extra certified tests, at the same overall confidence: a lower bound on ε at each δ, on δ "
        "at each ε, or on a Gaussian-DP μ (which refutes μ-GDP claims only). <em>Claimed</em> is the "
        "proved claim's value there (its curve, or the privacy region of its (ε, δ) point); — when "
        "the claim says nothing comparable. A1, A2, … name what the estimator's certificate assumes.</p>",
        _table(headers, rows, "profile"),
        *_assumption_list(labels, new_here, intro),
        "</section>",
    ]


def _img(png: bytes, alt: str, ident: str, caption: str) -> list[str]:
    data = base64.b64encode(png).decode("ascii")
    return [
        f'<figure id="{ident}">',
        f'<img src="data:image/png;base64,{data}" alt="{_e(alt)}">',
        f"<figcaption>{caption}</figcaption>",
        "</figure>",
    ]


REGION_PLANE = (
    "the test ‘the output falls in the certified event S’ as a hypothesis test of the likelier side (P) "
    "against the other (Q), one point per pair: FPR = Q(S) and FNR = 1 − P(S). The marker is the "
    "certified corner (Q upper, 1 − P lower), the box reaches to the point estimate of the counts. The "
    "claim allows only the region above its trade-off curve (Kairouz, Oh &amp; Viswanath 2015, both "
    "inequalities of (ε, δ)-DP); a certified corner in the shaded region refutes it."
)
REGION_TAIL = (
    "Right (drawn because an event is rare): the same points in the (Q, P) plane on log axes, where "
    "the claim allows only the region below P = e<sup>ε</sup> Q + δ; the verdict tests this line. Zero "
    "coordinates are drawn at the axis floor."
)
REGION_LABELS = "Numbers are pair numbers; markers closer than the label size share one label (e.g. “6–8”)."


def region_caption(two_panels: bool) -> str:
    """The region figure's caption, describing exactly the panels drawn."""
    if two_panels:
        return f"Left: {REGION_PLANE} {REGION_TAIL} {REGION_LABELS}"
    return f"The {REGION_PLANE[4:]} {REGION_LABELS}"


PROFILE_CAPTION = (
    "Certified ε lower bounds at each δ (circles) and certified δ lower bounds at each ε (diamonds), "
    "against the proved claim's privacy profile ε(δ) (its curve, or the privacy region of its point "
    "claim). Points above the claimed curve refute the claim there and are drawn in red. The star is "
    "the headline bound at the claim's δ. Points at δ = 0 and bounds ≤ 0 (no evidence) are in the "
    "table only, or drawn on the axis floor as hollow markers."
)
TRAJECTORY_CAPTION = (
    "The certified ε lower bound of each pair on growing prefixes of its certification samples, "
    "against the claimed ε (horizontal lines; a claim far above the curves is named at the top with "
    "an ↑ instead, so the curves keep the height of the plot). With many pairs only the violating "
    "ones and those with the highest final bounds are named; the others are drawn in grey. "
    "Descriptive: each point is valid on its own at the per-test failure probability, not jointly; it "
    "shows how the bound grows with the budget."
)


def _plots_section(r: AuditResult) -> list[str]:
    out = ['<section id="plots">', "<h2>Plots</h2>"]
    if _matplotlib() is None:
        return [*out, f'<p class="note">{_e(NO_MATPLOTLIB)}</p>', "</section>"]
    region = privacy_region_png(r)
    if region is not None:
        alt = (
            f"Empirical privacy region of {r.mechanism}: {len(r.pairs)} pair(s) against the claim "
            f"ε = {fmt(r.claim.epsilon)}, δ = {fmt(r.claim.delta)}"
        )
        caption = region_caption(_region_has_tail(r))
        out += ["<h3>Empirical privacy region</h3>", *_img(region, alt, "plot-region", caption)]
    profile = privacy_profile_png(r)
    if profile is not None:
        alt = f"Privacy profile of {r.mechanism}: certified bounds against the claimed ε(δ)"
        out += ["<h3>Privacy profile</h3>", *_img(profile, alt, "plot-profile", PROFILE_CAPTION)]
    trajectory = trajectory_png(r)
    if trajectory is not None:
        alt = f"Certified ε lower bound vs samples per side for {r.mechanism}"
        out += [
            "<h3>Certified bound vs samples</h3>",
            *_img(trajectory, alt, "plot-trajectory", TRAJECTORY_CAPTION),
        ]
    return [*out, "</section>"]


def _reproduce_section(r: AuditResult) -> list[str]:
    facts = [
        ("Seed", f"{r.seed}" + ("" if r.seedable else " (mechanism not seedable: not reproducible)")),
        (
            "Samples per side and pair",
            f"{r.num_samples:,} ({r.selection_samples:,} selection + "
            f"{r.certification_samples:,} certification)",
        ),
        ("Failure probability", f"{r.failure_probability:g} (total, Bonferroni-split)"),
        ("Per-test failure probability", fmt(r.per_test_failure_probability)),
        ("dpaudit version", r.package_version),
        ("Elapsed", f"{r.elapsed_seconds:.1f} s"),
    ]
    facts += [(f"Parameter {k}", v) for k, v in r.parameters]
    out = [
        '<section id="reproduce">',
        "<h2>Reproduce</h2>",
        '<dl class="facts">',
        *[f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in facts],
        "</dl>",
    ]
    if r.command:
        out += [
            "<p>The exact command (same seed, same result; one click selects it):</p>",
            f'<pre class="command"><code>{_e(r.command)}</code></pre>',
        ]
    else:
        out.append(
            f'<p class="note">The result does not record the command that produced it; rerun with seed '
            f"{r.seed} and the budget above.</p>"
        )
    return [*out, "</section>"]


# ---------------------------------------------------------------------------------------------
# plots


def _matplotlib() -> Any:
    """The matplotlib pieces used here, or None when the `plots` extra is not installed."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import Rectangle
    except ImportError:
        return None
    return Figure, FigureCanvasAgg, Rectangle, Line2D


def _png(fig: Any, rect: tuple[float, float, float, float] | None = None) -> bytes:
    """PNG bytes of `fig` at its own size (FIGURE_WIDTH_IN × height at FIGURE_DPI): never
    `bbox_inches="tight"`, which would change the pixel width. `rect` reserves figure space (e.g.
    for a legend below the axes)."""
    fig.tight_layout(rect=rect)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def _claims_to_draw(r: AuditResult) -> list[tuple[PrivacyClaim, str, str]]:
    """(claim, line style, label): the verdict claim (solid), differing stated claims (dashed),
    other pair claims (dash-dot)."""
    out = [(r.claim, "-", f"proved claim {_short_claim(r.claim)}")]
    seen = {_claim_key(r.claim)}
    others = [cc.claim for cc in r.claims if cc.claim.kind is ClaimKind.STATED] + [p.claim for p in r.pairs]
    for c in others:
        if _claim_key(c) not in seen:
            seen.add(_claim_key(c))
            style = "--" if c.kind is ClaimKind.STATED else "-."
            out.append((c, style, f"{c.kind.value} claim {_short_claim(c)}"))
    return out[:4]


def _claim_key(c: PrivacyClaim) -> tuple[float, float, object]:
    return (c.epsilon, c.delta, None if c.curve is None else (c.curve.kind, c.curve.parameter))


def _short_claim(c: PrivacyClaim) -> str:
    curve = f", {c.curve.label()}" if c.curve is not None else ""
    return f"(ε={fmt(c.epsilon)}, δ={fmt(c.delta)}{curve})"


def _safe(fn: Any, x: float) -> float:
    try:
        v = float(fn(x))
    except (ValueError, ArithmeticError):
        return math.nan
    return v


def _claim_p_max(claim: PrivacyClaim, qs: Sequence[float]) -> list[float]:
    """The largest P(S) the claim allows at Q(S) = q (its privacy region, both inequalities),
    from the claim's own δ(ε) (`PrivacyClaim.delta_at`) over a grid of ε."""
    hi = claim.epsilon if claim.curve is None else max(claim.epsilon, 24.0)
    grid = sorted({claim.epsilon, *(hi * i / 240 for i in range(241))})
    pts = [(math.exp(x), _safe(claim.delta_at, x)) for x in grid]
    pts = [(ee, dd) for ee, dd in pts if not math.isnan(dd)]
    if not pts:
        return [1.0 for _ in qs]
    ee = np.array([p[0] for p in pts])[:, None]
    dd = np.array([p[1] for p in pts])[:, None]
    q = np.asarray(qs, dtype=float)[None, :]
    best = np.minimum(ee * q + dd, 1.0 - (1.0 - dd - q) / ee).min(axis=0)
    return [float(v) for v in np.clip(np.maximum(best, q[0]), 0.0, 1.0)]


def _estimate_point(p: PairResult) -> tuple[float, float]:
    e = p.estimate
    return (e.q_count / e.q_total if e.q_total else 0.0, e.p_count / e.p_total if e.p_total else 0.0)


def _legend_handles(Line2D: Any, pairs: Sequence[PairResult]) -> list[Any]:
    handles = []
    if any(not p.violation for p in pairs):
        handles.append(
            Line2D([], [], marker="o", color=OK_COLOUR, linestyle="none", label="certified corner (pair #)")
        )
    if any(p.violation for p in pairs):
        handles.append(
            Line2D([], [], marker="o", color=VIOLATION_COLOUR, linestyle="none", label="violating pair")
        )
    if any(p.estimate.infinite_witness for p in pairs):
        handles.append(
            Line2D(
                [], [], marker="^", color="#57606a", linestyle="none", label="infinite witness (Q count 0)"
            )
        )
    return handles


def _region_points(r: AuditResult) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """(certified corners (Q upper, P lower), point estimates (Q, P)) of every pair."""
    corners = [(p.estimate.q_upper, p.estimate.p_lower) for p in r.pairs]
    return corners, [_estimate_point(p) for p in r.pairs]


def _smallest_coordinate(r: AuditResult) -> float:
    corners, estimates = _region_points(r)
    coords = [v for xy in corners + estimates for v in xy if v > 0 and math.isfinite(v)]
    return min(coords, default=1.0)


def _region_has_tail(r: AuditResult) -> bool:
    """Whether the region figure has its second (log-axes) panel: an event is rare."""
    return bool(r.pairs) and _smallest_coordinate(r) < 0.02


def _ranges(numbers: Sequence[int]) -> str:
    """[1, 2, 3, 5, 9, 10] → "1–3, 5, 9–10"."""
    out: list[str] = []
    nums = sorted(set(numbers))
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}–{nums[j]}")
        i = j + 1
    return ", ".join(out)


def _clusters(points: Sequence[tuple[float, float]], radius: float) -> list[list[int]]:
    """Indices of `points` (in axes-fraction coordinates) grouped by single linkage at `radius`."""
    parent = list(range(len(points)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, (xi, yi) in enumerate(points):
        for j in range(i):
            xj, yj = points[j]
            if math.hypot(xi - xj, yi - yj) <= radius:
                parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(points)):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


_SIDES = ((1, 1), (-1, 1), (1, -1), (-1, -1))  # label sides (x, y), in order of preference


def _label_centre(at: tuple[float, float], side: tuple[int, int], width: float) -> tuple[float, float]:
    return at[0] + side[0] * (0.012 + width / 2), at[1] + side[1] * 0.03


def _label_score(
    at: tuple[float, float], side: tuple[int, int], width: float, others: Sequence[tuple[float, float]]
) -> float:
    """Higher is better: far (up to 0.1 axes fraction) from other markers and labels, inside the axes."""
    cx, cy = _label_centre(at, side, width)
    inside = width / 2 <= cx <= 1 - width / 2 and 0.02 <= cy <= 0.98
    near = min((math.hypot(cx - ox, cy - oy) for ox, oy in others), default=1.0)
    return min(near, 0.1) - (0.0 if inside else 1.0)


def _label_pairs(ax: Any, pairs: Sequence[PairResult], xy: Sequence[tuple[float, float]], frac: Any) -> None:
    """Pair numbers next to their markers: one label per cluster of nearby markers ("6–8"), on the
    side of the marker (of four) farthest from the other markers and labels while inside the axes,
    and clipped to them. `frac` maps data (x, y) to axes fractions."""
    fracs = [frac(x, y) for x, y in xy]
    placed: list[tuple[float, float]] = []
    for group in _clusters(fracs, LABEL_RADIUS):
        fx = sum(fracs[i][0] for i in group) / len(group)
        fy = sum(fracs[i][1] for i in group) / len(group)
        anchor = min(group, key=lambda i: math.hypot(fracs[i][0] - fx, fracs[i][1] - fy))
        text = _ranges([pairs[i].index + 1 for i in group])
        width = 0.012 * len(text) + 0.01  # label extent in axes fraction, roughly
        others = [f for i, f in enumerate(fracs) if i not in group] + placed
        dx, dy = max(_SIDES, key=lambda d: _label_score(fracs[anchor], d, width, others))
        placed.append(_label_centre(fracs[anchor], (dx, dy), width))
        colour = VIOLATION_COLOUR if any(pairs[i].violation for i in group) else OK_COLOUR
        ax.annotate(
            text,
            xy[anchor],
            textcoords="offset points",
            xytext=(5 * dx, 4 if dy > 0 else -5),
            ha="left" if dx > 0 else "right",
            va="bottom" if dy > 0 else "top",
            fontsize=9,
            color=colour,
            clip_on=True,
            annotation_clip=True,
        )


def _merged_handles(*axes: Any) -> list[Any]:
    """Legend handles of `axes`, each label once."""
    out, seen = [], set()
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in seen:
                seen.add(label)
                out.append(handle)
    return out


def privacy_region_png(r: AuditResult) -> bytes | None:
    """The empirical privacy region as PNG bytes, or None when matplotlib is unavailable or
    there are no pairs. One panel (the trade-off plane), plus a log-axes panel of the (Q, P) plane
    when an event is rare (`_region_has_tail`); the legend sits outside the axes."""
    mpl = _matplotlib()
    if mpl is None or not r.pairs:
        return None
    Figure, FigureCanvasAgg, Rectangle, Line2D = mpl
    corners, estimates = _region_points(r)
    smallest = _smallest_coordinate(r)
    tail = _region_has_tail(r)
    fig = Figure(figsize=(FIGURE_WIDTH_IN, 6.0 if tail else 5.6), dpi=FIGURE_DPI)
    FigureCanvasAgg(fig)
    claims = _claims_to_draw(r)
    colours = [VIOLATION_COLOUR if p.violation else OK_COLOUR for p in r.pairs]
    shade = Rectangle(
        (0, 0), 1, 1, facecolor=VIOLATION_COLOUR, alpha=0.08, label="excluded by the proved claim"
    )

    # (FPR, FNR) trade-off plane, linear axes
    ax = fig.add_subplot(1, 2 if tail else 1, 1)
    qs = [i / 400 for i in range(401)]
    for k, (claim, style, label) in enumerate(claims):
        fnr_min = [1.0 - pm for pm in _claim_p_max(claim, qs)]
        ax.plot(qs, fnr_min, linestyle=style, color="black", linewidth=1.3, label=label)
        if k == 0:
            ax.fill_between(qs, 0.0, fnr_min, color=VIOLATION_COLOUR, alpha=0.08, linewidth=0)
    ax.plot(qs, [1 - q for q in qs], color="#8c959f", linewidth=0.8, label="no information (P = Q)")
    marks = []
    for p, (cq, cp), (eq, ep), colour in zip(r.pairs, corners, estimates, colours, strict=True):
        x0, y0 = cq, 1.0 - cp
        x1, y1 = min(eq, cq), 1.0 - max(ep, cp)
        ax.add_patch(
            Rectangle(
                (x1, y1), x0 - x1, y0 - y1, facecolor=colour, alpha=0.25, edgecolor=colour, linewidth=1.2
            )
        )
        ax.plot(
            [x0],
            [y0],
            marker="^" if p.estimate.infinite_witness else "o",
            color=colour,
            markersize=6,
            clip_on=False,
        )
        marks.append((x0, y0))
    _label_pairs(ax, r.pairs, marks, lambda x, y: (x, y))
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_aspect("equal")
    ax.set_xlabel("FPR = Q(S), upper bound")
    ax.set_ylabel("FNR = 1 − P(S), upper bound")
    ax.set_title("Trade-off plane", fontsize=10)
    ax.grid(True, linewidth=0.4, alpha=0.6)
    axes = [ax]

    if tail:
        ax2 = fig.add_subplot(1, 2, 2)
        floor = 10 ** math.floor(math.log10(smallest) - 0.5)
        ax2.set_xscale("log")
        ax2.set_yscale("log")
        xs = [floor * (1.0 / floor) ** (i / 300) for i in range(301)]
        for k, (claim, style, label) in enumerate(claims):
            pmax = _claim_p_max(claim, xs)
            ax2.plot(xs, pmax, linestyle=style, color="black", linewidth=1.3, label=label)
            if k == 0:
                ax2.fill_between(xs, pmax, 1.0, color=VIOLATION_COLOUR, alpha=0.08, linewidth=0)
        ax2.plot(xs, xs, color="#8c959f", linewidth=0.8, label="no information (P = Q)")
        if math.isfinite(r.epsilon_lower_bound) and r.epsilon_lower_bound > 0:
            ys = [min(1.0, math.exp(r.epsilon_lower_bound) * x + r.claim.delta) for x in xs]
            ax2.plot(
                xs,
                ys,
                linestyle=":",
                color="#57606a",
                linewidth=1.2,
                label=f"certified ε = {fmt(r.epsilon_lower_bound)}: P = e^ε Q + δ",
            )

        def clip(v: float) -> float:
            return max(v, floor)

        marks2 = []
        for p, (cq, cp), (eq, ep), colour in zip(r.pairs, corners, estimates, colours, strict=True):
            x0, y0 = clip(cq), clip(cp)
            x1, y1 = clip(min(eq, cq)), clip(max(ep, cp))
            ax2.add_patch(
                Rectangle(
                    (x1, y0), x0 - x1, y1 - y0, facecolor=colour, alpha=0.25, edgecolor=colour, linewidth=1.2
                )
            )
            ax2.plot(
                [x0],
                [y0],
                marker="^" if p.estimate.infinite_witness else "o",
                color=colour,
                markersize=6,
                clip_on=False,
            )
            marks2.append((x0, y0))
        span = -math.log10(floor)

        def log_frac(x: float, y: float) -> tuple[float, float]:
            return (1 + math.log10(x) / span, 1 + math.log10(y) / span)

        _label_pairs(ax2, r.pairs, marks2, log_frac)
        ax2.set_xlim(floor, 1.0)
        ax2.set_ylim(floor, 1.0)
        ax2.set_aspect("equal")
        ax2.set_xlabel("Q(S), upper bound")
        ax2.set_ylabel("P(S), lower bound")
        ax2.set_title("Tail view (log axes)", fontsize=10)
        ax2.grid(True, which="major", linewidth=0.4, alpha=0.6)
        axes.append(ax2)
    handles = [*_merged_handles(*axes), shade, *_legend_handles(Line2D, r.pairs)]
    if tail:
        fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=8, framealpha=0.92)
        rows = math.ceil(len(handles) / 3)
        return _png(fig, rect=(0.0, (0.15 + 0.17 * rows) / 6.0, 1.0, 1.0))
    ax.set_anchor("W")  # the square plane at the left, the legend next to it
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.04, 1.0), fontsize=9, framealpha=0.92)
    return _png(fig)


def _profile_xy(r: AuditResult) -> list[tuple[float, float, bool, str]]:
    """(δ, ε, exceeds, kind) of every drawable profile point; kind "eps", "delta" or "headline"."""
    out: list[tuple[float, float, bool, str]] = []
    for pt in _profile_points(r):
        if pt.parameter is None:
            continue
        if pt.objective == "epsilon" and pt.parameter > 0:
            out.append((pt.parameter, pt.value, pt.exceeds_claim, "eps"))
        elif pt.objective == "delta" and pt.value > 0 and math.isfinite(pt.parameter):
            out.append((pt.value, pt.parameter, pt.exceeds_claim, "delta"))
    return out


def privacy_profile_png(r: AuditResult) -> bytes | None:
    """Certified profile points vs the claimed ε(δ) on a log δ axis; None when matplotlib is missing
    or the result has no ε-at-δ / δ-at-ε points to draw."""
    mpl = _matplotlib()
    pts = _profile_xy(r)
    if mpl is None or not pts:
        return None
    Figure, FigureCanvasAgg, _, Line2D = mpl
    if r.claim.delta > 0:
        pts.append((r.claim.delta, r.epsilon_lower_bound, r.violation, "headline"))
    deltas = [d for d, *_ in pts]
    lo = 10 ** math.floor(math.log10(min(deltas)) - 1.0)
    hi = 0.9
    finite_eps = [e for _, e, *_ in pts if math.isfinite(e)]
    top = 1.3 * max([r.claim.epsilon, *finite_eps, 0.1])
    fig = Figure(figsize=(FIGURE_WIDTH_IN, 5.4), dpi=FIGURE_DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xscale("log")
    grid = [lo * (hi / lo) ** (i / 300) for i in range(301)]
    for k, (claim, style, label) in enumerate(_claims_to_draw(r)):
        eps = [_safe(claim.epsilon_at, d) for d in grid]
        shown = [e if math.isfinite(e) else math.nan for e in eps]
        ax.plot(grid, shown, linestyle=style, color="black", linewidth=1.4, label=f"{label}: ε(δ)")
        if k == 0:
            ax.fill_between(
                grid,
                [min(e, top) if math.isfinite(e) else top for e in eps],
                top,
                color=VIOLATION_COLOUR,
                alpha=0.08,
                linewidth=0,
            )
            if claim.curve is None and claim.delta > lo:
                ax.axvline(claim.delta, color="#8c959f", linewidth=0.8, linestyle=":")
    markers = {"eps": "o", "delta": "D", "headline": "*"}
    for d, e, exceeds, kind in pts:
        colour = VIOLATION_COLOUR if exceeds else OK_COLOUR
        evidence = math.isfinite(e) and e > 0
        y = e if evidence else 0.0
        ax.plot(
            [d],
            [y],
            marker=markers[kind],
            markersize=13 if kind == "headline" else 8,
            linestyle="none",
            markerfacecolor=colour if evidence else "none",
            markeredgecolor=colour,
        )
        if evidence:
            text = f"δ ≥ {fmt(d)}" if kind == "delta" else f"ε ≥ {fmt(e)}"
            ax.annotate(text, (d, y), textcoords="offset points", xytext=(6, 5), fontsize=9, color=colour)
    handles, _ = ax.get_legend_handles_labels()
    kinds = {kind for *_, kind in pts}
    legend_marks = [
        ("eps", "certified ε at δ"),
        ("delta", "certified δ at ε"),
        ("headline", "headline bound"),
    ]
    handles += [
        Line2D(
            [],
            [],
            marker=markers[k],
            color=OK_COLOUR,
            linestyle="none",
            label=text,
            markersize=12 if k == "headline" else 7,
        )
        for k, text in legend_marks
        if k in kinds
    ]
    if any(exceeds for *_, exceeds, _k in pts):
        handles.append(
            Line2D([], [], marker="o", color=VIOLATION_COLOUR, linestyle="none", label="exceeds the claim")
        )
    mu = [pt for pt in _profile_points(r) if pt.objective == "gdp_mu"]
    title = "Privacy profile: certified points against the claimed ε(δ)"
    if mu:
        best = max(mu, key=lambda pt: pt.value)
        claimed = "" if best.claimed is None else f" (claimed μ = {fmt(best.claimed)})"
        title += f"\ncertified Gaussian-DP μ ≥ {fmt(best.value)}{claimed}"
    ax.set_xlim(lo, 1.0)
    ax.set_ylim(-0.02 * top, top)
    ax.set_xlabel("δ (log scale)")
    ax.set_ylabel("ε")
    ax.set_title(title, fontsize=11)
    ax.grid(True, which="major", linewidth=0.4, alpha=0.6)
    ax.legend(handles=handles, loc="upper right", fontsize=9, framealpha=0.92)
    return _png(fig)


def _trajectory_pairs(r: AuditResult) -> list[PairResult]:
    with_data = [p for p in r.pairs if any(math.isfinite(e) for _, e in p.trajectory)]
    with_data.sort(key=lambda p: (not p.violation, -p.estimate.epsilon_lower_bound))
    return with_data


class TrajectoryLayout(NamedTuple):
    """What the certified-bound-vs-samples figure draws (see `trajectory_layout`)."""

    named: list[PairResult]  # coloured, named in the legend
    others: list[PairResult]  # grey, one legend entry
    not_drawn: int  # pairs beyond MAX_TRAJECTORY_PAIRS
    lines: list[tuple[PrivacyClaim, str, str]]  # claims drawn as lines: (claim, style, label)
    above: list[tuple[PrivacyClaim, str]]  # claims far above the curves, marked at the top instead
    bottom: float  # the curves' range (with 0)
    top: float


def trajectory_layout(r: AuditResult) -> TrajectoryLayout | None:
    """The pairs and claims of the trajectory figure, or None when no pair records a trajectory:
    violating pairs first, then by certified bound; at most MAX_LABELLED_PAIRS named; a claim is a
    line only within CLAIM_LINE_RANGE times the curves' range (with 0) of their bottom."""
    pairs = _trajectory_pairs(r)
    if not pairs:
        return None
    drawn = pairs[:MAX_TRAJECTORY_PAIRS]
    ys = [e for p in drawn for n, e in p.trajectory if math.isfinite(e) and n > 0]
    bottom, top = min([0.0, *ys]), max([0.0, *ys])
    span = max(top - bottom, 0.05)
    lines: list[tuple[PrivacyClaim, str, str]] = []
    above: list[tuple[PrivacyClaim, str]] = []
    seen: list[float] = []
    for claim, linestyle, label in _claims_to_draw(r):
        if claim.epsilon in seen:
            continue
        seen.append(claim.epsilon)
        if claim.epsilon - bottom <= CLAIM_LINE_RANGE * span:
            lines.append((claim, linestyle, label))
        else:
            above.append((claim, label))
    return TrajectoryLayout(
        named=drawn[:MAX_LABELLED_PAIRS],
        others=drawn[MAX_LABELLED_PAIRS:],
        not_drawn=len(pairs) - len(drawn),
        lines=lines,
        above=above,
        bottom=bottom,
        top=top,
    )


def trajectory_png(r: AuditResult) -> bytes | None:
    """Certified ε lower bound vs certification samples per pair; None when matplotlib is missing
    or no pair records a trajectory. The violating pairs and those with the highest bounds (at most
    MAX_LABELLED_PAIRS) are coloured and named in a legend below the axes; the others are grey. The
    y-range is the curves'; a claim far above them (beyond CLAIM_LINE_RANGE data ranges) is an
    arrow at the top rather than a line that would squash them (`trajectory_layout`)."""
    mpl = _matplotlib()
    layout = trajectory_layout(r)
    if mpl is None or layout is None:
        return None
    Figure, FigureCanvasAgg, _, Line2D = mpl
    named, others, lines, above = layout.named, layout.others, layout.lines, layout.above
    bottom, top = layout.bottom, layout.top
    drawn = named + others
    curves = [sorted((n, e) for n, e in p.trajectory if math.isfinite(e) and n > 0) for p in drawn]
    entries = len(named) + bool(others) + len(lines)
    rows = math.ceil(entries / 2)
    height = 4.6 + 0.2 * rows
    fig = Figure(figsize=(FIGURE_WIDTH_IN, height), dpi=FIGURE_DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xscale("log")
    handles: list[Any] = []
    for k in reversed(range(len(drawn))):  # named pairs drawn last, on top of the grey ones
        p, xy = drawn[k], curves[k]
        if k < len(named):
            colour = VIOLATION_COLOUR if p.violation and k == 0 else PALETTE[k % len(PALETTE)]
            style: dict[str, Any] = {"marker": "o", "markersize": 4, "linewidth": 1.5, "zorder": 3}
        else:
            colour = OTHER_COLOUR
            style = {"marker": "o", "markersize": 2.5, "linewidth": 0.9, "zorder": 2}
        (line,) = ax.plot(
            [n for n, _ in xy],
            [e for _, e in xy],
            color=colour,
            label=f"pair {p.index + 1}: {_clip_label(p.description)}",
            **style,
        )
        if k < len(named):
            handles.insert(0, line)
    if others:
        handles.append(
            Line2D(
                [],
                [],
                color=OTHER_COLOUR,
                marker="o",
                markersize=2.5,
                linewidth=0.9,
                label=f"other pairs ({_ranges([p.index + 1 for p in others])})",
            )
        )
    ax.axhline(0.0, color="#8c959f", linewidth=0.8)
    for claim, style_, label in lines:
        handles.append(
            ax.axhline(claim.epsilon, linestyle=style_, color="black", linewidth=1.3, label=f"{label}: ε")
        )
        top = max(top, claim.epsilon)
    extent = max(top - bottom, 0.05)
    ax.set_ylim(bottom - 0.06 * extent, top + 0.14 * extent)
    if above:
        text = "\n".join(
            f"{label.split(' (')[0]} ε = {fmt(c.epsilon)} ↑ (above the plot)" for c, label in above
        )
        ax.text(
            0.01,
            0.97,
            text,
            transform=ax.transAxes,
            ha="left",
            va="top",
            fontsize=9,
            bbox={"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "#8c959f", "alpha": 0.92},
        )
    ax.set_xlabel("certification samples per side (log scale)")
    ax.set_ylabel("certified ε lower bound")
    if others or layout.not_drawn:
        total = len(drawn) + layout.not_drawn
        title = f"{len(named)} of {total} pairs named (violations first, then highest bounds)"
        if layout.not_drawn:
            title += f"; {layout.not_drawn} lowest not drawn"
        ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", linewidth=0.4, alpha=0.5)
    fig.legend(handles=handles, loc="lower center", ncol=2, fontsize=8, framealpha=0.92)
    return _png(fig, rect=(0.0, (0.12 + 0.19 * rows) / height, 1.0, 1.0))


def _clip_label(text: str, limit: int = 60) -> str:
    text = " ".join(text.split()).replace("$", r"\$")
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------------------------------------
# pages


def render_html(r: AuditResult, *, family: str | None = None) -> str:
    """One self-contained page for one audited mechanism (see the module docstring)."""
    fam = family if family is not None else family_of(r)
    body = [
        *_title_section(r, fam),
        *_verdict_section(r),
        *_list_section("findings", "Findings", r.findings),
        *_list_section("warnings", "Warnings", r.warnings),
        *_claims_section(r),
        *_pairs_section(r),
        *_search_section(r),
        *_profile_section(r),
        *_plots_section(r),
        *_reproduce_section(r),
    ]
    return _page(f"dpaudit: {r.mechanism} — {verdict_words(r)}", body)


def _strong(text: str, strong: bool) -> str:
    return f"<strong>{_e(text)}</strong>" if strong else _e(text)


def _index_rows(
    results: Sequence[AuditResult], links: Sequence[str], families: Mapping[str, str] | None
) -> Iterable[str]:
    order = sorted(range(len(results)), key=lambda i: (verdict_rank(results[i]), results[i].mechanism))
    for i in order:
        r, link = results[i], links[i]
        cls = _verdict_class(r)
        yield (
            f'<tr class="{"" if cls == "no-violation" else cls}">'
            f'<td><a href="{_e(link)}"><code>{_e(r.mechanism)}</code></a></td>'
            f"<td>{_e(family_of(r, families) or '—')}</td>"
            f"<td>{_e(_claim_text(r.claim))}</td>"
            f'<td class="num" title="certified ε lower bound: {_e(_minus(fmt(r.epsilon_lower_bound)))}">'
            f"{_e(_bound_words(r.epsilon_lower_bound, short=True))}</td>"
            f"<td>{_strong(verdict_words(r), r.violation)}</td>"
            f'<td class="num">{r.num_samples:,}</td><td class="num">{r.elapsed_seconds:.1f}</td>'
            f'<td><a href="{_e(link)}">report</a></td></tr>'
        )


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    long = f"{hours} h {minutes} min" if hours else f"{minutes} min {secs} s"
    return f"{seconds:,.1f} s ({long})"


def _distinct(values: Iterable[object]) -> list[object]:
    return list(dict.fromkeys(values))


def run_command_template(results: Sequence[AuditResult]) -> str | None:
    """The one command every result was produced with, the mechanism's name replaced by MECHANISM
    (e.g. "dpaudit run MECHANISM --num-samples 20000 --seed 0"), or None when a result records no
    command or the commands differ otherwise (e.g. in their parameters)."""
    templates = set()
    for r in results:
        try:
            tokens = shlex.split(r.command)
        except ValueError:
            return None
        if r.mechanism not in tokens:
            return None
        templates.add(shlex.join(["MECHANISM" if t == r.mechanism else t for t in tokens]))
    return templates.pop() if len(templates) == 1 else None


def _run_context(results: Sequence[AuditResult], command: str | None) -> list[str]:
    """The run-level facts the results carry: seed(s), budget, confidence, version, total elapsed,
    and the command (given, or the results' common one)."""
    if not results:
        return []
    seeds = _distinct(r.seed for r in results)
    samples = _distinct(r.num_samples for r in results)
    failure = _distinct(r.failure_probability for r in results)
    versions = _distinct(r.package_version for r in results)
    facts = [
        (
            "Seed",
            f"{seeds[0]}"
            if len(seeds) == 1
            else f"{', '.join(map(str, seeds))} (differs between mechanisms)",
        ),
        (
            "Samples per side and pair",
            f"{samples[0]:,}" if len(samples) == 1 else "differs between mechanisms (see the table)",
        ),
    ]
    if len(failure) == 1:
        facts.append(("Failure probability", f"{failure[0]:g} per mechanism (total, Bonferroni-split)"))
    facts += [
        ("dpaudit version", ", ".join(map(str, versions))),
        ("Total elapsed", f"{_duration(sum(r.elapsed_seconds for r in results))} (sum over mechanisms)"),
    ]
    out = ['<dl class="facts run">', *[f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in facts], "</dl>"]
    template = run_command_template(results)
    if command:
        out += [
            "<p>The command of this run (same seeds, same results):</p>",
            f'<pre class="command"><code>{_e(command)}</code></pre>',
        ]
    elif template:
        out += [
            "<p>Every mechanism was audited with this command, MECHANISM being the row's name (same "
            "seed, same result; each page has its exact command):</p>",
            f'<pre class="command"><code>{_e(template)}</code></pre>',
        ]
    return out


def render_index_html(
    results: Sequence[AuditResult],
    links: Sequence[str],
    *,
    families: Mapping[str, str] | None = None,
    command: str | None = None,
) -> str:
    """Index of a run: the run's seed, budget, total elapsed and command (`command` when given,
    e.g. the `dpaudit run --all ...` invocation; else the results' common command with the
    mechanism as a placeholder, when they share one), then one row per mechanism, violations
    first, linked to its page (`links[i]` for `results[i]`). `families` maps mechanism names to
    their family (e.g. from the registry)."""
    if len(results) != len(links):
        raise ValueError(f"got {len(results)} result(s) but {len(links)} link(s)")
    violations = sum(r.violation for r in results)
    findings = sum(1 for r in results if verdict_rank(r) == 1)
    headers = ["mechanism", "family", "claim", "certified ε", "verdict", "samples/side", "seconds", "link"]
    body = [
        '<header id="title">',
        "<h1>dpaudit run</h1>",
        f"<p>{len(results)} mechanism(s) audited: <strong>{violations} violation(s) found</strong>, "
        f"{findings} finding(s) about a paper's statement. {_e(LOWER_BOUND_NOTE)}</p>",
        "</header>",
        '<section id="run">',
        *_run_context(results, command),
        "</section>",
        '<section id="index">',
        _table(headers, list(_index_rows(results, links, families)), "index"),
        "</section>",
    ]
    return _page("dpaudit run", body)
