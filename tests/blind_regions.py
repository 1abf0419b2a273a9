"""Held-out region gates (issue 44): gates on the count or mass of records in regions that no
template names.

Each buggy mechanism releases a Laplace count (or mass) of the records in a region only when the
*true* count (mass) reaches a threshold, else the sentinel −1: true ε = ∞ (the pair carrying
the count across the threshold changes the support). Its correct twin branches on the *noisy*
count (mass): post-processing of one Laplace release, ε = 1 under replace-one (a count moves by
at most 1; a mass of a feature in [0, 1] moves by at most 1). The regions contain none of the
points the templates and the issue-35 sweep locations use: no corner of the box (all of them
for d ≤ 3; low, high and the single-coordinate corners e_j, ¬e_j for d = 4), not the centre,
not the quartile points of a feature with the others at the centre. Shapes, thresholds and
dimensions are chosen here, not by any template:

- `interval_d1`: 0.81 ≤ x < 0.93 in [0, 1], t = 5;
- `box_d2`: [0.62, 0.81) × [0.13, 0.34) in [0, 1]², t = 4;
- `ball_d3`: ‖x − (0.3, 0.7, 0.35)‖ < 0.2 in [0, 1]³, t = 3;
- `slab_d4`: 0.76 ≤ w·x < 0.98, w = (0.7, −0.4, 0.5, 0.3), in [0, 1]⁴, t = 3 (a half-space
  at an odd angle would hold a corner of the box, the maximiser of w·x; the slab cuts it off);
- `mass_ball_d2`: the mass Σ x₀ of the records in ‖x − (0.68, 0.29)‖ < 0.15, in [0, 1]², at
  s = 2.0 (three records near the ball's centre).

`dpaudit run tests.blind_regions:NAME` audits one blind; `benchmarks/blind.py` lists them after
`tests.blind_mechanisms.ROWS`; `tests/audit/test_search_regions.py` checks that the search finds
two of them at a small budget and that the check on the regions' held-out property holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.neighbors.base import Dataset, Domain
from tests.blind_mechanisms import EPSILON, REPLACE, SENTINEL, Row, _mechanism

Inside = Callable[[NDArray[np.float64]], NDArray[np.bool_]]
"""Which records (rows of X) lie in the region."""


def _box(d: int) -> Domain:
    return Domain(num_features=d, feature_low=0.0, feature_high=1.0)


def _interval(x: NDArray[np.float64]) -> NDArray[np.bool_]:
    return (x[:, 0] >= 0.81) & (x[:, 0] < 0.93)


def _box2(x: NDArray[np.float64]) -> NDArray[np.bool_]:
    return (x[:, 0] >= 0.62) & (x[:, 0] < 0.81) & (x[:, 1] >= 0.13) & (x[:, 1] < 0.34)


def _ball3(x: NDArray[np.float64]) -> NDArray[np.bool_]:
    return np.linalg.norm(x - np.array([0.3, 0.7, 0.35]), axis=1) < 0.2


SLAB_W = np.array([0.7, -0.4, 0.5, 0.3])


def _slab4(x: NDArray[np.float64]) -> NDArray[np.bool_]:
    v = x @ SLAB_W
    return (v >= 0.76) & (v < 0.98)


def _ball2(x: NDArray[np.float64]) -> NDArray[np.bool_]:
    return np.linalg.norm(x - np.array([0.68, 0.29]), axis=1) < 0.15


def count_gate(
    inside: Inside, t: float, *, noisy: bool
) -> Callable[[Dataset, int, np.random.Generator], Any]:
    """A Laplace count of the region released when the true (buggy) or noisy (correct) count
    reaches t, else the sentinel."""

    def batch(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
        count = float(np.count_nonzero(inside(ds.X)))
        out = count + rng.laplace(0.0, 1.0 / EPSILON, size=m)
        return np.where((out if noisy else np.full(m, count)) >= t, out, SENTINEL)

    return batch


def mass_gate(inside: Inside, s: float, *, noisy: bool) -> Callable[[Dataset, int, np.random.Generator], Any]:
    """A Laplace mass Σ x₀ of the region released when the true (buggy) or noisy (correct) mass
    reaches s, else the sentinel (x₀ ∈ [0, 1]: sensitivity 1 under replace-one)."""

    def batch(ds: Dataset, m: int, rng: np.random.Generator) -> Any:
        mass = float(ds.X[inside(ds.X), 0].sum())
        out = mass + rng.laplace(0.0, 1.0 / EPSILON, size=m)
        return np.where((out if noisy else np.full(m, mass)) >= s, out, SENTINEL)

    return batch


REGIONS: tuple[tuple[str, int, Inside, str, float], ...] = (
    ("interval_d1", 1, _interval, "count", 5),
    ("box_d2", 2, _box2, "count", 4),
    ("ball_d3", 3, _ball3, "count", 3),
    ("slab_d4", 4, _slab4, "count", 3),
    ("mass_ball_d2", 2, _ball2, "mass", 2.0),
)
"""(name, d, region, count or mass, threshold) of every held-out gate."""


def _rows() -> list[Row]:
    rows = []
    for name, d, inside, kind, t in REGIONS:
        gate = count_gate if kind == "count" else mass_gate
        buggy, correct = f"region_{name}", f"noisy_region_{name}"
        rows.append(
            Row(buggy, _mechanism(buggy, gate(inside, t, noisy=False), REPLACE, _box(d)), math.inf, True)
        )
        rows.append(
            Row(correct, _mechanism(correct, gate(inside, t, noisy=True), REPLACE, _box(d)), EPSILON, False)
        )
    return rows


HELD_OUT: tuple[Row, ...] = tuple(_rows())
BY_NAME = {row.name: row for row in HELD_OUT}
INSIDE = {name: inside for name, _, inside, _, _ in REGIONS}
globals().update({row.name: row.mechanism for row in HELD_OUT})  # `dpaudit run tests.blind_regions:NAME`
