"""White-box reference: the true ε of an audited pair, from the mechanism's own oracle.

A mechanism may expose `exact_epsilon(pair, delta=...)`: the pair's ε(δ) computed by exact
enumeration of its output law, or a numerically certified value. It may also set
`exact_epsilon_method` to say how (default "exact enumeration"); a value that is only an upper
bound on the pair's ε (e.g. a Gaussian-DP profile of the whole mechanism) says so there.

The reference is shown beside the certified lower bound so a reader can tell a learner far
inside its claim from a blind audit. It never enters the verdict: the verdict rests on the
certified bound alone (the black-box statistics of `audit.bounds`).
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from dpaudit.mechanisms.base import Mechanism
from dpaudit.neighbors.base import NeighborPair

DEFAULT_METHOD = "exact enumeration"
ORACLE_SECONDS = 10.0
"""Wall-clock limit on one oracle call (enforced from the main thread; elsewhere unlimited): an
enumeration that grows with the pair's size must not stall the audit it only annotates."""


class _OracleTimeout(Exception):
    pass


@dataclass(frozen=True, slots=True, kw_only=True)
class WhiteBoxReference:
    """A pair's white-box ε at the audited δ (`epsilon` None: no oracle for this pair)."""

    epsilon: float | None
    method: str = ""
    note: str = ""
    """Why there is no value (the oracle's own one-line reason), empty when there is one."""


def white_box_reference(mechanism: Mechanism, pair: NeighborPair, *, delta: float) -> WhiteBoxReference:
    """The mechanism's oracle on `pair` at `delta`. An oracle that declines
    (`NotImplementedError`), is absent, or fails for any other reason gives no value: a
    reference is descriptive and must never break or change an audit."""
    oracle = getattr(mechanism, "exact_epsilon", None)
    if not callable(oracle):
        return WhiteBoxReference(epsilon=None)
    try:
        with _time_limit(ORACLE_SECONDS):
            value = float(oracle(pair, delta=delta))
    except _OracleTimeout:
        return WhiteBoxReference(epsilon=None, note=f"oracle took over {ORACLE_SECONDS:g} s: not evaluated")
    except NotImplementedError as exc:
        return WhiteBoxReference(epsilon=None, note=_one_line(exc))
    except Exception as exc:  # a white-box helper never fails an audit
        return WhiteBoxReference(epsilon=None, note=f"oracle failed: {type(exc).__name__}: {_one_line(exc)}")
    if math.isnan(value):
        return WhiteBoxReference(epsilon=None, note="oracle returned NaN")
    method = str(getattr(mechanism, "exact_epsilon_method", DEFAULT_METHOD))
    return WhiteBoxReference(epsilon=max(value, 0.0), method=method)


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise `_OracleTimeout` in the block after `seconds` (SIGALRM; a no-op off the main thread
    or where another alarm handler is installed)."""
    usable = (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
    )
    if not usable:
        yield
        return

    def fire(signum: int, frame: object) -> None:
        raise _OracleTimeout

    signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] or type(exc).__name__
