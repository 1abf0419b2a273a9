"""Non-finite floats in strict JSON: written as the strings "inf", "-inf", "nan", read back.

JSON (RFC 8259) has no infinity or NaN, and `json.dumps(..., allow_nan=False)` refuses them, but
certified bounds are often ±∞ (e.g. an ε lower bound of +∞ when the neighbour side never hits
the event). Every dpaudit file (result JSON, baselines) therefore encodes each float through
`json_number` and decodes it through `parse_number`, so files are strict JSON and round-trip
exactly (finite floats are written by `json` with `repr`, which round-trips).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["json_number", "parse_number"]


def json_number(x: float) -> float | str:
    """`x` as a JSON value: a float if finite, else "inf", "-inf" or "nan"."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


def parse_number(x: Any) -> float:
    """The float a `json_number` value stands for (also accepts plain JSON numbers)."""
    if isinstance(x, str):
        return float(x)  # "inf", "-inf", "nan"
    return float(x)
