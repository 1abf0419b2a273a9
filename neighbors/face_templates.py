"""The **face** template family: one record at the centre of a face of the feature box.

A gradient canary (Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini & Terzis, "Tight
Auditing of Differentially Private Machine Learning", USENIX Security 2023, Section 3) is a record
whose gradient is C along one axis and 0 along every other: in a box symmetric about 0 it is the
record with one feature at an extreme and the others at the centre, which no corner is (a corner
clipped to norm C has only C/√d along any axis). So for each of the first `FEATURES` features of a
box of at least two features, and each end of its range, the record at that face's centre (each
label of the domain's first and last when labelled):

- add/remove: that record vs the empty dataset, and added to a centre filler (records whose
  gradient is zero in a symmetric box: the canary's zero rest);
- replace-one: on a centre filler (one record and `base_size`), the record moves from one face
  to the opposite one (C·e₁ against −C·e₁, the pair the replace-one accountant describes).

The same family holds the **response edges** of an unlabelled box of at least three features:
a linear regression packs its response as the last feature (x, y), and its input-space canary (the
same paper: x = R·e₁ with response −R, far from the data) is the record with one feature at its
high face, the last at its low face and the others at the centre, whose squared-loss gradient
(θ·x − y)·x at θ = 0 is R²·e₁, all along one axis. No face centre is that (its gradient at θ = 0 is
zero) and no corner is (a corner's gradient has only 1/√(d − 1) of its clipped norm along any
axis). Replace-one moves the response to the opposite face (the gradient flips, as the canary
relabelled). `family_edges` lists them apart so that the boundary templates can take the first.

Box domains only (a record space declares its own records). Depends on numpy only.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .base import NeighborPair, Relation
from .building import change_pair, make_filler
from .space import F64, Space, fmt_value

__all__ = ["FEATURES", "edge_records", "face_records", "family_edges", "family_faces"]

FEATURES = 3
"""Features whose two faces get a record (the first ones)."""


def face_records(space: Space) -> list[tuple[str, F64, F64]]:
    """(name, record at the high face of x_j, record at its low face), others at the centre, for
    the first `FEATURES` features of a box of ≥ 2 features (labelled: the first and last label)."""
    if space.domain.records is not None or space.d < 2:
        return []
    centre = np.asarray(space.centre(), dtype=float)
    labels = [None] if space.labels is None else list(dict.fromkeys((space.labels[0], space.labels[-1])))
    out = []
    for j in range(min(space.d, FEATURES)):
        hi, lo = centre.copy(), centre.copy()
        hi[j], lo[j] = space.hi[j], space.lo[j]
        for y in labels:
            tag = "" if y is None else f", y={fmt_value(float(y))}"
            pair = (hi, lo) if y is None else (np.append(hi, y), np.append(lo, y))
            out.append((f"x{j} at its high face{tag}", *pair))
    return out


def edge_records(space: Space) -> list[tuple[str, F64, F64]]:
    """(name, response edge, the same x with the response at its other face) for the first
    `FEATURES` features but the last of an unlabelled box of ≥ 3 features (module docstring)."""
    if space.domain.records is not None or space.labels is not None or space.d < 3:
        return []
    centre = np.asarray(space.centre(), dtype=float)
    last = space.d - 1
    out = []
    for j in range(min(last, FEATURES)):
        low, high = centre.copy(), centre.copy()
        low[j] = high[j] = space.hi[j]
        low[last], high[last] = space.lo[last], space.hi[last]
        out.append((f"x{j} at its high face, x{last} (a response) at its low face", low, high))
    return out


def family_faces(space: Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """The face family (module docstring): face centres, then response edges."""
    yield from _family(space, face_records(space), relation, base_size, "face")
    yield from family_edges(space, relation, base_size)


def family_edges(space: Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """The response edges of the face family alone, tagged "edge" (module docstring)."""
    yield from _family(space, edge_records(space), relation, base_size, "edge")


def _family(
    space: Space, records: list[tuple[str, F64, F64]], relation: Relation, base_size: int, tag: str
) -> Iterator[NeighborPair | None]:
    """Each record added (to the empty dataset, to a centre filler) or replacing its counterpart."""
    if not records or relation is Relation.RELABEL_ONE:
        return
    if relation is Relation.ADD_REMOVE_ONE:
        yield from _added(space, records, base_size, tag)
        return
    for n in dict.fromkeys((space.clamp_size(1, relation), space.clamp_size(base_size, relation))):
        if n is None or n < 1:
            continue
        filler = make_filler(space, "centre", n)
        for name, new, old in records:
            rows = filler.copy()
            rows[-1] = old
            was = name.replace("high", "low") if tag == "face" else name.replace("its low", "its high")
            what = f"{tag} to {tag}: {was} → {name}, centre filler"
            yield change_pair(space, rows, relation, "last", new, what, (tag,))


def _added(
    space: Space, faces: list[tuple[str, F64, F64]], base_size: int, tag: str
) -> Iterator[NeighborPair | None]:
    a, b = space.sizes_for(Relation.ADD_REMOVE_ONE)
    n = space.clamp_size(base_size, Relation.ADD_REMOVE_ONE)
    for name, hi, _ in faces:
        if a <= 0 <= b:
            empty = np.zeros((0, space.width))
            yield change_pair(
                space, empty, Relation.ADD_REMOVE_ONE, "first", hi, f"{name} vs the empty dataset", (tag,)
            )
        if n is not None and n > 0:
            filler = make_filler(space, "centre", n)
            yield change_pair(
                space, filler, Relation.ADD_REMOVE_ONE, "last", hi, f"{name} into a centre filler", (tag,)
            )
