"""Floating-point events: the bit-level structure of scalar float outputs (lattices, ulp residues).

Mironov ("On significance of the least significant bits for differential privacy", CCS 2012)
showed that a textbook Laplace mechanism run over doubles, `f(D) + laplace(0, λ)`, is not
differentially private at any ε: the set of doubles it can output depends on f(D). With f = 0
the output is the noise itself, whose doubles near 0 are as fine as the format allows; with
f = 1 every output y = fl(1 + noise) with |y| < 1/4 is a multiple of 2^-53 (both operands are,
and the sum is exact). The event "the output lies in (−1/4, 1/4) and is not a multiple of
2^-53" then has probability ≈ 0.15 under D and exactly 0 under D′: an infinite witness.
Casacuberta, Shoemate, Vadhan & Wagaman ("Widespread underestimation of sensitivity in
differentially private libraries and how to fix it", CCS 2022) show the same for float sums.

`LatticeEvent` is {|x| < 2^j (optionally one sign) and x is (not) a multiple of 2^k} on the
first output coordinate; membership is decided exactly on the bits (`valuations`: the 2-adic
valuation of every double, via frexp and the lowest set bit of the integer significand), never
by floating-point division. `UlpResidueEvent` is {|x| < 2^j and the last t bits of x's
significand are zero}: the lattice relative to each value's own ulp. `FloatDistinguisher`
proposes both families from a 2-D histogram (magnitude exponent × valuation) of the pooled
selection split, so it costs two `bincount`s on scalar outputs and nothing on vector outputs
(it returns None at once). Like every distinguisher it only proposes: the chosen event is
certified on fresh samples, so an event with count 0 on one side certifies a large ε only if the
fresh samples agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..events import Array, Event, as_rows, event_type
from .base import Candidates
from .registry import CHEAP, FLOAT, distinguisher

__all__ = ["FloatDistinguisher", "LatticeEvent", "UlpResidueEvent", "float_bits", "valuations"]

ZERO_VALUATION = 4096
"""Stand-in valuation of 0.0 (a multiple of every power of two)."""

SIGNS = ("any", "positive", "negative")


def float_bits(x: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """(e, v, t) per double: |x| < 2^e ≤ 2|x| (frexp's exponent), the 2-adic valuation v (x is a
    multiple of 2^k iff v ≥ k) and the trailing zero bits t of the 53-bit significand.
    0.0 gets e = −1075 (below every double), v = `ZERO_VALUATION`, t = 53."""
    m, e = np.frexp(x)
    sig = np.abs(np.ldexp(m, 53)).astype(np.int64)  # exact: |m| in [0.5, 1) → integer < 2^53
    # subnormals: frexp normalises them too, so sig is an integer and e − 53 the exponent of its unit
    low = sig & -sig
    zero = sig == 0
    tz = np.frexp(np.where(zero, 1, low).astype(np.float64))[1].astype(np.int64) - 1
    e64 = e.astype(np.int64)
    v = e64 - 53 + tz
    return (
        np.where(zero, -1075, e64),
        np.where(zero, ZERO_VALUATION, v),
        np.where(zero, 53, tz),
    )


def valuations(x: NDArray[np.float64]) -> NDArray[np.int64]:
    """The 2-adic valuation of each double (`float_bits`)."""
    return float_bits(x)[1]


def _window(x: NDArray[np.float64], e: NDArray[np.int64], bound: int, sign: str) -> NDArray[np.bool_]:
    inside = e <= bound
    if sign == "positive":
        return inside & (x > 0)
    if sign == "negative":
        return inside & (x < 0)
    return inside


def _window_text(bound: int, sign: str) -> str:
    b = _pow2(bound)
    return {"any": f"(−{b}, {b})", "positive": f"(0, {b})", "negative": f"(−{b}, 0)"}[sign]


def _pow2(k: int) -> str:
    return f"{2.0**k:g}" if -4 <= k <= 16 else f"2^{k}"


@event_type("float_lattice")
@dataclass(frozen=True, slots=True)
class LatticeEvent:
    """{x in the window |x| < 2^bound (of a sign) and x is (not) a multiple of 2^lattice}."""

    bound: int
    lattice: int
    multiple: bool
    sign: str = "any"
    note: str = ""

    def indicator(self, outputs: Array) -> NDArray[np.bool_]:
        x = as_rows(outputs)[:, 0]
        e, v, _ = float_bits(x)
        return _window(x, e, self.bound, self.sign) & ((v >= self.lattice) == self.multiple)

    def describe(self) -> str:
        what = "multiples" if self.multiple else "not multiples"
        text = f"outputs in {_window_text(self.bound, self.sign)} that are {what} of 2^{self.lattice}"
        return f"{text} ({self.note})" if self.note else text

    def to_spec(self) -> dict[str, Any]:
        return {
            "type": "float_lattice",
            "bound": self.bound,
            "lattice": self.lattice,
            "multiple": self.multiple,
            "sign": self.sign,
            "note": self.note,
        }

    @staticmethod
    def from_spec(spec: dict[str, Any]) -> LatticeEvent:
        return LatticeEvent(
            bound=int(spec["bound"]),
            lattice=int(spec["lattice"]),
            multiple=bool(spec["multiple"]),
            sign=str(spec.get("sign", "any")),
            note=str(spec.get("note", "")),
        )


@event_type("float_ulp")
@dataclass(frozen=True, slots=True)
class UlpResidueEvent:
    """{|x| < 2^bound and the last `zeros` bits of x's significand are (not all) zero}."""

    bound: int
    zeros: int
    multiple: bool
    note: str = ""

    def indicator(self, outputs: Array) -> NDArray[np.bool_]:
        x = as_rows(outputs)[:, 0]
        e, _, t = float_bits(x)
        return (e <= self.bound) & ((t >= self.zeros) == self.multiple)

    def describe(self) -> str:
        what = "end" if self.multiple else "do not end"
        window = _window_text(self.bound, "any")
        text = f"outputs in {window} whose significands {what} in {self.zeros} zero bits (ulp residue)"
        return f"{text} ({self.note})" if self.note else text

    def to_spec(self) -> dict[str, Any]:
        return {
            "type": "float_ulp",
            "bound": self.bound,
            "zeros": self.zeros,
            "multiple": self.multiple,
            "note": self.note,
        }

    @staticmethod
    def from_spec(spec: dict[str, Any]) -> UlpResidueEvent:
        return UlpResidueEvent(
            bound=int(spec["bound"]),
            zeros=int(spec["zeros"]),
            multiple=bool(spec["multiple"]),
            note=str(spec.get("note", "")),
        )


def _cumulative(
    codes_e: NDArray[np.intp], codes_v: NDArray[np.intp], ne: int, nv: int
) -> NDArray[np.float64]:
    """H[i, k] = #{e-code ≤ i and v-code ≥ k} (window up to bin i, valuation at least bin k)."""
    h = np.bincount(codes_e * nv + codes_v, minlength=ne * nv).reshape(ne, nv).astype(float)
    return np.cumsum(h, axis=0)[:, ::-1].cumsum(axis=1)[:, ::-1]


def _witness_note(ca: float, cb: float) -> str:
    if cb == 0 and ca > 0:
        return f"only from D on the selection split: {ca:.0f} vs 0"
    if ca == 0 and cb > 0:
        return f"only from D′ on the selection split: 0 vs {cb:.0f}"
    return ""


@distinguisher(cost=CHEAP, event_types=("float_lattice", "float_ulp"), sets=(FLOAT,), rank=80)
@dataclass(frozen=True, slots=True)
class FloatDistinguisher:
    """Lattice and ulp-residue events on scalar float outputs (see the module docstring).

    Proposes nothing on vector outputs, on integer-valued outputs (every value then has
    valuation ≥ 0: the histogram and thresholds see all there is) and when the pooled selection
    split shows one valuation only. Windows are |x| < 2^j for the `max_windows` largest
    magnitude exponents seen; lattices are the `max_lattices` smallest valuations seen."""

    name: str = "float_bits"
    max_windows: int = 40
    max_lattices: int = 64

    def propose(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Candidates | None:
        if a.shape[1] != 1 or b.shape[1] != 1:
            return None
        x = np.concatenate([a[:, 0], b[:, 0]])
        e, v, t = float_bits(x)
        if not np.any(v < 0) or np.all(v == v[0]):
            return None
        side = np.arange(x.size) < a.shape[0]
        windows = np.unique(e)[-self.max_windows :]
        lattices = np.unique(v)[: self.max_lattices]
        zeros = np.unique(t)[: self.max_lattices]
        ce = np.searchsorted(windows, np.maximum(e, windows[0]))  # below the smallest: first bin
        parts: list[tuple[str, str, NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]] = []
        for sign in SIGNS:
            keep = {"any": np.ones_like(side), "positive": x > 0, "negative": x < 0}[sign]
            cv = np.minimum(np.searchsorted(lattices, v), lattices.size - 1)
            cv = np.where(v > lattices[-1], lattices.size - 1, cv)
            ha = _cumulative(ce[keep & side], cv[keep & side], windows.size, lattices.size)
            hb = _cumulative(ce[keep & ~side], cv[keep & ~side], windows.size, lattices.size)
            parts.append(("lattice", sign, ha, hb, lattices))
        ct = np.minimum(np.searchsorted(zeros, t), zeros.size - 1)
        ct = np.where(t > zeros[-1], zeros.size - 1, ct)
        ha = _cumulative(ce[side], ct[side], windows.size, zeros.size)
        hb = _cumulative(ce[~side], ct[~side], windows.size, zeros.size)
        parts.append(("ulp", "any", ha, hb, zeros))
        return self._candidates(parts, windows)

    def _candidates(
        self,
        parts: list[tuple[str, str, NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]],
        windows: NDArray[np.int64],
    ) -> Candidates:
        ca: list[NDArray[np.float64]] = []
        cb: list[NDArray[np.float64]] = []
        specs: list[tuple[str, str, int, int, bool]] = []
        for kind, sign, ha, hb, levels in parts:
            tot_a, tot_b = ha[:, :1], hb[:, :1]  # level 0 = the smallest: every point of the window
            for multiple, (pa, pb) in ((True, (ha, hb)), (False, (tot_a - ha, tot_b - hb))):
                ca.append(pa.ravel())
                cb.append(pb.ravel())
                specs += [(kind, sign, int(w), int(k), multiple) for w in windows for k in levels]
        counts_a, counts_b = np.concatenate(ca), np.concatenate(cb)

        def make(i: int) -> Event:
            kind, sign, w, k, multiple = specs[i]
            note = _witness_note(float(counts_a[i]), float(counts_b[i]))
            if kind == "ulp":
                return UlpResidueEvent(bound=w, zeros=k, multiple=multiple, note=note)
            return LatticeEvent(bound=w, lattice=k, multiple=multiple, sign=sign, note=note)

        return Candidates(counts_a, counts_b, make)
