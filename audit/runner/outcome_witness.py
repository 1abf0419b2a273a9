"""A witness on the outcome column of coded rows, said as what it is.

A mechanism with declared `exceptions` or `no_answer` (`mechanisms/outcomes.py`) releases rows
[outcome, size, payload…]. An event chosen on the outcome column alone (a threshold on column 0,
or a set of rows that all did not return an answer) is "the run raised ValueError" or "the run
gave no answer"; its generic text (`x ∈ {(1,0,0,…)}`) hides that. `outcome_witness` rewrites it,
with the certified counts: "raised ValueError: <first message on D> on D in 150 of 150, never on
D′". A threshold on the size column alone is "the release has ≥ t values" (a release of
varying length, `variable_length=True`). Only the text changes: the event, its counts and its
certificate are the ones certified.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from ...mechanisms.outcomes import NO_ANSWER, OutcomeCoding, OutcomeLog
from ...neighbors.base import Dataset, NeighborPair
from ..events import Event, SetEvent, ThresholdEvent
from ..types import EpsilonEstimate

__all__ = ["outcome_codes", "outcome_witness", "size_text", "with_outcome_text"]


def outcome_codes(event: Event, coding: OutcomeCoding) -> tuple[int, ...] | None:
    """The outcome codes an event on the outcome column covers, or None when it reads more than
    that column (a payload value, a projection) or covers an ordinary return only."""
    every = (0, *coding.codes())
    if isinstance(event, ThresholdEvent):
        if event.projection is not None or event.coordinate not in (None, 0):
            return None
        codes = tuple(c for c in every if (c >= event.threshold if event.upper else c <= event.threshold))
    elif isinstance(event, SetEvent):
        if not event.values or any(v[0] == 0 for v in event.values):
            return None
        codes = tuple(sorted({int(v[0]) for v in event.values}))
    else:
        return None
    return codes or None


def size_text(event: Event) -> str | None:
    """ "the release has ≥ t values" for a threshold on the size column (1) alone, "the release is
    empty" for the set of the empty release's row alone, else None."""
    if isinstance(event, SetEvent):
        empty = len(event.values) == 1 and not any(event.values[0])
        return "the release is empty" if empty else None
    if not isinstance(event, ThresholdEvent) or event.projection is not None or event.coordinate != 1:
        return None
    bound = math.ceil(event.threshold) if event.upper else math.floor(event.threshold)
    return f"the release has {'≥' if event.upper else '≤'} {bound:,} values"


def _side(key: str, codes: Sequence[int], coding: OutcomeCoding, log: OutcomeLog) -> str:
    parts = []
    for c in codes:
        said = log.message(key, c) if c != 0 else None
        if c == NO_ANSWER:
            parts.append(coding.names(c) + (f" ({said})" if said else ""))
        else:
            parts.append(coding.names(c) + (f": {said}" if said else ""))
    return " or ".join(parts)


def _names(codes: Sequence[int], coding: OutcomeCoding) -> str:
    return " or ".join(coding.names(c) for c in codes)


def outcome_witness(
    event: Event, coding: OutcomeCoding, log: OutcomeLog, pair: NeighborPair, estimate: EpsilonEstimate
) -> str | None:
    """The witness text of an outcome event (module docstring), or None for any other event."""
    codes = outcome_codes(event, coding)
    p_is_d = estimate.direction == "dataset>neighbor"
    p_name, q_name = ("D", "D′") if p_is_d else ("D′", "D")
    if codes is None:
        size = None if coding.codes() else size_text(event)  # a raise's row has size 0 too
        if size is None:
            return None
        counts = f"on {q_name} in {estimate.q_count:,} of {estimate.q_total:,}"
        never = estimate.q_count == 0
        return f"{size} on {p_name} in {estimate.p_count:,} of {estimate.p_total:,}, " + (
            f"never on {q_name}" if never else counts
        )
    p_set: Dataset = pair.dataset if p_is_d else pair.neighbor
    q_set: Dataset = pair.neighbor if p_is_d else pair.dataset
    said_p = _side(p_set.key(), codes, coding, log)
    text = f"{said_p} on {p_name} in {estimate.p_count:,} of {estimate.p_total:,}"
    if estimate.q_count == 0:
        return f"{text}, never on {q_name}"
    said_q = _side(q_set.key(), codes, coding, log)
    other = "" if said_q == said_p else f" ({said_q})"
    return f"{text}, on {q_name} in {estimate.q_count:,} of {estimate.q_total:,}{other}"


def with_outcome_text(
    mechanism: Any, event: Event, pair: NeighborPair, estimate: EpsilonEstimate
) -> EpsilonEstimate:
    """`estimate` with its event text rewritten when `mechanism` codes its outcomes and the event
    is an outcome event; else `estimate` itself."""
    coding = getattr(mechanism, "outcome_coding", None)
    log = getattr(mechanism, "outcome_log", None)
    if not isinstance(coding, OutcomeCoding) or not isinstance(log, OutcomeLog):
        return estimate
    text = outcome_witness(event, coding, log, pair, estimate)
    return estimate if text is None else dataclasses.replace(estimate, event=text)
