"""Self-contained HTML audit reports (docs/DESIGN.md, "reports/"). Render a result; compute nothing.

The pages are Jinja2 templates (`reports/templates/`, autoescaped: every string from a result —
mechanism names, descriptions, notes, commands — is escaped); this module gathers what they show
and the figures (`figures`, `figures_region`, `figures_curves`) draw it.

`render_html(result)` is one page per audited mechanism, in this order (each a `<section>` whose
`id` is given):

- `title`: the mechanism, its family if known, the verdict in one line;
- `verdict`: "violation found" / "no violation found at this power" (plus "finding about the
  paper's statement" where only a STATED claim is exceeded), then the figure a reviewer compares
  first (claim, white-box ε where known, certified ε on one axis: `figures.verdict_bars_svg`), the
  claim deciding it, the certified ε and δ bounds, the confidence and the largest certifiable ε;
- `region`: the empirical privacy region (trade-off plane; a log-axes tail panel only when an
  event is rare, and the caption describes exactly the panels drawn), right under the verdict;
- `findings`, `warnings` (only when there are any);
- `claims`: every claim (proved/stated, ε, δ, curve, relation, reference, note) against its
  certified bounds;
- `pairs`: every neighbour pair in nine columns that fit a 1280 px page (number and markers,
  description with relation and tags, estimator with a footnote mark A1, A2, … for what its
  certificate assumes, each distinct assumption written once under the table; event; counts with
  P lower / Q upper; claimed ε; certified ε and δ), then the estimators considered on the
  selection split when the result records them (`extra["selection"]`);
- `search` (when the result came from a worst-case pair search, `extra["search"]`): its budget,
  the top `SEARCH_TOP` pairs it tried (plus any certified one further down), a count of the rest;
- `profile` (when the result has profile points): each certified profile point vs the claim;
- `plots`: the privacy profile (when it has points to draw) and the certified bound vs samples
  (when pairs carry a trajectory). Without matplotlib (the `plots` extra) it holds a note instead;
- `reproduce`: the seed, the budget, the parameters and the exact command, copyable.

The matplotlib figures are inline SVG, FIGURE_WIDTH_IN × FIGURE_DPI = 1000 px wide. A certified
lower bound ≤ 0 certifies nothing (ε ≥ 0 always holds): it reads "0 (no evidence of privacy loss;
raw −0.000347)", never a bold negative number.

The run's table of contents (`render_index_html`) is in `reports/html_index.py`. The pages load
nothing: inline CSS, no scripts, fonts or remote images.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from dpaudit.engine.types import AuditResult, PairResult, PrivacyClaim, Verdict

from .comparisons import is_upper_bound, white_box_words, white_box_worst
from .figures import inline_svg, matplotlib_parts, profile_points, verdict_bars_svg
from .figures_curves import PROFILE_CAPTION, TRAJECTORY_CAPTION, privacy_profile, trajectory
from .figures_one_run import ONE_RUN_CAPTION, is_one_run, one_run_tradeoff
from .figures_region import privacy_region, region_caption, region_has_tail
from .markdown import (
    INCONCLUSIVE_NOTE,
    STATED_FINDING,
    VERDICT_WORDS,
    assumption_words,
    bound_words,
    decided_by_stated,
    exact_words,
    family_of,
    fmt,
    one_run_facts,
    selection_candidates,
    stated_exceeded,
    stated_verdict_words,
    verdict_rank,
    verdict_words,
    weakened,
)
from .relations import (
    claim_groups,
    delta_words,
    relation_rows,
    relation_words,
    view,
)
from .samples_words import samples_sentence, sequential_lines
from .search_record import SEARCH_NOTE, SEARCH_TOP, search_record, search_shown, search_summary
from .words import SHOWN_WITNESSES, violating_pairs, witness_words, witnesses

VERDICT_DETAIL = {
    Verdict.VIOLATION_FOUND: "The certified lower bound on the realised privacy loss exceeds the "
    "claim deciding the verdict, so the claim is refuted with the stated confidence.",
    Verdict.NO_VIOLATION_FOUND: "No violation found at this power: no certified lower bound exceeds the "
    "proved claim at this sample budget.",
    Verdict.INCONCLUSIVE: INCONCLUSIVE_NOTE,
}
LOWER_BOUND_NOTE = (
    "A certified lower bound below the claim proves nothing more than that no violation was found at "
    "this power; it is not evidence that the mechanism satisfies its claim."
)
NO_MATPLOTLIB = (
    "Plots not rendered: matplotlib is not installed (install the `plots` extra, "
    "`pip install dpaudit[plots]`, and render again with `dpaudit report RESULT.json --format html`)."
)
TEMPLATES = Path(__file__).parent / "templates"


CERTIFIED_FACT = "Certified ε lower bound"


def _claim_text(c: PrivacyClaim) -> str:
    curve = f", {c.curve.label()}" if c.curve is not None else ""
    return f"ε = {fmt(c.epsilon)}, δ = {fmt(c.delta)}{curve} ({c.kind.value}, {c.relation.value})"


def verdict_class(r: AuditResult) -> str:
    return ("violation", "finding", "no-violation", "inconclusive")[verdict_rank(r)]


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


@functools.cache
def environment() -> jinja2.Environment:
    """The templates' environment: autoescaped, with the report's number wording as filters."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "j2"), default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters.update(
        fmt=fmt,
        bound=_bound_words,
        minus=_minus,
        count=lambda k, n: f"{k:,}/{n:,}",
        claim_text=_claim_text,
        exact_words=exact_words,
        assumption_words=assumption_words,
        witness_words=witness_words,
    )
    return env


def _assumption_labels(r: AuditResult) -> dict[str, int]:
    """Each distinct certificate assumption on the page (as worded) → its footnote number, in order
    of first appearance: the pairs, then the profile points."""
    labels: dict[str, int] = {}
    texts = [p.estimate.assumption for p in r.pairs] + [pt.estimate.assumption for pt in profile_points(r)]
    for text in texts:
        labels.setdefault(assumption_words(text), len(labels) + 1)
    return labels


def _footnotes(labels: Mapping[str, int], texts: Iterable[str]) -> list[tuple[int, str]]:
    """(number, words) of the assumptions among `texts`, each distinct one once, in order."""
    return sorted({labels[assumption_words(t)]: assumption_words(t) for t in texts}.items())


def _verdict_facts(r: AuditResult) -> list[tuple[str, str]]:
    facts = [
        ("Claim deciding the verdict", f"{_claim_text(r.claim)} — {r.claim.reference}"),
        (CERTIFIED_FACT, _bound_words(r.epsilon_lower_bound)),
        ("Certified δ lower bound at the claimed ε", fmt(r.delta_lower_bound)),
        (
            "Confidence",
            f"all bounds hold simultaneously with probability ≥ {1 - r.failure_probability:g} "
            f"(per-test failure probability {fmt(r.test_level)})",
        ),
        ("Largest certifiable ε at this budget", fmt(r.epsilon_ceiling)),
    ]
    facts[2:2] = one_run_facts(r)
    if (words := white_box_words(r)) is not None:
        facts.insert(2, ("White-box reference (not in the verdict)", words))
    if r.threat_model:
        facts.insert(1, ("Threat model (what the adversary sees)", r.threat_model))
    facts[2:2] = [("Canary", c) for c in dict.fromkeys(p.canary for p in r.pairs if p.canary)]
    points = [pt for p in r.pairs for pt in p.profile] or list(profile_points(r))
    if points:
        exceeded = sum(pt.exceeds_claim for pt in points)
        facts.append(
            (
                "Privacy profile",
                f"{len(points)} certified point(s) over all pairs, {exceeded} exceeding their own "
                "relation's claim (table above; all points under Privacy profile)",
            )
        )
    return facts


RELATION_TABLE_NOTE = (
    "Certified against claimed ε(δ), within one relation: each row compares the best certified ε "
    "of the pairs audited under one claim (the pair named) with that claim's own ε(δ) at the same δ; "
    "the verdict claim's rows come first, the row at the claim's own δ is its headline test. The "
    "ratio certified/claimed says how far the audit got; it is not a statistic."
)


def _relation_table(r: AuditResult) -> list[dict[str, Any]]:
    """The verdict box's leading table (`relations.relation_rows`), as the template shows it."""
    rows = relation_rows(r)
    curve = {row.claim.relation: row.claim.curve is not None for row in rows}
    out = []
    for row in rows:
        ratio = row.ratio
        pair = row.pair
        rel = relation_words(row.claim.relation)
        other = "" if pair.relation == row.claim.relation else f", {relation_words(pair.relation)}"
        out.append(
            {
                "relation": rel + (" (verdict)" if row.verdict else ""),
                "delta": delta_words(row.delta)
                + (" (claim's δ)" if row.headline and curve[row.claim.relation] else ""),
                "claimed": fmt(row.claimed),
                "certified": _bound_words(row.certified, short=True),
                "ratio": "—" if ratio is None else ("∞" if ratio == float("inf") else f"{ratio:.2f}"),
                "pair": f"pair {pair.index + 1}{other}",
                "pair_title": pair.description,
                "exceeds": row.exceeds,
                "cls": "violation"
                if row.exceeds and row.claim.kind.value == "proved"
                else ("finding" if row.exceeds else ""),
            }
        )
    return out


def _witnesses(r: AuditResult) -> list[dict[str, Any]]:
    """What broke the claim, as the console prints it (`dpaudit run`): for each violating pair (the
    strongest `SHOWN_WITNESSES`), the pair and its relation, the certified event and its counts on
    each dataset (D = the pair's dataset, D′ = its neighbour). None for a one-run result: its
    pseudo-pair counts guesses, not an event on two datasets (its facts say what was certified)."""
    if is_one_run(r):
        return []
    out = []
    for w in witnesses(r):
        p, e = w.pair, w.pair.estimate
        one_sided = ""
        if e.q_count == 0:
            one_sided = f" (one-sided witness: 0 of {e.q_total:,} on {'D′' if w.on_d else 'D'})"
        out.append(
            {
                "pair": f"pair {p.index + 1}: {p.description} ({relation_words(p.relation)})",
                "bound": _bound_words(e.epsilon_lower_bound),
                "event": e.event,
                "distinguisher": e.distinguisher,
                "counts": f"{w.counts()}{one_sided}",
            }
        )
    return out


_SHORT_RELATION = {"add_remove_one": "add/remove", "replace_one": "replace", "relabel_one": "relabel"}


def _white_box_label(worst: PairResult | None) -> str:
    """The verdict bars' white-box label, naming the relation (short enough for the label column)."""
    if worst is None:
        return ""
    kind = "upper bound" if is_upper_bound(worst) else "white-box"
    return f"{kind} ({_SHORT_RELATION.get(worst.relation.value, worst.relation.value)})"


def _stated_verdict(r: AuditResult) -> str:
    """The words of a violation a lone STATED claim decided ("" otherwise)."""
    return stated_verdict_words(next(p.claim for p in r.pairs if p.violation)) if decided_by_stated(r) else ""


def _strong_fact(facts: Sequence[tuple[str, str]], r: AuditResult) -> int | None:
    """The position of the certified ε bound among the facts, set in bold when it is evidence."""
    if not _is_evidence(r.epsilon_lower_bound):
        return None
    return next((i for i, (k, _) in enumerate(facts) if k == CERTIFIED_FACT), None)


def _verdict_context(r: AuditResult) -> dict[str, Any]:
    facts = _verdict_facts(r)
    worst = white_box_worst(r)
    exact = None if worst is None else worst.exact_epsilon
    return {
        "verdict_class": verdict_class(r),
        "headline": VERDICT_WORDS[r.verdict],
        "bars": Markup(verdict_bars_svg(r, exact=exact, exact_label=_white_box_label(worst))),
        "has_exact": exact is not None,
        "stated": stated_exceeded(r),
        "stated_finding": STATED_FINDING,
        "stated_verdict": _stated_verdict(r),
        "inconclusive_reason": r.inconclusive_reason if r.inconclusive else "",
        "detail": VERDICT_DETAIL[r.verdict],
        "lower_bound_note": LOWER_BOUND_NOTE,
        "weakened": weakened(r),
        "verdict_facts": facts,
        "strong_fact": _strong_fact(facts, r),
        "relation_table": _relation_table(r),
        "relation_note": RELATION_TABLE_NOTE,
        "witnesses": _witnesses(r),
        "more_witnesses": 0 if is_one_run(r) else max(len(violating_pairs(r)) - SHOWN_WITNESSES, 0),
    }


def _figure(svg: bytes | str | None, ident: str, alt: str, caption: str) -> dict[str, Any] | None:
    if svg is None:
        return None
    return {"ident": ident, "svg": Markup(inline_svg(str(svg), ident, alt)), "caption": caption}


def _figures_context(r: AuditResult) -> dict[str, Any]:
    """The region figure (under the verdict) and the plots section's figures."""
    if matplotlib_parts() is None:
        return {"regions": [], "plots": [], "no_matplotlib": NO_MATPLOTLIB}
    if is_one_run(r):  # no certified corner: the claim's and the certified ε̂'s trade-off curves
        alt = f"Trade-off curves of the claim and of the certified ε̂ = {fmt(r.epsilon_lower_bound)}"
        region = _figure(one_run_tradeoff(r, "svg"), "plot-region", alt, ONE_RUN_CAPTION)
        if region is not None:
            region["title"] = "Trade-off curves (one run)"
        regions = [region] if region is not None else []
        views = []
    else:
        views = [(view(r, claim, pairs), k) for k, (claim, pairs) in enumerate(claim_groups(r))]
        regions = [f for v, k in views if (f := _region_figure(v, k, len(views))) is not None]
    plots = [
        *((f"Privacy profile, {relation_words(v.claim.relation)}", _profile_figure(v, k)) for v, k in views),
        *(_trajectory_figure(v, k, len(views)) for v, k in (views or [(r, 0)])),
    ]
    return {"regions": regions, "plots": [(t, f) for t, f in plots if f], "no_matplotlib": None}


def _trajectory_figure(v: AuditResult, k: int, groups: int) -> tuple[str, dict[str, Any] | None]:
    """(title, figure): one relation's pairs' certified ε vs samples, against that relation's claims."""
    relation = relation_words(v.claim.relation)
    title = "Certified bound vs samples" + (f", {relation}" if groups > 1 else "")
    alt = f"Certified ε lower bound vs samples per side for {v.mechanism}, {relation} pairs"
    return title, _figure(trajectory(v, "svg"), _ident("plot-trajectory", k), alt, TRAJECTORY_CAPTION)


def _ident(base: str, k: int) -> str:
    """Fixed figure ids: the verdict relation's is `base`, the others `base-2`, `base-3`, …"""
    return base if k == 0 else f"{base}-{k + 1}"


def _region_figure(v: AuditResult, k: int, groups: int) -> dict[str, Any] | None:
    """One relation's region figure: its pairs against its own claim's trade-off curve."""
    relation = relation_words(v.claim.relation)
    alt = (
        f"Empirical privacy region of {v.mechanism}, {relation}: {len(v.pairs)} pair(s) against the "
        f"{relation} claim ε = {fmt(v.claim.epsilon)}, δ = {fmt(v.claim.delta)}"
    )
    caption = region_caption(region_has_tail(v))
    if groups > 1:
        caption = Markup(f"Pairs under {relation} only, against the {relation} claim. ") + caption
    fig = _figure(privacy_region(v, "svg"), _ident("plot-region", k), alt, caption)
    if fig is not None:
        verdict = " (the verdict claim's relation)" if k == 0 else ""
        fig["title"] = f"Empirical privacy region, {relation}{verdict}"
    return fig


def _profile_figure(v: AuditResult, k: int) -> dict[str, Any] | None:
    relation = relation_words(v.claim.relation)
    alt = (
        f"Privacy profile of {v.mechanism}, {relation}: certified bounds against the {relation} claim's ε(δ)"
    )
    return _figure(privacy_profile(v, "svg"), _ident("plot-profile", k), alt, PROFILE_CAPTION)


def _tables_context(r: AuditResult) -> dict[str, Any]:
    """What the claims, pairs, search and profile sections list."""
    labels = _assumption_labels(r)
    points = profile_points(r)
    in_pairs = {assumption_words(p.estimate.assumption) for p in r.pairs}
    new_here = [
        pt.estimate.assumption for pt in points if assumption_words(pt.estimate.assumption) not in in_pairs
    ]
    record = search_record(r)
    search = None
    if record is not None:
        shown, rest = search_shown(record, SEARCH_TOP)
        search = {"summary": search_summary(record), "note": SEARCH_NOTE, "shown": shown, "rest": rest}
    selection = [(p, c) for p in r.pairs if (c := selection_candidates(r, p))]
    return {
        "labels": labels,
        "pair_assumptions": _footnotes(labels, [p.estimate.assumption for p in r.pairs]),
        "selection": selection,
        "search": search,
        "profile": points,
        "profile_assumptions": _footnotes(labels, new_here),
        "profile_intro": "What the profile's certificates assume, where not listed under Pairs:"
        if in_pairs
        else "What each estimator's certificate assumes:",
    }


def _reproduce_facts(r: AuditResult) -> list[tuple[str, str]]:
    facts = [
        ("Seed", f"{r.seed}" + ("" if r.seedable else " (mechanism not seedable: not reproducible)")),
        (
            "Samples per side and pair",
            f"{r.num_samples:,} ({r.selection_samples:,} selection + "
            f"{r.certification_samples:,} certification)",
        ),
        ("Samples", samples_sentence(r)),
        *[("Sequential", line.removeprefix("sequential: ")) for line in sequential_lines(r)],
        ("Failure probability", f"{r.failure_probability:g} (total, Bonferroni-split)"),
        ("Per-test failure probability", fmt(r.test_level)),
        ("dpaudit version", r.package_version),
        ("Elapsed", f"{r.elapsed_seconds:.1f} s"),
    ]
    return facts + [(f"Parameter {k}", str(v)) for k, v in r.parameters]


def render_html(r: AuditResult, *, family: str | None = None) -> str:
    """One self-contained page for one audited mechanism (see the module docstring)."""
    context = {
        "title": f"dpaudit: {r.mechanism} — {verdict_words(r)}",
        "r": r,
        "family": family if family is not None else family_of(r),
        "verdict": verdict_words(r),
        "lists": [("findings", "Findings", r.findings), ("warnings", "Warnings", r.warnings)],
        "reproduce_facts": _reproduce_facts(r),
        **_verdict_context(r),
        **_figures_context(r),
        **_tables_context(r),
    }
    return environment().get_template("report.html.j2").render(context)
