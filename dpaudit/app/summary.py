"""The console summary of a `run` result (`dpaudit run`, mechanism audits in `dpaudit gate`): the
verdict, the claim, the certified bounds, the other proved claims refuted and the witnesses.

A printed ε bound is the engine's certified lower bound: valid with probability ≥ 1 − β (β the
failure probability); a bound ≤ 0 is worded as no evidence of privacy loss. The verdict's words
are the reports' (`reports.markdown.verdict_words`), so the console says what the files say.
"""

from __future__ import annotations

from dpaudit.engine.types import AuditResult, PairResult, Verdict
from dpaudit.mechanisms.base import ClaimKind, PrivacyClaim
from dpaudit.reports.markdown import decided_by_stated, fmt, stated_verdict_words, weakened
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


def samples_sentence(r: AuditResult) -> str:
    """`_samples_sentence`, with the default route's first round (`route.FIRST_SHARE`) and the
    first search round (`route.SEARCH_FIRST`) where a sequential audit had them: what each drew,
    and whether it decided."""
    asked, rest = _samples_sentence(r).split("; ", 1)
    rest = _search_round(r, rest)
    rounds, first = r.extra.get("search_rounds"), r.extra.get("first_round")
    if not isinstance(first, dict):
        whole = f"{int(rounds['asked']):,} asked" if isinstance(rounds, dict) else asked
        return f"{whole}; {rest}"
    where = "templates" if first["pairs"] == "templates" else "registered pairs"
    total, cap = int(first["asked"]), int(first["cap"])
    if first["verdict"] == Verdict.VIOLATION_FOUND.value:
        return (
            f"{total:,} asked; a first round on the {where} (a cap of {cap:,} per side and pair) decided: "
            + rest
        )
    return (
        f"{total:,} asked; a first round on the {where} drew {int(first['drawn']):,} per side in all "
        f"({first['verdict'].replace('_', ' ')}), then on the rest: {rest}"
    )


def _search_round(r: AuditResult, rest: str) -> str:
    """`rest` (what the search drew) after the first search round where there was one."""
    rounds = r.extra.get("search_rounds")
    if not isinstance(rounds, dict):
        return rest
    head = f"a first search round (a cap of {int(rounds['cap']):,} per side and pair)"
    if rounds["decided"]:
        why = "a violation" if r.violation else "its events could not reach one on the second's budget"
        return f"{head} decided ({why}); in it: {rest}"
    verdict = str(rounds["verdict"]).replace("_", " ")
    drawn = int(rounds["drawn"])
    return f"{head} drew {drawn:,} per side in all ({verdict}), then a second on the rest: {rest}"


def _samples_sentence(r: AuditResult) -> str:
    """Samples asked vs spent, in one sentence: "20,000 asked; 18,000 per side spent certifying
    each of 2 pairs, 7,000 on the pilot (selection included); 43,000 per side in all". Without a
    search (registered pairs), each pair spends what was asked, split into choosing its event and
    certifying it. A sequential audit was asked its selection plus the certification cap; one with
    selection in rounds (`runner_rounds`) the cap, and says what its rounds drew in all."""
    seq, search = r.extra.get("sequential"), r.extra.get("search")
    if isinstance(seq, dict) and "drawn" in seq:  # selection in rounds: the cap bounds everything
        return (
            f"{int(seq['asked']):,} asked; {int(seq['drawn']):,} per side drawn on {_each(len(r.pairs))} "
            f"in {len(seq['rounds'])} round(s) of selection and certification"
        )
    if isinstance(search, dict) and "asked" in search:  # a search's certified stage has its own n
        asked = f"{int(search['asked']):,} asked"
    else:
        asked = f"{r.selection_samples + int(seq['cap']) if isinstance(seq, dict) else r.num_samples:,} asked"
    pairs = len(r.pairs)
    each = _each(pairs)
    if isinstance(search, dict) and "total_samples" in search:
        certified = int(search["certification_samples"])
        total = int(search["total_samples"])
        pilot = total - certified * pairs
        return (
            f"{asked}; {certified:,} per side spent certifying {each}, {pilot:,} on the pilot "
            f"(selection included); {total:,} per side in all"
        )
    return (
        f"{asked}; {r.selection_samples + r.certification_samples:,} per side spent on {each} "
        f"({r.selection_samples:,} choosing the event, {r.certification_samples:,} certifying it)"
    )


def _each(pairs: int) -> str:
    return "the pair" if pairs == 1 else f"each of {pairs} pairs"


def sequential_lines(r: AuditResult) -> list[str]:
    """How a sequential audit (`AuditConfig.sequential`) stopped: its certification samples
    against the cap and why (empty for a fixed-n audit)."""
    seq = r.extra.get("sequential")
    if not isinstance(seq, dict):
        return []
    if "rounds" in seq:
        last = seq["rounds"][-1]
        return [
            f"sequential: round {int(seq['round']) + 1} (selection {int(last['selection']):,}) stopped at "
            f"{seq['stopped_at']:,} of {int(last['cap']):,} certification samples per side ({seq['reason']})"
        ]
    return [
        f"sequential: stopped at {seq['stopped_at']:,} of {seq['cap']:,} certification samples per "
        f"side ({seq['reason']})"
    ]


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
