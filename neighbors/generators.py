"""Domain-driven pair templates for mechanisms that register no pairs of their own.

A few boundary pairs per relation: records at the corners of the declared feature box, both
labels, datasets at the smallest allowed size. Every pair satisfies `is_neighbor` and lies
in the domain. (The search over pairs of issue 6 builds on these templates.)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from neighbors.base import Dataset, Domain, NeighborPair, Relation


def _corners(domain: Domain) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    lo, hi = domain.bounds()
    return np.array(lo, dtype=float), np.array(hi, dtype=float)


def _dataset(rows: NDArray[np.float64], labels: NDArray[np.float64] | None) -> Dataset:
    return Dataset(rows.reshape(-1, rows.shape[-1] if rows.size else 1), labels)


@dataclass(frozen=True, slots=True)
class BoundaryPairs:
    """Template pairs: the changed record moves between opposite corners of the domain."""

    base_size: int = 4

    def pairs(self, domain: Domain, relation: Relation) -> Iterator[NeighborPair]:
        lo, hi = _corners(domain)
        d = domain.num_features
        n = max(self.base_size, domain.min_size, 1)
        if domain.max_size is not None:
            n = min(n, domain.max_size)
        labelled = domain.labels is not None
        y0 = float(domain.labels[0]) if domain.labels else 0.0
        y1 = float(domain.labels[-1]) if domain.labels else 0.0
        base = np.tile(lo, (n, 1)).reshape(n, d)
        ybase = np.full(n, y0) if labelled else None

        if relation is Relation.REPLACE_ONE:
            other = base.copy()
            other[-1] = hi
            yo = None
            if labelled:
                yo = ybase.copy()  # type: ignore[union-attr]
                yo[-1] = y1
            if not np.array_equal(other, base) or labelled:
                yield NeighborPair(
                    dataset=_dataset(base, ybase),
                    neighbor=_dataset(other, yo),
                    relation=relation,
                    description="replace the last record: low corner → high corner",
                    tags=("template", "extreme"),
                )
        elif relation is Relation.ADD_REMOVE_ONE:
            m = max(domain.min_size, n - 1)
            if domain.max_size is not None and m + 1 > domain.max_size:
                return
            small = base[:m]
            big = np.vstack([small, hi[None, :]])
            ys = ybase[:m] if ybase is not None else None
            yb = np.append(ys, y1) if ys is not None else None
            yield NeighborPair(
                dataset=_dataset(small, ys),
                neighbor=_dataset(big, yb),
                relation=relation,
                description="add a record at the high corner",
                tags=("template", "extreme"),
            )
        elif relation is Relation.RELABEL_ONE and labelled and y0 != y1:
            yo = ybase.copy()  # type: ignore[union-attr]
            yo[0] = y1
            yield NeighborPair(
                dataset=_dataset(base, ybase),
                neighbor=_dataset(base, yo),
                relation=relation,
                description="relabel the first record",
                tags=("template", "relabel"),
            )
