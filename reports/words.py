"""Words for what was proved, the same in every format (ARCHITECTURE.md, "Glossary").

A white-box value is "exact" only when the oracle computed the pair's ε; an oracle that returns an
upper bound (`exact_epsilon_method` "upper bound: …") is an analytic upper bound, shown "≤ x".

An event never seen on its Q side certifies a *finite* ε ≥ ln(p̂/q̂) (q̂ the Clopper–Pearson upper
bound 1 − (β/2)^(1/n) at a count of 0): it is a one-sided witness, not an "infinite" privacy loss.
"""

from __future__ import annotations

from dpaudit.engine.types import EpsilonEstimate, PairResult
from dpaudit.reports.comparisons import is_upper_bound
from dpaudit.reports.numbers import fmt


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
