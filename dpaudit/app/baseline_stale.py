"""Staleness: when a stored baseline can no longer inform the regression test, and the message.

A comparison of a stored event E is informative only if it can flag lo > hi with lo, hi the
one-sided Clopper–Pearson bounds of `baseline`: that needs the baseline's pair to still be a
valid neighbour pair in the current mechanism's domain (else E cannot be re-counted on it) and
finite bounds (hi = +∞ when E never occurred on the Q side, lo = −∞ when it no longer occurs on
the P side). Which stored events are comparable is decided here from the baseline and the
mechanism alone, before any sampling, so the Bonferroni count m_a of the test is fixed in advance.
"""

from __future__ import annotations

from dpaudit.app.baseline_format import BaselineAudit, BaselineEvent
from dpaudit.mechanisms.base import Mechanism
from dpaudit.neighbors.base import is_neighbor

STALE_PREFIX = "baseline no longer informative"
"""How every staleness line begins (`stale_message`); `stale_lines` picks them out of warnings."""


def stale_message(what: str, reason: str) -> str:
    return f"{STALE_PREFIX} for {what}: {reason}: re-run `dpaudit gate --update-baseline`"


def stale_lines(warnings: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The staleness lines among `warnings` (those made by `stale_message`)."""
    return tuple(w for w in warnings if w.startswith(STALE_PREFIX))


def comparable_events(mechanism: Mechanism, base: BaselineAudit) -> tuple[list[BaselineEvent], list[str]]:
    """Baseline events the current mechanism can be re-counted on (decided before any sampling)."""
    usable, warnings = [], [f"baseline: {s}; not compared" for s in base.skipped]
    for e in base.events:
        pair = e.pair
        reason = None if is_neighbor(pair) else f"not a {pair.relation.value} neighbour pair"
        for side in (pair.dataset, pair.neighbor):
            reason = reason or mechanism.domain.check(side)
        reason = reason or mechanism.domain.check_pair(pair)
        if reason is not None:
            warnings.append(
                stale_message(
                    f"pair {e.pair_index + 1} ({e.description})",
                    f"it no longer fits {mechanism.name!r} ({reason}); not compared",
                )
            )
            continue
        usable.append(e)
    return usable, warnings
