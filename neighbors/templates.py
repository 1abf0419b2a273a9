"""Worst-case template families (`WorstCasePairs`), merged round-robin so a capped prefix sees
every family.

- **extreme**: the changed record moves between the corners of the feature box (and the
  labels), on constant and mixed fillers, at the first / middle / last position;
- **corner**: the changed record moves between every two extreme records (n = 1 and n = 4);
- **face** (`neighbors.face_templates`): a record at the centre of a face of the box (one feature
  at an extreme, the others at the centre: a gradient canary in a symmetric box), added to the
  empty dataset or a centre filler, or moved to the opposite face;
- **tiny**: empty vs every extreme record (add/remove), singleton and two- or three-record
  datasets;
- **size**: datasets at the size boundaries where a mechanism's parameters round: the sizes
  where the declared `Subsampling.size(n)` jumps (n − 1 and n, so an add/remove pair
  straddles the jump), powers of two and their successors (⌈log₂ n⌉ jumps), the declared
  min_size / max_size and their inner neighbours;
- **duplicate**: the changed record has duplicates in the dataset (replace one copy; add one
  more copy), and conflicting duplicates (same features, different labels);
- **cluster**: clusters of identical records along the box diagonal plus one lone record in a
  gap next to them (below / between / above, labelled like its nearer cluster); the lone record
  leaves the data's support for the far corner, label flipped first (a new extreme point with a
  surprising label: the pattern set on the distinct points, its multiplicities and the
  learner's scores all change at once), or is relabelled / added / removed; at a base size and,
  for subsampling domains, at the largest n and the last jump of ⌈·⌉-rounded subsample sizes;
- **lone**: one extreme record on a constant filler (the box centre first), relabelled;
- **stream** (Domain.ordered): the change at positions 0, 1, middle, n − 2, n − 1 of an
  alternating stream, of one record repeated with alternating labels (non-realizable: an
  online learner updates every round), and at the switch point of a sorted stream;
- **float** (`neighbors.float_templates`; 1-feature continuous boxes): rounding-sensitive fillers
  (dyadic points, powers of two, tiny values next to a large one, the change first and last);
- **subsampling** (also `SubsamplingPairs`, when the domain declares subsampling): the changed
  record certain (n equals the subsample size: no amplification), likely and unlikely to be
  drawn, and duplicates of the changed record that change its inclusion probability.

With a declared record space (`Domain.records`) or hypothesis grid (`Domain.hypothesis_grid`),
the families of `neighbors.record_templates` come first (counting-query patterns, flanked
clusters, grid boundary points) and the box-diagonal cluster family is left out.

`check_amplification(domain, relation)` raises `AmplificationMismatchError` when a mechanism
whose claim relies on amplification by subsampling under one relation is audited under a
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .admissible import admitted_pairs, check_amplification
from .base import Domain, NeighborPair, Relation, SubsamplingKind
from .building import POSITIONS, change_pair, farthest_records, make_filler, round_robin
from .clusters import family_clusters
from .face_templates import family_faces
from .float_templates import float_family
from .record_templates import RECORD_FAMILY_WEIGHT, record_families
from .sizes import boundary_sizes
from .space import DEFAULT_MAX_ROWS, Space
from .subsampling_cases import family_subsampling

__all__ = ["WorstCasePairs"]


def _family_extreme(space: Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    n = space.clamp_size(base_size, relation)
    if n is None:
        return
    for kind in ("low", "high", "mixed", "centre"):
        rows = make_filler(space, kind, n)
        for where in POSITIONS:
            if relation is Relation.ADD_REMOVE_ONE:
                for name, r in farthest_records(space, rows[0] if n else space.low_record(), limit=4):
                    yield change_pair(
                        space, rows, relation, where, r, f"{name} into {kind} filler", ("extreme",)
                    )
            elif relation is Relation.RELABEL_ONE:
                yield change_pair(
                    space, rows, relation, where, None, f"{kind} filler", ("extreme", "relabel")
                )
            else:
                i = space.position(n, where, relation)
                for name, r in farthest_records(space, rows[i], limit=4):
                    yield change_pair(
                        space, rows, relation, where, r, f"to {name}, {kind} filler", ("extreme",)
                    )


def _family_corners(space: Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """The changed record moves between every two extreme records (corner to corner)."""
    if relation is Relation.ADD_REMOVE_ONE:
        return  # the extreme family already adds every extreme record
    recs = space.extreme_records()
    sizes = [n for n in dict.fromkeys((space.clamp_size(1, relation), space.clamp_size(base_size, relation)))]
    for n in sizes:
        if n is None:
            continue
        filler = make_filler(space, "low", n)
        for where in ("first", "last") if n > 1 else ("first",):
            i = space.position(n, where, relation)
            for (n1, r1), (n2, r2) in itertools.combinations(recs, 2):
                rows = filler.copy()
                rows[i] = r1
                what = f"corner to corner: {n1} → {n2}"
                if relation is Relation.RELABEL_ONE:
                    if n2.split(", y=")[0] == n1.split(", y=")[0]:
                        yield change_pair(space, rows, relation, where, r2, what, ("corner",))
                else:
                    yield change_pair(space, rows, relation, where, r2, what, ("corner",))


def _family_tiny(space: Space, relation: Relation) -> Iterator[NeighborPair | None]:
    """Empty vs singleton (add/remove: *every* extreme record, low corner first: on a learner
    whose output hinges on one labelled example the label matters more than the distance),
    then singleton, two- and three-record datasets with low and high fillers."""
    a, b = space.sizes_for(relation)
    if relation is Relation.ADD_REMOVE_ONE and a <= 0 <= b:
        empty = np.zeros((0, space.width))
        for name, r in space.extreme_records():
            yield change_pair(
                space, empty, relation, "first", r, f"tiny, {name} vs the empty dataset", ("tiny",)
            )
    for n in (0, 1, 2, 3):
        if not a <= n <= b or (n == 0 and relation is Relation.ADD_REMOVE_ONE):
            continue
        for kind in ("low", "high"):
            rows = make_filler(space, kind, n)
            ref = rows[0] if n else space.low_record()
            for where in ("first", "last"):
                if relation is Relation.RELABEL_ONE:
                    yield change_pair(space, rows, relation, where, None, f"tiny, {kind} filler", ("tiny",))
                    continue
                for name, r in farthest_records(space, ref, limit=2):
                    yield change_pair(
                        space, rows, relation, where, r, f"tiny, {name}, {kind} filler", ("tiny",)
                    )
                if n == 0:
                    break


def _family_sizes(space: Space, relation: Relation, max_rows: int) -> Iterator[NeighborPair | None]:
    sizes = boundary_sizes(space.domain, relation, max_rows=max_rows)
    for where in ("first", "last", "middle"):  # breadth-first: every size at one position first
        for n in sizes:
            rows = make_filler(space, "low", n)
            ref = rows[0] if n else space.low_record()
            what = f"size boundary n={n}"
            if relation is Relation.RELABEL_ONE:
                yield change_pair(space, rows, relation, where, None, what, ("size-boundary",))
                continue
            far = farthest_records(space, ref, limit=1)
            if far:
                yield change_pair(
                    space, rows, relation, where, far[0][1], f"{what}, to {far[0][0]}", ("size-boundary",)
                )


def _family_duplicates(space: Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    n = space.clamp_size(max(base_size, 3), relation)
    if n is None or n < 2:
        n = space.clamp_size(2, relation)
        if n is None or n < 1:
            return
    filler = make_filler(space, "low", n)
    low = filler[0]
    targets = farthest_records(space, low, limit=3)
    # many identical records and one conflicting copy (a larger base: the conflict's effect on a
    # learner scoring by counts grows with the number of copies it contradicts)
    big = space.clamp_size(max(2 * n, 8), relation)
    if big is not None and big > n and space.labelled:
        for name, r in [("low corner", low), *targets[:1]]:
            rows = np.tile(r, (big, 1))
            what = f"{big} copies of {name}"
            for alt in space.relabelled(r):
                if relation is Relation.ADD_REMOVE_ONE:
                    yield change_pair(
                        space, rows, relation, "last", alt, f"add a conflicting copy: {what}", ("conflict",)
                    )
                else:
                    yield change_pair(
                        space, rows, relation, big - 1, alt, f"relabel one of {what}", ("conflict",)
                    )
    for name, r in targets:
        for k in sorted({2, max(n // 2, 1), n - 1, n}):
            if k < 1 or k > n:
                continue
            rows = filler.copy()
            rows[n - k :] = r  # k copies of r at the end
            what = f"{k} copies of {name}"
            if relation is Relation.ADD_REMOVE_ONE:
                # one more copy of an already duplicated record
                if k < n:
                    yield change_pair(
                        space, rows, relation, "last", r, f"add another copy: {what}", ("duplicate",)
                    )
                    yield change_pair(
                        space, rows, relation, "first", r, f"add another copy: {what}", ("duplicate",)
                    )
                # a conflicting copy (same features, other label) of a record repeated k times
                for alt in space.relabelled(r):
                    yield change_pair(
                        space, rows, relation, "last", alt, f"add a conflicting copy: {what}", ("conflict",)
                    )
            elif relation is Relation.RELABEL_ONE:
                yield change_pair(
                    space, rows, relation, n - 1, None, f"relabel one of {what}", ("duplicate", "conflict")
                )
            else:
                # replace one copy of the duplicated record by the filler record
                yield change_pair(
                    space, rows, relation, n - 1, low, f"one of {what} → filler", ("duplicate",)
                )
                # a filler record becomes one more copy of the duplicated record
                if k < n:
                    yield change_pair(space, rows, relation, 0, r, f"one more copy: {what}", ("duplicate",))
                # conflicting duplicate: same features, other label
                for alt in space.relabelled(r):
                    yield change_pair(
                        space, rows, relation, n - 1, alt, f"conflicting duplicate of {what}", ("conflict",)
                    )
    # a conflicting pair already present: relabel one side so they agree / replace it
    if space.labelled and n >= 2 and space.labels is not None and len(space.labels) >= 2:
        rows = filler.copy()
        rows[-1, -1] = space.labels[-1]  # rows[-2] and rows[-1]: same features, different labels
        if relation is Relation.RELABEL_ONE or relation is Relation.REPLACE_ONE:
            yield change_pair(
                space, rows, relation, n - 1, rows[-2], "resolve a conflicting pair", ("conflict",)
            )
        else:
            # n is an allowed base size for add/remove: add the conflicting record to the filler
            yield change_pair(
                space, filler, relation, "last", rows[-1], "add a conflicting duplicate", ("conflict",)
            )


def _family_stream(space: Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """Streams: alternating low/high records, a sorted stream (change at its switch point), and
    (labelled) one extreme record repeated with alternating labels (a non-realizable stream: an
    online learner errs, and updates, on every round), changed at positions 0, 1, the middle,
    n − 2 and n − 1."""
    n = space.clamp_size(max(base_size, 6), relation)
    if n is None:
        return
    slots = n + 1 if relation is Relation.ADD_REMOVE_ONE else n
    every = sorted({0, 1, slots // 2, slots - 2, slots - 1} & set(range(slots)))
    kinds = ["mixed", "sorted"]
    if space.labels is not None and len(space.labels) > 1 and n >= 2:
        kinds.append("conflict")
    for kind in kinds:
        positions = every
        if kind == "sorted":
            rows = make_filler(space, "low", n)
            rows[n // 2 :] = make_filler(space, "high", n - n // 2)
            positions = sorted({max(n // 2 - 1, 0), n // 2} & set(range(slots)))
        elif kind == "conflict":
            vecs = space.feature_vectors()
            v = vecs[2][1] if len(vecs) > 2 else vecs[-1][1]  # a mixed corner when there is one
            rows = np.tile(np.append(v, 0.0), (n, 1))
            assert space.labels is not None
            rows[:, -1] = np.where(np.arange(n) % 2 == 0, space.labels[-1], space.labels[0])
        else:
            rows = make_filler(space, "mixed", n)
        for i in positions:
            what = f"{kind} stream"
            if relation is Relation.RELABEL_ONE:
                yield change_pair(space, rows, relation, i, None, what, ("stream",))
                continue
            if kind == "conflict" and relation is Relation.REPLACE_ONE:
                for alt in space.relabelled(rows[i]):
                    yield change_pair(
                        space, rows, relation, i, alt, f"{what}, relabel", ("stream", "conflict")
                    )
            if relation is Relation.ADD_REMOVE_ONE:
                ref = rows[min(i, n - 1)] if n else space.low_record()
                for name, r in farthest_records(space, ref, limit=2):
                    yield change_pair(space, rows, relation, i, r, f"{what}, {name}", ("stream",))
            else:
                for name, r in farthest_records(space, rows[i], limit=2):
                    yield change_pair(space, rows, relation, i, r, f"{what}, to {name}", ("stream",))


def _family_lone(space: Space, relation: Relation, base_size: int) -> Iterator[NeighborPair | None]:
    """One extreme record on a constant filler (the box centre first: the 'null' record of a
    symmetric box, then the low and high corners), relabelled: the only informative example of
    the dataset changes its label (replace-one and relabel-one)."""
    if space.labels is None or len(space.labels) < 2 or relation is Relation.ADD_REMOVE_ONE:
        return
    n = space.clamp_size(max(base_size, 8), relation)
    if n is None:
        return
    for kind in ("centre", "low", "high"):
        filler = make_filler(space, kind, n)
        for where in ("first", "last"):
            i = space.position(n, where, relation)
            if i < 0:
                continue
            for name, v in space.feature_vectors():
                if np.array_equal(v, filler[i, : space.d]):
                    continue
                rows = filler.copy()
                rows[i] = np.append(v, space.labels[-1])
                what = f"lone {name} on a {kind} filler: relabel it"
                yield change_pair(
                    space,
                    rows,
                    relation,
                    i,
                    None if relation is Relation.RELABEL_ONE else np.append(v, space.labels[0]),
                    what,
                    ("lone", "relabel"),
                )


@dataclass(frozen=True, slots=True)
class WorstCasePairs:
    """Every template family for a relation, merged round-robin, deduplicated.

    `max_pairs` caps the output (a prefix still covers every family); `strict=True` raises
    `InadmissiblePairError` on a family bug instead of dropping the pair.
    """

    base_size: int = 4
    max_rows: int = DEFAULT_MAX_ROWS
    max_pairs: int | None = None
    strict: bool = False

    def families(self, domain: Domain, relation: Relation) -> dict[str, Iterator[NeighborPair | None]]:
        space = Space.of(domain, self.max_rows)
        if space is None:
            return {}
        fams: dict[str, Iterator[NeighborPair | None]] = record_families(space, relation, self.base_size)
        if domain.subsampling.kind is not SubsamplingKind.NONE:
            fams["subsampling"] = family_subsampling(space, relation)
        fams["extreme"] = _family_extreme(space, relation, self.base_size)
        fams["corner"] = _family_corners(space, relation, self.base_size)
        fams["face"] = family_faces(space, relation, self.base_size)
        fams["tiny"] = _family_tiny(space, relation)
        fams["size"] = _family_sizes(space, relation, self.max_rows)
        fams["duplicate"] = _family_duplicates(space, relation, self.base_size)
        if domain.records is None:  # clusters along the box diagonal: boxes only (records: "flanked")
            fams["cluster"] = family_clusters(space, relation, self.base_size)
        fams["lone"] = _family_lone(space, relation, self.base_size)
        if domain.ordered:
            fams["stream"] = _family_stream(space, relation, self.base_size)
        fams["float"] = float_family(space, relation)  # 1-feature continuous boxes only
        return fams

    def pairs(self, domain: Domain, relation: Relation) -> Iterator[NeighborPair]:
        check_amplification(domain, relation)
        fams = self.families(domain, relation)
        weights = [RECORD_FAMILY_WEIGHT if name == "counting" else 1 for name in fams]
        merged = round_robin(list(fams.values()), weights)
        yield from admitted_pairs(merged, domain, strict=self.strict, limit=self.max_pairs)
