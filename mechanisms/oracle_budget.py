"""A deterministic work budget for white-box oracles (`exact_epsilon`).

An oracle whose cost grows with the pair (a path enumeration, a per-path likelihood over every
hypothesis and noise value) counts its work with `charge(unit, amount)` before doing it. Inside
`enforced()` (the engine's white-box reference, `audit/whitebox.py`) a charge that takes the total
over the unit's limit raises `OracleBudgetExceeded`, a `NotImplementedError` whose message is the
reason the report shows ("oracle over its work budget: …"). Outside it (tests, benchmarks, the
cache builder) charges are free and the oracle always finishes.

The limit is counted in operations, never in seconds, so whether an oracle is evaluated depends
on the pair alone, not on the machine or its load: a result reproduces bit for bit from its seed.
The limits are set so that an oracle at its limit runs for a few seconds of one core (measured
with `benchmarks/whitebox_cache.py --time`); registered pairs are read from the shipped cache
(`mechanisms/whitebox_cache.json`) and never reach them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field

LIMITS: Mapping[str, float] = {
    # geometric SetCover oracles (`scl.privacy_loss`): paths × hypothesis groups × noise values
    # summed out, over every step and both directions
    "softmax terms": 5e7,
    # private decision lists (`rivest.output_distribution`): nodes of the list-path recursion
    "list paths": 2e5,
}
"""Per unit, the most an oracle may spend inside `enforced()`."""


class OracleBudgetExceeded(NotImplementedError):
    """The oracle declined: its work would exceed the budget (the message says which)."""


@dataclass(slots=True)
class _Meter:
    limits: Mapping[str, float]
    spent: dict[str, float] = field(default_factory=dict)


_CURRENT: ContextVar[_Meter | None] = ContextVar("dpaudit_oracle_budget", default=None)


@contextlib.contextmanager
def enforced(scale: float = 1.0) -> Iterator[Mapping[str, float]]:
    """Within the block, oracles decline once their work exceeds `scale` × `LIMITS` (the meter
    starts at zero). Yields the work spent so far per unit (read it after the block; `scale`
    = ∞ only measures)."""
    meter = _Meter({unit: limit * scale for unit, limit in LIMITS.items()})
    token = _CURRENT.set(meter)
    try:
        yield meter.spent
    finally:
        _CURRENT.reset(token)


def charge(unit: str, amount: float) -> None:
    """Count `amount` of `unit` about to be spent; raise `OracleBudgetExceeded` when the total
    would pass the unit's limit (only inside `enforced()`)."""
    meter = _CURRENT.get()
    if meter is None:
        return
    limit = meter.limits[unit]
    total = meter.spent.get(unit, 0.0) + float(amount)
    meter.spent[unit] = total
    if total > limit:
        raise OracleBudgetExceeded(
            f"oracle over its work budget ({limit:.3g} {unit}; the dpaudit oracle budget counts "
            "operations, not seconds): not evaluated"
        )
