"""The worst-case pair search behind a result, parsed for the reports (`extra["search"]`, written
by `audit.search`). Renders nothing by itself; computes nothing.

- `search_record(result)`: every pair tried with its source, pilot rank, pilot estimate and
  pilot samples, the certified ones marked; None for a result of the registered route.
- `search_shown(record)`: the top `SEARCH_TOP` of them (plus any certified one further down) and
  a count of the rest, as the Markdown and HTML pages show them.
- `search_summary(record)`: one sentence on the budget, pilot, certification and candidates.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from dpaudit.engine.types import AuditResult

SEARCH_TOP = 20
"""Candidate pairs shown per mechanism page (certified ones further down are added)."""


class SearchCandidate(NamedTuple):
    """One pair a search tried, as recorded (pilot figures: ranking only, not certified)."""

    position: int
    description: str
    relation: str
    source: str
    rank: float | None
    pilot_epsilon: float | None
    pilot_samples: int | None
    certified: bool


class SearchRecord(NamedTuple):
    """`result.extra["search"]`, parsed: the search's budget figures and every pair it tried."""

    candidates: tuple[SearchCandidate, ...]
    tried: int
    budget: int | None
    pilot_samples: int | None
    certification_samples: int | None
    pilot_fraction: float | None
    halving_rounds: int | None
    skipped: int
    total_samples: int | None = None


def _num(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _int(value: Any) -> int | None:
    x = _num(value)
    return None if x is None or not math.isfinite(x) else int(x)


def search_record(r: AuditResult) -> SearchRecord | None:
    """The search recorded in `result.extra["search"]`; None when the result came from the
    registered pairs (or the record is malformed). A candidate is marked certified when its
    description is among the record's `certified_pairs`, else (older records) among the result's
    pairs."""
    rec = r.extra.get("search")
    if not isinstance(rec, dict) or not isinstance(rec.get("candidates"), list):
        return None
    names = rec.get("certified_pairs")
    certified = {str(x) for x in names} if isinstance(names, list) else {p.description for p in r.pairs}
    cands = []
    for i, c in enumerate(x for x in rec["candidates"] if isinstance(x, dict)):
        desc = str(c.get("description", "?"))
        cands.append(
            SearchCandidate(
                position=i + 1,
                description=desc,
                relation=str(c.get("relation", "?")),
                source=str(c.get("source", "?")),
                rank=_num(c.get("rank", c.get("score"))),  # legacy key "score" (before issue 43)
                pilot_epsilon=_num(c.get("pilot_epsilon_lower_bound")),
                pilot_samples=_int(c.get("pilot_samples")),
                certified=desc in certified,
            )
        )
    skipped = rec.get("skipped")
    return SearchRecord(
        candidates=tuple(cands),
        tried=_int(rec.get("candidates_tried")) or len(cands),
        budget=_int(rec.get("budget")),
        pilot_samples=_int(rec.get("pilot_samples")),
        certification_samples=_int(rec.get("certification_samples")),
        pilot_fraction=_num(rec.get("pilot_fraction")),
        halving_rounds=_int(rec.get("halving_rounds")),
        skipped=len(skipped) if isinstance(skipped, list) else 0,
        total_samples=_int(rec.get("total_samples")),
    )


def search_shown(record: SearchRecord, top: int = SEARCH_TOP) -> tuple[list[SearchCandidate], int]:
    """(candidates to list, how many are left out): the first `top` by rank plus every certified
    one below them."""
    shown = [c for c in record.candidates if c.position <= top or c.certified]
    return shown, len(record.candidates) - len(shown)


def search_summary(record: SearchRecord) -> str:
    """One sentence: budget, pilot, certification, candidates (shared with the HTML page)."""

    def n(x: int | None) -> str:
        return "?" if x is None else f"{x:,}"

    certified = sum(c.certified for c in record.candidates)
    frac = "" if record.pilot_fraction is None else f" (pilot fraction {record.pilot_fraction:g})"
    text = (
        f"A pilot search{frac} tried {record.tried:,} candidate pair(s) and certified {certified}: "
        f"total budget {n(record.budget)} samples per side, {n(record.pilot_samples)} spent by the pilot "
        f"(at seeds derived from, never equal to, the audit seed), {n(record.certification_samples)} "
        f"fresh certification samples per side per certified pair"
    )
    if record.halving_rounds:
        text += f"; {record.halving_rounds} round(s) of successive halving"
    if (
        record.total_samples is not None
        and record.budget is not None
        and record.total_samples > record.budget
    ):
        text += (
            f"; {record.total_samples:,} spent in all: only registered pairs were certified, so each kept "
            "the registered route's certification size and the pilot's exploration came on top"
        )
    if record.skipped:
        text += f"; {record.skipped} candidate(s) skipped (listed in the JSON)"
    return text + "."


SEARCH_NOTE = (
    "Pilot figures rank candidates only and certify nothing: the rank is the pilot's projected "
    "certified ε at the certification budget minus the claimed ε (cross-fitted on the pilot's two "
    "halves), the pilot ε a lax bound (failure probability 0.5) on one half. Only the certified pairs' "
    "bounds (Pairs) are certificates."
)
