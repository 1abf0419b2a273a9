"""Float-rounding template pairs: where a float sum's rounding can exceed the declared range.

Casacuberta, Shoemate, Vadhan & Wagaman ("Widespread underestimation of sensitivity in
differentially private libraries and how to fix it", CCS 2022) show that a sensitivity computed
over the reals does not bound a float computation: rounding can move a sum by more than the
record range. Mironov ("On significance of the least significant bits for differential
privacy", CCS 2012) shows that the low bits of a float release depend on its input. The family
(`float_family`, tag "float", for 1-feature unlabelled continuous boxes, replace-one and
add/remove) puts the changed record next to values that make rounding bite:

- **dyadic**: fillers at the box's dyadic points lo + (hi − lo)·2^-p (half, quarter, eighth):
  the sum sits on a rounding tie (x.5 rounds to even);
- **power of two**: fillers at each power of two 2^p inside the box and at the double just
  below it (a sum crossing 2^p changes its ulp);
- **tiny**: many tiny values with one large one, at 1/2 and 3/4 of the large value's ulp
  (absorbed, or each rounded up), with the changed (large) record first and last: the order of
  a float sum changes what it absorbs.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from .base import NeighborPair, Relation
from .building import emit_pair
from .space import Space, lerp

__all__ = ["float_family"]


def _applies(space: Space) -> bool:
    dom = space.domain
    return (
        space.d == 1
        and space.labels is None
        and dom.records is None
        and not dom.integer_features
        and bool(np.all(np.isfinite(space.lo)))
        and bool(np.all(np.isfinite(space.hi)))
    )


def _fillers(lo: float, hi: float) -> Iterator[tuple[str, float]]:
    for p in (1, 2, 3):
        yield f"dyadic point lo + range/2^{p}", float(lerp(lo, hi, 2.0**-p))
    top = max(abs(lo), abs(hi))
    if top > 0:
        k = math.floor(math.log2(top))
        for p in range(k, k - 4, -1):
            for sign in (1.0, -1.0):
                v = sign * 2.0**p
                if lo <= v <= hi:
                    yield f"power of two {v:g}", v
                    below = float(np.nextafter(v, -np.inf))
                    if lo <= below <= hi:
                        yield f"just below {v:g}", below
    for frac in (0.5, 0.75):
        tiny = frac * float(np.spacing(max(abs(lo), abs(hi))))
        for v in (tiny, -tiny):
            if lo <= v <= hi and v != 0.0:
                yield f"tiny {v:.3g} ({frac:g} ulp of the large record)", v


def float_family(space: Space, relation: Relation) -> Iterator[NeighborPair | None]:
    """The float-rounding templates (see the module docstring)."""
    if not _applies(space) or relation is Relation.RELABEL_ONE:
        return
    lo, hi = float(space.lo[0]), float(space.hi[0])
    a, b = space.sizes_for(relation)
    for name, v in _fillers(lo, hi):
        for m in (1, 3, 15, 63):
            if relation is Relation.ADD_REMOVE_ONE:
                if not a <= m <= b:
                    continue
                base = np.full(m, v)
                for r in (hi, lo):
                    for first in (True, False):
                        grown = np.concatenate([[r], base] if first else [base, [r]])
                        where = "first" if first else "last"
                        what = f"float: add {r:g} ({where}) to {m} × {name}"
                        yield emit_pair(space, base, grown, relation, what, ("template", "float"))
                continue
            if not a <= m + 1 <= b:
                continue
            for first in (True, False):
                rest = np.full(m, v)
                ra = np.concatenate([[hi], rest] if first else [rest, [hi]])
                rb = np.concatenate([[lo], rest] if first else [rest, [lo]])
                where = "first" if first else "last"
                what = f"float: {hi:g} → {lo:g} ({where}) next to {m} × {name}"
                yield emit_pair(space, ra, rb, relation, what, ("template", "float"))
