"""`BoundaryPairs`: the simplest templates, the changed record between opposite box corners.

Replace-one: the last record goes from the low to the high corner (labels first to last);
add/remove-one: a record at the high corner is added, with the last label and (labelled data)
with the rest's label, the record the rest's gradient argues against (to a rest of
`CONFLICT_REST` records at the low corner); relabel-one: the first
record is relabelled. On a box of two or more features that declares subsampling, add/remove
and replace-one also get the first pair of the face family (a record at the centre of x₀'s high
face: the gradient canary of a symmetric box, added to the empty dataset or moved from the
opposite face), and on an unlabelled box of three or more features the first response edge (x₀
at its high face, the last feature at its low face: a linear regression's input-space canary when
its response is the last feature). With `private_rows` the change is moved into a private row; only admissible
pairs are yielded.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .admissible import admissible
from .base import Dataset, Domain, NeighborPair, Relation, SubsamplingKind
from .face_templates import family_edges, family_faces
from .space import F64, Space

__all__ = ["CONFLICT_REST", "BoundaryPairs"]

CONFLICT_REST = 20
"""Rest size of the "labelled like the rest" template (fewer when the domain's `max_size` is
smaller). The rest pushes θ·x towards the added record's saturated side, so a larger rest keeps
its gradient clipped for more of a training trajectory, while its own sampled count adds noise
until it saturates. Measured on the README's DP-SGD loop blind (2·10⁵ runs per side, ε(10⁻²) at
seeds 0–3, `benchmarks/README.md`): rest 3: 0.762, 0.718, 0.727, 0.709; rest 20: 0.965, 1.016,
1.023, 1.028; rest 30 and 40 lower again (0.615–0.992), as the learned statistic degrades."""


@dataclass(frozen=True, slots=True)
class BoundaryPairs:
    """Template pairs: the changed record moves between opposite corners of the domain (only
    admissible ones are yielded; with `private_rows` the change is moved into a private row)."""

    base_size: int = 4

    def pairs(self, domain: Domain, relation: Relation) -> Iterator[NeighborPair]:
        for pair in itertools.chain(self._pairs(domain, relation), self._face(domain, relation)):
            placed = _placed(pair, domain)
            if placed is not None and admissible(placed, domain):
                yield placed

    def _face(self, domain: Domain, relation: Relation) -> Iterator[NeighborPair]:
        """The first admissible pair of the face family (`neighbors.face_templates`): a record at
        the centre of x₀'s high face, the gradient canary of a symmetric box, which no corner is;
        and on an unlabelled box of ≥ 3 features its first response edge (a linear regression's
        input-space canary, which neither a corner nor a face centre is).
        Only for a domain that declares subsampling (a DP-SGD-style trainer, where that canary is
        the known worst case): every boundary pair of a mechanism without registered pairs is
        certified at the registered route's size, so each one added costs the other candidates'
        pilot samples (measured on `benchmarks/blind.py`: the mixed-corner gates' and the
        Gaussian mean's bounds fell when every box got it)."""
        if domain.subsampling.kind is SubsamplingKind.NONE:
            return
        space = Space.of(domain, max(self.base_size, domain.min_size, 1) + 1)
        if space is None:
            return
        for family, tag in ((family_faces, "face"), (family_edges, "edge")):
            for pair in family(space, relation, self.base_size):
                if pair is not None and tag in pair.tags and admissible(pair, domain):
                    yield dataclasses.replace(pair, tags=("template", tag))
                    break

    def _pairs(self, domain: Domain, relation: Relation) -> Iterator[NeighborPair]:
        lo, hi = (np.array(b, dtype=float) for b in domain.bounds())
        d = domain.num_features
        n = max(self.base_size, domain.min_size, 1)
        if domain.max_size is not None:
            n = min(n, domain.max_size)
        if n < 1 and relation is not Relation.ADD_REMOVE_ONE:
            return
        labelled = domain.labels is not None
        y0 = float(domain.labels[0]) if domain.labels else 0.0
        y1 = float(domain.labels[-1]) if domain.labels else 0.0
        base = np.tile(lo, (n, 1)).reshape(n, d)
        ybase = np.full(n, y0) if labelled else None

        def ds(rows: F64, labels: F64 | None) -> Dataset:
            return Dataset(rows.reshape(-1, d), labels)

        if relation is Relation.REPLACE_ONE:
            other = base.copy()
            other[-1] = hi
            yo = None
            if labelled:
                yo = ybase.copy()  # type: ignore[union-attr]
                yo[-1] = y1
            if not np.array_equal(other, base) or (labelled and y0 != y1):
                yield NeighborPair(
                    dataset=ds(base, ybase),
                    neighbor=ds(other, yo),
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
                dataset=ds(small, ys),
                neighbor=ds(big, yb),
                relation=relation,
                description="add a record at the high corner",
                tags=("template", "extreme"),
            )
            if ys is not None and y0 != y1 and m > 0:
                # labelled like the rest at the opposite corner: for a model linear in x the
                # rest's gradient (−x, y0) reads as (x, y1), so this record is the one the rest
                # argues against and its clipped gradient stays saturated along the trajectory
                fits = domain.max_size is None or domain.max_size > CONFLICT_REST
                size = max(CONFLICT_REST, m) if fits else m
                rest, yr = np.tile(lo, (size, 1)), np.full(size, y0)
                yield NeighborPair(
                    dataset=ds(rest, yr),
                    neighbor=ds(np.vstack([rest, hi[None, :]]), np.append(yr, y0)),
                    relation=relation,
                    description="add a record at the high corner, labelled like the rest",
                    tags=("template", "extreme", "conflict"),
                )
        elif relation is Relation.RELABEL_ONE and labelled and y0 != y1:
            yo = ybase.copy()  # type: ignore[union-attr]
            yo[0] = y1
            yield NeighborPair(
                dataset=ds(base, ybase),
                neighbor=ds(base, yo),
                relation=relation,
                description="relabel the first record",
                tags=("template", "relabel"),
            )


def _placed(pair: NeighborPair, domain: Domain) -> NeighborPair | None:
    """`pair` with its change moved into the domain's private rows (None if impossible)."""
    if domain.private_rows is None:
        return pair
    space = Space.of(domain, max(pair.dataset.n, pair.neighbor.n, 1))
    if space is None:
        return None
    w = space.width
    placed = space.privatise(pair.dataset.records().reshape(-1, w), pair.neighbor.records().reshape(-1, w))
    if placed is None:
        return None
    a, b = space.dataset(placed[0]), space.dataset(placed[1])
    moved = not (a.equals(pair.dataset) and b.equals(pair.neighbor))
    out = NeighborPair(
        dataset=a,
        neighbor=b,
        relation=pair.relation,
        description=pair.description + (" (moved into the private rows)" if moved else ""),
        tags=pair.tags,
    )
    return out if domain.check_pair(out) is None else None
