"""SelectHalfplane (§4) and SelectTriangle (§5) of 002_f29981ba9423ff4d.txt as standalone mechanisms.

One call with a fixed score q(h) = min(#_{h→0}(S0) − b/k, −#_{h→0}(S1)) (AND form, SelectHalfplane)
or q(t) = min(#_{t→1}(S1) − b/k, −#_{t→1}(S0)) (OR form, SelectTriangle), where b/k is a public
constant (spec §8.1 preset select-halfplane: b/k = 1.5). With b fixed, q has sensitivity 1 under
add/remove, replace-one and relabel (spec §5.4 [D]).

Privacy [V] (§4 "Privacy analysis of SelectHalfplane"): the output density is exp(ε q)/N; for a
sensitivity-1 q, p_S(â, b) ≤ e^{2ε} p_S'(â, b) pointwise, so the call is 2ε-DP (pure) under every
relation. The same argument applies verbatim to SelectTriangle's density on (F × D)³ [D].
Registered: PROVED (2ε, 0) for REPLACE_ONE and ADD_REMOVE_ONE (RELABEL_ONE is covered).

Output encoding: `output="probe"` (default) releases the hypothesis's labels on a fixed probe set
(the five grid points the registered pairs use: a "predictions on a fixed probe set" encoding).
For every registered pair supp(S ∪ S') lies in the probe set and q depends on the output only
through these labels, so the density ratio is a function of this encoding: it is a sufficient
statistic for the privacy loss on those pairs (≤ 32 distinct values, which the histogram
distinguisher resolves at 10⁶ samples). `output="cell"` releases the id of the cell of the full-grid
arrangement that contains (â, b). The density ratio p_S/p_S' is constant on each cell, so the
cell id is a sufficient statistic for the privacy loss (auditing it loses nothing). With
`output="continuous"` the mechanism releases (â, b) itself: a uniform point of the chosen cell
(arrangement.py), exactly the paper's Step 6. SelectTriangle releases the grid labelling π of the
triangle (the continuous 6-tuple is not sampled: it needs an alias table over up to 10⁶ triples per
pattern; not needed by any registered pair — documented limitation).

Oracle: the exact output distribution over cells, Pr[c] ∝ area(c)·exp(ε q(c)), gives
`exact_epsilon(pair, delta)` by `analytic.discrete_epsilon`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from mechanisms.analytic import discrete_epsilon
from mechanisms.base import ClaimKind, PrivacyClaim
from mechanisms.geometric.arrangement import halfplane_cells, triangle_patterns
from mechanisms.geometric.learners import labelled
from mechanisms.geometric.scl import PAPER
from neighbors.base import Dataset, Domain, NeighborPair, Relation


@dataclass(frozen=True, slots=True, kw_only=True)
class SelectHalfplane:
    """One call of SelectHalfplane on X_d² (preset select-halfplane: d = 8, ε = 1, b/k = 1.5)."""

    epsilon: float = 1.0
    d: int = 8
    b_over_k: float = 1.5
    output: str = "probe"
    name: str = "geo_select_halfplane"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"
    form: ClassVar[str] = "and"
    reference: ClassVar[str] = PAPER + ", §4 privacy analysis of SelectHalfplane"

    def __post_init__(self) -> None:
        if not self.epsilon > 0 or self.d < 1 or self.output not in ("probe", "cell", "continuous"):
            raise ValueError("need epsilon > 0, d ≥ 1, output in {'probe', 'cell', 'continuous'}")

    @property
    def claim(self) -> PrivacyClaim:
        return self.claims[0]

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        note = "exp(ε·q) with a sensitivity-1 q: pointwise density ratio ≤ e^{2ε} (pure DP)"
        return tuple(
            PrivacyClaim(
                epsilon=2 * self.epsilon,
                delta=0.0,
                relation=r,
                reference=self.reference,
                kind=ClaimKind.PROVED,
                note=note,
            )
            for r in (Relation.REPLACE_ONE, Relation.ADD_REMOVE_ONE)
        )

    @property
    def domain(self) -> Domain:
        return Domain(
            num_features=2,
            feature_low=0.0,
            feature_high=float(self.d),
            integer_features=True,
            labels=(0.0, 1.0),
        )

    # ------------------------------------------------------------------ table
    def _table(self) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
        c = halfplane_cells(self.d)
        return c.labels, c.log_area

    def _index(self, X: NDArray[np.float64]) -> NDArray[np.intp]:
        Xi = np.asarray(X).reshape(-1, 2).astype(np.intp)
        out: NDArray[np.intp] = Xi[:, 0] * (self.d + 1) + Xi[:, 1]
        return out

    def scores(self, dataset: Dataset) -> NDArray[np.float64]:
        labels, _ = self._table()
        P = labels.shape[1]
        y = np.zeros(dataset.n) if dataset.y is None else dataset.y
        idx = self._index(dataset.X)
        n1 = np.bincount(idx, weights=(y == 1).astype(float), minlength=P)
        n0 = np.bincount(idx, weights=(y == 0).astype(float), minlength=P)
        if self.form == "and":
            rem = 1.0 - labels
            return np.minimum(rem @ n0 - self.b_over_k, -(rem @ n1))
        inc = labels.astype(float)
        return np.minimum(inc @ n1 - self.b_over_k, -(inc @ n0))

    def log_weights(self, dataset: Dataset) -> NDArray[np.float64]:
        """ln(base(c)·exp(ε q(c))): the unnormalised log-probability of each cell."""
        return self._table()[1] + self.epsilon * self.scores(dataset)

    def probabilities(self, dataset: Dataset) -> NDArray[np.float64]:
        lw = self.log_weights(dataset)
        p = np.exp(lw - lw.max())
        return p / p.sum()

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        p = self.probabilities(dataset)
        cum = np.cumsum(p)
        cells = np.minimum(np.searchsorted(cum, rng.random(num_samples) * cum[-1], side="right"), p.size - 1)
        return self.release(cells, dataset, rng)

    def probe_points(self) -> tuple[tuple[int, int], ...]:
        """The fixed probe set of the "probe" encoding: the points of the registered pairs."""
        d, m = self.d, self.d // 2
        return ((0, 0), (0, 1), (m, m), (m, m + 1), (d, d))

    def release(self, cells: NDArray[np.intp], dataset: Dataset, rng: np.random.Generator) -> NDArray[Any]:
        if self.output == "probe":
            labels, _ = self._table()
            idx = self._index(np.asarray(self.probe_points(), dtype=float))
            return labels[cells][:, idx].astype(np.float64)
        if self.output == "cell":
            return cells.astype(np.float64)
        return halfplane_cells(self.d).sample_points(cells, rng)

    # ------------------------------------------------------------------ pairs and oracle
    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        d, m = self.d, self.d // 2
        P, N = (1, 0) if self.form == "and" else (0, 1)
        AR, RP = Relation.ADD_REMOVE_ONE, Relation.REPLACE_ONE

        def mk(
            a: tuple[list[Any], list[int]], b: tuple[list[Any], list[int]], rel: Relation, desc: str
        ) -> NeighborPair:
            return NeighborPair(
                dataset=labelled(a[0], a[1], 2),
                neighbor=labelled(b[0], b[1], 2),
                relation=rel,
                description=desc,
                tags=("standalone",),
            )

        return (
            mk(([(0, 0)], [N]), ([], []), AR, "add/remove a single covered-side point (0,0)"),
            mk(([(0, 0)], [N]), ([(d, d)], [N]), RP, "symmetric replace (0,0) → (d,d), no protected points"),
            mk(
                ([(m, m)] * 5 + [(0, 0)], [P] * 5 + [N]),
                ([(m, m)] * 5 + [(m, m + 1)], [P] * 5 + [N]),
                RP,
                "asymmetric replace: 5 protected at centre, covered (0,0) → adjacent (spec §5.6, 1.55ε)",
            ),
            mk(
                ([(0, 0), (0, 1)], [N, N]),
                ([(0, 0)], [N]),
                AR,
                "two covered points (0,0),(0,1) vs one (spec B-count pair)",
            ),
        )

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        return discrete_epsilon(self.probabilities(pair.dataset), self.probabilities(pair.neighbor), delta)


@dataclass(frozen=True, slots=True, kw_only=True)
class SelectTriangle(SelectHalfplane):
    """One call of SelectTriangle on X_3² (OR-form score; output = the triangle's grid labelling id)."""

    d: int = 3
    name: str = "geo_select_triangle"
    form: ClassVar[str] = "or"
    reference: ClassVar[str] = PAPER + ", §5 SelectTriangle (argument of the §4 privacy analysis)"

    def __post_init__(self) -> None:
        if self.output not in ("probe", "cell"):
            raise ValueError("SelectTriangle releases the triangle's labelling (output='probe' or 'cell')")

    def _table(self) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
        t = triangle_patterns(self.d)
        return t.labels, t.log_weight
