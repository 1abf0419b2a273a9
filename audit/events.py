"""Events and their specs: the sets S whose probabilities P[M(D) ∈ S], P[M(D') ∈ S] are certified.

An event is anything with a vectorised `indicator` over output rows (and a `describe` for
reports): thresholds on a coordinate or a linear projection (`ThresholdEvent`) and finite sets
of exact output values (`SetEvent`); every event class registers
its spec `type` key with `@event_type` where it is defined (`EVENT_TYPES`).
Every event is a frozen dataclass of tuples and floats, so it pickles to worker processes and
round-trips through `to_spec`/`event_from_spec` (results, checkpoints, baselines). Any fixed
measurable S gives a valid witness: for an (ε, δ)-DP mechanism P[M(D) ∈ S] ≤ e^ε P[M(D') ∈ S] + δ
holds for every S, so the runner may certify whichever event the selection split chose.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np
from numpy.typing import NDArray

Array = NDArray[Any]


def as_rows(outputs: Array) -> NDArray[np.float64]:
    """Outputs as a 2-D float64 array (samples, features); -0.0 normalised to 0.0."""
    arr = np.asarray(outputs, dtype=np.float64).reshape(outputs.shape[0], -1)
    return arr + 0.0


def row_keys(rows: NDArray[np.float64]) -> Array:
    """One hashable/sortable key per row: the value itself (1 column) or its bytes."""
    if rows.shape[1] == 1:
        return rows[:, 0]
    contiguous = np.ascontiguousarray(rows)
    return contiguous.view(np.dtype((np.void, 8 * rows.shape[1]))).ravel()


_COLUMN_SUM_MAX = 16
"""`_row_hashes` adds up to this many columns one by one, wider rows with one reduction."""
_ROW_HASH = np.random.default_rng(0x5EED).integers(1, 2**63, size=4096, dtype=np.uint64) | np.uint64(1)


def distinct_rows_at_least(rows: NDArray[np.float64]) -> int:
    """A lower bound on the distinct rows of a 2-D array (as `row_keys` of ≥ 2 columns: their
    bits): its rows' distinct 64-bit hashes (equal rows hash equally; much cheaper than sorting
    wide rows' bytes). 0 (no bound) for one column, whose keys compare as numbers."""
    if not 1 < rows.shape[1] <= _ROW_HASH.size:
        return 0
    return int(np.unique(_row_hashes(rows)).size)


def _row_hashes(rows: NDArray[np.float64]) -> NDArray[np.uint64]:
    """A 64-bit hash of each row's bits (2 ≤ columns ≤ 4096): equal rows hash equally."""
    bits = np.ascontiguousarray(rows, dtype=np.float64).view(np.uint64)
    mixed = (bits ^ (bits >> np.uint64(32))) * _ROW_HASH[: rows.shape[1]]  # high bits reach low ones
    mixed ^= mixed >> np.uint64(29)
    if rows.shape[1] > _COLUMN_SUM_MAX:
        return np.asarray(mixed.sum(axis=1, dtype=np.uint64))  # wraps mod 2**64
    acc = mixed[:, 0].copy()  # a few columns: added column by column (the sum mod 2**64 is the same
    for c in range(1, rows.shape[1]):  # in any order), faster than a reduction over a short axis
        acc += mixed[:, c]
    return acc


def unique_row_keys(rows: NDArray[np.float64]) -> tuple[Array, NDArray[np.intp]]:
    """`np.unique(row_keys(rows), return_inverse=True)`, to the last bit, without sorting every
    row's bytes: rows are grouped on their hashes, the grouping is checked bit for bit against
    each group's first row (a collision falls back to `np.unique`), and only the distinct rows
    are sorted as bytes, which gives `np.unique`'s order."""
    keys = row_keys(rows)
    if not 1 < rows.shape[1] <= _ROW_HASH.size or rows.shape[0] < 2:
        uniq, inverse = np.unique(keys, return_inverse=True)
        return uniq, inverse.reshape(-1)
    _, first, group = np.unique(_row_hashes(rows), return_index=True, return_inverse=True)
    group = group.reshape(-1)
    bits = np.ascontiguousarray(rows, dtype=np.float64).view(np.uint64)
    if not np.array_equal(bits, bits[first][group]):  # two different rows with one hash
        uniq, inverse = np.unique(keys, return_inverse=True)
        return uniq, inverse.reshape(-1)
    order = np.argsort(keys[first], kind="stable")
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    return keys[first][order], rank[group]


def rows_in(rows: NDArray[np.float64], members: NDArray[np.float64]) -> NDArray[np.bool_]:
    """`np.isin(row_keys(rows), row_keys(members))`, to the last bit, without sorting every row's
    bytes: each row's hash is looked up among the members' (distinct) hashes and a match is
    confirmed bit for bit against that member. Members sharing a hash (a repeated member or a
    collision) fall back to `np.isin`."""
    if not 1 < rows.shape[1] <= _ROW_HASH.size or members.shape[0] == 0 or rows.shape[1] != members.shape[1]:
        return np.isin(row_keys(rows), row_keys(members))
    member_hashes = _row_hashes(members)
    order = np.argsort(member_hashes, kind="stable")
    sorted_hashes = member_hashes[order]
    if np.any(sorted_hashes[1:] == sorted_hashes[:-1]):
        return np.isin(row_keys(rows), row_keys(members))
    row_hashes = _row_hashes(rows)
    at = np.minimum(np.searchsorted(sorted_hashes, row_hashes), sorted_hashes.size - 1)
    hit = sorted_hashes[at] == row_hashes
    found = np.flatnonzero(hit)
    if found.size:
        row_bits = np.ascontiguousarray(rows[found], dtype=np.float64).view(np.uint64)
        member_bits = np.ascontiguousarray(members, dtype=np.float64).view(np.uint64)[order[at[found]]]
        hit[found[~(row_bits == member_bits).all(axis=1)]] = False
    return hit


def more_distinct_rows(rows: NDArray[np.float64], limit: int) -> bool:
    """Whether `rows` take more than `limit` distinct values (as `row_keys`), decided on
    `distinct_rows_at_least` when it exceeds `limit`, else exactly."""
    if rows.shape[0] <= limit:
        return False
    return distinct_rows_at_least(rows) > limit or bool(np.unique(row_keys(rows)).size > limit)


class EventShapeError(ValueError):
    """An event evaluated on outputs of a width it is not defined on (e.g. a baseline's witness
    re-counted after the mechanism's output changed shape)."""


def require_width(rows: NDArray[np.float64], needed: int, what: str) -> None:
    if rows.shape[1] < needed:
        raise EventShapeError(f"{what} needs outputs with ≥ {needed} column(s), got {rows.shape[1]}")


@runtime_checkable
class Event(Protocol):
    def indicator(self, outputs: Array) -> NDArray[np.bool_]: ...

    def describe(self) -> str: ...


EVENT_TYPES: dict[str, Callable[[dict[str, Any]], Event]] = {}
"""Every event type by its spec `type` key; filled by `@event_type` where each event is defined."""

E = TypeVar("E", bound=type)


def event_type(key: str, *, legacy: tuple[str, ...] = ()) -> Callable[[E], E]:
    """Register an event class's `from_spec` under its spec `type` key (where the class is
    defined), and under the `legacy` keys older files carry (read only: `to_spec` writes `key`).
    A key registered by another class is an error: two types cannot share a key."""

    def register(cls: E) -> E:
        factory = cls.from_spec  # type: ignore[attr-defined]
        for k in (key, *legacy):
            known = EVENT_TYPES.get(k)
            if known is not None and getattr(known, "__qualname__", None) != factory.__qualname__:
                raise ValueError(f"event type {k!r} is already registered by {known.__qualname__}")
            EVENT_TYPES[k] = factory
        return cls

    return register


def event_from_spec(spec: dict[str, Any]) -> Event:
    """Rebuild an event from `event.to_spec()` (stored in results, checkpoints and baselines)."""
    kind = spec.get("type")
    factory = EVENT_TYPES.get(str(kind))
    if factory is None:
        raise ValueError(f"unknown event type {kind!r}")
    return factory(spec)


@event_type("threshold")
@dataclass(frozen=True, slots=True)
class ThresholdEvent:
    """{s(x) ≥ t} or {s(x) ≤ t}, where s is one coordinate or a linear projection."""

    threshold: float
    upper: bool
    coordinate: int | None = None
    projection: tuple[float, ...] | None = None

    def evaluate(self, outputs: Array) -> NDArray[np.float64]:
        rows = as_rows(outputs)
        if self.projection is not None:
            if rows.shape[1] != len(self.projection):
                raise EventShapeError(
                    f"a projection of {len(self.projection)} coordinates met outputs of {rows.shape[1]}"
                )
            return rows @ np.asarray(self.projection)
        require_width(rows, (self.coordinate or 0) + 1, f"coordinate {self.coordinate or 0}")
        return rows[:, self.coordinate or 0]

    def indicator(self, outputs: Array) -> NDArray[np.bool_]:
        s = self.evaluate(outputs)
        return s >= self.threshold if self.upper else s <= self.threshold

    def to_spec(self) -> dict[str, Any]:
        return {
            "type": "threshold",
            "threshold": self.threshold,
            "upper": self.upper,
            "coordinate": self.coordinate,
            "projection": None if self.projection is None else list(self.projection),
        }

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> ThresholdEvent:
        proj = spec.get("projection")
        return cls(
            threshold=float(spec["threshold"]),
            upper=bool(spec["upper"]),
            coordinate=None if spec.get("coordinate") is None else int(spec["coordinate"]),
            projection=None if proj is None else tuple(float(x) for x in proj),
        )

    def describe(self) -> str:
        if self.projection is not None:
            what = "w·x"
        elif self.coordinate:
            what = f"x[{self.coordinate}]"
        else:
            what = "x"
        return f"{what} {'≥' if self.upper else '≤'} {self.threshold:.6g}"


@event_type("set")
@dataclass(frozen=True, slots=True)
class SetEvent:
    """{x ∈ V} for a finite set V of exact output values (rows)."""

    values: tuple[tuple[float, ...], ...]

    def indicator(self, outputs: Array) -> NDArray[np.bool_]:
        """Rows of another width than the stored values are never in the set (no error: a
        mechanism whose output width varies with the dataset, or changed since a baseline)."""
        rows = as_rows(outputs)
        if not self.values or rows.shape[1] != len(self.values[0]):
            return np.zeros(outputs.shape[0], dtype=bool)
        return rows_in(rows, np.asarray(self.values, dtype=np.float64).reshape(len(self.values), -1))

    def to_spec(self) -> dict[str, Any]:
        return {"type": "set", "values": [list(v) for v in self.values]}

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> SetEvent:
        return cls(tuple(tuple(float(x) for x in v) for v in spec["values"]))

    def describe(self) -> str:
        shown = ", ".join(
            str(v[0]) if len(v) == 1 else "(" + ",".join(f"{x:g}" for x in v) + ")" for v in self.values[:6]
        )
        more = f", … ({len(self.values)} values)" if len(self.values) > 6 else ""
        return f"x ∈ {{{shown}{more}}}"


def event_spec(event: Event) -> dict[str, Any] | None:
    """The event's spec, or None if it cannot be serialised."""
    to_spec = getattr(event, "to_spec", None)
    return to_spec() if callable(to_spec) else None
