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
W returned values (flattened, as float64), zero-padded to W = `payload_width`. With `no_answer=True`
a run that returned None, or a value with a NaN in it, is "no answer": code −1 (`NO_ANSWER`), `size`
the number of values returned (0 for None), no payload — an outcome category like a raise, where
undeclared it is the mechanism failing (exit 2). The code −1 does not move the raise codes.
With `variable_length=True` every release is coded so, with nothing else declared: a release
whose length varies from call to call becomes [0, length, first W values].

The map from a run's outcome to its row is one fixed function of the outcome alone (it depends on
neither the dataset nor the other runs), so the rows are post-processing of independent releases
and every event on them is certified as usual ((ε, δ)-DP is closed under post-processing: Dwork & Roth, "The
Algorithmic Foundations of Differential Privacy", Proposition 2.1). A run whose values do not fit
in W is truncated, which is post-processing too: it can only hide a difference, never invent one;
`size` still records how many values there were. Why not a row of variable width: the engine's
width event is one indicator per *array* (`engine/output_width.py`), valid only when a dataset's
width is a function of the dataset; a width that depends on whether *this* call happened to
contain a raise would let a call of raises on D against a mixed call on D′ certify a width event
whose per-run frequency on D′ is not 0 — a false witness. A fixed width removes the question.

Messages. The first message of each raise (and the kind of each no-answer) is kept per dataset in
an `OutcomeLog`, for the witness text only ("raised ValueError: … on D in 150 of 150, never on
D′", `outcome_witness`): nothing certified reads it. It is kept in the process that sampled; runs
on worker processes leave it empty, and the witness is then named without its message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "DEFAULT_PAYLOAD_WIDTH",
    "NO_ANSWER",
    "OutcomeCoding",
    "OutcomeLog",
    "check_exceptions",
    "encode_outcome",
    "outcome_text",
    "run_coded",
]

DEFAULT_PAYLOAD_WIDTH = 64
NO_ANSWER = -1
"""The outcome code of a declared "no answer" (None, or a value with a NaN)."""
MESSAGE_CHARS = 80
"""A raise's message is kept to this many characters in witness texts."""


def check_exceptions(exceptions: Sequence[Any], payload_width: int) -> tuple[type[BaseException], ...]:
    """The declared exception types, validated (classes deriving from Exception; W ≥ 1)."""
    types = tuple(exceptions)
    for t in types:
        if not (isinstance(t, type) and issubclass(t, Exception)):
            raise ValueError(f"exceptions must be Exception classes, got {t!r}")
    if payload_width < 1:
        raise ValueError("payload_width must be ≥ 1")
    return types


class NoAnswerError(ValueError):
    """A run returned None (or NaN) where no `no_answer=True` was declared."""


def _no_answer(value: Any) -> str | None:
    """The kind of no answer `value` is ("None" or "NaN"), else None."""
    if value is None:
        return "None"
    try:
        flat = np.asarray(value, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        return None
    return "NaN" if bool(np.isnan(flat).any()) else None


def encode_outcome(
    value: Any,
    raised: BaseException | None,
    exceptions: Sequence[type[BaseException]],
    width: int,
    *,
    no_answer: bool = False,
) -> NDArray[np.float64]:
    """The row [code, size, payload…] of one run (see the module docstring)."""
    row = np.zeros(2 + width)
    if raised is not None:
        row[0] = 1 + next(k for k, t in enumerate(exceptions) if isinstance(raised, t))
        return row
    kind = _no_answer(value)
    if kind is not None and not no_answer:
        raise NoAnswerError(f"returned {kind}: declare no_answer=True if that is its answer")
    if kind is not None:
        row[0] = NO_ANSWER
        row[1] = 0.0 if value is None else np.asarray(value, dtype=np.float64).size
        return row
    flat = np.asarray(value, dtype=np.float64).ravel()
    row[1] = flat.size
    row[2 : 2 + min(width, flat.size)] = flat[:width]
    return row


def run_coded(
    fn: Callable[[], Any],
    exceptions: tuple[type[BaseException], ...],
    width: int,
    *,
    no_answer: bool = False,
) -> NDArray[np.float64]:
    """Call `fn()` once; a declared exception becomes its code, any other propagates."""
    return run_logged(fn, exceptions, width, no_answer=no_answer)[0]


def run_logged(
    fn: Callable[[], Any],
    exceptions: tuple[type[BaseException], ...],
    width: int,
    *,
    no_answer: bool = False,
) -> tuple[NDArray[np.float64], str | None]:
    """`run_coded`, with what the run's outcome says in words (the raise's message, or
    "None" / "NaN" for no answer; None for an ordinary return)."""
    try:
        value = fn()
    except exceptions as exc:
        return encode_outcome(None, exc, exceptions, width), " ".join(str(exc).split())
    row = encode_outcome(value, None, exceptions, width, no_answer=no_answer)
    return row, (_no_answer(value) if row[0] == NO_ANSWER else None)


@dataclass(frozen=True, slots=True)
class OutcomeCoding:
    """What a mechanism's coded rows hold: the declared exception types, whether "no answer" is
    declared, and the payload width W."""

    exceptions: tuple[type[BaseException], ...]
    no_answer: bool
    width: int

    def names(self, code: int) -> str:
        """The outcome of `code` in words ("raised ValueError", "returned no answer", "returned")."""
        if code == NO_ANSWER:
            return "returned no answer"
        if 1 <= code <= len(self.exceptions):
            return f"raised {self.exceptions[code - 1].__name__}"
        return "returned"

    def codes(self) -> tuple[int, ...]:
        """Every outcome code of a run that did not return an answer (raises, then no answer)."""
        return (*range(1, len(self.exceptions) + 1), *((NO_ANSWER,) if self.no_answer else ()))


@dataclass(slots=True)
class OutcomeLog:
    """The first message of each outcome code per dataset (by `Dataset.key()`), for witness
    texts only (module docstring, "Messages")."""

    messages: dict[tuple[str, int], str] = field(default_factory=dict)

    def note(self, dataset_key: str, code: int, message: str) -> None:
        cut = message[:MESSAGE_CHARS] + ("…" if len(message) > MESSAGE_CHARS else "")
        self.messages.setdefault((dataset_key, code), cut)

    def message(self, dataset_key: str, code: int) -> str | None:
        return self.messages.get((dataset_key, code))


def outcome_text(exceptions: Sequence[type[BaseException]], width: int, *, no_answer: bool = False) -> str:
    """In words, for reports: what the coded rows hold."""
    names = [f"{k + 1} = raised {t.__name__}" for k, t in enumerate(exceptions)]
    none = ["−1 = returned no answer (None or NaN)"] if no_answer else []
    codes = ", ".join(["outcome 0 = returned", *names, *none])
    return f"each release is coded [outcome, size, first {width} values]: {codes}"
