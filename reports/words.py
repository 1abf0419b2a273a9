"""Words for what was proved, the same in every format (ARCHITECTURE.md, "Glossary").

A white-box value is "exact" only when the oracle computed the pair's ε; an oracle that returns an
upper bound (`exact_epsilon_method` "upper bound: …") is an analytic upper bound, shown "≤ x".

An event never seen on its Q side certifies a *finite* ε ≥ ln(p̂/q̂) (q̂ the Clopper–Pearson upper
bound 1 − (β/2)^(1/n) at a count of 0): it is a one-sided witness, not an "infinite" privacy loss.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpaudit.engine.types import AuditResult, EpsilonEstimate, PairResult

from .comparisons import is_upper_bound
from .numbers import fmt


def q_side(e: EpsilonEstimate) -> str:
    """The dataset on which the event is less likely: D′ when it is likelier on D, else D."""
    return "D" if e.direction == "neighbor>dataset" else "D′"


def witness_words(e: EpsilonEstimate) -> str:
    """ "one-sided witness (0 of N on D′)" for an event never seen on its Q side, else ""."""
    if not e.infinite_witness:
        return ""
    return f"one-sided witness (0 of {e.q_total:,} on {q_side(e)})"


def white_box_value(p: PairResult) -> str:
    """A pair's white-box ε as tables show it: "x" when exact, "≤ x" for an analytic upper bound,
    "-" without an oracle value."""
    if p.exact_epsilon is None:
        return "-"
    return f"≤ {fmt(p.exact_epsilon)}" if is_upper_bound(p) else fmt(p.exact_epsilon)


SHOWN_WITNESSES = 3
"""Violating pairs whose witness the console and the HTML verdict box show (the strongest)."""


@dataclass(frozen=True, slots=True)
class Witness:
    """A violating pair's certified event, its counts oriented so that D is the pair's dataset."""

    pair: PairResult
    on_d: bool
    """The event is the likelier on D (direction dataset>neighbor)."""
    on_dataset: tuple[int, int]
    on_neighbor: tuple[int, int]

    def counts(self) -> str:
        """ "k/n on D (f) vs k′/n′ on D′ (f′)", as every format prints it."""
        (kd, nd), (kn, nn) = self.on_dataset, self.on_neighbor
        return f"{kd:,}/{nd:,} on D ({_freq(kd, nd)}) vs {kn:,}/{nn:,} on D′ ({_freq(kn, nn)})"

    @property
    def counted(self) -> bool:
        """The event's text already says its certified counts (an outcome witness, "raised
        ValueError: … on D in 150 of 150, never on D′"): a line must not repeat them."""
        e = self.pair.estimate
        return f"in {e.p_count:,} of {e.p_total:,}" in e.event


def violating_pairs(r: AuditResult) -> list[PairResult]:
    """The violating pairs, strongest certified ε first."""
    return sorted((p for p in r.pairs if p.violation), key=lambda p: -p.estimate.epsilon_lower_bound)


def witnesses(r: AuditResult) -> list[Witness]:
    """The strongest `SHOWN_WITNESSES` violating pairs' witnesses."""
    out = []
    for p in violating_pairs(r)[:SHOWN_WITNESSES]:
        e = p.estimate
        on_d = e.direction != "neighbor>dataset"
        sides = ((e.p_count, e.p_total), (e.q_count, e.q_total))[:: 1 if on_d else -1]
        out.append(Witness(pair=p, on_d=on_d, on_dataset=sides[0], on_neighbor=sides[1]))
    return out


def _freq(k: int, n: int) -> str:
    return fmt(k / n) if n else "-"
