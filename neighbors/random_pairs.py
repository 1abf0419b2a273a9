"""Random admissible neighbour pairs (the random proposals of `audit/search/procedure.py`).

`random_pair` draws a size (half the time a boundary size), records (uniform in the box, each
coordinate snapped to an endpoint with probability 1/4) and one change at a random position
the claim covers.
"""

from __future__ import annotations

import numpy as np

from .admissible import admissible
from .base import Domain, NeighborPair, Relation
from .building import change_pair
from .local_moves import describe_change, retag
from .sizes import boundary_sizes
from .space import DEFAULT_MAX_ROWS, F64, Space

__all__ = ["random_pair"]


def random_pair(
    domain: Domain,
    relation: Relation,
    rng: np.random.Generator,
    *,
    max_rows: int = DEFAULT_MAX_ROWS,
    tries: int = 20,
) -> NeighborPair | None:
    """A random admissible pair: random size (half the time a boundary size), random
    records, a random change at a random position. None if none was found in `tries`."""
    space = Space.of(domain, max_rows)
    if space is None:
        return None
    a, b = space.sizes_for(relation)
    if a > b:
        return None
    sizes = boundary_sizes(domain, relation, max_rows=max_rows)
    for _ in range(tries):
        if sizes and rng.random() < 0.5:
            n = int(sizes[int(rng.integers(len(sizes)))])
        else:
            n = int(rng.integers(a, min(b, a + 32) + 1))
        rows = np.array([space.random_record(rng) for _ in range(n)]).reshape(n, space.width)
        if relation is Relation.ADD_REMOVE_ONE:
            i = int(rng.integers(n + 1))
            new: F64 | None = space.random_record(rng)
        else:
            lo_i, hi_i = space.change_range(n)
            if hi_i <= lo_i:
                continue
            i = int(rng.integers(lo_i, hi_i))
            new = None if relation is Relation.RELABEL_ONE else space.random_record(rng)
        pair = change_pair(space, rows, relation, i, new, "random", ("random",))
        if pair is not None and admissible(pair, domain):
            w = space.width
            desc = describe_change(
                space, pair.dataset.records().reshape(-1, w), pair.neighbor.records().reshape(-1, w), relation
            )
            return retag(
                pair, ("random",), f"random: {desc} [#{pair.dataset.key()[:4]}{pair.neighbor.key()[:4]}]"
            )
    return None
