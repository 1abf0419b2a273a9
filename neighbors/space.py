"""The valid values of a `Domain` as the generators see them (`Space`), and record formatting.

`Space.of(domain, max_rows)` rounds the feature box to the integer grid for integer features,
fixes the label set and the allowed sizes (at most `max_rows` rows unless `min_size` forces
more), and knows where a claim with `private_rows` allows a change (`change_range`,
`position`, `privatise`: the changed row is swapped with the nearest private row on both
sides, which keeps the multiset of records). Its extreme records (box corners, centre, first /
last / middle labels; a declared `RecordSpace`'s own extremes, e.g. cells of a one-hot space)
are where the template families put the changed record.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .base import Dataset, Domain, Relation
from .records import dedupe_named

__all__ = ["DEFAULT_MAX_ROWS", "F64", "Space", "fmt_record", "fmt_value", "lerp"]

F64 = NDArray[np.float64]

DEFAULT_MAX_ROWS = 64
"""Generated datasets have at most this many rows unless min_size forces more."""


def lerp(lo: F64 | float, hi: F64 | float, q: F64 | float) -> F64:
    """lo + q·(hi − lo), bit for bit where hi − lo is a finite double; where it overflows (a box
    over the whole double range), (1 − q)·lo + q·hi, which stays finite for q in [0, 1]."""
    lo_, hi_, q_ = (np.asarray(v, dtype=np.float64) for v in (lo, hi, q))
    with np.errstate(over="ignore", invalid="ignore"):
        width = hi_ - lo_
        direct = lo_ + q_ * width
    return np.where(np.isfinite(width), direct, (1.0 - q_) * lo_ + q_ * hi_)


@dataclass(frozen=True, slots=True)
class Space:
    """The valid values of a domain: integer-rounded box, labels, allowed sizes."""

    domain: Domain
    lo: F64
    hi: F64
    labels: tuple[float, ...] | None
    min_n: int
    max_n: int

    @staticmethod
    def of(domain: Domain, max_rows: int) -> Space | None:
        lo, hi = (np.array(b, dtype=float) for b in domain.bounds())
        if domain.integer_valued:
            lo, hi = np.ceil(lo), np.floor(hi)
            if np.any(lo > hi):
                return None  # no integer record exists
        labels = tuple(dict.fromkeys(float(v) for v in domain.labels)) if domain.labels is not None else None
        if labels is not None and not labels:
            return None
        cap = max(max_rows, domain.min_size + 1)
        max_n = cap if domain.max_size is None else min(domain.max_size, cap)
        return Space(domain, lo, hi, labels, domain.min_size, max_n)

    @property
    def d(self) -> int:
        return self.domain.num_features

    @property
    def labelled(self) -> bool:
        return self.labels is not None

    @property
    def width(self) -> int:
        return self.d + (1 if self.labelled else 0)

    def sizes_for(self, relation: Relation) -> tuple[int, int]:
        """Allowed base sizes [a, b] (for add/remove: the smaller side, so n + 1 fits too).

        With `private_rows` only replace/relabel pairs can be covered (an added or removed row
        shifts every later position, public ones included) and n must reach a private row."""
        private = self.domain.private_rows
        if relation is Relation.ADD_REMOVE_ONE:
            if private is not None:
                return 1, 0  # empty: no add/remove pair leaves the public rows unchanged
            return self.min_n, self.max_n - 1
        return max(self.min_n, 1, private[0] + 1 if private is not None else 1), self.max_n

    def change_range(self, n: int) -> tuple[int, int]:
        """Rows [start, stop) of an n-row dataset that a replace/relabel pair may change."""
        if self.domain.private_rows is None:
            return 0, n
        start, stop = self.domain.private_rows
        return start, min(stop, n)

    def position(self, slots: int, where: str | int, relation: Relation) -> int:
        """Index for 'first' / 'middle' / 'last' (or an explicit index) among `slots` change
        slots, moved into the private rows when the domain declares them."""
        lo, hi = (0, slots) if relation is Relation.ADD_REMOVE_ONE else self.change_range(slots)
        if hi <= lo:
            return -1
        if isinstance(where, int):
            return min(max(where, lo), hi - 1)
        return {"first": lo, "middle": (lo + hi) // 2, "last": hi - 1}[where]

    def privatise(self, a: F64, b: F64) -> tuple[F64, F64] | None:
        """Move a replace/relabel change into the private rows (swap the changed row with the
        nearest private row on both sides: the multiset of records is unchanged). None if the
        change cannot be placed there; unchanged arrays when the domain has no public part."""
        if self.domain.private_rows is None:
            return a, b
        if a.shape != b.shape:
            return None
        mism = np.flatnonzero(np.any(a != b, axis=1))
        if mism.size != 1:
            return a, b  # not a one-row change: left to the admissibility check
        i = int(mism[0])
        j = self.position(a.shape[0], i, Relation.REPLACE_ONE)
        if j < 0:
            return None
        if j != i:
            a, b = a.copy(), b.copy()
            a[[i, j]] = a[[j, i]]
            b[[i, j]] = b[[j, i]]
        return a, b

    def clamp_size(self, n: int, relation: Relation) -> int | None:
        a, b = self.sizes_for(relation)
        return None if a > b else min(max(n, a), b)

    @property
    def span(self) -> F64:
        """hi − lo per feature, kept finite: a box over (nearly) the whole double range has a
        width above the largest double, counted as the largest double."""
        with np.errstate(over="ignore"):
            return np.minimum(self.hi - self.lo, np.finfo(np.float64).max)

    def at(self, q: float | F64) -> F64:
        """The point lo + q·(hi − lo) for q in [0, 1] (`lerp`: finite however wide the box)."""
        return lerp(self.lo, self.hi, q)

    def centre(self) -> F64:
        if self.domain.records is not None:
            return self.domain.records.centre()
        mid = self.lo / 2 + self.hi / 2
        return np.floor(mid) if self.domain.integer_valued else mid

    def feature_vectors(self) -> list[tuple[str, F64]]:
        """Corners (all of them for d ≤ 3, else low/high and single-coordinate corners), centre."""
        if self.domain.records is not None:
            return self.domain.records.named_records()
        lo, hi, d = self.lo, self.hi, self.d
        out: list[tuple[str, F64]] = [("low corner", lo.copy()), ("high corner", hi.copy())]
        if d <= 3:
            for bits in itertools.product((0, 1), repeat=d):
                if 0 < sum(bits) < d:
                    v = np.where(np.array(bits, bool), hi, lo)
                    out.append((f"corner {''.join(map(str, bits))}", v))
        else:
            for j in range(3):
                v = lo.copy()
                v[j] = hi[j]
                out.append((f"corner e{j}", v))
                w = hi.copy()
                w[j] = lo[j]
                out.append((f"corner ¬e{j}", w))
        out.append(("centre", self.centre()))
        return dedupe_named(out)

    def extreme_records(self) -> list[tuple[str, F64]]:
        """Full records (features, then label if labelled) at the domain's extremes."""
        vecs = self.feature_vectors()
        if self.labels is None:
            return vecs
        ls = [self.labels[0], self.labels[-1]]
        if len(self.labels) > 2:
            ls.append(self.labels[len(self.labels) // 2])
        ls = list(dict.fromkeys(ls))
        out = [(f"{name}, y={fmt_value(y)}", np.append(v, y)) for name, v in vecs for y in ls]
        return dedupe_named(out)

    def low_record(self) -> F64:
        return self.extreme_records()[0][1]

    def random_record(self, rng: np.random.Generator) -> F64:
        """Uniform in the box (integer grid if integer features); each coordinate snaps to an
        endpoint with probability 1/4 (the extremes are where the worst cases live); a record of
        the domain's record space when it declares one."""
        if self.domain.records is not None:
            v = self.domain.records.random_record(rng)
            if self.labels is None:
                return v
            return np.append(v, self.labels[int(rng.integers(len(self.labels)))])
        if self.domain.integer_valued:
            v = rng.integers(self.lo.astype(np.int64), self.hi.astype(np.int64) + 1).astype(float)
        else:
            v = (
                rng.uniform(self.lo, self.hi)
                if np.all(np.isfinite(self.hi - self.lo))
                else self.at(rng.random(self.d))
            )
        snap = rng.random(self.d) < 0.25
        v = np.where(snap, np.where(rng.random(self.d) < 0.5, self.lo, self.hi), v)
        v = np.clip(v, self.lo, self.hi)
        if self.labels is None:
            return np.asarray(v, dtype=float)
        return np.append(v, self.labels[int(rng.integers(len(self.labels)))])

    def relabelled(self, record: F64) -> list[F64]:
        """The record with each other label."""
        if self.labels is None:
            return []
        out = []
        for y in self.labels:
            if y != record[-1]:
                r = record.copy()
                r[-1] = y
                out.append(r)
        return out

    def dataset(self, rows: F64) -> Dataset:
        rows = np.asarray(rows, dtype=float).reshape(-1, self.width)
        if self.labelled:
            return Dataset(rows[:, : self.d].reshape(-1, self.d), rows[:, self.d])
        return Dataset(rows.reshape(-1, self.d))


def fmt_value(v: float) -> str:
    return f"{v:g}"


def fmt_record(r: F64, labelled: bool) -> str:
    if labelled:
        return "(" + ", ".join(fmt_value(float(x)) for x in r[:-1]) + f"; y={fmt_value(float(r[-1]))})"
    return "(" + ", ".join(fmt_value(float(x)) for x in r) + ")"
