"""Record spaces beyond boxes: categorical, one-hot, histogram bins, integer, bounded norm, binary.

A `Domain` describes a box of features; many mechanisms accept a smaller set of records. A
`RecordSpace` declared on the domain (`Domain(records=...)`, or `Domain.over(records)`) says
which: the audit's generators then build only records in it (`Domain.check` refuses the rest),
and the record-space template families (`neighbors.record_templates`) target its structure.

- **categorical** (k): one feature, a category in {0, …, k − 1}, unordered;
- **one_hot** (k): k features, exactly one of them 1 (a record in one of k cells);
- **histogram** (k): one feature, the index of one of k *ordered* bins (adjacent bins are
  the small changes; a histogram release counts the records per bin);
- **integer** (d, low, high): d integer features in [low, high];
- **bounded_norm** (d, radius, norm): d real features with ‖x‖_p ≤ radius (p = 1, 2 or ∞),
  the record space of clipped-gradient and bounded-contribution mechanisms;
- **binary** (m): m features in {0, 1}: which of m counting queries a record satisfies
  (query j answers the number of records with a 1 in column j, sensitivity 1 under replace-one
  and add/remove), the record space of the sparse vector technique (Lyu, Su & Li 2017,
  "Understanding the Sparse Vector Technique for Differential Privacy", Section 2).

Depends on numpy only (`neighbors.base` imports it).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["RecordKind", "RecordSpace"]

F64 = NDArray[np.float64]


class RecordKind(enum.StrEnum):
    CATEGORICAL = "categorical"
    ONE_HOT = "one_hot"
    HISTOGRAM = "histogram"
    INTEGER = "integer"
    BOUNDED_NORM = "bounded_norm"
    BINARY = "binary"


_ONE_FEATURE = (RecordKind.CATEGORICAL, RecordKind.HISTOGRAM)
_COUNTING = (RecordKind.CATEGORICAL, RecordKind.ONE_HOT, RecordKind.HISTOGRAM, RecordKind.BINARY)


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordSpace:
    """The valid records of a domain (see the module docstring for each kind).

    `size` is the number of categories / cells / bins / features / queries; `low`, `high` bound
    integer features; `radius` and `norm` (1, 2 or math.inf) bound a bounded-norm record.
    """

    kind: RecordKind
    size: int
    low: float = 0.0
    high: float = 1.0
    radius: float = 1.0
    norm: float = 2.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", RecordKind(self.kind))
        if self.size < 1:
            raise ValueError("a record space needs size ≥ 1")
        if self.kind is RecordKind.INTEGER and not math.ceil(self.low) <= math.floor(self.high):
            raise ValueError("an integer record space needs an integer in [low, high]")
        bad_norm = self.radius <= 0 or self.norm not in (1.0, 2.0, math.inf)
        if self.kind is RecordKind.BOUNDED_NORM and bad_norm:
            raise ValueError("a bounded-norm record space needs radius > 0 and norm 1, 2 or inf")

    @staticmethod
    def categorical(k: int) -> RecordSpace:
        return RecordSpace(kind=RecordKind.CATEGORICAL, size=k)

    @staticmethod
    def one_hot(k: int) -> RecordSpace:
        return RecordSpace(kind=RecordKind.ONE_HOT, size=k)

    @staticmethod
    def histogram(bins: int) -> RecordSpace:
        return RecordSpace(kind=RecordKind.HISTOGRAM, size=bins)

    @staticmethod
    def integer(d: int, *, low: float, high: float) -> RecordSpace:
        return RecordSpace(kind=RecordKind.INTEGER, size=d, low=low, high=high)

    @staticmethod
    def bounded_norm(d: int, *, radius: float = 1.0, norm: float = 2.0) -> RecordSpace:
        return RecordSpace(kind=RecordKind.BOUNDED_NORM, size=d, radius=radius, norm=norm)

    @staticmethod
    def binary(m: int) -> RecordSpace:
        return RecordSpace(kind=RecordKind.BINARY, size=m)

    @property
    def num_features(self) -> int:
        return 1 if self.kind in _ONE_FEATURE else self.size

    @property
    def counting(self) -> bool:
        """Records that feed counting queries (one count per category / cell / bin / column)."""
        return self.kind in _COUNTING

    @property
    def integer_valued(self) -> bool:
        return self.kind is not RecordKind.BOUNDED_NORM

    def box(self) -> tuple[F64, F64]:
        """The smallest feature box holding every record."""
        d = self.num_features
        if self.kind in _ONE_FEATURE:
            lo, hi = 0.0, float(self.size - 1)
        elif self.kind is RecordKind.INTEGER:
            lo, hi = float(math.ceil(self.low)), float(math.floor(self.high))
        elif self.kind is RecordKind.BOUNDED_NORM:
            lo, hi = -self.radius, self.radius
        else:
            lo, hi = 0.0, 1.0
        return np.full(d, lo), np.full(d, hi)

    def check(self, X: F64) -> str | None:
        """None if every row of X is a record of this space, else a one-line reason."""
        if X.shape[0] == 0:
            return None
        if X.shape[1] != self.num_features:
            return f"records of a {self.kind.value} space have {self.num_features} features"
        lo, hi = self.box()
        if np.any(lo > X) or np.any(hi < X):
            return f"record outside the {self.kind.value} space"
        if self.integer_valued and not np.all(np.round(X) == X):
            return f"{self.kind.value} records are integer-valued"
        if self.kind is RecordKind.ONE_HOT and not np.all(X.sum(axis=1) == 1):
            return "one-hot records have exactly one 1"
        if self.kind is RecordKind.BOUNDED_NORM:
            norms = np.linalg.norm(X, ord=self.norm, axis=1)
            if np.any(norms > self.radius * (1 + 1e-9)):
                return f"record norm above {self.radius:g}"
        return None

    def unit(self, j: int) -> F64:
        """The record that counts towards query / cell j only (categorical, histogram: j itself)."""
        if self.kind in _ONE_FEATURE:
            return np.array([float(j)])
        v = np.zeros(self.size)
        v[j] = 1.0
        return v

    def centre(self) -> F64:
        """A record in the middle of the space."""
        if self.kind is RecordKind.ONE_HOT:
            return self.unit(self.size // 2)
        if self.kind is RecordKind.BOUNDED_NORM:
            return np.zeros(self.size)
        lo, hi = self.box()
        return np.floor((lo + hi) / 2)

    def named_records(self) -> list[tuple[str, F64]]:
        """The space's extreme records, a "low" one first and a "high corner" among them."""
        k = self.size
        if self.kind in (RecordKind.CATEGORICAL, RecordKind.HISTOGRAM, RecordKind.ONE_HOT):
            word = "bin" if self.kind is RecordKind.HISTOGRAM else "category"
            out = [(f"{word} 0", self.unit(0)), (f"high corner ({word} {k - 1})", self.unit(k - 1))]
            out += [(f"{word} {j}", self.unit(j)) for j in (k // 2, 1 % k)]
            return dedupe_named(out)
        if self.kind is RecordKind.BOUNDED_NORM:
            return self._norm_records()
        lo, hi = self.box()
        out = [("low corner", lo.copy()), ("high corner", hi.copy())]
        for j in range(min(k, 3)):
            v = lo.copy()
            v[j] = hi[j]
            out.append((f"corner e{j}", v))
            w = hi.copy()
            w[j] = lo[j]
            out.append((f"corner ¬e{j}", w))
        if k >= 2:
            half = lo.copy()
            half[: k // 2] = hi[: k // 2]
            out.append(("half corner", half))
        out.append(("centre", self.centre()))
        return dedupe_named(out)

    def _norm_records(self) -> list[tuple[str, F64]]:
        d, r = self.size, self.radius
        e0 = np.zeros(d)
        e0[0] = r
        diag = np.full(d, r if self.norm == math.inf else r / d ** (1.0 / self.norm))
        out = [("low corner (−r·e0)", 0.0 - e0), ("high corner (r·e0)", e0), ("diagonal", diag)]
        out.append(("antipodal diagonal", 0.0 - diag))
        if d >= 2:
            e1 = np.zeros(d)
            e1[1] = r
            out.append(("r·e1", e1))
        out.append(("centre", np.zeros(d)))
        return dedupe_named(out)

    def random_record(self, rng: np.random.Generator) -> F64:
        """A random record of the space (extremes favoured where the space has corners)."""
        k = self.size
        if self.kind in (RecordKind.CATEGORICAL, RecordKind.HISTOGRAM, RecordKind.ONE_HOT):
            return self.unit(int(rng.integers(k)))
        if self.kind is RecordKind.BOUNDED_NORM:
            v = rng.normal(size=k)
            norm = float(np.linalg.norm(v, ord=self.norm)) or 1.0
            scale = self.radius if rng.random() < 0.5 else self.radius * float(rng.random())
            return np.asarray(v / norm * scale, dtype=float)
        lo, hi = self.box()
        return rng.integers(lo.astype(np.int64), hi.astype(np.int64) + 1).astype(float)


def dedupe_named(items: list[tuple[str, F64]]) -> list[tuple[str, F64]]:
    """Named records with repeated values dropped (first name kept)."""
    seen: set[bytes] = set()
    out = []
    for name, v in items:
        key = np.asarray(v, dtype=float).tobytes()
        if key not in seen:
            seen.add(key)
            out.append((name, v))
    return out
