"""Dataset sizes worth auditing: where a declared subsample size or a rounding jumps.

`size_jumps` scans a size function for the n where it changes value (an add/remove pair
straddling such an n changes the mechanism's parameters); `inclusion_probability` is the
probability that one record enters the declared subsample (Poisson: the rate; without
replacement: m/n; with replacement: 1 − (1 − 1/n)^m); `boundary_sizes` lists the base sizes
the templates use, in priority order.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Domain, Relation, Subsampling, SubsamplingKind
from .space import DEFAULT_MAX_ROWS, Space

__all__ = ["boundary_sizes", "inclusion_probability", "no_amplification_size", "size_jumps"]

_SIZE_SCAN_LIMIT = 4096


def _safe_size(size: Callable[[int], int], n: int) -> int | None:
    try:
        v = size(n)
    except (ArithmeticError, ValueError, TypeError):
        return None
    try:
        return int(v)
    except (TypeError, ValueError, OverflowError):
        return None


def size_jumps(size: Callable[[int], int], low: int, high: int, *, limit: int = 8) -> tuple[int, ...]:
    """Sizes n in (low, high] where size(n) ≠ size(n − 1): the first `limit − 1` and the last.

    Sizes where `size` raises are skipped. The scan stops at `low + 4096`.
    """
    jumps: list[int] = []
    last = None
    prev = _safe_size(size, low) if low >= 0 else None
    for n in range(max(low, 0) + 1, min(high, max(low, 0) + _SIZE_SCAN_LIMIT) + 1):
        cur = _safe_size(size, n)
        if cur is not None and prev is not None and cur != prev:
            if len(jumps) < limit - 1:
                jumps.append(n)
            else:
                last = n
        prev = cur
    if last is not None:
        jumps.append(last)
    return tuple(jumps)


def inclusion_probability(subsampling: Subsampling, n: int) -> float | None:
    """Probability that a given record (one copy) enters the subsample, if declared."""
    kind = subsampling.kind
    if kind is SubsamplingKind.POISSON:
        return subsampling.rate
    if n <= 0 or subsampling.size is None:
        return None
    m = _safe_size(subsampling.size, n)
    if m is None:
        return None
    if kind is SubsamplingKind.WITHOUT_REPLACEMENT:
        return min(1.0, max(m, 0) / n)
    if kind is SubsamplingKind.WITH_REPLACEMENT:
        return 1.0 - (1.0 - 1.0 / n) ** max(m, 0)
    return None


def no_amplification_size(sub: Subsampling, low: int, high: int) -> int | None:
    """Largest n in [low, high] whose subsample contains every record for sure."""
    best = None
    for n in range(max(low, 1), min(high, max(low, 1) + _SIZE_SCAN_LIMIT) + 1):
        p = inclusion_probability(sub, n)
        if p is not None and p >= 1.0:
            best = n
    return best


def boundary_sizes(
    domain: Domain, relation: Relation = Relation.REPLACE_ONE, *, max_rows: int = DEFAULT_MAX_ROWS
) -> tuple[int, ...]:
    """Base sizes worth auditing, in priority order, within the domain's size limits.

    For add/remove the size is the smaller side's (its neighbour has n + 1 rows). First the
    jumps of the declared `Subsampling.size` (n and n − 1), the largest n without
    amplification and its successor, then min_size and min_size + 1, tiny sizes (0 for
    add/remove, 1, 2, 3), powers of two and their successors (where ⌈log₂ n⌉ rounds), 10, and
    the largest allowed sizes.
    """
    space = Space.of(domain, max_rows)
    if space is None:
        return ()
    a, b = space.sizes_for(relation)
    if a > b:
        return ()
    cand: list[int] = []
    sub = domain.subsampling
    if sub.size is not None:
        for n in size_jumps(sub.size, a, b + 1):
            cand += [n, n - 1]
    if sub.kind is not SubsamplingKind.NONE:
        n0 = no_amplification_size(sub, a, b + 1)
        if n0 is not None:
            cand += [n0, n0 + 1]
    cand += [space.min_n, space.min_n + 1, 0, 1, 2, 3, 4, 5, 8, 9, 10, 16, 17, 32, 33, b, b - 1]
    return tuple(n for n in dict.fromkeys(cand) if a <= n <= b)
