"""Small white-box search for the worst replace-one pairs of the [ABMS] learners (000, Alg. 4 / 5).

The search enumerates a structured family and keeps the pair with the largest exact ε (the
mechanism's `exact_epsilon`, δ = 0). Family ("near-tie single point"): the scored part D (D_i
for the closure learner) is one point x0 carrying c ones and |D| − c zeros, T = |D| copies of
(x0, 0) (T's labels are never read), and record 0 (label 1) or record |D| − 1 (label 0) of D is
replaced by every other (x', y') ∈ [d] × {0, 1}. Rationale: near c ≈ |D|/2 the all-one and
all-zero patterns tie, one replacement shifts the score of both by ±1 (the EM's e^{1/2} twice)
and a new x' splits a pattern (the multiplicity factors of Lemma 5.3), and the single support
point keeps Q's resampling law tiny (fast oracle). For the closure learner the other part is
|S_i| copies of (d/2, 1).

Measured (full grids, count step |D|/30 resp. |D|/10, every x0; see abms.py docstrings):
private_agnostic (d = 8, m = 10) max 1.378; a seeded random search over 1–3-point D with
mixed labels (13,630 pairs, 40 s) found at most 1.357. closure_learner (d = 8, m = 10): 0.987 on
the count step |D|/10 grid, 1.378 on the full count scan (48 of 90 ones, found by the
white-box local search of benchmarks/power.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ...neighbors.base import NeighborPair
from ._common import replace_pair


def near_tie_pairs(
    d: int,
    size_d: int,
    *,
    offset: int = 0,
    prefix: Sequence[tuple[int, int]] = (),
    suffix: Sequence[tuple[int, int]] = (),
    points: Sequence[int] | None = None,
    count_step: int = 1,
) -> Iterator[NeighborPair]:
    """The near-tie single-point family (module docstring); the scored part D starts at
    `offset` inside prefix + D + T + suffix."""
    pts = range(d) if points is None else points
    for x0 in pts:
        for c in range(0, size_d + 1, max(1, count_step)):
            part = [(x0, 1)] * c + [(x0, 0)] * (size_d - c) + [(x0, 0)] * size_d
            recs = list(prefix) + part + list(suffix)
            xs, ys = [r[0] for r in recs], [r[1] for r in recs]
            for i in sorted({offset, offset + size_d - 1}):
                for xn in range(d):
                    for yn in (0, 1):
                        if (xn, yn) != (xs[i], ys[i]):
                            yield replace_pair(xs, ys, i, (xn, yn), f"search x0={x0} c={c}", "search")


def search_max(mech: Any, pairs: Iterator[NeighborPair]) -> tuple[float, NeighborPair | None]:
    """Largest exact ε (δ = 0) over `pairs` (each side's law computed once per pair)."""
    best, arg = -1.0, None
    for p in pairs:
        e = float(mech.exact_epsilon(p))
        if e > best:
            best, arg = e, p
    return best, arg


def private_agnostic_search(
    mech: Any, *, count_step: int | None = None, points: Sequence[int] | None = None
) -> tuple[float, NeighborPair | None]:
    sd = mech.size_d
    return search_max(
        mech, near_tie_pairs(mech.d, sd, points=points, count_step=count_step or max(1, sd // 30))
    )


def closure_search(
    mech: Any, *, count_step: int | None = None, points: Sequence[int] | None = None
) -> tuple[float, NeighborPair | None]:
    q, half, d = mech.size_part // 2, mech.size_part, mech.d
    other = [(d // 2, 1)] * half
    step = count_step or max(1, q // 10)
    best1 = search_max(mech, near_tie_pairs(d, q, suffix=other, points=points, count_step=step))
    best2 = search_max(mech, near_tie_pairs(d, q, offset=half, prefix=other, points=points, count_step=step))
    return max(best1, best2, key=lambda r: r[0])


def near_tie_pair(
    d: int,
    size_d: int,
    x0: int,
    c: int,
    index: int,
    new: tuple[int, int],
    *,
    prefix: Sequence[tuple[int, int]] = (),
    suffix: Sequence[tuple[int, int]] = (),
    description: str,
    tags: tuple[str, ...] = (),
) -> NeighborPair:
    """One member of the family (used for the registered worst pairs)."""
    recs = list(prefix) + [(x0, 1)] * c + [(x0, 0)] * (size_d - c) + [(x0, 0)] * size_d + list(suffix)
    xs, ys = [r[0] for r in recs], [r[1] for r in recs]
    return replace_pair(xs, ys, index, new, description, *tags)
