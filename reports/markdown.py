"""Markdown audit report (fits a pull-request comment). Renders a result; computes nothing."""

from __future__ import annotations

import math
from collections.abc import Sequence

from audit.types import AuditResult

VERDICT_TEXT = {
    "violation_found": "**VIOLATION FOUND**: the certified lower bound exceeds the claim",
    "no_violation_found": "**No violation found at this power** (a lower bound below the claim proves "
    "nothing more)",
}


def fmt(x: float, digits: int = 4) -> str:
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    if abs(x) < 1e-3:
        return f"{x:.3g}"
    return f"{x:.{digits}g}"


def render_markdown(r: AuditResult) -> str:
    lines = [
        f"# dpaudit: `{r.mechanism}`",
        "",
        VERDICT_TEXT[r.verdict.value] + ".",
        "",
        f"- Claim (decides the verdict): ε = {fmt(r.claim.epsilon)}, δ = {fmt(r.claim.delta)}, "
        f"{r.claim.relation.value} — {r.claim.reference}",
        f"- Certified ε lower bound: **{fmt(r.epsilon_lower_bound)}**; certified δ lower bound at the "
        f"claimed ε: {fmt(r.delta_lower_bound)}",
        f"- Confidence: every bound below holds simultaneously with probability ≥ "
        f"{1 - r.failure_probability:g} (per-test failure probability {fmt(r.per_test_failure_probability)}"
        f" over {len(r.pairs)} pair(s))",
        f"- Samples per side and pair: {r.num_samples:,} ({r.selection_samples:,} selection + "
        f"{r.certification_samples:,} certification); largest certifiable ε at this budget: "
        f"{fmt(r.epsilon_ceiling)}",
        f"- Seed {r.seed}; dpaudit {r.package_version}; {r.elapsed_seconds:.1f} s",
    ]
    if r.command:
        lines += ["", "Reproduce:", "", f"    {r.command}"]
    lines += ["", "## Claims", "", "| kind | ε | δ | relation | reference | certified ε | exceeded |"]
    lines += ["|---|---|---|---|---|---|---|"]
    for c in r.claims:
        lines.append(
            f"| {c.claim.kind.value} | {fmt(c.claim.epsilon)} | {fmt(c.claim.delta)} | "
            f"{c.claim.relation.value} | {c.claim.reference} | {fmt(c.epsilon_lower_bound)} | "
            f"{'yes' if c.exceeded else 'no'} |"
        )
    lines += ["", "## Pairs", ""]
    lines += ["| # | pair | relation | event | direction | P (lo) | Q (hi) | certified ε | δ at claim |"]
    lines += ["|---|---|---|---|---|---|---|---|---|"]
    for p in r.pairs:
        e = p.estimate
        witness = " (infinite witness)" if e.infinite_witness else ""
        lines.append(
            f"| {p.index + 1} | {p.description}{' **violation**' if p.violation else ''} | "
            f"{p.relation.value} | `{e.event}` ({e.distinguisher}) | {e.direction} | "
            f"{e.p_count:,}/{e.p_total:,} ({fmt(e.p_lower)}) | {e.q_count:,}/{e.q_total:,} "
            f"({fmt(e.q_upper)}) | {fmt(e.epsilon_lower_bound)}{witness} | {fmt(e.delta_lower_bound)} |"
        )
    if r.profile:
        lines += ["", "## Privacy profile (certified, same confidence as above)", ""]
        lines += ["| test | certified value | pair | event |", "|---|---|---|---|"]
        for pt in r.profile:
            lines.append(f"| {pt.label} | {fmt(pt.value)} | {pt.pair_index + 1} | `{pt.estimate.event}` |")
    lines += _section("Findings about the paper", r.findings)
    lines += _section("Warnings", r.warnings)
    return "\n".join(lines) + "\n"


def _section(title: str, items: Sequence[str]) -> list[str]:
    if not items:
        return []
    return ["", f"## {title}", "", *[f"- {x}" for x in items]]


def render_index_markdown(results: Sequence[AuditResult]) -> str:
    lines = [
        "# dpaudit run",
        "",
        "| mechanism | claim ε | claim δ | certified ε | verdict | seconds |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| [{r.mechanism}]({r.mechanism}.md) | {fmt(r.claim.epsilon)} | {fmt(r.claim.delta)} | "
            f"{fmt(r.epsilon_lower_bound)} | {r.verdict.value.replace('_', ' ')} | {r.elapsed_seconds:.1f} |"
        )
    return "\n".join(lines) + "\n"
