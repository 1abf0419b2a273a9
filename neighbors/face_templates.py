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

Box domains only (a record space declares its own records). Depends on numpy only.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from dpaudit.neighbors.base import NeighborPair, Relation
from dpaudit.neighbors.building import change_pair, make_filler
from dpaudit.neighbors.space import F64, Space, fmt_value

__all__ = ["FEATURES", "face_records", "family_faces"]

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


def family_faces(space: Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """The face family (module docstring)."""
    faces = face_records(space)
    if not faces or relation is Relation.RELABEL_ONE:
        return
    if relation is Relation.ADD_REMOVE_ONE:
        yield from _added(space, faces, base_size)
        return
    for n in dict.fromkeys((space.clamp_size(1, relation), space.clamp_size(base_size, relation))):
        if n is None or n < 1:
            continue
        filler = make_filler(space, "centre", n)
        for name, hi, lo in faces:
            rows = filler.copy()
            rows[-1] = lo
            what = f"face to face: {name.replace('high', 'low')} → {name}, centre filler"
            yield change_pair(space, rows, relation, "last", hi, what, ("face",))


def _added(space: Space, faces: list[tuple[str, F64, F64]], base_size: int) -> Iterator[NeighborPair | None]:
    a, b = space.sizes_for(Relation.ADD_REMOVE_ONE)
    n = space.clamp_size(base_size, Relation.ADD_REMOVE_ONE)
    for name, hi, _ in faces:
        if a <= 0 <= b:
            empty = np.zeros((0, space.width))
            yield change_pair(
                space, empty, Relation.ADD_REMOVE_ONE, "first", hi, f"{name} vs the empty dataset", ("face",)
            )
        if n is not None and n > 0:
            filler = make_filler(space, "centre", n)
            yield change_pair(
                space, filler, Relation.ADD_REMOVE_ONE, "last", hi, f"{name} into a centre filler", ("face",)
            )
