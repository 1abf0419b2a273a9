"""Li, Wang & Ye: private realizable-to-agnostic transformation and private prediction.

Paper: Li, Wang & Ye, Private Realizable-to-Agnostic Transformation with Near-Optimal Sample
Complexity (001).

Algorithms
----------
- A_Relabel (Alg. 1): H = one concept per labelling of T_X (patterns on T only); score
  q(T∘W, h) = min_{f∈C} {dis_{T_X}(h, f) + err_W(f)} (normalised, multiplicities count);
  EM with privacy ε and sensitivity Δ = 1/|W|, i.e. Pr[h] ∝ exp(−ε·|W|·q/2); output T^h.
- A_Agnostic (Alg. 2, Lemma 3.1, Thm 3.6): I ⊆ [n] uniform of size exactly k = ⌈εn⌉
  (without replacement, independent of the data); T = S_I, W = S_{[n]∖I}; output 𝒜(T^h)
  where 𝒜 is the EM learner (`em.py`) with ε_𝒜 = 1 run on T^h — a faithful
  (1, 0)-DP empirical learner. Released: the index
  of 𝒜's concept in C.
- A_Auxiliary (Alg. 3, Claim 3.5, (1 + ε_𝒜 + 2 ln 2, 4eδ_𝒜) w.r.t. U for public V, W) lives
  in `auxiliary.py` and reuses this module's A_Relabel and 𝒜.
- Private prediction (Lemma 4.1, Thm 4.2): A_Agnostic whose 𝒜 is the 1-DP prediction
  mechanism of Lemma 4.1: T^h is split into r = ⌈6 ln(4/α)⌉ disjoint portions, 𝒜' on each
  portion outputs the first concept of C consistent with it (the smallest consistent t for
  THR), and the votes c = Σ g_i(x) are aggregated by the EM over the two labels with score
  = votes, ε_agg = 1: Pr[1] = sigmoid(c − r/2) (the EM over the two labels). Output: one bit.

Exact sizes
-----------------------
k = ⌈εn⌉ is computed exactly from the rational ε denotes (`_common.ceil_fraction`): the
sampler and the claim both call `subset_size(n)`, so the claim always uses the k the
implementation uses. 1/6 at n = 12 gives k = 2; 0.083 at n = 24 gives k = 2.

Claims
------------------
PROVED, A_Agnostic (Lemma 3.1's proof, explicit constants): for I ∌ 1 the EM
has W-sensitivity 1/|W| so p1(I) ≤ e^ε p2(I); for I ∋ 1 and i ∉ I the proof shows
p1(I) ≤ 4e·e^{ε_𝒜}·p2(I') + 4eδ_𝒜 with I' = (I∖{1})∪{i} (score shift 1/|T| + 1/|W| scaled
by ε|W|/2 ≤ 1/2 since |T| = k ≥ εn: e^{1/2} in the numerator and 2e^{1/2} in the normaliser,
factor 2 for the ≤ 2 extensions of a pattern, e^{ε_𝒜} for 𝒜). The counting identity
(each I ∌ 1 is hit exactly k times) gives
    ε_claim(n) = ln(e^ε + 4e^{1+ε_𝒜}·k/(n−k)),   δ_claim(n) = 4e·δ_𝒜·k/n   (δ_𝒜 = 0 here).
Prediction (Thm 4.2): the same with ε_𝒜 = 1: ln(e^ε + 4e²·k/(n−k)), pure.

A mechanism here accepts every n in [min_n, max_n] (so its registered pairs can sit at the
rounding boundaries of ⌈εn⌉ and at tiny n); its PROVED claim is the maximum of ε_claim(n)
over that range — a valid bound for each n, and the one the verdict uses.

STATED: none beyond the proved claim (issue: spurious "exceeds the paper's statement").
What the paper states for the algorithm built here is Lemma 3.1:
    "Suppose 𝒜 is (1, δ)-differentially private. Then 𝒜_Agnostic (Algorithm 2) is
     (O(ε), O(εδ))-differentially private."
and, for private prediction, Thm 4.2's proof: "by Lemma 3.1, the overall algorithm
𝒜_Agnostic is O(ε)-differentially private". The plain ε of Thm 3.6 / Thm 4.2 is reached only
after a further step that is not built here: Thm 3.6's proof ends "The constant factors on the
privacy parameters can be removed by the privacy-amplification-by-subsampling technique", and
Thm 4.2's "Adjusting ε, α, β by constant factors yields the desired result" — i.e. running the
algorithm at a smaller internal ε. This module runs Alg. 2 at ε as given, with no extra
subsampling, so a plain-ε claim is a statement about a different algorithm. O(ε) has no
numeric constant; the only numeric form the paper gives for it is its own proof's chain
    Pr[A(S1) ∈ O] ≤ (e^ε + e^{2+2 ln 2}·|I|/(n−|I|))·Pr[A(S2) ∈ O] + 4eδ·|I|/n,
which is exactly the PROVED claim above (with e^{1+ε_𝒜} for a general ε_𝒜; the proof's last
step |I|/(n−|I|) ≤ 6ε only loosens it). A STATED claim equal to the PROVED one would be
redundant, so none is registered: `claims` is the PROVED claim alone, and a certified bound is
either a violation of it or nothing. (Earlier versions carried the nominal ε as STATED and
reported the correct learner's exact 0.424 > 1/3 as "exceeds the paper's statement": a
comparison with Thm 3.6's ε for an algorithm that skips Thm 3.6's amplification step.)

Decisions
---------
- ε is used as given in the EM; the proof's |W|/|T| ≤ (1−ε)/ε holds up to float rounding of ε
  (at most 1e-16 relative), which changes the bound by less than 1e-15.
- Private prediction: if r does not divide k, the last k − r·⌊k/r⌋ points of the (randomly
  ordered) T take part in the relabelling but in no portion (the portions must be disjoint
  and equal-sized; the paper does not say what to do with a remainder).
- T is used in uniformly random order (the proof's swap treats T as a multiset):
  `random_subsets` returns the subset in random order.
- Worst pairs: a new boundary point with a surprising label, duplicates, the W-branch,
  rounding boundaries of ⌈εn⌉ and tiny n; exact values come from `exact_epsilon`,
  which enumerates every sub-multiset T (multivariate hypergeometric weights) and the
  closed-form EM distributions.
- Private prediction has an exact oracle too (`PrivatePrediction.probabilities`): T's
  composition is enumerated as above, h by A_Relabel's closed form, and the random portion
  order is integrated out exactly by a generating function over (value counts, votes) —
  a portion's vote depends only on its multiset of x values, and the number of orders giving
  a sequence of portion types is a product of multinomials (`vote_table`). Feasible when the
  dataset has few distinct x (the registered pairs have ≤ 3; < 0.5 s per dataset).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, Domain, NeighborPair, Relation, Subsampling, SubsamplingKind
from ..analytic import discrete_epsilon
from ..base import ClaimFromClaims, ClaimKind, PrivacyClaim
from ._common import (
    F64,
    PAPER_001,
    ceil_fraction,
    cell_counts,
    cells_of,
    concept_class,
    distinct_rows,
    draw_categorical,
    error_counts,
    learner_domain,
    pattern_multiplicity,
    random_subsets,
    replace_pair,
    softmax,
    subset_distribution,
)

_BLOCK_ENTRIES = 4_000_000  # floats per internal block (B × |C|²), ~32 MB


def _disagreement(C: NDArray[np.int8]) -> F64:
    """D[c, f, x] = 1[c(x) ≠ f(x)] reshaped to (|C|·|C|, d)."""
    return (C[:, None, :] != C[None, :, :]).reshape(-1, C.shape[1]).astype(np.float64)


# =========================================================================== A_Agnostic
@dataclass(frozen=True, slots=True, kw_only=True)
class AgnosticLearner(ClaimFromClaims):
    """A_Agnostic (Alg. 2) with A_Relabel (Alg. 1) and the EM learner as 𝒜; output 𝒜's index."""

    epsilon: float = 1 / 3
    epsilon_learner: float = 1.0
    concept: str = "thr"
    d: int = 8
    min_n: int = 3
    max_n: int = 13
    name: str = "agnostic_learner"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"

    def __post_init__(self) -> None:
        if not 0 < self.epsilon < 1:
            raise ValueError("need 0 < epsilon < 1")
        if not self.epsilon_learner > 0:
            raise ValueError("need epsilon_learner > 0")
        if not 2 <= self.min_n <= self.max_n:
            raise ValueError("need 2 ≤ min_n ≤ max_n (|W| ≥ 1 and εn ≥ 1)")
        for n in range(self.min_n, self.max_n + 1):
            k = self.subset_size(n)
            if not 1 <= k < n:
                raise ValueError(f"n = {n} gives |T| = {k}; need 1 ≤ |T| < n")
        concept_class(self.concept, self.d)

    # ----------------------------------------------------------------- sizes and claims
    @property
    def matrix(self) -> NDArray[np.int8]:
        return concept_class(self.concept, self.d)

    def subset_size(self, n: int) -> int:
        """|T| = k = ⌈εn⌉, exact."""
        return ceil_fraction(self.epsilon, n)

    def inner_epsilon(self) -> float:
        """ε of the plugged-in 𝒜."""
        return self.epsilon_learner

    def claim_epsilon(self, n: int) -> float:
        k = self.subset_size(n)
        return math.log(math.exp(self.epsilon) + 4 * math.exp(1 + self.inner_epsilon()) * k / (n - k))

    def reference(self) -> str:
        return f"{PAPER_001}, Lemma 3.1 (explicit constants from its proof; no Thm 3.6 amplification step)"

    @property
    def headline_claim(self) -> PrivacyClaim:
        worst = max(range(self.min_n, self.max_n + 1), key=self.claim_epsilon)
        k = self.subset_size(worst)
        why = f" {self.slack_note()}" if self.slack_note() else ""
        return PrivacyClaim(
            epsilon=self.claim_epsilon(worst),
            delta=0.0,
            relation=Relation.REPLACE_ONE,
            reference=self.reference(),
            kind=ClaimKind.PROVED,
            note=(
                f"ln(e^ε + 4e^(1+ε_A)·k/(n−k)), δ = 4e·δ_A·k/n = 0, maximised over n ∈ "
                f"[{self.min_n}, {self.max_n}] (attained at n = {worst}, k = {k})." + why
            ),
        )

    def slack_note(self) -> str:
        """Why the realised ε sits far below the claim; measured for the correct learners only
        (a buggy twin keeps the claim but not this explanation)."""
        if self.name not in ("agnostic_learner", "agnostic_learner_small_eps"):
            return ""
        return (
            "Why the exact ε is far below this (about 0.1 of it on the searched worst pairs): the "
            "proof of Lemma 3.1 charges the full group-privacy factor 4e^(1+ε_A) (the EM's e^(1/2) "
            "shift in numerator and normaliser, 2 extensions of a pattern, e^(ε_A) for A) to every "
            "run in which the changed record lands in T, weighted by k/(n−k); in the realised "
            "runs a uniform ⌈εn⌉-subset makes that event rare and the changed record rarely moves "
            "A_Relabel's pattern set and the learner's output at once"
        )

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        """The PROVED claim only: Lemma 3.1 states (O(ε), O(εδ)) for this algorithm, whose one
        numeric form is its proof's bound (= `claim`); see the module docstring."""
        return (self.headline_claim,)

    @property
    def domain(self) -> Domain:
        eps = self.epsilon
        return learner_domain(
            self.d,
            self.min_n,
            self.max_n,
            Subsampling(
                kind=SubsamplingKind.WITHOUT_REPLACEMENT,
                size=lambda n: ceil_fraction(eps, n),
                amplification_relation=Relation.REPLACE_ONE,
            ),
        )

    # ----------------------------------------------------------------- the split
    def draw_subsets(self, n: int, num: int, rng: np.random.Generator) -> NDArray[np.int64]:
        """Index sets I (num, k), uniform, data-independent, in random order (Alg. 2 line 1)."""
        return random_subsets(n, self.subset_size(n), num, rng)

    def draw_t(self, cells: NDArray[np.int64], num: int, rng: np.random.Generator) -> F64:
        """Cell counts of T = S_I for `num` independent runs (num, d, 2).

        A_Relabel and the EM learner read T only through its cell counts, so the counts are
        drawn directly from their law under a uniform k-subset I (multivariate
        hypergeometric over the dataset's distinct cells): the same distribution as drawing
        I with `draw_subsets` and counting S_I, at O(#cells) instead of O(n) per run.
        """
        uniq, mult = np.unique(cells, return_counts=True)
        comp = rng.multivariate_hypergeometric(mult, self.subset_size(cells.size), size=num)
        counts = np.zeros((num, 2 * self.d))
        counts[:, uniq] = comp
        return counts.reshape(num, self.d, 2)

    def t_law(self, cells: NDArray[np.int64]) -> tuple[F64, F64]:
        """Exact law of T's cell counts: (weights, counts)."""
        return subset_distribution(cells, self.d, self.subset_size(cells.size))

    # ----------------------------------------------------------------- A_Relabel
    def relabel_coefficient(self) -> float:
        """c in exp(−c·|W|·q): ε/2 (EM with Δ = 1/|W|)."""
        return self.epsilon / 2

    def learner_coefficient(self) -> float:
        """c in 𝒜's exp(−c·errors): ε_𝒜/2."""
        return self.epsilon_learner / 2

    def pattern_support(self, cT: F64, cW: F64) -> NDArray[np.bool_]:
        """Points whose labellings define H: T_X only (Alg. 1 line 2)."""
        return np.asarray(cT.sum(axis=2) > 0)

    def relabel_scores(self, cT: F64, cW: F64) -> tuple[F64, F64]:
        """(|W|·q(T∘W, h) for every concept h (B, |C|), dis_T (B, |C|, |C|) in counts)."""
        C = self.matrix
        K = C.shape[0]
        nT = cT.sum(axis=(1, 2))
        nW = cW.sum(axis=(1, 2))
        dis_counts = (cT.sum(axis=2) @ _disagreement(C).T).reshape(-1, K, K)  # Σ_x tx·1[h≠f]
        err_w = error_counts(C, cW)  # (B, K) counts
        with np.errstate(invalid="ignore", divide="ignore"):
            dis_norm = np.where(nT[:, None, None] > 0, dis_counts / nT[:, None, None], 0.0)
        # |W|·q = min_f (|W|·dis_T(h, f) + errors_W(f))
        scaled = (nW[:, None, None] * dis_norm + err_w[:, None, :]).min(axis=2)
        return scaled, dis_counts

    def relabel_probabilities(self, cT: F64, cW: F64) -> tuple[F64, F64]:
        """(Pr[h] over concepts (B, |C|), dis_T counts): EM over patterns, mass split evenly
        among the concepts of a pattern (only h|_T is ever used)."""
        scaled, dis_counts = self.relabel_scores(cT, cW)
        mult = pattern_multiplicity(self.matrix, self.pattern_support(cT, cW))
        return softmax(-self.relabel_coefficient() * scaled - np.log(mult)), dis_counts

    def learner_given_h(self, dis_counts: F64) -> F64:
        """𝒜 = EM learner on T^h: Pr[g | h] = softmax_g(−c·|T|·dis_T(g, h)) → (B, |C|_h, |C|_g)."""
        # errors of g on T^h = Σ_x tx·1[g(x) ≠ h(x)] = dis_counts[h, g]
        return softmax(-self.learner_coefficient() * dis_counts, axis=2)

    def output_probabilities(self, cT: F64, cW: F64) -> F64:
        """Exact output law of one run given the split (B, |C|)."""
        ph, dis_counts = self.relabel_probabilities(cT, cW)
        return np.einsum("bh,bhg->bg", ph, self.learner_given_h(dis_counts))

    # ----------------------------------------------------------------- sampling
    def _block(self) -> int:
        K = self.matrix.shape[0]
        return max(1, _BLOCK_ENTRIES // (K * K))

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        cells = cells_of(dataset, self.d)
        total = cell_counts(cells, self.d)
        out = np.empty(num_samples, dtype=np.int64)
        B = self._block()
        for start in range(0, num_samples, B):
            m = min(B, num_samples - start)
            cT = self.draw_t(cells, m, rng)
            out[start : start + m] = draw_categorical(self._split_laws(cT, total), rng)
        return out

    def _split_laws(self, cT: F64, total: F64) -> F64:
        """`output_probabilities` of each run's split (m, |C|), computed once per distinct split:
        a run's output law depends on its split's cell counts alone, and a block of runs draws
        few distinct ones (row-wise arithmetic: the rows are the ones a per-run call gives)."""
        first, inverse = distinct_rows(cT.reshape(cT.shape[0], -1))
        uT = cT[first]
        return self.output_probabilities(uT, total[None] - uT)[inverse]

    def probabilities(self, dataset: Dataset) -> F64:
        """Exact output pmf over C: Σ_T Pr[T]·Pr[output | T] (enumerates sub-multisets T)."""
        cells = cells_of(dataset, self.d)
        total = cell_counts(cells, self.d)
        weights, cT = self.t_law(cells)
        acc = np.zeros(self.matrix.shape[0])
        B = self._block()
        for s in range(0, len(weights), B):
            ct = cT[s : s + B]
            acc += weights[s : s + B] @ self.output_probabilities(ct, total[None] - ct)
        return acc

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        return discrete_epsilon(self.probabilities(pair.dataset), self.probabilities(pair.neighbor), delta)

    # ----------------------------------------------------------------- worst pairs
    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return agnostic_pairs(self.d, self.min_n, self.max_n, self.subset_size)


def _clean(n: int, d: int) -> tuple[list[int], list[int]]:
    """A clean threshold sample of size n on {0..d−1} with its cut at d/2 and a margin."""
    t = d // 2
    xs = [round(float(v)) for v in np.linspace(0, d - 1, n)]
    xs = [x if x not in (t - 1, t) else (t - 2 if x == t - 1 else t + 1) for x in xs] if d >= 6 else xs
    return xs, [int(x >= t) for x in xs]


def agnostic_pairs(d: int, min_n: int, max_n: int, subset_size: Any) -> tuple[NeighborPair, ...]:
    """Worst-case pairs for the [LWY] learners at every size class the domain allows.

    Covers: the changed record inside T's reach with a big effect (new boundary point with a
    surprising label: changes the pattern set on T), the W-branch (relabel a record whose x
    is duplicated, so T's pattern set cannot change and only the W score moves), duplicates
    of the changed record, n at the rounding boundaries of ⌈εn⌉ (εn integer and just above)
    and tiny n.
    """
    pairs: list[NeighborPair] = []
    sizes = sorted({min_n, min(min_n + 1, max_n), max(max_n - 1, min_n), max_n})
    for n in sizes:
        k = subset_size(n)
        tag = f"n={n},k={k}"
        # found by local search with the exact oracle (n = 12, ε = 1/3: exact 0.339): all other
        # records are duplicates of one point, the changed one is a boundary point whose
        # replacement is a new boundary point with the opposite label (in-T branch)
        xs, ys = [0] + [d - 2] * (n - 1), [1] * n
        pairs.append(
            replace_pair(
                xs,
                ys,
                0,
                (d - 1, 0),
                f"n={n}, k={k}: (0,1) among {n - 1} duplicates of ({d - 2},1) → new point ({d - 1},0)",
                "in-T",
                "duplicates",
                "boundary",
                tag,
            )
        )
        xs, ys = [1] * (n - 1) + [d - 1], [0] * n
        pairs.append(
            replace_pair(
                xs,
                ys,
                n - 1,
                (0, 1),
                f"n={n}, k={k}: ({d - 1},0) among {n - 1} duplicates of (1,0) → new point (0,1)",
                "in-T",
                "duplicates",
                "boundary",
                tag,
            )
        )
    n = max_n
    k = subset_size(n)
    if d >= 5 and k >= 2:
        # inside vs outside the reach of a positional T: (0,1) among k−1 copies of (1,0) and
        # n−k copies of (4,0), relabelled-and-moved to (4,1); at index 0 (inside the first k
        # records) and at index n−1 (outside them). For a uniform T both are the same pair
        # up to order; a deterministic T (twin agnostic_learner_first_k) leaks on the first.
        xs = [0] + [1] * (k - 1) + [4] * (n - k)
        ys = [1] + [0] * (n - 1)
        pairs.append(
            replace_pair(
                xs,
                ys,
                0,
                (4, 1),
                f"n={n}, k={k}: index 0 (inside a positional T's reach): (0,1) → (4,1)",
                "T-reach",
                "inside",
            )
        )
        pairs.append(
            replace_pair(
                xs[::-1],
                ys[::-1],
                n - 1,
                (4, 1),
                f"n={n}, k={k}: index n−1 (outside a positional T's reach): (0,1) → (4,1)",
                "T-reach",
                "outside",
            )
        )
    xs, ys = _clean(n, d)
    i_neg = min(i for i in range(n) if ys[i] == 0)
    pairs.append(
        replace_pair(
            xs,
            ys,
            i_neg,
            (d - 1, 0),
            f"n={n}, k={k}: clean sample, leftmost negative → "
            f"new point ({d - 1},0) at the right edge, surprising label",
            "in-T",
            "boundary",
        )
    )
    # W-branch and duplicates at the largest n
    n = max_n
    k = subset_size(n)
    t = d // 2
    xs = [t + 1] * (n // 2) + [t - 2] * (n - n // 2)
    ys = [1] * (n // 2) + [0] * (n - n // 2)
    pairs.append(
        replace_pair(
            xs,
            ys,
            0,
            (t + 1, 0),
            f"n={n}, k={k}: relabel one of {n // 2} duplicates (x stays in T's support; W-score branch)",
            "W-branch",
            "duplicates",
        )
    )
    # changed record becomes a duplicate of existing records vs a fresh point
    xs2, ys2 = _clean(n, d)
    pairs.append(
        replace_pair(
            xs2,
            ys2,
            len(xs2) // 2,
            (xs2[0], ys2[0]),
            f"n={n}, k={k}: a record becomes a duplicate of the first record (support shrinks by one point)",
            "duplicates",
        )
    )
    return tuple(pairs)


@dataclass(frozen=True, slots=True, kw_only=True)
class AgnosticLearnerSmallEps(AgnosticLearner):
    """A_Agnostic at ε = 0.02, n = 500 (k = 10): the proved bound is 0.485, small enough for
    a deterministic-subset bug to exceed it."""

    epsilon: float = 0.02
    min_n: int = 500
    max_n: int = 500
    name: str = "agnostic_learner_small_eps"


# =========================================================================== private prediction
@dataclass(frozen=True, slots=True, kw_only=True)
class PrivatePrediction(AgnosticLearner):
    """Thm 4.2: A_Agnostic with the Lemma 4.1 prediction mechanism as 𝒜; one query, one bit."""

    epsilon: float = 1 / 3
    alpha: float = 0.25
    query: int = 8
    d: int = 16
    min_n: int = 102
    max_n: int = 103
    name: str = "private_prediction"
    output_kind: ClassVar[str] = "discrete"

    def __post_init__(self) -> None:
        AgnosticLearner.__post_init__(self)
        if not 0 < self.alpha < 1 or not 0 <= self.query < self.d:
            raise ValueError("need 0 < alpha < 1 and 0 ≤ query < d")
        for n in range(self.min_n, self.max_n + 1):
            if self.subset_size(n) < self.num_portions:
                raise ValueError(f"n = {n}: |T| = {self.subset_size(n)} < r = {self.num_portions} portions")

    @property
    def num_portions(self) -> int:
        """r = ⌈6 ln(4/α)/ε_agg⌉ with ε_agg = 1 (Thm 4.2 runs Lemma 4.1 at ε = 1)."""
        return math.ceil(6 * math.log(4 / self.alpha) / self.aggregator_epsilon())

    def aggregator_epsilon(self) -> float:
        return 1.0

    def inner_epsilon(self) -> float:
        return self.aggregator_epsilon()

    def reference(self) -> str:
        return f"{PAPER_001}, Thm 4.2 with Lemma 4.1 (explicit constant ln(e^ε + 4e²·k/(n−k)))"

    def slack_note(self) -> str:
        if self.name != "private_prediction":
            return ""
        return (
            "Why the exact ε is far below this (about 0.23 of it on the searched worst pair): "
            "Lemma 3.1's proof charges 4e^(1+ε_A) with ε_A = 1 for the Lemma 4.1 predictor to every "
            "run in which the changed record lands in T, but in T it sits in one of r disjoint "
            "portions and moves the vote count c by at most 1, so the aggregator's "
            "σ(c − r/2) changes by at most a factor e and only when the portion's first "
            "consistent concept crosses the query"
        )

    def portion_indices(self, order: NDArray[np.int64], k: int) -> NDArray[np.int64]:
        """Positions (within T's random order) of the r disjoint portions: (num, r, n')."""
        r = self.num_portions
        size = k // r
        return order[:, : r * size].reshape(order.shape[0], r, size)

    def answer_queries(
        self, x: NDArray[np.int64], h: NDArray[np.int64], order: NDArray[np.int64], k: int
    ) -> NDArray[np.int64]:
        """Votes c(q) for every query q ∈ {0..d−1}: (num, d)."""
        C = self.matrix
        pos = self.portion_indices(order, k)  # indices into the dataset
        px = x[pos]  # (num, r, n')
        labels = C[h[:, None, None], px]  # relabelled portions
        cons = np.all(C[:, px] == labels[None], axis=3)  # (|C|, num, r)
        first = np.argmax(cons, axis=0)  # first consistent concept (exists: h itself)
        return np.asarray(C[first].sum(axis=1), np.int64)  # (num, d) votes

    def aggregate(self, votes: NDArray[np.int64], rng: np.random.Generator) -> NDArray[np.int64]:
        """EM over the labels {0, 1} with score = votes, ε_agg = 1: Pr[1] = σ(ε_agg(c − r/2))."""
        z = self.aggregator_epsilon() * (votes - self.num_portions / 2)
        p1 = 1.0 / (1.0 + np.exp(-z))
        return (rng.random(votes.shape) < p1).astype(np.int64)

    def run(self, dataset: Dataset, num: int, rng: np.random.Generator) -> NDArray[np.int64]:
        """Votes on every domain point for `num` independent runs (num, d)."""
        cells = cells_of(dataset, self.d)
        x = dataset.X[:, 0].astype(np.int64)
        total = cell_counts(cells, self.d)
        n = dataset.n
        k = self.subset_size(n)
        out = np.empty((num, self.d), dtype=np.int64)
        B = self._block()
        for start in range(0, num, B):
            m = min(B, num - start)
            order = self.draw_subsets(n, m, rng)
            cT = cell_counts(cells[order], self.d)
            first, inverse = distinct_rows(cT.reshape(m, -1))  # once per distinct T (row-wise law)
            uT = cT[first]
            h = draw_categorical(self.relabel_probabilities(uT, total[None] - uT)[0][inverse], rng)
            out[start : start + m] = self.answer_queries(x, h, order, k)
        return out

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        votes = self.run(dataset, num_samples, rng)[:, self.query]
        return self.aggregate(votes, rng)

    # ----------------------------------------------------------------- exact oracle
    def vote_table(
        self, values: NDArray[np.int64], caps: tuple[int, ...], h_row: NDArray[np.int8], k: int
    ) -> F64:
        """Exact law of the vote count c given T's value counts, for one relabelling h.

        Returns G (M_1+1, …, M_R+1, r+1) with Pr[c | m] = G[m, c]·(n'!)^r·rem!·Π_v m_v!/k!,
        where `values` are the R distinct x of the dataset and m_v ≤ M_v = min(count, k) the
        number of T's records at x = values[v] (`caps` = (M_v), the truncation).

        Why: T is placed in uniformly random order and cut into r consecutive portions of n'
        (plus a remainder of rem = k − r·n' unused records). For T's value counts m, every
        value sequence is equally likely (prob Π m_v!/k!), and the number of sequences whose
        portions have value-types τ_1..τ_r and remainder ρ is Π_i n'!/Π_v τ_i(v)! ·
        rem!/Π_v ρ(v)!. A portion's vote depends only on its type (the first concept of C
        agreeing with h on the portion's points, evaluated at the query). So
        Σ_{sequences} w^{c} = (n'!)^r rem! · [z^m] (Σ_τ z^τ w^{vote(τ)}/τ!)^r · Σ_ρ z^ρ/ρ!,
        a generating function over (value counts, votes) computed by r+1 sparse
        polynomial products — no enumeration of orders.
        """
        C = self.matrix
        r = self.num_portions
        size = k // r
        rem = k - r * size
        R = values.size
        shape = (*[c + 1 for c in caps], r + 1)
        if int(np.prod(shape)) > 50_000_000:
            raise NotImplementedError(f"vote generating function too large ({shape})")

        def types(total: int) -> list[tuple[int, ...]]:
            out: list[tuple[int, ...]] = []

            def rec(i: int, left: int, cur: list[int]) -> None:
                if i == R - 1:
                    out.append((*cur, left))
                    return
                for c in range(left + 1):
                    rec(i + 1, left - c, [*cur, c])

            rec(0, total, [])
            return out

        def vote(tau: tuple[int, ...]) -> int:
            pts = values[np.asarray(tau) > 0]
            cons = np.all(C[:, pts] == h_row[pts][None, :], axis=1)
            return int(C[int(np.argmax(cons)), self.query])

        def multiply(G: F64, terms: list[tuple[tuple[int, ...], float, int]]) -> F64:
            out = np.zeros_like(G)
            for tau, coef, v in terms:
                if any(t > c for t, c in zip(tau, caps, strict=True)):
                    continue
                dst = (*(slice(t, None) for t in tau), slice(v, None))
                src = tuple(slice(0, c + 1 - t) for t, c in zip(tau, caps, strict=True))
                src = (*src, slice(0, r + 1 - v))
                out[dst] += coef * G[src]
            return out

        def inv_fact(tau: tuple[int, ...]) -> float:
            return 1.0 / float(np.prod([math.factorial(t) for t in tau]))

        portion = [(tau, inv_fact(tau), vote(tau)) for tau in types(size)]
        G = np.zeros(shape)
        G[(0,) * (R + 1)] = 1.0
        for _ in range(r):
            G = multiply(G, portion)
        return multiply(G, [(rho, inv_fact(rho), 0) for rho in types(rem)])

    def vote_law(self, dataset: Dataset) -> F64:
        """Exact law of the vote count c at the query (r + 1,): Σ_T Pr[T] Σ_h Pr[h | T] Pr[c | T, h],
        T over every sub-multiset (multivariate hypergeometric), h over A_Relabel's closed-form
        law, c from `vote_table` (cached per pattern of h on the data); the released bit is 1
        with probability σ(ε_agg(c − r/2)) given c."""
        from scipy.special import gammaln

        C = self.matrix
        cells = cells_of(dataset, self.d)
        x = dataset.X[:, 0].astype(np.int64)
        values, counts = np.unique(x, return_counts=True)
        k, r = self.subset_size(dataset.n), self.num_portions
        size = k // r
        caps = tuple(int(min(c, k)) for c in counts)
        total = cell_counts(cells, self.d)
        weights, cT = self.t_law(cells)
        ph, _ = self.relabel_probabilities(cT, total[None] - cT)
        tables: dict[bytes, F64] = {}
        log_const = r * gammaln(size + 1) + gammaln(k - r * size + 1) - gammaln(k + 1)
        acc = np.zeros(r + 1)
        for b in range(len(weights)):
            m = cT[b].sum(axis=1)[values].astype(np.int64)
            scale = math.exp(log_const + float(gammaln(m + 1).sum()))
            for h in np.flatnonzero(ph[b] > 0):
                key = C[h, values].tobytes()
                if key not in tables:
                    tables[key] = self.vote_table(values, caps, C[h], k)
                acc += (weights[b] * ph[b, h] * scale) * tables[key][tuple(m)]
        return acc

    def one_probabilities(self) -> F64:
        """Pr[bit = 1 | c] for c = 0..r: σ(ε_agg(c − r/2))."""
        r = self.num_portions
        return np.asarray(1.0 / (1.0 + np.exp(-self.aggregator_epsilon() * (np.arange(r + 1) - r / 2))))

    def probabilities(self, dataset: Dataset) -> F64:
        """Exact law of the released bit (Pr[0], Pr[1]) from the vote law (`vote_law`)."""
        p1 = float(self.vote_law(dataset) @ self.one_probabilities())
        return np.array([1.0 - p1, p1])

    def exact_epsilon(self, pair: NeighborPair, delta: float = 0.0) -> float:
        return discrete_epsilon(self.probabilities(pair.dataset), self.probabilities(pair.neighbor), delta)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return prediction_pairs(self.d, self.query, self.min_n, self.max_n, self.subset_size)


def prediction_pairs(
    d: int, query: int, min_n: int, max_n: int, subset_size: Any
) -> tuple[NeighborPair, ...]:
    """The changed example must land in T and move a portion's consistent concept across the
    query: a clean sample whose points sit just left/right of the query, so that
    c ≈ r/2, and a change that moves a negative just left of the query to the far right."""
    pairs = []
    for n in sorted({min_n, max_n}):
        k = subset_size(n)
        # ~29% negatives at the query, the rest positives just right of it: a portion of two
        # points votes 1 iff it holds no negative, (1 − 0.29)² ≈ 1/2, so c ≈ r/2
        n0 = max(1, round(0.29 * n))
        xs = [query] * n0 + [query + 1] * (n - n0)
        ys = [0] * n0 + [1] * (n - n0)
        pairs.append(
            replace_pair(
                xs,
                ys,
                0,
                (0, 0),
                f"n={n}, k={k}: a negative at the query moves to the left "
                "edge (0,0): its portion's vote flips at every x in 1..query",
                "in-T",
                f"n={n}",
            )
        )
        pairs.append(
            replace_pair(
                xs,
                ys,
                0,
                (query + 1, 1),
                f"n={n}, k={k}: a negative at the query becomes a "
                "positive duplicate right of it (vote flip + W score)",
                "in-T",
                f"n={n}",
            )
        )
        # white-box search (local moves, then a grid over the cluster sizes; exact oracle): ~80%
        # negatives below the query (two of them mislabelled 1, which only moves the W score),
        # the rest positives at the query, and a lone positive between them that becomes a
        # negative at the far edge: exact 0.633 at n = 103 (the search's first hit was 0.553)
        if query >= 4 and d - 1 > query:
            a = round(0.8 * (n - 1))
            lo = query - 4
            xs = [query - 2] + [lo] * a + [query] * (n - 1 - a)
            ys = [1] + [0] * (a - 2) + [1, 1] + [1] * (n - 1 - a)
            pairs.append(
                replace_pair(
                    xs,
                    ys,
                    0,
                    (d - 1, 0),
                    f"n={n}, k={k}: {a} records at x={lo} (2 labelled 1), {n - 1 - a}×({query},1) and a lone "
                    f"({query - 2},1) → far edge ({d - 1},0)",
                    "in-T",
                    "searched",
                    f"n={n}",
                )
            )
    return tuple(pairs)
