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

`render_index_html(results, links)` is the table of contents of a run: the run's seed(s), budget,
total elapsed and command (given, or the results' common one), then one row per mechanism,
violations first. The pages load nothing: inline CSS, no scripts, fonts or remote images.
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from dpaudit.engine.types import AuditResult, PairResult, PrivacyClaim, Verdict
from dpaudit.reports.comparisons import profile_lead, progress_words, white_box_words, white_box_worst
from dpaudit.reports.figures import inline_svg, matplotlib_parts, profile_points, verdict_bars_svg
from dpaudit.reports.figures_curves import PROFILE_CAPTION, TRAJECTORY_CAPTION, privacy_profile, trajectory
from dpaudit.reports.figures_one_run import ONE_RUN_CAPTION, is_one_run, one_run_tradeoff
from dpaudit.reports.figures_region import privacy_region, region_caption, region_has_tail
from dpaudit.reports.markdown import (
    STATED_FINDING,
    VERDICT_WORDS,
    assumption_words,
    bound_words,
    exact_words,
    family_of,
    fmt,
    one_run_facts,
    selection_candidates,
    stated_exceeded,
    verdict_rank,
    verdict_words,
    weakened,
)
from dpaudit.reports.search_record import SEARCH_NOTE, SEARCH_TOP, search_record, search_shown, search_summary
from dpaudit.reports.words import is_upper_bound, white_box_value, witness_words

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
TEMPLATES = Path(__file__).parent / "templates"


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
        ("Certified ε lower bound", _bound_words(r.epsilon_lower_bound)),
        ("Certified δ lower bound at the claimed ε", fmt(r.delta_lower_bound)),
        (
            "Confidence",
            f"all bounds hold simultaneously with probability ≥ {1 - r.failure_probability:g} "
            f"(per-test failure probability {fmt(r.per_test_failure_probability)})",
        ),
        ("Largest certifiable ε at this budget", fmt(r.epsilon_ceiling)),
    ]
    facts[2:2] = one_run_facts(r)
    if (words := white_box_words(r)) is not None:
        facts.insert(2, ("White-box reference (not in the verdict)", words))
    if r.threat_model:
        facts.insert(1, ("Threat model (what the adversary sees)", r.threat_model))
    facts[2:2] = [("Canary", c) for c in dict.fromkeys(p.canary for p in r.pairs if p.canary)]
    points = profile_points(r)
    lead = profile_lead(r)
    if lead is not None:  # a curve claim: the profile compares like with like, first
        facts.insert(0, ("Privacy profile (certified of claimed)", lead.replace("**", "")))
    elif points:
        exceeded = sum(pt.exceeds_claim for pt in points)
        facts.append(("Privacy profile", f"{len(points)} certified point(s), {exceeded} exceeding the claim"))
    return facts


_SHORT_RELATION = {"add_remove_one": "add/remove", "replace_one": "replace", "relabel_one": "relabel"}


def _white_box_label(worst: PairResult | None) -> str:
    """The verdict bars' white-box label, naming the relation (short enough for the label column)."""
    if worst is None:
        return ""
    kind = "upper bound" if is_upper_bound(worst) else "white-box"
    return f"{kind} ({_SHORT_RELATION.get(worst.relation.value, worst.relation.value)})"


def _verdict_context(r: AuditResult) -> dict[str, Any]:
    worst = white_box_worst(r)
    exact = None if worst is None else worst.exact_epsilon
    return {
        "verdict_class": _verdict_class(r),
        "headline": VERDICT_WORDS[r.verdict],
        "bars": Markup(verdict_bars_svg(r, exact=exact, exact_label=_white_box_label(worst))),
        "has_exact": exact is not None,
        "stated": stated_exceeded(r),
        "stated_finding": STATED_FINDING,
        "detail": VERDICT_DETAIL[r.verdict],
        "lower_bound_note": LOWER_BOUND_NOTE,
        "weakened": weakened(r),
        "verdict_facts": _verdict_facts(r),
        "strong_fact": 1 if _is_evidence(r.epsilon_lower_bound) else None,
    }


def _figure(svg: bytes | str | None, ident: str, alt: str, caption: str) -> dict[str, Any] | None:
    if svg is None:
        return None
    return {"ident": ident, "svg": Markup(inline_svg(str(svg), ident, alt)), "caption": caption}


def _figures_context(r: AuditResult) -> dict[str, Any]:
    """The region figure (under the verdict) and the plots section's figures."""
    if matplotlib_parts() is None:
        return {"region": None, "plots": [], "no_matplotlib": NO_MATPLOTLIB}
    alt = (
        f"Empirical privacy region of {r.mechanism}: {len(r.pairs)} pair(s) against the claim "
        f"ε = {fmt(r.claim.epsilon)}, δ = {fmt(r.claim.delta)}"
    )
    if is_one_run(r):  # no certified corner: the claim's and the certified ε̂'s trade-off curves
        alt = f"Trade-off curves of the claim and of the certified ε̂ = {fmt(r.epsilon_lower_bound)}"
        region = _figure(one_run_tradeoff(r, "svg"), "plot-region", alt, ONE_RUN_CAPTION)
        if region is not None:
            region["title"] = "Trade-off curves (one run)"
    else:
        region = _figure(privacy_region(r, "svg"), "plot-region", alt, region_caption(region_has_tail(r)))
    profile_alt = f"Privacy profile of {r.mechanism}: certified bounds against the claimed ε(δ)"
    trajectory_alt = f"Certified ε lower bound vs samples per side for {r.mechanism}"
    plots = [
        ("Privacy profile", _figure(privacy_profile(r, "svg"), "plot-profile", profile_alt, PROFILE_CAPTION)),
        (
            "Certified bound vs samples",
            _figure(trajectory(r, "svg"), "plot-trajectory", trajectory_alt, TRAJECTORY_CAPTION),
        ),
    ]
    return {"region": region, "plots": [(t, f) for t, f in plots if f], "no_matplotlib": None}


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
        ("Failure probability", f"{r.failure_probability:g} (total, Bonferroni-split)"),
        ("Per-test failure probability", fmt(r.per_test_failure_probability)),
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


# ---------------------------------------------------------------------------------------------
# the run index


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


def _run_facts(results: Sequence[AuditResult]) -> list[tuple[str, str]]:
    """The run-level facts the results carry: seed(s), budget, confidence, version, total elapsed."""
    if not results:
        return []
    seeds = _distinct(r.seed for r in results)
    samples = _distinct(r.num_samples for r in results)
    failure = _distinct(r.failure_probability for r in results)
    versions = _distinct(r.package_version for r in results)
    seed = f"{seeds[0]}" if len(seeds) == 1 else f"{', '.join(map(str, seeds))} (differs between mechanisms)"
    budget = f"{samples[0]:,}" if len(samples) == 1 else "differs between mechanisms (see the table)"
    facts = [("Seed", seed), ("Samples per side and pair", budget)]
    if len(failure) == 1:
        facts.append(("Failure probability", f"{failure[0]:g} per mechanism (total, Bonferroni-split)"))
    return [
        *facts,
        ("dpaudit version", ", ".join(map(str, versions))),
        ("Total elapsed", f"{_duration(sum(r.elapsed_seconds for r in results))} (sum over mechanisms)"),
    ]


def _index_white_box(r: AuditResult) -> str:
    """The index's white-box cell: the oracle ε under the claim's relation ("—" without one)."""
    worst = white_box_worst(r)
    return "—" if worst is None or worst.exact_epsilon is None else white_box_value(worst)


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
    order = sorted(range(len(results)), key=lambda i: (verdict_rank(results[i]), results[i].mechanism))
    rows = [
        {
            "result": results[i],
            "link": links[i],
            "cls": "" if _verdict_class(results[i]) == "no-violation" else _verdict_class(results[i]),
            "family": family_of(results[i], families) or "—",
            "verdict": verdict_words(results[i]),
            "white_box": _index_white_box(results[i]),
            "progress": progress_words(results[i]),
        }
        for i in order
    ]
    context = {
        "title": "dpaudit run",
        "results": results,
        "violations": sum(r.violation for r in results),
        "findings": sum(1 for r in results if verdict_rank(r) == 1),
        "lower_bound_note": LOWER_BOUND_NOTE,
        "run_facts": _run_facts(results),
        "given_command": command,
        "template": None if command or not results else run_command_template(results),
        "rows": rows,
    }
    return environment().get_template("index.html.j2").render(context)
