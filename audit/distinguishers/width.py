"""Outputs whose width depends on the data: the event {the output has w columns}.

A mechanism may release arrays of a width that depends on its input (a per-record release under
add/remove returns one column per record; a branch on the data may return a scalar on D and a
pair on D′). Every output is a point of the disjoint union of the spaces R^w, so
W_w = {the output has w columns} is a measurable set like any other, and for an (ε, δ)-DP
mechanism P[M(D) ∈ W_w] ≤ e^ε P[M(D′) ∈ W_w] + δ. When the two sides of a pair's selection split
have different widths, the only event worth certifying is W_w for the dataset side's width (the
neighbour side's is its complement here): it has selection frequency 1 on one side and 0 on the
other, the largest separation any event can have, and no other distinguisher can even compare
rows of different widths. `for_outputs` therefore hands `choose_events` and the search's pilot
`WidthDistinguisher` alone for such a split.

Soundness. The width event is chosen on the selection split (or a search's pilot samples) and
certified on the certification split like every other event, so its bound is the usual
Clopper–Pearson bound, here the infinite-witness bound ln(p_lo/(1 − (β/2)^(1/n))) when the counts
are n and 0. The counts are per row, which rests on the contract every certificate rests on
(sample()'s rows are independent outputs); the audit session (`sampling._same_signature`) also
refuses, with exit 2, a mechanism whose outputs on one dataset change shape between calls, so a
width that is not a deterministic function of the dataset ends the audit instead of being
certified. Widths are compared after `as_rows` (outputs flattened to float64 rows): (n,) and
(n, 1) are the same width, and a dtype alone is no witness (values are compared as float64).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..events import Array, Event, event_type
from .base import Candidates, Distinguisher
from .registry import CHEAP, distinguisher

__all__ = ["WidthDistinguisher", "WidthEvent", "columns", "for_outputs", "width_of", "width_text"]


def width_of(outputs: Array) -> int:
    """Columns of `outputs` once flattened to rows (`as_rows`): 1 for (n,), w for (n, w)."""
    return int(np.prod(np.shape(outputs)[1:], dtype=np.int64))


def columns(width: int) -> str:
    return f"{width} column" + ("" if width == 1 else "s")


def width_text(on_dataset: int, on_neighbor: int) -> str:
    """'the output has 1 column on D and 2 on D′'."""
    return f"the output has {columns(on_dataset)} on D and {on_neighbor} on D′"


@event_type("width")
@dataclass(frozen=True, slots=True)
class WidthEvent:
    """{the output has `width` columns}; `on_dataset` / `on_neighbor` are the widths the selection
    split saw on each side (for the description only; they do not enter the indicator)."""

    width: int
    on_dataset: int = -1
    on_neighbor: int = -1

    def indicator(self, outputs: Array) -> NDArray[np.bool_]:
        return np.full(np.shape(outputs)[0], width_of(outputs) == self.width, dtype=bool)

    def to_spec(self) -> dict[str, Any]:
        return {
            "type": "width",
            "width": self.width,
            "on_dataset": self.on_dataset,
            "on_neighbor": self.on_neighbor,
        }

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> WidthEvent:
        return cls(
            width=int(spec["width"]),
            on_dataset=int(spec.get("on_dataset", -1)),
            on_neighbor=int(spec.get("on_neighbor", -1)),
        )

    def describe(self) -> str:
        what = f"output has {columns(self.width)}"
        if min(self.on_dataset, self.on_neighbor) < 0:
            return what
        return f"{what} ({width_text(self.on_dataset, self.on_neighbor)})"


@distinguisher(cost=CHEAP, event_types=("width",))  # alone, for a split of two widths: `for_outputs`
@dataclass(frozen=True, slots=True)
class WidthDistinguisher:
    """The width event of the dataset side's width, with selection counts (n_a, 0), for a split
    whose sides differ in width; None when both sides have the same width. (The neighbour side's
    width event is its complement on these outputs: proposing it too would only make the adaptive
    top-k certify the same witness twice at half the level each.)"""

    name: str = "output width"

    def propose(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Candidates | None:
        wa, wb = width_of(a), width_of(b)
        if wa == wb:
            return None
        event = WidthEvent(wa, wa, wb)

        def make(i: int) -> Event:
            return event

        return Candidates(np.array([a.shape[0]], dtype=float), np.array([0.0]), make)


def for_outputs(
    distinguishers: Sequence[Distinguisher], a: NDArray[np.float64], b: NDArray[np.float64]
) -> Sequence[Distinguisher]:
    """`distinguishers`, or `WidthDistinguisher` alone when `a` and `b` (2-D rows of the two
    sides) differ in width: no other event compares rows of different widths."""
    return distinguishers if width_of(a) == width_of(b) else (WidthDistinguisher(),)
