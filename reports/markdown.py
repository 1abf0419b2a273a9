"""Markdown audit reports that fit a pull-request comment. Render a result; compute nothing.

- `render_markdown(result)`: one mechanism. The verdict, every claim against its certified
  bounds, the seed and the exact command; the per-pair details are collapsed in `<details>`.
- `render_index_markdown(results)`: a run. One table row per mechanism, violations first, then
  the violating pairs and findings, each collapsed. GitHub rejects comments longer than 65,536
  characters: the index stays under `INDEX_BUDGET` characters by dropping detail blocks (and, for
  very large runs, table rows) with a note saying how many were left out.
- The worst-case pair search behind a result (`reports.search_record`): `render_markdown` shows
  the top `SEARCH_TOP` pairs it tried (plus any certified one further down) and a count of the
  rest; the run index never shows them.

The verdict wording is shared with the HTML and JUnit renderers (`verdict_words`): "violation
found" ("violation of a stated claim …" when a lone STATED claim decided it), "no violation found
at this power" (a lower bound below the claim proves nothing more), "inconclusive (reason)" when
the audit could not have judged the claim, and "finding about the paper's statement" when only a
STATED claim beside a proved one is exceeded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from dpaudit.engine.types import (
    WEAKENED,
    AuditResult,
    ClaimCheck,
    ClaimKind,
    EpsilonEstimate,
    PairResult,
    PrivacyClaim,
    Verdict,
)

from .comparisons import white_box_words
from .numbers import fmt
from .relations import delta_words, is_inconclusive, relation_rows, relation_words
from .samples_words import samples_sentence, sequential_lines
from .search_record import (
    SEARCH_NOTE,
    search_record,
    search_shown,
    search_summary,
)
from .words import white_box_value, witness_words

VERDICT_WORDS = {
    Verdict.VIOLATION_FOUND: "violation found",
    Verdict.NO_VIOLATION_FOUND: "no violation found at this power",
    Verdict.INCONCLUSIVE: "inconclusive",
}
STATED_FINDING = "finding about the paper's statement"
INCONCLUSIVE_NOTE = (
    "This audit could not have judged the claim (the reason is in the verdict): it is neither "
    "a violation nor evidence of no violation; audit again with more samples or another design."
)
GITHUB_COMMENT_LIMIT = 65_536
INDEX_BUDGET = 50_000
"""Characters the run index may use (well under GitHub's comment limit)."""
MAX_CELL = 160


def stated_exceeded(r: AuditResult) -> list[ClaimCheck]:
    """The STATED claims whose certified bound exceeds them (findings about the paper)."""
    return [c for c in r.claims if c.exceeded and c.claim.kind is ClaimKind.STATED]


def stated_verdict_words(claim: PrivacyClaim) -> str:
    """How every report words a violation decided by a STATED claim (the one verdict rule,
    `mechanisms.base.decides_verdict`: no PROVED claim covers the relation, so the statement
    decides): what was violated, under which relation, and the claim's note when it has one."""
    relation = claim.relation.value.replace("_", "-")
    note = f" ({claim.note})" if claim.note else ""
    return (
        f"violation of a stated claim: the relation {relation} was assumed and no proved claim "
        f"covers it, so the statement decides{note}"
    )


def decided_by_stated(r: AuditResult) -> bool:
    """A violation whose violating pairs all break a STATED claim (no PROVED claim covers them)."""
    bad = [pr for pr in r.pairs if pr.violation]
    return r.violation and bool(bad) and all(pr.claim.kind is ClaimKind.STATED for pr in bad)


def verdict_words(r: AuditResult) -> str:
    """The verdict as worded in every report, with the stated-claim finding when there is one and
    the words of a violation a STATED claim decided."""
    words = VERDICT_WORDS[r.verdict]
    if r.inconclusive:
        return words + (f" ({r.inconclusive_reason})" if r.inconclusive_reason else "")
    if decided_by_stated(r):
        words += f" ({stated_verdict_words(_stated_claim(r))})"
    elif not r.violation and stated_exceeded(r):
        words += f"; {STATED_FINDING}"
    return words


def _stated_claim(r: AuditResult) -> PrivacyClaim:
    return next(pr.claim for pr in r.pairs if pr.violation)


def verdict_rank(r: AuditResult) -> int:
    """Sort key: violations first, then stated-claim findings, then no violation, then
    inconclusive audits (3)."""
    if r.violation:
        return 0
    if stated_exceeded(r):
        return 1
    return 3 if r.inconclusive else 2


def family_of(r: AuditResult, families: Mapping[str, str] | None = None) -> str:
    """The mechanism's family if known: from `families` (the registry, passed by the CLI) or from
    `result.extra["family"]`; "" otherwise."""
    if families and r.mechanism in families:
        return str(families[r.mechanism])
    fam = r.extra.get("family")
    return fam if isinstance(fam, str) else ""


def claim_words(c: PrivacyClaim, *, reference: bool = True) -> str:
    curve = f", {c.curve.label()}" if c.curve is not None else ""
    ref = f"; {c.reference}" if reference else ""
    return f"ε = {fmt(c.epsilon)}, δ = {fmt(c.delta)}{curve} ({c.kind.value}, {c.relation.value}{ref})"


def bound_words(eps: float, pairs_checked: int | None = None) -> str:
    """A certified ε lower bound in words: ≤ 0 (or −∞) is no evidence, not a bound of 0."""
    if pairs_checked == 0:
        return "not checked (no audited pair is covered by this claim)"
    if eps <= 0:  # ε ≥ 0 always holds: a bound ≤ 0 certifies nothing (same words as the HTML page)
        raw = "" if eps == 0 else f"; raw {fmt(eps).replace('-', '−', 1)}"
        return f"0 (no evidence of privacy loss{raw})"
    return fmt(eps)


def assumption_words(assumption: str) -> str:
    return assumption or "not recorded (result written before assumptions were recorded)"


def selection_candidates(r: AuditResult, pair: PairResult) -> list[tuple[str, float | None, bool]]:
    """The (distinguisher, projected objective, chosen) candidates the runner considered for `pair`,
    from `result.extra["selection"]` (a list indexed by pair, or a mapping keyed by the pair index;
    "chosen" defaults to the distinguisher named by the pair's estimate); [] when absent or
    malformed (older results)."""
    sel = r.extra.get("selection")
    entry: object = None
    if isinstance(sel, list) and 0 <= pair.index < len(sel):
        entry = sel[pair.index]
    elif isinstance(sel, dict):
        entry = sel.get(str(pair.index), sel.get(pair.index))
    if isinstance(entry, dict):
        entry = entry.get("candidates")
    if not isinstance(entry, list):
        return []
    out: list[tuple[str, float | None, bool]] = []
    for cand in entry:
        if not isinstance(cand, dict) or "distinguisher" not in cand:
            continue
        value = cand.get("projected")
        try:
            projected = None if value is None else float(value)
        except (TypeError, ValueError):
            projected = None
        name = str(cand["distinguisher"])
        chosen = cand.get("chosen")
        out.append(
            (name, projected, bool(chosen) if chosen is not None else name == pair.estimate.distinguisher)
        )
    return out


def weakened(r: AuditResult) -> list[str]:
    """Warnings that the audit lost power (candidate pairs that failed): part of the verdict."""
    return [w for w in r.warnings if w.startswith(WEAKENED)]


def exact_words(p: PairResult) -> str:
    """A pair's white-box ε as shown in tables ("-" without an oracle value, "≤ x" for an analytic
    upper bound)."""
    return white_box_value(p)


def _cell(text: str, limit: int = MAX_CELL) -> str:
    """A table cell: one line, pipes escaped, at most `limit` characters."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pair_line(p: PairResult) -> str:
    e = p.estimate
    witness = f" ({witness_words(e)})" if e.infinite_witness else ""
    return (
        f"| {p.index + 1} | {_cell(p.description)}{' **violation**' if p.violation else ''} | "
        f"{p.relation.value} | {_cell(', '.join(p.tags) or '-', 60)} | {_cell(e.distinguisher, 40)} | "
        f"{_cell(assumption_words(e.assumption), 80)} | `{_cell(e.event, 80)}` | "
        f"{_rates(e)} | "
        f"{fmt(p.claim.epsilon)} | {exact_words(p)} | {fmt(e.epsilon_lower_bound)}{witness} | "
        f"{fmt(e.delta_lower_bound)} |"
    )


def _rates(e: EpsilonEstimate) -> str:
    """The P and Q cells: counts with their certified bounds, or (a one-run pseudo-pair, whose
    rates are not certified) the correct guesses of all guesses and no rate."""
    if math.isnan(e.p_lower):
        return f"{e.p_count:,}/{e.p_total:,} guesses right | - (no rate certified)"
    return f"{e.p_count:,}/{e.p_total:,} ({fmt(e.p_lower)}) | {e.q_count:,}/{e.q_total:,} ({fmt(e.q_upper)})"


def one_run_facts(r: AuditResult) -> list[tuple[str, str]]:
    """What a one-run audit certified, in words: ε̂ at δ, the design, correct guesses of guesses."""
    info = r.extra.get("one_run")
    if not isinstance(info, dict):
        return []
    fdp = info.get("fdp")
    facts = [
        (
            "Certified (one run)",
            f"not ({fmt(r.epsilon_lower_bound)}, {fmt(r.claim.delta)})-DP: ε ≥ {fmt(r.epsilon_lower_bound)} "
            f"at δ = {fmt(r.claim.delta)} ({info.get('headline_method', 'snj')} bound); no test with "
            "given error rates is certified",
        ),
        (
            "Design",
            f"k₊ = {info['k_plus']} guessed in, k₋ = {info['k_minus']} guessed out of m = {info['m']} "
            f"canaries ({info['included']} included): {info['correct']} of {info['guesses']} guesses right; "
            f"{info['choice_of_k']}",
        ),
    ]
    if isinstance(fdp, dict):
        verdict = "rejected" if fdp["claim_rejected"] else "not rejected"
        adjusted = fdp.get("claim_tail_bound_adjusted", fdp["claim_tail_bound"])
        union = fdp.get("union_designs", len(fdp["designs"]))
        facts.append(
            (
                "f-DP test of the claim",
                f"{fdp['claim_tradeoff']} {verdict} (p ≤ {adjusted:.3g} over {union} designs, "
                f"at level {fmt(fdp['failure_probability'])})",
            )
        )
    return facts


PAIR_HEADER = [
    "| # | pair | relation | tags | estimator | assumption | event | P (lower) | Q (upper) | claim ε "
    "| white-box ε (≤: upper bound) | certified ε | certified δ at claim |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
]


def relation_table(r: AuditResult) -> list[str]:
    """The verdict's leading table: certified against claimed ε(δ) within each relation, the
    verdict claim's rows first, each naming its pair (`relations.relation_rows`)."""
    rows = relation_rows(r)
    if not rows:
        return []
    lines = [
        "| relation (claim) | δ | claimed ε(δ) | certified ε(δ) | certified / claimed | pair |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        ratio = row.ratio
        pair = row.pair
        other = "" if pair.relation == row.claim.relation else f", {relation_words(pair.relation)}"
        certified = fmt(row.certified) if row.certified > 0 else "0 (no evidence)"
        relation = relation_words(row.claim.relation) + (" (verdict)" if row.verdict else "")
        delta = delta_words(row.delta) + (" (claim's δ)" if row.headline and row.claim.curve else "")
        shown = f"**{certified}** exceeds" if row.exceeds else certified
        ratio_text = "—" if ratio is None else "∞" if math.isinf(ratio) else f"{ratio:.2f}"
        cells = [relation, delta, fmt(row.claimed), shown, ratio_text, f"pair {pair.index + 1}{other}"]
        lines.append(f"| {' | '.join(cells)} |")
    return [
        *lines,
        "",
        "Certified against claimed ε(δ) within one relation: each row is the best certified ε of the pairs "
        "audited under one claim, beside that claim's own ε(δ).",
        "",
    ]


def _header_lines(r: AuditResult, fam: str) -> list[str]:
    """The title, the verdict with its claim and bounds, the budget, the seed and the command."""
    verdict = (
        "The certified lower bound on the realised privacy loss exceeds the claim."
        if r.violation
        else INCONCLUSIVE_NOTE
        if r.inconclusive
        else "A certified lower bound below the claim proves nothing more than that no violation "
        "was found at this power."
    )
    lines = [
        f"# dpaudit: `{_cell(r.mechanism, 200)}`" + (f" ({fam})" if fam else ""),
        "",
        f"**Verdict: {verdict_words(r)}.** {verdict}"
        + "".join(f" **{_cell(w, 400)}.**" for w in weakened(r)),
        "",
        *relation_table(r),
        f"- Claim (decides the verdict): {claim_words(r.claim)}",
        *([f"- Threat model (what the adversary sees): {_cell(r.threat_model)}"] if r.threat_model else []),
        *[f"- Canary: {_cell(c, 300)}" for c in dict.fromkeys(p.canary for p in r.pairs if p.canary)],
        f"- Certified ε lower bound: **{bound_words(r.epsilon_lower_bound)}**; certified δ lower bound at "
        f"the claimed ε: {fmt(r.delta_lower_bound)}",
        *([f"- {wb}"] if (wb := white_box_words(r)) else []),
        f"- Confidence: every bound holds simultaneously with probability ≥ {1 - r.failure_probability:g} "
        f"(per-test failure probability {fmt(r.test_level)})",
        f"- Samples per side and pair: {r.num_samples:,} ({r.selection_samples:,} selection + "
        f"{r.certification_samples:,} certification); largest certifiable ε at this budget: "
        f"{fmt(r.epsilon_ceiling)}",
        f"- Samples: {samples_sentence(r)}",
        *[f"- {line[0].upper()}{line[1:]}" for line in sequential_lines(r)],
        f"- Seed {r.seed}{'' if r.seedable else ' (mechanism not seedable)'}; dpaudit {r.package_version}; "
        f"{r.elapsed_seconds:.1f} s",
    ]
    return lines + (["", "Reproduce:", "", "```sh", r.command, "```"] if r.command else [])


def _claim_and_pair_lines(r: AuditResult) -> list[str]:
    """The claims table and the collapsed pairs table."""
    lines = ["", "## Claims", "", "| kind | ε | δ | curve | relation | reference | certified ε | exceeded |"]
    lines.append("|---|---|---|---|---|---|---|---|")
    for c in r.claims:
        curve = c.claim.curve.label() if c.claim.curve is not None else "-"
        lines.append(
            f"| {c.claim.kind.value}{' (verdict)' if c.claim == r.claim else ''} | {fmt(c.claim.epsilon)} | "
            f"{fmt(c.claim.delta)} | {curve} | {c.claim.relation.value} | {_cell(c.claim.reference)} | "
            f"{bound_words(c.epsilon_lower_bound, c.pairs_checked)} | {'**yes**' if c.exceeded else 'no'} |"
        )
    violating = sum(p.violation for p in r.pairs)
    summary = f"{len(r.pairs)} pair(s), {violating} violating: events, counts and bounds"
    header = PAIR_HEADER
    if isinstance(r.extra.get("one_run"), dict):  # the one-run pseudo-pair: no rate is certified
        header = [PAIR_HEADER[0].replace("P (lower) | Q (upper)", "guesses right | rates"), PAIR_HEADER[1]]
    lines += ["", "## Pairs", "", "<details>", f"<summary>{summary}</summary>", "", *header]
    return [*lines, *[_pair_line(p) for p in r.pairs], "", "</details>"]


def _profile_lines(r: AuditResult) -> list[str]:
    """The collapsed privacy-profile table, when there are profile points."""
    points = r.profile or tuple(pt for p in r.pairs for pt in p.profile)
    if not points:
        return []
    exceeding = sum(pt.exceeds_claim for pt in points)
    lines = ["", "## Privacy profile", "", "<details>"]
    lines += [f"<summary>{len(points)} certified point(s), {exceeding} exceeding the claim</summary>", ""]
    lines += ["| test | certified value | claimed | exceeds | pair | event |", "|---|---|---|---|---|---|"]
    for pt in points:
        claimed = "-" if pt.claimed is None else fmt(pt.claimed)
        lines.append(
            f"| {_cell(pt.label, 60)} | {fmt(pt.value)} | {claimed} | "
            f"{'**yes**' if pt.exceeds_claim else 'no'} | {pt.pair_index + 1} | "
            f"`{_cell(pt.estimate.event, 60)}` |"
        )
    return [*lines, "", "</details>"]


def render_markdown(r: AuditResult, *, family: str | None = None) -> str:
    """One mechanism's report (see the module docstring)."""
    lines = _header_lines(r, family if family is not None else family_of(r))
    lines += [f"- {name}: {_cell(text, 600)}" for name, text in one_run_facts(r)]
    lines += _section("Findings", r.findings) + _section("Warnings", r.warnings)
    lines += _claim_and_pair_lines(r) + _search_lines(r) + _profile_lines(r)
    return "\n".join(lines) + "\n"


def _search_lines(r: AuditResult) -> list[str]:
    record = search_record(r)
    if record is None:
        return []
    shown, rest = search_shown(record)
    lines = [
        "",
        "## Search",
        "",
        search_summary(record),
        SEARCH_NOTE,
        "",
        "<details>",
        f"<summary>{len(record.candidates)} candidate pair(s) ranked, "
        f"{sum(c.certified for c in record.candidates)} certified</summary>",
        "",
        "| # | pair | relation | source | pilot samples | pilot rank | pilot ε | certified |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in shown:
        lines.append(
            f"| {c.position} | {_cell(c.description)} | {c.relation} | {_cell(c.source, 20)} | "
            f"{'?' if c.pilot_samples is None else f'{c.pilot_samples:,}'} | "
            f"{'?' if c.rank is None else fmt(c.rank)} | "
            f"{'?' if c.pilot_epsilon is None else fmt(c.pilot_epsilon)} | "
            f"{'**certified**' if c.certified else '-'} |"
        )
    if rest:
        lines += ["", f"… and {rest:,} more candidate pair(s), listed in the JSON report."]
    return [*lines, "", "</details>"]


def _section(title: str, items: Sequence[str]) -> list[str]:
    if not items:
        return []
    return ["", f"## {title}", "", *[f"- {x}" for x in items]]


def _detail_block(r: AuditResult) -> str:
    """The collapsed details of one mechanism in the run index: violating pairs and findings."""
    bad = [p for p in r.pairs if p.violation]
    body = [
        "<details>",
        f"<summary><code>{_cell(r.mechanism, 80)}</code>: {verdict_words(r)}</summary>",
        "",
        f"Claim: {_cell(claim_words(r.claim), 300)}",
    ]
    if r.command:
        body += ["", "```sh", r.command, "```"]
    if bad:
        body += ["", *PAIR_HEADER, *[_pair_line(p) for p in bad]]
    body += [f"- {_cell(f, 400)}" for f in r.findings][:10]
    body += ["", "</details>", ""]
    return "\n".join(body)


def render_index_markdown(
    results: Sequence[AuditResult],
    *,
    families: Mapping[str, str] | None = None,
    links: Sequence[str] | None = None,
    budget: int = INDEX_BUDGET,
) -> str:
    """The run index: a table sorted violations first (link `links[i]`, default `<mechanism>.md`),
    then collapsed details of every violation and finding while they fit in `budget` characters."""
    if links is not None and len(links) != len(results):
        raise ValueError(f"got {len(results)} result(s) but {len(links)} link(s)")
    order = sorted(range(len(results)), key=lambda i: (verdict_rank(results[i]), results[i].mechanism))
    violations = sum(r.violation for r in results)
    findings = sum(1 for r in results if not r.violation and stated_exceeded(r))
    head = [
        "# dpaudit run",
        "",
        f"{len(results)} mechanism(s) audited: **{violations} violation(s) found**, {findings} finding(s) "
        'about a paper\'s statement. "No violation found at this power" proves nothing more: a certified '
        "lower bound below the claim is not evidence that the claim holds.",
        "",
        "| mechanism | family | claim | certified ε | verdict |",
        "|---|---|---|---|---|",
    ]
    rows = []
    apart = [i for i in order if is_inconclusive(results[i])]
    order = [i for i in order if i not in apart]
    for i in order + apart:
        if i in apart and i == apart[0]:
            rows.append(
                "\n**Inconclusive** (the design or budget could not have refuted the claim):\n\n"
                + "\n".join(head[-2:])
            )
        r = results[i]
        link = links[i] if links is not None else f"{r.mechanism}.md"
        verdict = "`inconclusive`" if i in apart else verdict_words(r)
        rows.append(
            f"| [{_cell(r.mechanism, 80)}]({link}) | {_cell(family_of(r, families) or '-', 60)} | "
            f"{_cell(claim_words(r.claim, reference=False), 90)} | {bound_words(r.epsilon_lower_bound)} | "
            f"{'**' + verdict + '**' if r.violation else verdict} |"
        )
    text = "\n".join(head) + "\n"
    shown = 0
    for row in rows:
        if len(text) + len(row) + 200 > budget:
            break
        text += row + "\n"
        shown += 1
    if shown < len(rows):
        text += f"\n{len(rows) - shown} more mechanism(s) not listed (comment size limit); see index.html.\n"
        return text
    blocks = [_detail_block(results[i]) for i in order if verdict_rank(results[i]) < 2 or results[i].findings]
    if blocks:
        text += "\n## Details\n\n"
    for k, block in enumerate(blocks):
        if len(text) + len(block) + 200 > budget:
            left = len(blocks) - k
            text += f"{left} more detail block(s) left out (comment size limit); see the HTML reports.\n"
            break
        text += block
    return text
