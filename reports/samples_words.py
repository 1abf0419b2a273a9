"""What an audit drew, in words: the samples asked against those spent (the default route's first
round, the first of two search rounds, the pilot, the certification) and where a sequential audit
stopped. One sentence for the console summary (`dpaudit.app.summary`), the Markdown report and the
HTML report, so every format says the same (the figures are the result's own: `num_samples`,
`extra["first_round"]`, `extra["search_rounds"]`, `extra["search"]`, `extra["sequential"]`; the
procedures are in ARCHITECTURE.md, "Certificates that stop when decided" and "Selection in
rounds")."""

from __future__ import annotations

from dpaudit.engine.types import AuditResult, Verdict


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
    head = f"a first search round (a budget of {int(rounds['cap']):,} per side and pair)"
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
        planned, certified = int(search["certification_samples"]), _certified(r)
        pilot = int(search["total_samples"]) - planned * pairs
        cap = f" (a cap of {planned:,})" if certified != planned else ""
        return (
            f"{asked}; {certified:,} per side spent certifying {each}{cap}, {pilot:,} on the pilot "
            f"(selection included); {search_drawn(r):,} per side in all"
        )
    return (
        f"{asked}; {r.selection_samples + r.certification_samples:,} per side spent on {each} "
        f"({r.selection_samples:,} choosing the event, {r.certification_samples:,} certifying it)"
    )


def search_drawn(r: AuditResult) -> int:
    """Samples per side an audit drew in all: with a search (`extra["search"]`), its pilot and
    selection top-up plus each certified pair's certification (`_certified`); otherwise each
    pair's selection and certification."""
    search = r.extra.get("search")
    if not (isinstance(search, dict) and "total_samples" in search):
        return (r.selection_samples + r.certification_samples) * len(r.pairs)
    unspent = int(search["certification_samples"]) - _certified(r)
    return int(search["total_samples"]) - unspent * len(r.pairs)


def _certified(r: AuditResult) -> int:
    """A search's certification per certified pair: where a sequential certification stopped
    (`extra["sequential"]`; the search records the cap it planned), else the planned size."""
    if isinstance(r.extra.get("sequential"), dict):
        return r.certification_samples
    search = r.extra["search"]
    assert isinstance(search, dict)
    return int(search["certification_samples"])


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


__all__ = ["samples_sentence", "search_drawn", "sequential_lines"]
