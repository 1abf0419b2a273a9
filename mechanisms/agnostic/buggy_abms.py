"""Buggy twins of the [ABMS] learners (000_ed369e7bc84e5ca0.txt; spec seeds-000-001.md §6).

Each twin subclasses the correct mechanism, overrides one method and keeps the correct
(PROVED) claim ε_𝒜 + 1 + 2 ln 2 = 3.386. True ε on the registered pairs comes from the exact
oracle (`exact_epsilon`) and is printed by `benchmarks/agnostic.py`.

| twin | bug (spec id) | detectable |
|---|---|---|
| em_learner_no_half | EM weights exp(−ε·q) instead of exp(−ε·q/2) (spec §2.1, B000-3) | yes (1.964 vs 1) |
| relabel_and_learn_argmin | relabel with the deterministic ERM pattern instead of the EM (B000-2) | yes |
| relabel_and_learn_release | also releases the relabelled D̃ (cell counts) (B000-1) | yes (ε = ∞) |
| private_agnostic_no_half | relabel EM exp(−q), not exp(−q/2) (B000-3) | no (1.726 vs 1.378; < 3.386) |
| closure_learner_reuse | both steps read all of S, |Q| = 2m (B000-5) | no (1.393 vs 0.987; < 3.386) |

Presets (d = 8, m = 10) follow the correct learners. Both twins leak measurably more than their
hosts on the near-tie pairs (pair_search.py), but neither exceeds the proved 3.386 in the searched
family: the relabel EM leaks at most 2 + 2 ln 2 without the /2, only part of which survives the
resampled 𝒜, and two reused steps compose to ≤ 2 × ~1.0 here. detectable stays False.

Why no black-box audit of any pair can flag them at any preset searched: each twin has an exact
oracle, so its realised ε bounds every certified bound, and the oracle's maximum over the
searched pairs (above) is below the proved 3.386 that decides the verdict. This is a measured
argument over the searched families (near-tie single-point datasets and random 1–3-point
datasets at m = 10 and m = 30), not a proof over every dataset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.mechanisms.agnostic._common import F64, cell_counts, cells_of, error_counts
from dpaudit.mechanisms.agnostic.abms import ClosureLearn, PrivateAgnosticABMS, RelabelAndLearn
from dpaudit.mechanisms.agnostic.em import EMLearner
from dpaudit.mechanisms.analytic import law_epsilon, sample_law
from dpaudit.neighbors.base import Dataset, NeighborPair


@dataclass(frozen=True, slots=True, kw_only=True)
class RelabelAndLearnArgmin(RelabelAndLearn):
    """A_Relabel picks the first error-minimising concept on D (no exponential mechanism)."""

    name: str = "relabel_and_learn_argmin"

    def relabel_law(self, cD: F64, cT: F64) -> F64:
        q = error_counts(self.matrix, cD[None])[0]
        out = np.zeros(q.size)
        out[int(np.argmin(q))] = 1.0
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class RelabelAndLearnRelease(RelabelAndLearn):
    """Releases (𝒜's index, D̃ as cell counts): D̃ reveals D's points, so ε = ∞."""

    name: str = "relabel_and_learn_release"

    def _joint(self, dataset: Dataset) -> dict[tuple[int, ...], float]:
        C = self.matrix
        cD, cT = self.split(dataset)
        ph = self.relabel_law(cD, cT)
        sx = (cD + cT).sum(axis=1)
        dx = cD.sum(axis=1)
        law: dict[tuple[int, ...], float] = {}
        for h in np.flatnonzero(ph > 0):
            errs = ((C[h][None] != C) * sx[None]).sum(axis=1).astype(float)
            w = np.exp(-(self.epsilon_learner / 2) * (errs - errs.min()))
            pg = w / w.sum()
            relab = np.stack([dx * (1 - C[h]), dx * C[h]], axis=1).astype(int).ravel().tolist()
            for g in range(C.shape[0]):
                key = (g, *relab)
                law[key] = law.get(key, 0.0) + ph[h] * pg[g]
        return law

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        return sample_law(self._joint(dataset), num_samples, rng=rng)

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        return law_epsilon(self._joint(pair.dataset), self._joint(pair.neighbor), delta)


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivateAgnosticNoHalf(PrivateAgnosticABMS):
    """The relabelling EM uses exp(−q) (the factor 1/2 dropped)."""

    name: str = "private_agnostic_no_half"

    def relabel_coefficient(self) -> float:
        return 1.0


@dataclass(frozen=True, slots=True, kw_only=True)
class ClosureLearnReuse(ClosureLearn):
    """Both steps use the whole S (S_1 = S_2 = S, each split in halves D, T): a change now
    reaches both steps (k-fold composition instead of parallel composition)."""

    name: str = "closure_learner_reuse"

    def parts(self, dataset: Dataset) -> list[tuple[NDArray[np.int64], F64, F64]]:
        cells = cells_of(dataset, self.d)
        x = dataset.X[:, 0].astype(np.int64)
        q = dataset.n // 2
        part = (x[:q], cell_counts(cells[:q], self.d), cell_counts(cells[q:], self.d))
        return [part, part]

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        from dpaudit.mechanisms.agnostic.pair_search import near_tie_pair

        worst = near_tie_pair(
            8,
            180,
            7,
            90,
            179,
            (0, 1),
            description=(
                "reused D = 180×x=7 (90 ones): one (7,0) → (0,1); exact 1.393 vs 0.987 for the correct one"
            ),
            tags=("in-D", "near-tie", "reuse"),
        )
        base = ClosureLearn.neighbor_pairs(self)
        return (worst, *base) if (self.d, self.m) == (8, 10) else base

    def resample_size(self) -> int:
        """|Q| = |D|/9 of the reused D (= 2m): the reused part is twice as large."""
        return 2 * self.m


@dataclass(frozen=True, slots=True, kw_only=True)
class EMLearnerNoHalf(EMLearner):
    """The standalone EM learner without its /2: exact 1.964 on the boundary pair (spec §B1)."""

    name: str = "em_learner_no_half"

    def coefficient(self) -> float:
        return self.epsilon
