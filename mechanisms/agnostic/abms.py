"""Alon, Beimel, Moran & Stemmer: relabel-and-learn, private agnostic learning, closure.

Paper: Alon, Beimel, Moran & Stemmer, Closure Properties for Private Classification and
Online Prediction (000).

Algorithms (all with the EM learner of `em.py`, ε_𝒜 = 1, as the private realizable 𝒜)
-----------------------------------------------------------------------------------------
- A_Relabel (Section 5, Alg. 2): P = distinct points of D∘T; H = Π_C(P) (patterns on P); choose
  h ∈ H by the EM with ε = 1 and score q(D, h) = errors of h on D (error count, matched
  sensitivity 1, Example 5.2), Pr[h] ∝ exp(−q/2); relabel D and T by h. Not private alone.
- A_RelabelAndLearn (Section 5, Alg. 3, Lemma 5.3): run A_Relabel(D, T), output 𝒜(S̃) on the whole
  relabelled S̃ = D̃∘T̃ (released: 𝒜's index in C). The public part V is empty here (Ṽ and h̄
  are then constant), which is the "in particular 𝒜(A_Relabel(D, T))" case of Lemma 5.3.
- A_PrivateAgnostic (Section 6, Alg. 4, Thm 6.1): S = D∘T, |D| = |T| = n/2; A_Relabel(D, T);
  Q = |D|/9 draws **with replacement** from D̃ (Lemma 3.12); output f = 𝒜(Q).
- A_ClosureLearn (Section 7, Alg. 5, Thm 7.1) for k = 2, G = AND, H_1 = up-thresholds 1[x ≥ a],
  H_2 = down-thresholds 1[x ≤ b] (G(H_1, H_2) = intervals ∪ {∅}): S = S_1∘S_2, S_i = D_i∘T_i
  (halves); step 1 scores h ∈ Π_{H_1}(P_1) by min_b errors_{D_1}(h ∧ 1[x ≤ b]) (eq. 17 with
  the min over completions), step 2 scores h ∈ Π_{H_2}(P_2) by errors_{D_2}(h_1 ∧ h); each step
  relabels D̃_i by its pattern, draws Q_i (|D_i|/9, with replacement) and runs 𝒜_i (EM over
  H_i, ε = 1). Output (a, b): the indices of h_1 ∈ H_1 and h_2 ∈ H_2.

Decisions (where the paper leaves a choice)
----------------------------
- Splits are positional (D = first half, T = second half; S_1 = first half of S): the paper
  gives no rule and any data-independent split is DP-correct.
- Eq. (17)'s score is computed on D_i (Alg. 2 runs the EM "on the database D").
- Lemma 5.3's proof writes exp(+q/2); the algorithm (Alg. 1) uses exp(−εq/2): implemented
  with the minus sign (the typo would be a bug).

Claims (explicit constants from the proofs; the papers state (O(1), O(δ)))
-----------------------------------------------------------------------------
Lemma 5.3's proof: normaliser |H_1| ≤ 2|H_2| (factor 2), each K-pattern has ≤ 2 extensions
(factor 2), EM score shift ±1 at ε = 1 (factor e), 𝒜's e^{ε_𝒜}: Pr_1 ≤ 4e·e^{ε_𝒜}·Pr_2 +
4eδ_𝒜, so ε = ε_𝒜 + 1 + 2 ln 2 = 3.386 and δ = 4e·δ_𝒜 = 0 (pure 𝒜). Thm 6.1: step 3 is
(1, δ)-DP by Lemma 3.12 (resampling from the relabelled D̃ is 𝒜 on a function of D̃ whose
privacy the lemma states as (ε, δ)), so the same (3.386, 0). Thm 7.1 / Lemma 7.2: each step
is (3.386, 0) on its own disjoint S_i and the later step reads earlier outputs only, so
adaptive parallel composition gives (3.386, 0) overall. Lemma 7.2's "(ε, O(δ)) for ε < 1"
wording is a typo; no stated claim is registered for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation, Subsampling, SubsamplingKind
from ..analytic import discrete_epsilon
from ..base import ClaimFromClaims, PrivacyClaim
from ._common import (
    F64,
    PAPER_000,
    cell_counts,
    cells_of,
    concept_class,
    draw_categorical,
    error_counts,
    learner_domain,
    pattern_multiplicity,
    relabel_learn_epsilon,
    replace_pair,
    softmax,
    with_replacement_distribution,
)
from .pair_search import near_tie_pair


def relabel_distribution(
    C: NDArray[np.int8], cD: F64, cT: F64, coefficient: float = 0.5, score: F64 | None = None
) -> F64:
    """A_Relabel's law over concepts (mass of a pattern split evenly over its concepts).

    cD, cT: cell counts (d, 2); `score` overrides the error count on D (closure steps).
    """
    support = (cD + cT).sum(axis=1) > 0
    mult = pattern_multiplicity(C, support[None])[0]
    q = error_counts(C, cD[None])[0] if score is None else score
    return softmax(-coefficient * q - np.log(mult))


def resampled_learner_law(
    C: NDArray[np.int8], xD: NDArray[np.int64], h: NDArray[np.int8], m: int, coefficient: float
) -> F64:
    """Exact law of 𝒜(Q): Q = m draws with replacement from D̃ = {(x, h(x)) : x ∈ D}, 𝒜 = EM
    over C with exp(−coefficient·errors_Q) (Lemma 3.12's resampling step)."""
    ux = np.unique(xD)
    weights, comps = with_replacement_distribution(xD, m)
    mismatch = (C[:, ux] != h[None, ux]).astype(np.float64)  # (|C|, R)
    errors = comps @ mismatch.T  # (B, |C|)
    return np.asarray(weights @ softmax(-coefficient * errors))


def resampled_learner_draw(
    C: NDArray[np.int8],
    xD: NDArray[np.int64],
    h_rows: NDArray[np.int8],
    m: int,
    coefficient: float,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """One 𝒜(Q) per row of h_rows (S, d): Q drawn with replacement from D̃ per run."""
    S = h_rows.shape[0]
    xq = xD[rng.integers(0, xD.size, size=(S, m))]  # (S, m)
    labels = np.take_along_axis(h_rows, xq, axis=1)  # (S, m)
    errors = (C[:, xq] != labels[None]).sum(axis=2).T  # (S, |C|)
    return draw_categorical(softmax(-coefficient * errors.astype(np.float64)), rng)


def relabel_learn_claim(epsilon_learner: float, *, reference: str, note: str) -> PrivacyClaim:
    """The PROVED replace-one claim of relabel-then-learn with a pure 𝒜 (Lemma 5.3's explicit
    constants, `relabel_learn_epsilon`; δ = 4e·δ_𝒜 = 0), which Thm 6.1 and Thm 7.1 inherit."""
    return PrivacyClaim(
        epsilon=relabel_learn_epsilon(epsilon_learner),
        delta=0.0,
        relation=Relation.REPLACE_ONE,
        reference=reference,
        note=note,
    )


def resampling_domain(d: int, n: int, m: int) -> Domain:
    """Exactly n records on {0..d−1} × {0, 1}, the learner run on Q = m draws with replacement
    (Lemma 3.12's resampling step, declared so the generators probe its sizes)."""
    return learner_domain(d, n, n, Subsampling(kind=SubsamplingKind.WITH_REPLACEMENT, size=lambda _n: m))


# =========================================================================== RelabelAndLearn
@dataclass(frozen=True, slots=True, kw_only=True)
class RelabelAndLearn(ClaimFromClaims):
    """Lemma 5.3: 𝒜(A_Relabel(D, T)) with 𝒜 = EM learner on the whole relabelled S."""

    d: int = 16
    size_d: int = 24
    size_t: int = 8
    epsilon_learner: float = 1.0
    concept: str = "thr"
    name: str = "relabel_and_learn"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"

    def __post_init__(self) -> None:
        if self.size_d < 1 or self.size_t < 0 or not self.epsilon_learner > 0:
            raise ValueError("need size_d ≥ 1, size_t ≥ 0, epsilon_learner > 0")
        concept_class(self.concept, self.d)

    @property
    def matrix(self) -> NDArray[np.int8]:
        return concept_class(self.concept, self.d)

    @property
    def n(self) -> int:
        return self.size_d + self.size_t

    @property
    def headline_claim(self) -> PrivacyClaim:
        return relabel_learn_claim(
            self.epsilon_learner,
            reference=f"{PAPER_000}, Lemma 5.3 (explicit: ε_A + 1 + 2 ln 2, δ = 4e·δ_A)",
            note="4e·e^{ε_A} from |H1| ≤ 2|H2|, ≤ 2 extensions, EM shift e; pure 𝒜 ⇒ δ = 0",
        )

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return (self.headline_claim,)

    @property
    def domain(self) -> Domain:
        return learner_domain(self.d, self.n, self.n)

    def relabel_coefficient(self) -> float:
        return 0.5

    def split(self, dataset: Dataset) -> tuple[F64, F64]:
        cells = cells_of(dataset, self.d)
        return cell_counts(cells[: self.size_d], self.d), cell_counts(cells[self.size_d :], self.d)

    def relabel_law(self, cD: F64, cT: F64) -> F64:
        return relabel_distribution(self.matrix, cD, cT, self.relabel_coefficient())

    def probabilities(self, dataset: Dataset) -> F64:
        C = self.matrix
        cD, cT = self.split(dataset)
        ph = self.relabel_law(cD, cT)
        sx = (cD + cT).sum(axis=1)
        dis = ((C[:, None, :] != C[None, :, :]) * sx[None, None, :]).sum(axis=2)  # errors of g on S^h
        pg = softmax(-(self.epsilon_learner / 2) * dis.astype(np.float64), axis=1)  # rows h
        return np.asarray(ph @ pg)

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        p = self.probabilities(dataset)
        return rng.choice(p.size, size=num_samples, p=p).astype(np.int64)

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        return discrete_epsilon(self.probabilities(pair.dataset), self.probabilities(pair.neighbor), delta)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        if (self.d, self.size_d, self.size_t) == (16, 24, 8):
            # hand-built in-D pair: exact 1.961 (replace D's (4,1) by the new edge point (15,0))
            D = [(1, 0)] * 2 + [(2, 0)] * 4 + [(4, 1)] + [(6, 1)] * 9 + [(7, 1)] * 4 + [(8, 1)]
            D += [(12, 0)] + [(13, 0)] * 2
            T = [(2, 0), (7, 0), (7, 1), (13, 0), (13, 0), (13, 1), (13, 1), (13, 1)]
            xs, ys = [p[0] for p in D + T], [p[1] for p in D + T]
            return (
                replace_pair(
                    xs,
                    ys,
                    6,
                    (15, 0),
                    "D's (4,1) → new edge point (15,0) (exact 1.961)",
                    "in-D",
                    "boundary",
                ),
                replace_pair(
                    xs,
                    ys,
                    self.size_d + 1,
                    (10, 0),
                    "move a T point (7,0) into an empty gap of D (only the pattern multiplicities change)",
                    "in-T",
                    "gap",
                ),
                tie_pair(self.d, self.size_d, self.size_t),
                # white-box local search (exact oracle, power.py): D = 19×(8,0), 4×(8,1) and a
                # lone (0,1), T = 8×(8,0); the lone positive becomes a new edge point (12,0)
                # with the other label: exact 2.126 (vs 1.961 above, the claim 3.386)
                lone_edge_pair(
                    [(8, 0)] * 19 + [(8, 1)] * 4, (0, 1), (12, 0), [(8, 0)] * self.size_t, "searched, 2.126"
                ),
            )
        return abms_pairs(self.d, self.size_d, self.size_t)


def lone_edge_pair(
    rest: list[tuple[int, int]],
    old: tuple[int, int],
    new: tuple[int, int],
    part_t: list[tuple[int, int]],
    note: str,
) -> NeighborPair:
    """D = `rest` + one lone record `old` (last in D), T = `part_t`; `old` → `new`."""
    recs = [*rest, old, *part_t]
    xs, ys = [r[0] for r in recs], [r[1] for r in recs]
    return replace_pair(
        xs, ys, len(rest), new, f"D's lone {old} beside a single-point D → {new} ({note})", "in-D", "lone"
    )


def tie_pair(d: int, size_d: int, size_t: int) -> NeighborPair:
    """D = half (3,1), half (d−4,0): thresholds t ≤ 3 and t ≥ d−3 tie on D's error count; one
    relabel breaks the tie (a deterministic relabeller then jumps across every T point)."""
    h = size_d // 2
    xs = [3] * h + [d - 4] * (size_d - h) + [d // 2] * size_t
    ys = [1] * h + [0] * (size_d - h) + [1] * size_t
    return replace_pair(
        xs,
        ys,
        0,
        (3, 0),
        "near-tie D: relabel one (3,1) (breaks the tie between the all-positive and all-negative patterns)",
        "in-D",
        "tie",
    )


def abms_pairs(d: int, size_d: int, size_t: int) -> tuple[NeighborPair, ...]:
    """Recipe 1 (new boundary point in D with a surprising label) and recipe 3 (a T point
    moved into an empty gap of D) on a clean threshold sample with its cut at d/2."""
    t = d // 2
    n = size_d + size_t
    xs = [int(v) for v in np.linspace(1, d - 2, n).round()]
    xs = [x if abs(x - t) > 1 else (t - 2 if x < t else t + 2) for x in xs]
    ys = [int(x >= t) for x in xs]
    i_in = next(i for i in range(size_d) if ys[i] == 0)
    pairs = [
        replace_pair(
            xs, ys, i_in, (d - 1, 0), f"D's ({xs[i_in]},0) → new edge point ({d - 1},0)", "in-D", "boundary"
        ),
        replace_pair(xs, ys, i_in, (0, 1), f"D's ({xs[i_in]},0) → new edge point (0,1)", "in-D", "boundary"),
    ]
    if size_t:
        j = size_d
        pairs.append(
            replace_pair(xs, ys, j, (t, ys[j]), f"T's ({xs[j]},{ys[j]}) → empty gap x={t}", "in-T", "gap")
        )
    return tuple(pairs)


# =========================================================================== PrivateAgnostic
@dataclass(frozen=True, slots=True, kw_only=True)
class PrivateAgnosticABMS(ClaimFromClaims):
    """Thm 6.1 (Alon, Beimel, Moran & Stemmer, Alg. 4): A_Relabel(D, T), then 𝒜 on Q = |D|/9 draws
    with replacement from D̃.

    Preset (d = 8, m = 10, |D| = |T| = 90, n = 180, ε_𝒜 = 1), chosen so that it both learns and
    leaks. The old preset (d = 16, m = 4) did neither: exact ε ≤ 0.068 on its pairs and mean
    excess error 0.197 against 0.224 for a uniformly random threshold.
    - Utility: x uniform on [8], y = 1[x ≥ 4] flipped with probability 0.1. Over 200 seeded
      runs the mean excess error is 0.127 ± 0.008, against 0.222 for a uniformly random
      threshold and 0.40 for a fair coin. It is 0.191 at m = 4 and 0.074 at m = 20.
    - Privacy: pair_search.private_agnostic_search finds at most 1.378. The registered
      `near-tie` pair reaches it: D = 90 × x = 0 (42 ones, 48 zeros), one (0,1) → (7,0). Its
      worst output is t = 0, with P = 0.046 against 0.012, which a 10^5-sample audit can
      certify. A seeded random search over 1–3-point D found at most 1.357. At m = 30 the
      search reaches 1.489, but only on outputs of probability ~1e−4.
    - Claim: the proved 3.386 (Lemma 5.3 constants).
    """

    d: int = 8
    m: int = 10
    epsilon_learner: float = 1.0
    concept: str = "thr"
    name: str = "private_agnostic"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"

    def __post_init__(self) -> None:
        if self.m < 1 or not self.epsilon_learner > 0:
            raise ValueError("need m ≥ 1 and epsilon_learner > 0")
        concept_class(self.concept, self.d)

    @property
    def matrix(self) -> NDArray[np.int8]:
        return concept_class(self.concept, self.d)

    @property
    def size_d(self) -> int:
        return 9 * self.m

    @property
    def n(self) -> int:
        return 2 * self.size_d

    @property
    def headline_claim(self) -> PrivacyClaim:
        return relabel_learn_claim(
            self.epsilon_learner,
            reference=f"{PAPER_000}, Thm 6.1 via Lemma 5.3 and Lemma 3.12 (explicit constants)",
            note="(1 + ln 4e, 4eδ_A) with a pure 𝒜",
        )

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return (self.headline_claim,)

    @property
    def domain(self) -> Domain:
        return resampling_domain(self.d, self.n, self.m)

    def relabel_coefficient(self) -> float:
        return 0.5

    def relabel_law(self, cD: F64, cT: F64) -> F64:
        return relabel_distribution(self.matrix, cD, cT, self.relabel_coefficient())

    def _parts(self, dataset: Dataset) -> tuple[NDArray[np.int64], F64, F64]:
        cells = cells_of(dataset, self.d)
        xD = dataset.X[: self.size_d, 0].astype(np.int64)
        return xD, cell_counts(cells[: self.size_d], self.d), cell_counts(cells[self.size_d :], self.d)

    def probabilities(self, dataset: Dataset) -> F64:
        C = self.matrix
        xD, cD, cT = self._parts(dataset)
        ph = self.relabel_law(cD, cT)
        out = np.zeros(C.shape[0])
        for h in np.flatnonzero(ph > 1e-300):
            out += ph[h] * resampled_learner_law(C, xD, C[h], self.m, self.epsilon_learner / 2)
        return out

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        C = self.matrix
        xD, cD, cT = self._parts(dataset)
        ph = self.relabel_law(cD, cT)
        h = rng.choice(ph.size, size=num_samples, p=ph)
        return resampled_learner_draw(C, xD, C[h], self.m, self.epsilon_learner / 2, rng)

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        return discrete_epsilon(self.probabilities(pair.dataset), self.probabilities(pair.neighbor), delta)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        pairs = (*abms_pairs(self.d, self.size_d, self.size_d), tie_pair(self.d, self.size_d, self.size_d))
        if (self.d, self.m) == (8, 10):
            worst = near_tie_pair(
                8,
                90,
                0,
                42,
                0,
                (7, 0),
                description="near-tie D = 90×x=0 (42 ones): one (0,1) → new point (7,0) (search max 1.378)",
                tags=("in-D", "near-tie", "boundary"),
            )
            pairs = (worst, *pairs)
        return pairs


# =========================================================================== ClosureLearn
@dataclass(frozen=True, slots=True, kw_only=True)
class ClosureLearn(ClaimFromClaims):
    """Thm 7.1 (Alon, Beimel, Moran & Stemmer, Alg. 5), with k = 2, G = AND, H_1 = up-thresholds and
    H_2 = down-thresholds, so the learned class is the intervals.

    Preset (d = 8, m = 10, |D_i| = |T_i| = 90, n = 360, ε_𝒜 = 1). The old preset (d = 12, m = 2)
    leaked ≤ 0.062 and had excess error 0.41 against 0.5 for always-0.
    - Utility: x uniform on [8], y = 1[2 ≤ x ≤ 5] flipped with probability 0.1. Over 200 seeded
      runs the mean excess error is 0.23 ± 0.01, against 0.40 for always-0. It is 0.34 at m = 2
      and 0.31 at m = 5.
    - Privacy: pair_search.closure_search on its count grid (step 9) finds at most 0.987, at the
      step-2 `near-tie` pair: S_1 = 180 × (4,1); D_2 = 90 × x = 0 (45 ones, 45 zeros), one
      (0,0) → (6,1). The white-box local search of benchmarks/power.py found the count just
      off the tie: 48 ones give 1.378 (either step), registered as the `searched` pairs; the
      default audit certifies 1.339.
    - Claim: the proved 3.386 (parallel composition over the disjoint parts).
    """

    d: int = 8
    m: int = 10
    epsilon_learner: float = 1.0
    name: str = "closure_learner"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"

    def __post_init__(self) -> None:
        if self.m < 1 or not self.epsilon_learner > 0 or self.d < 2:
            raise ValueError("need m ≥ 1, d ≥ 2 and epsilon_learner > 0")

    @property
    def size_part(self) -> int:
        """|S_i| = 2·|D_i| = 2·9m."""
        return 18 * self.m

    @property
    def n(self) -> int:
        return 2 * self.size_part

    @property
    def headline_claim(self) -> PrivacyClaim:
        return relabel_learn_claim(
            self.epsilon_learner,
            reference=f"{PAPER_000}, Thm 7.1 / Lemma 7.2 (each step Lemma 5.3 + 3.12; disjoint S_i)",
            note="adaptive parallel composition over the disjoint parts S_1, S_2",
        )

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return (self.headline_claim,)

    @property
    def domain(self) -> Domain:
        return resampling_domain(self.d, self.n, self.m)

    def parts(self, dataset: Dataset) -> list[tuple[NDArray[np.int64], F64, F64]]:
        """[(x of D_i, counts of D_i, counts of T_i)] for i = 1, 2 (positional halves)."""
        cells = cells_of(dataset, self.d)
        x = dataset.X[:, 0].astype(np.int64)
        half, q = self.size_part, self.size_part // 2
        out = []
        for start in (0, half):
            sl_d, sl_t = slice(start, start + q), slice(start + q, start + half)
            out.append((x[sl_d], cell_counts(cells[sl_d], self.d), cell_counts(cells[sl_t], self.d)))
        return out

    def resample_size(self) -> int:
        """|Q_i| = |D_i|/9 = m draws with replacement (Alg. 5 step 2(c))."""
        return self.m

    def step_one_relabel_law(self, cD1: F64, cT1: F64) -> F64:
        """A_Relabel's law over H_1 in step 1: h scored by min_b errors_{D_1}(h ∧ 1[x ≤ b]) (eq. 17)."""
        up, down = concept_class("thr", self.d), concept_class("down_thr", self.d)
        K = self.d + 1
        G = (up[:, None, :] & down[None, :, :]).reshape(-1, self.d)
        q1 = error_counts(G, cD1[None])[0].reshape(K, K).min(axis=1)  # min over completions b
        return relabel_distribution(up, cD1, cT1, 0.5, score=q1)

    def step_laws(self, dataset: Dataset) -> tuple[F64, F64]:
        """(P[a] over H_1 (d+1,), P[b | a] over H_2 ((d+1), (d+1)))."""
        up, down = concept_class("thr", self.d), concept_class("down_thr", self.d)
        (x1, cD1, cT1), (x2, cD2, cT2) = self.parts(dataset)
        K = self.d + 1
        coef = self.epsilon_learner / 2
        ph1 = self.step_one_relabel_law(cD1, cT1)
        pa = sum(ph1[h] * resampled_learner_law(up, x1, up[h], self.resample_size(), coef) for h in range(K))
        pb = np.zeros((K, K))
        for a in range(K):
            q2 = error_counts(up[a][None, :] & down, cD2[None])[0]
            ph2 = relabel_distribution(down, cD2, cT2, 0.5, score=q2)
            pb[a] = sum(
                ph2[h] * resampled_learner_law(down, x2, down[h], self.resample_size(), coef)
                for h in range(K)
            )
        return np.asarray(pa), pb

    def probabilities(self, dataset: Dataset) -> F64:
        pa, pb = self.step_laws(dataset)
        return np.asarray((pa[:, None] * pb).ravel())

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        up, down = concept_class("thr", self.d), concept_class("down_thr", self.d)
        (x1, cD1, cT1), (x2, cD2, cT2) = self.parts(dataset)
        K = self.d + 1
        coef = self.epsilon_learner / 2
        ph1 = self.step_one_relabel_law(cD1, cT1)
        h1 = rng.choice(K, size=num_samples, p=ph1)
        a = resampled_learner_draw(up, x1, up[h1], self.resample_size(), coef, rng)
        scores2 = [error_counts(up[j][None, :] & down, cD2[None])[0] for j in range(K)]
        ph2 = np.stack([relabel_distribution(down, cD2, cT2, 0.5, score=q) for q in scores2])
        h2 = draw_categorical(ph2[a], rng)
        b = resampled_learner_draw(down, x2, down[h2], self.resample_size(), coef, rng)
        return np.column_stack([a, b]).astype(np.int64)

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        return discrete_epsilon(self.probabilities(pair.dataset), self.probabilities(pair.neighbor), delta)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        d, half = self.d, self.size_part
        q = half // 2
        other = [(d // 2, 1)] * half
        tie2 = near_tie_pair(
            d,
            q,
            0,
            q // 2,
            half + q - 1,
            (d - 2, 1),
            prefix=other,
            description=(
                f"step 2 near-tie D_2 = {q}×x=0 (half ones): one (0,0) → ({d - 2},1) "
                "(search max at d=8, m=10)"
            ),
            tags=("step-2", "in-D", "near-tie"),
        )
        tie1 = near_tie_pair(
            d,
            q,
            d - 1,
            q // 2,
            q - 1,
            (0, 1),
            suffix=other,
            description=f"step 1 near-tie D_1 = {q}×x={d - 1} (half ones): one ({d - 1},0) → (0,1)",
            tags=("step-1", "in-D", "near-tie"),
        )
        # the white-box search (benchmarks/power.py) found the worst count a little above the
        # tie: c = q/2 + q/30 ones (48 of 90 at m = 10; a scan over c gives 1.378 there, 0.987 at
        # c = 45), in either step
        c = q // 2 + max(1, q // 30)
        worst1 = near_tie_pair(
            d,
            q,
            d - 1,
            c,
            q - 1,
            (0, 1),
            suffix=other,
            description=f"step 1 D_1 = {q}×x={d - 1} ({c} ones): one ({d - 1},0) → (0,1) (searched count)",
            tags=("step-1", "in-D", "near-tie", "searched"),
        )
        worst2 = near_tie_pair(
            d,
            q,
            0,
            c,
            half + q - 1,
            (d - 2, 1),
            prefix=other,
            description=f"step 2 D_2 = {q}×x=0 ({c} ones): one (0,0) → ({d - 2},1) (searched count)",
            tags=("step-2", "in-D", "near-tie", "searched"),
        )
        return (tie2, tie1, worst1, worst2, *self._clean_pairs())

    def _clean_pairs(self) -> tuple[NeighborPair, ...]:
        d, half = self.d, self.size_part
        a, b = d // 4, (3 * d) // 4
        xs = [int(v) for v in np.linspace(0, d - 1, half).round()] * 2
        ys = [int(a <= x <= b) for x in xs]
        i = next(j for j in range(half // 2) if ys[j] == 0)
        return (
            replace_pair(
                xs,
                ys,
                i,
                (a + 1, 0),
                f"S_1's D: ({xs[i]},0) → ({a + 1},0) inside the interval (surprising label)",
                "step-1",
                "in-D",
            ),
            replace_pair(
                xs,
                ys,
                half + i,
                (d - 1, 1),
                f"S_2's D: ({xs[i]},0) → edge point ({d - 1},1)",
                "step-2",
                "in-D",
                "boundary",
            ),
        )
