"""Exceptions declared as outputs: one fixed-width row per run, whether the run raised or returned.

A library function that raises on one dataset and returns on its neighbour (scikit-learn's
"This solver needs samples of at least 2 classes", raised by diffprivlib's LogisticRegression on
one-class data) has a data-dependent branch: the exception *is* what the adversary observes. With
`exceptions=(ValueError, ...)` an adapter declares that a raise of one of those types is an output
of its own; any other exception stays "the mechanism failed" (exit 2).

Encoding (one row per run, the same width on every dataset, so no width witness can arise from it):

    [code, size, v_0, ..., v_{W-1}]

`code` is 0 when the run returned and k + 1 when it raised `exceptions[k]` (the first declared type
it is an instance of); `size` is the number of values returned (0 when it raised); `v` are the first
W returned values (flattened, as float64), zero-padded to W = `payload_width`. The map from a run's
outcome to its row is one fixed function of the outcome alone (it depends on neither the dataset
nor the other runs), so the rows are post-processing of independent releases and every event on
them is certified as usual ((ε, δ)-DP is closed under post-processing: Dwork & Roth, "The
Algorithmic Foundations of Differential Privacy", Proposition 2.1). A run whose values do not fit
in W is truncated, which is post-processing too: it can only hide a difference, never invent one;
`size` still records how many values there were. Why not a row of variable width: the engine's
width event is one indicator per *array* (`engine/output_width.py`), valid only when a dataset's
width is a function of the dataset; a width that depends on whether *this* call happened to
contain a raise would let a call of raises on D against a mixed call on D′ certify a width event
whose per-run frequency on D′ is not 0 — a false witness. A fixed width removes the question.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["DEFAULT_PAYLOAD_WIDTH", "check_exceptions", "encode_outcome", "outcome_text", "run_coded"]

DEFAULT_PAYLOAD_WIDTH = 64


def check_exceptions(exceptions: Sequence[Any], payload_width: int) -> tuple[type[BaseException], ...]:
    """The declared exception types, validated (classes deriving from Exception; W ≥ 1)."""
    types = tuple(exceptions)
    for t in types:
        if not (isinstance(t, type) and issubclass(t, Exception)):
            raise ValueError(f"exceptions must be Exception classes, got {t!r}")
    if payload_width < 1:
        raise ValueError("payload_width must be ≥ 1")
    return types


def encode_outcome(
    value: Any, raised: BaseException | None, exceptions: Sequence[type[BaseException]], width: int
) -> NDArray[np.float64]:
    """The row [code, size, payload…] of one run (see the module docstring)."""
    row = np.zeros(2 + width)
    if raised is not None:
        row[0] = 1 + next(k for k, t in enumerate(exceptions) if isinstance(raised, t))
        return row
    flat = np.asarray(value, dtype=np.float64).ravel()
    row[1] = flat.size
    row[2 : 2 + min(width, flat.size)] = flat[:width]
    return row


def run_coded(
    fn: Callable[[], Any], exceptions: tuple[type[BaseException], ...], width: int
) -> NDArray[np.float64]:
    """Call `fn()` once; a declared exception becomes its code, any other propagates."""
    try:
        value = fn()
    except exceptions as exc:
        return encode_outcome(None, exc, exceptions, width)
    return encode_outcome(value, None, exceptions, width)


def outcome_text(exceptions: Sequence[type[BaseException]], width: int) -> str:
    """In words, for reports: what the coded rows hold."""
    names = ", ".join(f"{k + 1} = raised {t.__name__}" for k, t in enumerate(exceptions))
    return f"each release is coded [outcome, size, first {width} values]: outcome 0 = returned, {names}"
