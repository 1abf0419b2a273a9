"""Self-contained HTML audit report (DESIGN.md, "reports/"). Renders a result; computes nothing.

`render_html(result)` is one page per audited mechanism: the verdict, every claim, every pair
with its counts and certified bounds, how to reproduce the run, and a figure of the empirical
privacy region drawn with matplotlib and embedded as a base64 PNG. The page loads nothing from
anywhere: the CSS is inline and there are no scripts, fonts, stylesheets or remote images.
`render_index_html(results, links)` is the table of contents of a run.

The only arithmetic done here is for plotting (point estimates k/n, the boundary line
P = e^ε Q + δ); every bound shown is the one recorded in the result.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Sequence

from audit.types import AuditResult, ClaimKind, PairResult, PrivacyClaim, Verdict
from reports.markdown import fmt

VERDICT_HEADLINE = {
    Verdict.VIOLATION_FOUND: "Violation found",
    Verdict.NO_VIOLATION_FOUND: "No violation found at this power",
}
VERDICT_DETAIL = {
    Verdict.VIOLATION_FOUND: "The certified lower bound on the realised privacy loss exceeds the claim, "
    "so the claim is refuted with the stated confidence.",
    Verdict.NO_VIOLATION_FOUND: "No certified lower bound exceeds the claim at this sample budget.",
}
LOWER_BOUND_NOTE = (
    "A certified lower bound below the claim proves nothing more than that no violation was found at "
    "this power; it is not evidence that the mechanism satisfies its claim."
)

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 78em; padding: 0 1em; color: #1b1f23; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #d0d7de; padding-bottom: 0.2em; margin-top: 1.6em; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: #f6f8fa; padding: 0.8em; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #d0d7de; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.event { max-width: 28em; overflow-wrap: anywhere; }
.verdict { padding: 0.8em 1em; border-radius: 6px; border: 1px solid; }
.verdict.violation { background: #ffebe9; border-color: #cf222e; }
.verdict.no-violation { background: #eef6ee; border-color: #2da44e; }
.verdict .headline { font-size: 1.3em; font-weight: 700; margin: 0 0 0.3em 0; }
.badge { display: inline-block; padding: 0 0.45em; border-radius: 0.8em; font-size: 0.8em;
         font-weight: 600; white-space: nowrap; }
.badge.violation { background: #cf222e; color: #fff; }
.badge.witness { background: #8250df; color: #fff; }
.badge.verdict-claim { background: #0969da; color: #fff; }
tr.violation td { background: #fff5f5; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1.2em; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
figure { margin: 0.5em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #d0d7de; }
figcaption { font-size: 0.9em; color: #57606a; max-width: 60em; }
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
        f'<table class="{cls}">\n<thead><tr>{head}</tr></thead>\n<tbody>\n'
        + "\n".join(rows)
        + "\n</tbody></table>"
    )


def _count(k: int, n: int) -> str:
    return f"{k:,}/{n:,}"


def _claim_text(c: PrivacyClaim) -> str:
    return f"ε = {fmt(c.epsilon)}, δ = {fmt(c.delta)} ({c.kind.value}, {c.relation.value})"


def _verdict_section(r: AuditResult) -> list[str]:
    cls = "violation" if r.violation else "no-violation"
    return [
        f'<section id="verdict" class="verdict {cls}">',
        "<h2>Verdict</h2>",
        f'<p class="headline">{_e(VERDICT_HEADLINE[r.verdict])}</p>',
        f"<p>{_e(VERDICT_DETAIL[r.verdict])} {_e(LOWER_BOUND_NOTE)}</p>",
        '<dl class="facts">',
        f"<dt>Claim deciding the verdict</dt><dd>{_e(_claim_text(r.claim))} — {_e(r.claim.reference)}</dd>",
        f"<dt>Certified ε lower bound</dt><dd><strong>{_e(fmt(r.epsilon_lower_bound))}</strong></dd>",
        f"<dt>Certified δ lower bound at the claimed ε</dt><dd>{_e(fmt(r.delta_lower_bound))}</dd>",
        f"<dt>Confidence</dt><dd>all bounds hold simultaneously with probability ≥ "
        f"{_e(f'{1 - r.failure_probability:g}')}</dd>",
        f"<dt>Largest certifiable ε at this budget</dt><dd>{_e(fmt(r.epsilon_ceiling))}</dd>",
        "</dl>",
        "</section>",
    ]


def _claims_section(r: AuditResult) -> list[str]:
    rows = []
    for i, c in enumerate(r.claims, start=1):
        badge = ' <span class="badge verdict-claim">verdict</span>' if c.claim == r.claim else ""
        note = f"<br><span class='note'>{_e(c.claim.note)}</span>" if c.claim.note else ""
        rows.append(
            f"<tr{_VIOLATION_ROW if c.exceeded else ''}>"
            f'<td class="num">{i}</td><td>{_e(c.claim.kind.value)}{badge}</td>'
            f'<td class="num">{_e(fmt(c.claim.epsilon))}</td><td class="num">{_e(fmt(c.claim.delta))}</td>'
            f"<td>{_e(c.claim.relation.value)}</td><td>{_e(c.claim.reference)}{note}</td>"
            f'<td class="num">{_e(fmt(c.epsilon_lower_bound))}</td>'
            f'<td class="num">{_e(fmt(c.delta_lower_bound))}</td>'
            f'<td class="num">{c.pairs_checked}</td><td>{"yes" if c.exceeded else "no"}</td></tr>'
        )
    headers = [
        "#",
        "kind",
        "ε",
        "δ",
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
        "<p>Every claim the mechanism carries, each against the certified intervals of the pairs it "
        "covers. The verdict uses the proved claim; exceeding only a stated claim is a finding about "
        "the paper.</p>",
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


def _pair_row(p: PairResult) -> str:
    e = p.estimate
    markers = []
    if e.infinite_witness:
        markers.append(
            '<span class="badge witness" title="the event never occurred on the Q side">'
            "infinite witness</span>"
        )
    if p.violation:
        markers.append('<span class="badge violation">violation</span>')
    tags = ", ".join(p.tags)
    return (
        f"<tr{_VIOLATION_ROW if p.violation else ''}>"
        f'<td class="num">{p.index + 1}</td><td>{_e(p.description)}</td><td>{_e(p.relation.value)}</td>'
        f'<td>{_e(tags)}</td><td class="event"><code>{_e(e.event)}</code></td>'
        f"<td>{_e(e.distinguisher)}</td><td>{_e(e.direction)}</td>"
        f'<td class="num">{_e(_count(e.p_count, e.p_total))}</td><td class="num">{_e(fmt(e.p_lower))}</td>'
        f'<td class="num">{_e(_count(e.q_count, e.q_total))}</td><td class="num">{_e(fmt(e.q_upper))}</td>'
        f'<td class="num">{_e(fmt(p.claim.epsilon))}</td>'
        f'<td class="num">{_e(fmt(e.epsilon_lower_bound))}</td>'
        f'<td class="num">{_e(fmt(e.delta_lower_bound))}</td>'
        f"<td>{' '.join(markers)}</td></tr>"
    )


def _pairs_section(r: AuditResult) -> list[str]:
    headers = [
        "#",
        "pair",
        "relation",
        "tags",
        "event",
        "distinguisher",
        "direction",
        "P count",
        "P lower",
        "Q count",
        "Q upper",
        "claim ε",
        "certified ε",
        "certified δ at claim",
        "markers",
    ]
    return [
        '<section id="pairs">',
        "<h2>Pairs</h2>",
        "<p>For each neighbour pair: the event chosen on the selection split, its counts on fresh "
        "certification samples on the side where it is more likely (P) and the other side (Q), the "
        "one-sided Clopper–Pearson bounds P lower and Q upper, and the certified bounds "
        "ε ≥ ln((P lower − δ) / Q upper) and δ ≥ P lower − e<sup>ε</sup> Q upper at the claimed ε.</p>",
        _table(headers, [_pair_row(p) for p in r.pairs], "pairs"),
        "</section>",
    ]


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
        out += ["<p>Command:</p>", f'<pre class="command"><code>{_e(r.command)}</code></pre>']
    else:
        out.append('<p class="note">The result does not record the command that produced it.</p>')
    return [*out, "</section>"]


def _figure_section(r: AuditResult) -> list[str]:
    png = privacy_region_png(r)
    out = ['<section id="figure">', "<h2>Empirical privacy region</h2>"]
    if png is None:
        out.append('<p class="note">Figure not rendered: matplotlib is not installed.</p>')
        return [*out, "</section>"]
    data = base64.b64encode(png).decode("ascii")
    out += [
        "<figure>",
        f'<img src="data:image/png;base64,{data}" alt="{_e(_figure_alt(r))}">',
        "<figcaption>Each box is one pair in the (Q, P) probability plane: its lower-right corner is the "
        "certified point (Q upper, P lower), its far corner the point estimate (k/n) of the counts. A "
        "claim (ε, δ) allows only the region below its line P = e<sup>ε</sup> Q + δ; a certified corner "
        "above the line is a violation. Zero coordinates are drawn at the axis floor.</figcaption>",
        "</figure>",
    ]
    return [*out, "</section>"]


def _figure_alt(r: AuditResult) -> str:
    return (
        f"Empirical privacy region of {r.mechanism}: {len(r.pairs)} pair(s) against the claim "
        f"ε = {fmt(r.claim.epsilon)}, δ = {fmt(r.claim.delta)}"
    )


def _boundaries(r: AuditResult) -> list[tuple[PrivacyClaim, str]]:
    """The verdict claim (solid), differing stated claims (dashed), other pair claims (dash-dot)."""
    out: list[tuple[PrivacyClaim, str]] = [(r.claim, "-")]
    seen = {(r.claim.epsilon, r.claim.delta)}
    for c in [cc.claim for cc in r.claims if cc.claim.kind is ClaimKind.STATED] + [p.claim for p in r.pairs]:
        key = (c.epsilon, c.delta)
        if key not in seen:
            seen.add(key)
            out.append((c, "--" if c.kind is ClaimKind.STATED else "-."))
    return out


def privacy_region_png(r: AuditResult) -> bytes | None:
    """The empirical privacy region as PNG bytes, or None when matplotlib is unavailable."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle
    except ImportError:
        return None

    corners = [(p.estimate.q_upper, p.estimate.p_lower) for p in r.pairs]
    estimates = [
        (
            p.estimate.q_count / p.estimate.q_total if p.estimate.q_total else 0.0,
            p.estimate.p_count / p.estimate.p_total if p.estimate.p_total else 0.0,
        )
        for p in r.pairs
    ]
    coords = [v for xy in corners + estimates for v in xy if v > 0 and math.isfinite(v)]
    smallest = min(coords, default=1.0)
    use_log = smallest < 0.02
    floor = 10 ** math.floor(math.log10(smallest) - 0.5) if use_log else 0.0

    def clip(v: float) -> float:
        return max(v, floor) if use_log else v

    fig = Figure(figsize=(7.0, 5.2), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    lo = floor if use_log else 0.0
    if use_log:
        ax.set_xscale("log")
        ax.set_yscale("log")
        xs = [lo * (1.0 / lo) ** (i / 200) for i in range(201)]
    else:
        xs = [i / 200 for i in range(201)]
    for claim, style in _boundaries(r):
        ys = [min(1.0, math.exp(claim.epsilon) * x + claim.delta) for x in xs]
        label = f"{claim.kind.value} claim: P = $e^{{{fmt(claim.epsilon)}}}$ Q + {fmt(claim.delta)}"
        ax.plot(xs, ys, linestyle=style, color="black", linewidth=1.2, label=label)
    if math.isfinite(r.epsilon_lower_bound):
        ys = [min(1.0, math.exp(r.epsilon_lower_bound) * x + r.claim.delta) for x in xs]
        ax.plot(
            xs,
            ys,
            linestyle=":",
            color="gray",
            linewidth=1.0,
            label=f"certified ε = {fmt(r.epsilon_lower_bound)}",
        )
    ax.plot(xs, xs, color="lightgray", linewidth=0.8, label="P = Q")
    for p, (cq, cp), (eq, ep) in zip(r.pairs, corners, estimates, strict=True):
        colour = "#cf222e" if p.violation else "#0969da"
        x0, y0 = clip(cq), clip(cp)
        x1, y1 = clip(min(eq, cq)), clip(max(ep, cp))
        ax.add_patch(
            Rectangle(
                (x1, y0), x0 - x1, y1 - y0, facecolor=colour, alpha=0.25, edgecolor=colour, linewidth=1.2
            )
        )
        marker = "^" if p.estimate.infinite_witness else "o"
        ax.plot([x0], [y0], marker=marker, color=colour, markersize=6, linestyle="none")
        ax.annotate(
            str(p.index + 1), (x0, y0), textcoords="offset points", xytext=(5, -10), fontsize=8, color=colour
        )
    ax.set_xlim(lo, 1.0)
    ax.set_ylim(lo, 1.0)
    ax.set_xlabel("Q: probability of the event on the other side (upper bound)")
    ax.set_ylabel("P: probability of the event on the likelier side (lower bound)")
    ax.set_title(f"{r.mechanism}: {VERDICT_HEADLINE[r.verdict]}", fontsize=10)
    ax.grid(True, which="major", linewidth=0.4, alpha=0.6)
    ax.legend(loc="lower right", fontsize=7, framealpha=0.9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def render_html(r: AuditResult) -> str:
    body = [
        '<header id="title">',
        f"<h1>dpaudit: <code>{_e(r.mechanism)}</code></h1>",
        f"<p>Empirical privacy audit of <code>{_e(r.mechanism)}</code> on {len(r.pairs)} neighbour "
        f"pair(s), dpaudit {_e(r.package_version)}.</p>",
        "</header>",
        *_verdict_section(r),
        *_list_section("findings", "Findings about the paper", r.findings),
        *_list_section("warnings", "Warnings", r.warnings),
        *_claims_section(r),
        *_pairs_section(r),
        *_figure_section(r),
        *_reproduce_section(r),
    ]
    return _page(f"dpaudit: {r.mechanism}", body)


def render_index_html(results: Sequence[AuditResult], links: Sequence[str]) -> str:
    """Index of a run: one row per mechanism, linked to its page (`links[i]` for `results[i]`)."""
    if len(results) != len(links):
        raise ValueError(f"got {len(results)} result(s) but {len(links)} link(s)")
    rows = []
    for r, link in zip(results, links, strict=True):
        verdict_cls = "violation" if r.violation else ""
        rows.append(
            f'<tr class="{verdict_cls}"><td><a href="{_e(link)}">{_e(r.mechanism)}</a></td>'
            f'<td class="num">{_e(fmt(r.claim.epsilon))}</td><td class="num">{_e(fmt(r.claim.delta))}</td>'
            f'<td class="num">{_e(fmt(r.epsilon_lower_bound))}</td>'
            f"<td>{_e(VERDICT_HEADLINE[r.verdict])}</td>"
            f'<td class="num">{r.elapsed_seconds:.1f}</td></tr>'
        )
    violations = sum(r.violation for r in results)
    headers = ["mechanism", "claim ε", "claim δ", "certified ε", "verdict", "seconds"]
    body = [
        "<h1>dpaudit run</h1>",
        f"<p>{len(results)} mechanism(s) audited; {violations} with a violation found. "
        f"{_e(LOWER_BOUND_NOTE)}</p>",
        '<section id="index">',
        _table(headers, rows, "index"),
        "</section>",
    ]
    return _page("dpaudit run", body)
