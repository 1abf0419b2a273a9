"""The run index page (index.html of `dpaudit run --all --out DIR`): the table of contents of a run.

`render_index_html(results, links)`: the run's seed(s), budget, total elapsed and command (given,
or the results' common one), then one row per mechanism, violations first, and the inconclusive
audits apart, each with a badge. Each ratio column divides by one denominator, named in its
header (issue 42): the headline certified ε over the verdict claim's ε, and over the white-box ε
of the worst pair under the claim's relation when that value is exact (an upper bound is never a
denominator); when the rows' claims differ in δ or relation each cell names its own.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dpaudit.engine.types import AuditResult

from .comparisons import index_ratios, is_upper_bound, white_box_worst
from .html import LOWER_BOUND_NOTE, environment, verdict_class
from .markdown import family_of, fmt, verdict_rank, verdict_words
from .relations import delta_words, is_inconclusive, relation_words


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
    if worst is None or worst.exact_epsilon is None:
        return "—"
    return fmt(worst.exact_epsilon) + (" (upper bound)" if is_upper_bound(worst) else "")


def _ratio_text(ratio: float | None) -> str:
    if ratio is None:
        return "—"
    return "∞" if ratio == float("inf") else f"{ratio:.2f}"


def index_columns(results: Sequence[AuditResult]) -> tuple[str, str, bool]:
    """The two ratio columns' headers, each naming its one denominator, and whether each cell must
    name its own δ and relation (when the rows' verdict claims differ in them)."""
    common = {(r.claim.delta, r.claim.relation) for r in results}
    if len(common) == 1:
        delta, relation = common.pop()
        at = f"at δ = {delta_words(delta)}, {relation_words(relation)}"
        return f"certified of the claim {at}", f"certified of the white-box ε {at} (exact only)", False
    at = "at the row's δ and relation (the verdict claim's)"
    return f"certified of the claim {at}", f"certified of the white-box ε {at} (exact only)", True


def _index_row(
    r: AuditResult, link: str, families: Mapping[str, str] | None, per_row: bool
) -> dict[str, Any]:
    of_claim, of_white_box = index_ratios(r)
    at = f" (δ = {delta_words(r.claim.delta)}, {relation_words(r.claim.relation)})" if per_row else ""
    inconclusive = is_inconclusive(r)
    return {
        "result": r,
        "link": link,
        "cls": "inconclusive"
        if inconclusive
        else ""
        if verdict_class(r) == "no-violation"
        else verdict_class(r),
        "family": family_of(r, families) or "—",
        "verdict": "inconclusive" if inconclusive else verdict_words(r),
        "inconclusive": inconclusive,
        "white_box": _index_white_box(r),
        "of_claim": _ratio_text(of_claim) + (at if of_claim is not None else ""),
        "of_white_box": _ratio_text(of_white_box) + (at if of_white_box is not None else ""),
    }


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
    first, linked to its page (`links[i]` for `results[i]`); inconclusive audits in a table of
    their own, each with a badge. The two ratio columns each divide by one denominator, named in
    the header (`index_columns`). `families` maps mechanism names to their family (e.g. from the
    registry)."""
    if len(results) != len(links):
        raise ValueError(f"got {len(results)} result(s) but {len(links)} link(s)")
    order = sorted(range(len(results)), key=lambda i: (verdict_rank(results[i]), results[i].mechanism))
    of_claim, of_white_box, per_row = index_columns(results)
    rows = [_index_row(results[i], links[i], families, per_row) for i in order]
    context = {
        "title": "dpaudit run",
        "results": results,
        "violations": sum(r.violation for r in results),
        "findings": sum(1 for r in results if verdict_rank(r) == 1),
        "inconclusive": sum(row["inconclusive"] for row in rows),
        "lower_bound_note": LOWER_BOUND_NOTE,
        "run_facts": _run_facts(results),
        "given_command": command,
        "template": None if command or not results else run_command_template(results),
        "rows": [row for row in rows if not row["inconclusive"]],
        "inconclusive_rows": [row for row in rows if row["inconclusive"]],
        "columns": [
            "mechanism",
            "family",
            "claim",
            "certified ε (headline)",
            of_claim,
            "white-box ε (claim's relation)",
            of_white_box,
            "verdict",
            "samples/side",
            "seconds",
            "link",
        ],
    }
    return environment().get_template("index.html.j2").render(context)
