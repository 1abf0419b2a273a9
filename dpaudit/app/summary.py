"""The console summary of a `run` result (`dpaudit run`, mechanism audits in `dpaudit gate`): the
verdict, the claim, the certified bounds, the other proved claims refuted and the witnesses.

A printed ε bound is the engine's certified lower bound: valid with probability ≥ 1 − β (β the
failure probability); a bound ≤ 0 is worded as no evidence of privacy loss. The verdict's words
are the reports' (`reports.markdown.verdict_words`), so the console says what the files say.
"""

from __future__ import annotations

from dpaudit.engine.types import AuditResult, PairResult
from dpaudit.mechanisms.base import ClaimKind, PrivacyClaim
from dpaudit.reports.markdown import decided_by_stated, fmt, stated_verdict_words, weakened
from dpaudit.reports.samples_words import samples_sentence, sequential_lines
from dpaudit.reports.words import SHOWN_WITNESSES, violating_pairs, witnesses


def _eps_text(eps: float) -> str:
    """A lower bound ≤ 0 is valid but says nothing (ε ≥ 0 always): word it so."""
    return fmt(eps) if eps > 0 else f"0 (no evidence of privacy loss; raw bound {fmt(eps)})"


def console_verdict(r: AuditResult, *, stated: PrivacyClaim | None = None) -> str:
    """The verdict as the console words it (a run's and a one-run's summary): a violation that a
    STATED claim decided names that claim, `stated` or else the first violating pair's."""
    verdict = "VIOLATION FOUND" if r.violation else "no violation found at this power"
    if r.inconclusive:
        verdict = f"INCONCLUSIVE ({r.inconclusive_reason})"
    if decided_by_stated(r):
        claim = stated if stated is not None else next(p.claim for p in r.pairs if p.violation)
        verdict += f" ({stated_verdict_words(claim)})"
    return verdict


def summary(r: AuditResult) -> str:
    verdict = console_verdict(r)
    c = r.claim
    return (
        f"{r.mechanism}: {verdict}\n"
        f"  claim ε={fmt(c.epsilon)} δ={fmt(c.delta)} ({c.relation.value}; {c.reference})\n"
        f"  certified ε ≥ {_eps_text(r.epsilon_lower_bound)} "
        f"(δ ≥ {fmt(r.delta_lower_bound)} at the claimed ε), "
        f"confidence {1 - r.failure_probability:g}, {len(r.pairs)} pair(s), {r.elapsed_seconds:.1f} s\n"
        f"  samples: {samples_sentence(r)}"
        + "".join(f"\n  {line}" for line in _exceeded_lines(r))
        + "".join(f"\n  {line}" for line in sequential_lines(r))
        + "".join(f"\n  {line}" for line in witness_lines(r))
        + "".join(f"\n  finding: {f}" for f in r.findings)
        + "".join(f"\n  {w}" for w in weakened(r))
    )


def _exceeded_lines(r: AuditResult) -> list[str]:
    """One line per proved claim the audit refutes when it is not the headline claim above (a
    violation under another relation, e.g. replace-one, is named with its own claim)."""
    return [
        f"exceeds the proved claim ε={fmt(c.claim.epsilon)} δ={fmt(c.claim.delta)} "
        f"({c.claim.relation.value}): certified ε ≥ {_eps_text(c.epsilon_lower_bound)} on its pairs"
        for c in r.claims
        if c.exceeded and c.claim.kind is ClaimKind.PROVED and c.claim != r.claim
    ]


def witness_lines(r: AuditResult) -> list[str]:
    """What broke the claim, for each violating pair (the strongest `SHOWN_WITNESSES`): the pair in
    words and the certified event with its counts and frequencies on each dataset, as the Markdown
    report's pairs table has them (D = the pair's dataset, D′ = its neighbour)."""
    lines = []
    for w in witnesses(r):
        p, e = w.pair, w.pair.estimate
        never = ("; never on D′" if w.on_d else "; never on D") if e.infinite_witness else ""
        lines += [
            f"witness: {p.description}{_relation_words(p)}, certified ε ≥ {_eps_text(e.epsilon_lower_bound)}",
            f"  event {e.event} ({e.distinguisher})" + ("" if w.counted else f": {w.counts()}{never}"),
        ]
    more = len(violating_pairs(r)) - SHOWN_WITNESSES
    if more > 0:
        lines.append(f"… and {more} more violating pair(s) in the report")
    return lines


def _relation_words(p: PairResult) -> str:
    """ " (relation)" unless the description already says it (sweep pairs do)."""
    return "" if p.relation.value.replace("_", "-") in p.description else f" ({p.relation.value})"
