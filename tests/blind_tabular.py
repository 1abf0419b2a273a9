"""Held-out gates on a table (issue 44, item 2): a category of a 5-category column with a band of
a clipped numeric column, and a rare label, none of them at a point the templates, the corners or
the issue-35 locations use.

The table (`SPACE`): `x` numeric, declared [0, 1] and clipped to it by the "library" (its record
range reaches 1000 widths beyond, as a `TabularSpace` column that `clips`), `c` categorical over
five categories a…e (code 5: unseen), and a label `y` over four classes. Each buggy mechanism
releases a Laplace count (ε = 1) of the rows it gates on only when the *true* count reaches t,
else the sentinel −1 (true ε = ∞ under replace-one); its twin branches on the *noisy* count
(post-processing: ε = 1).

- `category_band`: rows with c = "d" and 0.3 ≤ clip(x, 0, 1) < 0.6, t = 3. Category "d" (code
  3) is at no corner (codes 0 and 5), not at the centre (code 2) nor the quartile points (codes
  1, 2, 4); the band holds no point of the record range's corners, centre or quartiles, and a
  design over the record range puts a point in it with probability 0.3 / 2001 per point.
- `rare_label`: rows with y = 1, t = 4 (the labels at the extremes are 0, 3 and 2).

`dpaudit run tests.blind_tabular:NAME --pairs search --num-samples N` audits one blind;
`tests/neighbors/test_design_axes.py` checks that the search finds both at a small budget and
not their twins; `benchmarks/blind_tabular.py` prints the figures.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.neighbors.base import Dataset
from dpaudit.neighbors.tabular import CategoricalColumn, NumericColumn, TabularSpace
from tests.blind_mechanisms import EPSILON, REPLACE, SENTINEL, Row, _mechanism

SPACE = TabularSpace(
    columns=(
        NumericColumn(name="x", low=0.0, high=1.0),
        CategoricalColumn(name="c", categories=("a", "b", "c", "d", "e")),
    ),
    label=CategoricalColumn(name="y", categories=(0, 1, 2, 3), allow_unseen=False),
)
Gated = Callable[[dict[str, NDArray[Any]]], NDArray[np.bool_]]
"""Which rows of the decoded table the gate counts."""


def _category_band(table: dict[str, NDArray[Any]]) -> NDArray[np.bool_]:
    x = np.clip(table["x"].astype(float), 0.0, 1.0)  # the library clips to the declared bounds
    return (table["c"] == "d") & (x >= 0.3) & (x < 0.6)


def _rare_label(table: dict[str, NDArray[Any]]) -> NDArray[np.bool_]:
    return np.asarray(table["y"] == 1)


def count_gate(gated: Gated, t: int, *, noisy: bool) -> Callable[[Dataset, int, np.random.Generator], Any]:
    """A Laplace count of the gated rows released when the true (buggy) or noisy (correct) count
    reaches t, else the sentinel."""

    def batch(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
        count = float(np.count_nonzero(gated(SPACE.decode(ds))))
        out = count + rng.laplace(0.0, 1.0 / EPSILON, size=m)
        return np.where((out if noisy else np.full(m, count)) >= t, out, SENTINEL)

    return batch


GATES: tuple[tuple[str, Gated, int], ...] = (
    ("category_band", _category_band, 3),
    ("rare_label", _rare_label, 4),
)
"""(name, gated rows, threshold) of every tabular gate."""


def _rows() -> list[Row]:
    domain = SPACE.domain(min_size=1, max_size=64)
    rows = []
    for name, gated, t in GATES:
        buggy, correct = f"table_{name}", f"noisy_table_{name}"
        rows.append(
            Row(buggy, _mechanism(buggy, count_gate(gated, t, noisy=False), REPLACE, domain), math.inf, True)
        )
        rows.append(
            Row(
                correct,
                _mechanism(correct, count_gate(gated, t, noisy=True), REPLACE, domain),
                EPSILON,
                False,
            )
        )
    return rows


TABULAR: tuple[Row, ...] = tuple(_rows())
BY_NAME = {row.name: row for row in TABULAR}
GATED = {name: gated for name, gated, _ in GATES}
globals().update({row.name: row.mechanism for row in TABULAR})  # `dpaudit run tests.blind_tabular:NAME`
