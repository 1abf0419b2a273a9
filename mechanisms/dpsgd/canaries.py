"""Canaries as neighbour pairs for DP-SGD (Nasr et al., "Tight Auditing of Differentially
Private Machine Learning", USENIX Security 2023, Section 3).

A canary pair differs in one record, the canary; the rest of the dataset is part of the pair.

- Gradient canary (white-box, `model="gradient"`): the record's row is its gradient, C·e₁ (the
  first axis, a direction no other record of the pair uses). Add/remove: canary vs none.
  Replace-one: C·e₁ vs −C·e₁, which is the pair dp_accounting's REPLACE_ONE privacy loss
  distribution describes (mixtures q·N(±C) + (1 − q)·N(0) on the two sides; checked by
  Monte Carlo in tests/mechanisms/test_dpsgd.py).
- Input-space canary (`logistic`, `linear`): a mislabelled point far from the data, x = R·e₁ at
  the edge of the box, whose gradient stays clipped at norm C along e₁ while θ stays near the
  origin. Replace-one: the same point with the opposite label (its gradient points the other way).

Rests: `zero` (records whose gradient is 0 at every θ: the zero row, or x = 0 with no
intercept), `data` (a small real-looking set near the origin: points on a circle of radius 0.5,
labelled by their first coordinate's sign), and two rests that only buggy twins need (their
leak needs company): `orthogonal` (gradients C·e₂) and `opposed` (gradients −C·e₁).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, NeighborPair, Relation

RESTS = ("zero", "data", "orthogonal", "opposed")

REST_WORDS = {
    "zero": "zero-gradient records",
    "data": "small real-looking records near the origin",
    "orthogonal": "records with gradient C·e₂",
    "opposed": "records with gradient −C·e₁",
}

RELATION_WORDS = {Relation.ADD_REMOVE_ONE: "add/remove", Relation.REPLACE_ONE: "replace-one"}

F64 = NDArray[np.float64]


def _rest_rows(kind: str, size: int, width: int, clip_norm: float) -> F64:
    rows = np.zeros((size, width))
    if size == 0 or kind == "zero":
        return rows
    if kind == "orthogonal":
        rows[:, 1 % width] = clip_norm
    elif kind == "opposed":
        rows[:, 0] = -clip_norm
    elif kind == "data":
        angles = 2.0 * math.pi * (np.arange(size) + 0.5) / size
        rows[:, 0] = 0.5 * np.cos(angles)
        rows[:, 1 % width] += 0.5 * np.sin(angles)
    else:
        raise ValueError(f"rest must be one of {', '.join(RESTS)}, got {kind!r}")
    return rows


def _rest_words(kind: str, size: int) -> str:
    return "empty" if size == 0 else f"{size} {REST_WORDS[kind]}"


def _dataset(rows: F64, labels: F64 | None) -> Dataset:
    return Dataset(np.atleast_2d(rows) if len(rows) else rows, labels)


def gradient_canary_pairs(
    *,
    dim: int,
    clip_norm: float,
    canary_scale: float,
    rest: str,
    rest_size: int,
    relations: tuple[Relation, ...],
) -> tuple[NeighborPair, ...]:
    """Gradient canary canary_scale·C·e₁ vs none (add/remove) or vs its negative (replace-one)."""
    rest_rows = _rest_rows(rest, rest_size, dim, clip_norm)
    canary = np.zeros(dim)
    canary[0] = canary_scale * clip_norm
    size = "C" if canary_scale == 1 else f"{canary_scale:g}C"
    tags = ("canary:gradient", f"rest:{rest}" if rest_size else "rest:empty")
    with_canary = _dataset(np.vstack([rest_rows, canary]), None)
    rest_words = _rest_words(rest, rest_size)
    out = []
    for relation in relations:
        if relation is Relation.ADD_REMOVE_ONE:
            other, what = _dataset(rest_rows, None), f"gradient canary {size}·e₁ vs none"
        else:
            other, what = (
                _dataset(np.vstack([rest_rows, -canary]), None),
                (f"gradient canary {size}·e₁ replaced by −{size}·e₁"),
            )
        out.append(
            NeighborPair(
                dataset=with_canary,
                neighbor=other,
                relation=relation,
                description=f"{what}; rest: {rest_words}, {RELATION_WORDS[relation]}",
                tags=tags,
            )
        )
    return tuple(out)


def input_canary_pairs(
    *, model: str, dim: int, bound: float, rest: str, rest_size: int, relations: tuple[Relation, ...]
) -> tuple[NeighborPair, ...]:
    """Input-space canary: x = R·e₁ mislabelled (logistic y = −1; linear y = −R) vs none, or vs
    the same point with the opposite label (replace-one)."""
    x_rest = _rest_rows("data" if rest == "data" else "zero", rest_size, dim, 1.0)
    x_c = np.zeros(dim)
    x_c[0] = bound
    if model == "logistic":
        y_rest = np.where(x_rest[:, 0] >= 0, 1.0, -1.0) if rest_size else np.zeros(0)
        rows, labels, flipped = np.vstack([x_rest, x_c]), np.append(y_rest, -1.0), np.append(y_rest, 1.0)
        with_canary, without = _dataset(rows, labels), _dataset(x_rest, y_rest)
        replaced = _dataset(rows, flipped)
        canary_words = f"input canary x = {bound:g}·e₁ labelled −1 (mislabelled, far from the data)"
        other_words = "relabelled +1"
    else:
        y_rest = x_rest[:, 0] if rest == "data" else np.zeros(rest_size)
        rest_rows = np.column_stack([x_rest, y_rest])
        canary = np.append(x_c, -bound)
        with_canary, without = _dataset(np.vstack([rest_rows, canary]), None), _dataset(rest_rows, None)
        replaced = _dataset(np.vstack([rest_rows, np.append(x_c, bound)]), None)
        canary_words = f"input canary x = {bound:g}·e₁ with response −{bound:g} (far from the data)"
        other_words = f"with response +{bound:g}"
    words = "empty" if rest_size == 0 else f"{rest_size} {REST_WORDS['data' if rest == 'data' else 'zero']}"
    out = []
    for relation in relations:
        other, what = (
            (without, f"{canary_words} vs none")
            if relation is Relation.ADD_REMOVE_ONE
            else (replaced, f"{canary_words} vs the same point {other_words}")
        )
        out.append(
            NeighborPair(
                dataset=with_canary,
                neighbor=other,
                relation=relation,
                description=f"{what}; rest: {words}, {RELATION_WORDS[relation]}",
                tags=("canary:input", f"rest:{'data' if rest == 'data' else 'zero'}"),
            )
        )
    return tuple(out)
