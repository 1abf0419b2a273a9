"""The console summary of a one-run or score-file result (`dpaudit one-run`, `dpaudit scores`, and
one-run audits in `dpaudit gate`): verdict, claim, certified ε with its ceiling, the design, the
f-DP test's line, and a note when the design cannot refute the claim."""

from __future__ import annotations

from typing import Any

from dpaudit.engine.types import AuditResult
from dpaudit.reports.markdown import fmt

from .summary import console_verdict


def summary(r: AuditResult) -> str:
    verdict = console_verdict(r, stated=r.claim)
    c = r.claim
    design = r.extra.get("one_run")
    eps = r.epsilon_lower_bound
    shown = fmt(eps) if eps > 0 else "0 (no evidence of privacy loss)"
    lines = [
        f"{r.mechanism}: {verdict}",
        f"  {c.kind.value} claim ε={fmt(c.epsilon_at(c.delta))} δ={fmt(c.delta)} ({c.relation.value}; "
        f"{c.reference})",
        f"  certified ε ≥ {shown}, ceiling {fmt(r.epsilon_ceiling)} (the most any outcome of this design "
        f"could certify), confidence {1 - r.failure_probability:g}",
    ]
    if isinstance(design, dict):
        lines.append(
            f"  {design['m']} canaries ({design['included']} included): best design k₊={design['k_plus']}, "
            f"k₋={design['k_minus']}, {design['correct']}/{design['guesses']} guesses right; "
            f"{design['choice_of_k']}"
        )
        fdp = design.get("fdp")
        if isinstance(fdp, dict):
            lines.append(_fdp_line(fdp, r.failure_probability))
    else:
        e = r.pairs[0].estimate
        lines.append(
            f"  {r.pairs[0].description}: event {e.event} ({e.direction}), "
            f"{e.p_count}/{e.p_total} vs {e.q_count}/{e.q_total}"
        )
    fdp = design.get("fdp") if isinstance(design, dict) else None
    refutable = isinstance(fdp, dict) and bool(fdp["claim_refutable"])
    if r.epsilon_ceiling <= c.epsilon_at(c.delta) and not refutable:
        lines.append("  note: the ceiling is not above the claim: this design cannot refute it (no power)")
    lines += [f"  finding: {f}" for f in r.findings]
    return "\n".join(lines)


def _fdp_line(fdp: dict[str, Any], failure_probability: float) -> str:
    """The f-DP test in one line: the claim's verdict, the certified ε̂ ((ε, δ) family), the μ-GDP
    claims it refutes, and ε(μ̂) at δ, which is an estimate under the unchecked assumption that the
    mechanism is GDP (never called certified: ARCHITECTURE.md, "Glossary"). The p-value (smallest
    per-design tail bound ×N, N designs of the union) is compared with the level the test ran at:
    β, or β/2 when it shared β with SNJ (`--method both`)."""
    verdict = "REJECTED" if fdp["claim_rejected"] else "not rejected"
    implied = fdp["epsilon_from_mu"]
    mu = fdp["mu_lower_bound"]
    refuted = f"; μ-GDP refuted for every μ ≤ {fmt(mu)}" if mu > 0 else ""
    estimate = f"; GDP estimate ε ≈ {fmt(implied)} at δ (assumes GDP; not certified)" if implied else ""
    level = float(fdp["failure_probability"])
    against = "β" if level == failure_probability else f"β/{failure_probability / level:.3g}"
    return (
        f"  f-DP test (Mahloujifar, Melis & Chaudhuri): claimed {fdp['claim_tradeoff']} {verdict} "
        f"(p ≤ {fdp.get('claim_tail_bound_adjusted', fdp['claim_tail_bound']):.3g} over the "
        f"{fdp.get('union_designs', len(fdp['designs'])):,} designs, against {against} = {level:.3g}, "
        f"the level it ran at); certified ε ≥ {fmt(fdp['epsilon_lower_bound'])} "
        f"at δ={fmt(fdp['delta'])} (ceiling {fmt(fdp['epsilon_ceiling'])}){refuted}{estimate}"
    )
