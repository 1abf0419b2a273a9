"""White-box reference: the true ε of an audited pair, from the mechanism's own oracle.

A mechanism may expose `exact_epsilon(pair, delta=...)`: the pair's ε(δ) computed by exact
enumeration of its output law, or a numerically certified value. It may also set
`exact_epsilon_method` to say how (default "exact enumeration"); a value that is only an upper
bound on the pair's ε (e.g. a Gaussian-DP profile of the whole mechanism) says so there.

The reference is shown beside the certified lower bound so a reader can tell a learner far
inside its claim from a blind audit. It never enters the verdict: the verdict rests on the
certified bound alone (the black-box statistics of `audit.bounds`).

It never depends on the machine either: a registered pair's value is shipped with the registry
(`mechanisms/whitebox_cache.py`), and any other pair's oracle runs under a work budget counted in
operations (`mechanisms/oracle_budget.py`), not seconds, so a run under load writes the same JSON.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...mechanisms import oracle_budget
from ...mechanisms.base import Mechanism
from ...mechanisms.whitebox_cache import lookup, one_line
from ...neighbors.base import NeighborPair

DEFAULT_METHOD = "exact enumeration"
BUDGET_SCALE = 1.0
"""Scale on the oracles' work limits (`mechanisms/oracle_budget.py`, counted in operations, not
seconds: whether an oracle is evaluated depends on the pair alone, never on the machine's load)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WhiteBoxReference:
    """A pair's white-box ε at the audited δ (`epsilon` None: no oracle for this pair)."""

    epsilon: float | None
    method: str = ""
    note: str = ""
    """Why there is no value (the oracle's own one-line reason), empty when there is one."""


def white_box_reference(mechanism: Mechanism, pair: NeighborPair, *, delta: float) -> WhiteBoxReference:
    """The mechanism's oracle on `pair` at `delta`: the shipped value for a registered pair
    (`mechanisms/whitebox_cache.json`), else the oracle run under its deterministic work budget.
    An oracle that declines (`NotImplementedError`, its budget spent included), is absent, or
    fails for any other reason gives no value: a reference is descriptive and must never break
    or change an audit."""
    oracle = getattr(mechanism, "exact_epsilon", None)
    if not callable(oracle):
        return WhiteBoxReference(epsilon=None)
    shipped = lookup(mechanism, pair, delta)
    if shipped is not None and shipped.epsilon is None:
        return WhiteBoxReference(epsilon=None, note=shipped.note)
    value = None if shipped is None else shipped.epsilon
    if value is None:
        try:
            with oracle_budget.enforced(BUDGET_SCALE):
                value = float(oracle(pair, delta=delta))
        except NotImplementedError as exc:
            return WhiteBoxReference(epsilon=None, note=one_line(exc))
        except Exception as exc:  # a white-box helper never fails an audit
            return WhiteBoxReference(
                epsilon=None, note=f"oracle failed: {type(exc).__name__}: {one_line(exc)}"
            )
    if math.isnan(value):
        return WhiteBoxReference(epsilon=None, note="oracle returned NaN")
    method = str(getattr(mechanism, "exact_epsilon_method", DEFAULT_METHOD))
    return WhiteBoxReference(epsilon=max(value, 0.0), method=method)
