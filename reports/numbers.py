"""Numbers as the reports write them (`fmt`): 4 significant digits, ∞ and −∞, small values in g."""

from __future__ import annotations

import math


def fmt(x: float, digits: int = 4) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    if abs(x) < 1e-3:
        return f"{x:.3g}"
    return f"{x:.{digits}g}"
