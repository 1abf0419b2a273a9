"""SetCoverLearner of "Differentially Private Learning of Geometric Concepts", Claim 3.4.

A vectorised engine for the Section 3 algorithm box (AND form) and its Section 5 OR form.

Algorithm (AND form, verbatim up to the [C] choices of docs/specs/seed-002.md §3/§13):

    for j in 1..T:                        # always exactly T iterations
        S1, S0 = remaining positives / negatives
        w_j = floor(Lap(scale)); b_j = |S0| + w_j − Δ
        q(h) = min(#_{h→0}(S0) − b_j/k, −#_{h→0}(S1))
        h_j ~ base(h)·exp(ε̂·q(h))        # EM as the paper runs it: exp(ε̂ q), not exp(ε̂ q/2)
        delete every example (either label) with h_j(x) = 0
    return h_1 ∧ … ∧ h_T

The OR form (the paper's "straightforward modification", docs/specs/seed-002.md §3b) swaps the
roles: the positive count is noised, q(h) = min(#_{h→1}(S1) − b_j/k, −#_{h→1}(S0)), examples with
h_j(x) = 1 are deleted and h_fin = h_1 ∨ … ∨ h_T. Both forms share one engine: a "removal"
matrix M (AND: 1 − h(x), OR: h(x)), a *covered* side (AND: negatives, OR: positives) and a *protected* side.

Constants ([C], docs/specs/seed-002.md §13.1, log base unspecified in the paper): T = ⌈2k·log₂(2/α)⌉ (public,
never a function of n); scale = T/ε (the paper's (2k/ε)·log(2/α) with the same T, so the
coupling of Claim 3.4 costs ≤ e^{ε}); Δ = scale·ln(T/β) (natural log makes the Claim 3.1 tail
exact); ε̂ = ε/(2 ln(e/δ)) (Claim 3.4; Claim 4.4 gives only O(·), the same constant is used for
SelectHalfplane/SelectTriangle, docs/specs/seed-002.md §13.4). The "corrected" preset
(docs/specs/ERRATA.md F1) uses scale = 2T/ε, ε̂ = ε/(4 ln(e/δ)) and Δ = scale·ln(T/β) = (2T/ε)·ln(T/β)
(Δ follows the scale, or the Claim 3.1 tail bound no longer holds).

Claims (docs/specs/ERRATA.md F1–F3). Claim 3.4's proof ends with "≤ e^{2ε}·Pr[SCL(S') ∈ F] + δ": the
floored-Laplace coupling w'_j = w_j − 1 (j ≤ t) costs e^{ε} (≤ T draws of scale T/ε, each
shifted by 1), and the selection product Π_{j≤t}(1 + (e^{ε̂} − 1)p_j) ≤ exp(2ε̂(ln(1/δ) + 1)) = e^{ε}
on ln(1/δ)-good outputs, the bad ones having probability ≤ δ by Lemma 3.5. Hence:
- PROVED (2ε, δ) under ADD_REMOVE_ONE (the proof's relation);
- PROVED (2ε, δ) under RELABEL_ONE: with b_j coupled, relabelling x* moves q of every
  hypothesis that removes x* by exactly +1 (both terms of the min move) — the case (b) argument;
- PROVED (4ε, (1 + e^{2ε})δ) under REPLACE_ONE: group privacy over one removal plus one addition;
- STATED (ε, δ) under ADD_REMOVE_ONE (Claim 3.4 / Thm 3.6 / Thm 4.8 / Thm 5.1 as written) and
  STATED (ε, δ) under REPLACE_ONE (Def 2.9 "differ on a single entry").
With the corrected constants every factor halves: PROVED (ε, δ) add/remove and relabel,
(2ε, (1 + e^{ε})δ) replace-one.

Implementation (docs/specs/seed-002.md §8.2, §8.5): the learner is symmetric in the examples, so a dataset is
reduced to counts (n_covered, n_protected) on the support of its points; hypotheses that agree
on the support have the same q in every iteration, so the exponential mechanism is sampled in
two exact stages: a support-labelling group ∝ Σ_group base·exp(ε̂ q), then a hypothesis inside the
group ∝ base. Runs are vectorised (batches of `_BATCH` runs × groups); randomness only from `rng`.
`scl_fast.py` runs the same steps from per-state rows of cumulative weights (identical outputs,
tested); twins that override a step-shaping hook run the generic engine (`_run_generic`).

Released output (docs/specs/seed-002.md §8.3): the T hypothesis ids h_1..h_T (−1 for an iteration that did not
run, which only the early-stopping twin produces) followed by h_fin's labels on a fixed,
data-independent probe set (the points the registered pairs use). Both are functions of h⃗.
Presets with `count_features` (the long-T hunting presets `amplified`, `keep-pos-hunt`) put in
front, per probe point p, the number of iterations whose h_j removes p: also a function of h⃗
(post-processing, so every bound certified on it is a bound on SCL itself), and the sufficient
statistic of the privacy loss of "single example x* vs ∅" when excluded examples are never
deleted (docs/specs/seed-002.md §10 B9: the T steps are then i.i.d. and the loss is linear in x*'s
count), so the threshold distinguisher can reach that event; the first columns are the ones it scans.
Presets with `first_removal_features` (halfplane-grid4 and its twins) put in front, per probe
point p, the first step whose h_j removes p (T + 1 if none): also a function of h⃗, and the
sufficient statistic of the privacy loss of "add/remove or relabel one protected-side x* = p" when
x* is the only point whose side changes (the loss is (t − 1)·c + (c − ε̂) for first removal at step
t ≤ T and T·c if never, c = −ln(1 − p_rem(1 − e^{−ε̂})), increasing in t), so a threshold on that
column is the Neyman–Pearson event. Measured (halfplane-grid4, default run): certified ε 0 → 0.134.
Ceiling: the loss exceeds Λ only when x* survives ≳ Λ/c steps, an event of mass ≈ (1 − p_rem)^T
(≈ 1.4·10⁻³ at Λ ≈ 0.28), so certifying 90% of the exact ε(0) ≈ 0.34 at δ = 0 would need ≳ 10⁷
samples per side: with the oracle's exact loss distribution, the best event certifies 0.17–0.19 at
1.6·10⁶ and 0.20–0.22 at 3.2·10⁶ samples per side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import Dataset, NeighborPair, Relation
from ..base import ClaimFromClaims, ClaimKind, PrivacyClaim
from ..memo import Memo
from ..oracle_budget import charge
from . import scl_fast

TABLES = Memo(16)
"""The last few (learner, dataset) tables (`SetCoverLearner.table`)."""

PAPER = "Kaplan, Mansour, Matias & Stemmer, Differentially Private Learning of Geometric Concepts"
_BATCH = 8192


def iterations(k: int, alpha: float) -> int:
    """T = ⌈2k·log₂(2/α)⌉ (docs/specs/seed-002.md §13.1)."""
    return math.ceil(2 * k * math.log2(2 / alpha) - 1e-12)


@dataclass(frozen=True, slots=True)
class Table:
    """A dataset reduced to what SCL reads: hypothesis groups on the data support."""

    removal: NDArray[np.float64]  # (G, S): 1 where a hypothesis of group g removes support point s
    log_base: NDArray[np.float64]  # (G,) log Σ base over the group (−inf if the group is empty)
    covered: NDArray[np.float64]  # (S,) counts of the noised/covered side (AND: negatives)
    protected: NDArray[np.float64]  # (S,) counts of the protected side (AND: positives)
    group_of: NDArray[np.intp]  # (H,) group of each hypothesis
    order: NDArray[np.intp]  # hypotheses sorted by group
    key: NDArray[np.float64]  # group + cumulative within-group probability, aligned with `order`


def build_table(
    support_labels: NDArray[np.uint8],
    log_base: NDArray[np.float64],
    n1: NDArray[np.float64],
    n0: NDArray[np.float64],
    form: str,
) -> Table:
    """Group hypotheses by their labelling of the support (exact two-stage EM sampling)."""
    H = support_labels.shape[0]
    rem = (1 - support_labels) if form == "and" else support_labels
    if rem.shape[1] == 0:
        grp = np.zeros(H, dtype=np.intp)
        uniq = np.zeros((1, 0), dtype=rem.dtype)
    else:
        uniq, grp = np.unique(rem, axis=0, return_inverse=True)
        grp = grp.reshape(-1)
    G = uniq.shape[0]
    lb = np.full(G, -np.inf)
    np.logaddexp.at(lb, grp, log_base)
    fin = np.isfinite(log_base)
    within = np.zeros(H)
    within[fin] = np.exp(log_base[fin] - lb[grp][fin])
    order = np.argsort(grp, kind="stable")
    cum = np.zeros(H)
    g_sorted = grp[order]
    w_sorted = within[order]
    starts = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    run = np.cumsum(w_sorted)
    base_at_start = np.repeat(run[starts] - w_sorted[starts], np.diff(np.r_[starts, H]))
    cum = run - base_at_start
    key = g_sorted + np.minimum(cum, 1.0)
    covered, protected = (n0, n1) if form == "and" else (n1, n0)
    return Table(
        removal=uniq.astype(np.float64),
        log_base=lb,
        covered=covered,
        protected=protected,
        group_of=grp,
        order=order,
        key=key.astype(np.float64),
    )


def categorical(logits: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.intp]:
    """One draw per row from softmax(logits) by inverse CDF (−inf entries never drawn)."""
    m = logits.max(axis=1, keepdims=True)
    p = np.exp(logits - m)
    cum = np.cumsum(p, axis=1)
    u = rng.random(logits.shape[0]) * cum[:, -1]
    idx = (cum <= u[:, None]).sum(axis=1)
    return np.minimum(idx, logits.shape[1] - 1)


def lap_floor_logpmf(w: NDArray[np.float64], scale: float) -> NDArray[np.float64]:
    """log P(⌊L⌋ = w), L ~ Lap(scale): F(w+1) − F(w) with the Laplace CDF F (docs/specs/seed-002.md §2.1)."""
    w = np.asarray(w, dtype=np.float64)
    # w ≥ 0: ½e^{−w/s}(1 − e^{−1/s});  w ≤ −1: ½e^{(w+1)/s}(1 − e^{−1/s})
    c = math.log(0.5) + math.log(-math.expm1(-1.0 / scale))
    return np.where(w >= 0, c - w / scale, c + (w + 1) / scale)


def lap_floor_logcdf_le(w: float, scale: float) -> float:
    """log P(⌊L⌋ ≤ w) = log F(w + 1)."""
    x = w + 1
    return math.log(0.5) + x / scale if x < 0 else math.log1p(-0.5 * math.exp(-x / scale))


def lap_floor_logsf_ge(w: float, scale: float) -> float:
    """log P(⌊L⌋ ≥ w) = log(1 − F(w))."""
    return math.log(0.5) - w / scale if w >= 0 else math.log1p(-0.5 * math.exp(w / scale))


@dataclass(frozen=True, slots=True, kw_only=True)
class SetCoverLearner(ClaimFromClaims):
    """Shared engine; concrete learners fix the hypothesis class, the form and the presets."""

    epsilon: float = 0.9
    delta: float = 1e-3
    k: int = 2
    alpha: float = 0.25
    beta: float = 0.1
    corrected: bool = False
    name: str = "geo_set_cover"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"
    form: ClassVar[str] = "and"
    reference: ClassVar[str] = PAPER + ", Claim 3.4"
    count_features: ClassVar[bool] = False
    """Prepend, per probe point p, #{j : h_j removes p} (a function of h⃗; see the module docstring)."""
    first_removal_features: ClassVar[bool] = False
    """Prepend, per probe point p, the first step j whose h_j removes p (T + 1 if none): a function
    of h⃗, and the sufficient statistic of the privacy loss of the pairs that add/remove (or relabel)
    one protected-side record at p (see the module docstring)."""

    def __post_init__(self) -> None:
        if not 0 < self.epsilon < 1:
            raise ValueError("Claim 3.4 needs ε ∈ (0, 1)")
        if not 0 < self.delta < 1 / math.e:
            raise ValueError("Claim 3.4 needs δ < 1/e")
        if self.k < 1 or not 0 < self.alpha < 1 or not 0 < self.beta < 1:
            raise ValueError("need k ≥ 1, α ∈ (0, 1), β ∈ (0, 1)")

    # ------------------------------------------------------------------ constants
    @property
    def T(self) -> int:
        return iterations(self.k, self.alpha)

    @property
    def noise_scale(self) -> float:
        return (2 if self.corrected else 1) * self.T / self.epsilon

    @property
    def Delta(self) -> float:
        """Δ = scale·ln(T/β): each floored draw exceeds Δ w.p. ≤ ½e^{−Δ/scale} ≤ β/T (Claim 3.1's tail
        bound, union over T draws). Tied to the noise scale actually used, so the corrected preset
        (scale 2T/ε) gets Δ = (2T/ε)·ln(T/β), not the uncorrected T/ε·ln(T/β)."""
        return self.noise_scale * math.log(self.T / self.beta)

    @property
    def eps_hat(self) -> float:
        return self.epsilon / ((4 if self.corrected else 2) * math.log(math.e / self.delta))

    # ------------------------------------------------------------------ claims
    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        e, d, ref = self.epsilon, self.delta, self.reference
        if self.corrected:
            base = e
            note = (
                "corrected preset: scale 2T/ε and ε̂ = ε/(4 ln(e/δ)) halve both factors of the proof "
                "(Laplace coupling, selection), so it proves (ε, δ)"
            )
        else:
            base = 2 * e
            note = (
                "the proof's last line is e^{2ε}·Pr[…] + δ (Laplace coupling e^ε × selection e^ε): "
                "it proves 2ε, not the stated ε"
            )
        out = [
            PrivacyClaim(
                epsilon=base,
                delta=d,
                relation=Relation.ADD_REMOVE_ONE,
                reference=ref + " (proof)",
                kind=ClaimKind.PROVED,
                note=note,
            ),
            PrivacyClaim(
                epsilon=base,
                delta=d,
                relation=Relation.RELABEL_ONE,
                reference=ref + ", case (b) argument of the proof (the paper states nothing for relabelling)",
                kind=ClaimKind.PROVED,
                note="relabel moves q by exactly +1 on hypotheses removing x* once b_j is coupled",
            ),
            PrivacyClaim(
                epsilon=2 * base,
                delta=min((1 + math.exp(base)) * d, 0.999),
                relation=Relation.REPLACE_ONE,
                reference=ref + " (proof) + group privacy (replace = remove + add)",
                kind=ClaimKind.PROVED,
                note="replace = remove + add: (2ε', (1 + e^{ε'})δ) from the proved (ε', δ)",
            ),
        ]
        out += self.composition_claims()
        if not self.corrected:
            out += [
                PrivacyClaim(
                    epsilon=e,
                    delta=d,
                    relation=Relation.ADD_REMOVE_ONE,
                    reference=self.stated_reference,
                    kind=ClaimKind.STATED,
                    note="the paper's statement; its proof gives 2ε",
                ),
                PrivacyClaim(
                    epsilon=e,
                    delta=d,
                    relation=Relation.REPLACE_ONE,
                    reference=self.stated_reference.replace(PAPER + ", ", PAPER + ", Def 2.9 + ", 1),
                    kind=ClaimKind.STATED,
                    note="Def 2.9 neighbours differ on one entry; no replace-one proof in the paper",
                ),
            ]
        return tuple(out)

    def composition_claims(self) -> list[PrivacyClaim]:
        """Pure claims by plain composition over the T steps, kept where tighter than the above.

        Derivation. Step j releases h_j; the state it reads (which examples remain) is a function
        of h_1..h_{j−1} and the data, and for neighbours D, D' differing in x* the two states
        differ in x* at most (if x* was deleted earlier the step is identical on both sides).
        Fix the noise w_j: then b_j = n_cov + w_j − Δ and q(h) = min(cover(h) − b_j/k, −prot(h)).
        Writing u₁(h), u₂(h) for the changes of the two terms of the min, the change of q(h) lies in
        [min(u₁, u₂), max(u₁, u₂)], so over all h it lies in an interval of length r:
        - add/remove a covered-side x*: u₁ ∈ {1 − 1/k (h removes x*), −1/k}, u₂ = 0 → r = 1;
          a protected-side x*: u₁ = 0, u₂ ∈ {−1, 0} → r = 1;
        - relabel x* covered → protected: h removing x*: u₁ = −1 + 1/k, u₂ = −1; otherwise
          u₁ = 1/k, u₂ = 0 → q changes in [−1, 1/k]: r = 1 + 1/k;
        - replace x by x': cover −1 on h removing x, +1 on h removing x' (n_cov unchanged), or the
          mixed-side cases, all within an interval of length r = 2.
        The exponential mechanism h ∝ base(h)·exp(ε̂·q(h)) with a data-independent base and score
        changes in [a, a + r] has P'(h)/P(h) = e^{ε̂Δq(h)}·Z/Z' ≤ e^{ε̂(a+r)}·e^{−ε̂a} = e^{ε̂r}
        for every w_j, hence also for the mixture over w_j: each step is (ε̂r, 0)-DP. The T steps
        are adaptively composed (basic composition, Dwork & Roth 2014 Thm 3.16), and the released
        output (ids, h_fin on the probe set, removal counts) is a function of h⃗: the learner is
        (T·ε̂·r, 0)-DP. T is public (never a function of n), ε̂ = `eps_hat` (the intended
        selection ε: a twin keeps this claim). Registered only where T·ε̂·r is below the proof's
        claim for the same relation.
        """
        base = self.epsilon if self.corrected else 2 * self.epsilon
        per = self.T * self.eps_hat
        how = f"T = {self.T} steps × ε̂ = {self.eps_hat:.4g}"
        out = []
        for rel, r, registered, why in (
            (Relation.ADD_REMOVE_ONE, 1.0, base, "per-step score change range 1"),
            (Relation.RELABEL_ONE, 1.0 + 1.0 / self.k, base, f"per-step score range 1 + 1/k (k = {self.k})"),
            (Relation.REPLACE_ONE, 2.0, 2 * base, "per-step score change range 2"),
        ):
            eps = per * r
            if eps < registered:
                out.append(
                    PrivacyClaim(
                        epsilon=eps,
                        delta=0.0,
                        relation=rel,
                        reference=self.reference
                        + " + basic composition over the T steps (derived here, not in the paper)",
                        kind=ClaimKind.PROVED,
                        note=f"{how} × {r:g} ({why}); pure, tighter than the proof's claim here",
                    )
                )
        return out

    @property
    def stated_reference(self) -> str:
        return PAPER + ", Claim 3.4"

    # ------------------------------------------------------------------ class-specific hooks
    def hypothesis_labels(self, points: NDArray[np.float64]) -> NDArray[np.uint8]:
        """(H, len(points)) labels of every hypothesis on the given points."""
        raise NotImplementedError

    def log_base(self) -> NDArray[np.float64]:
        raise NotImplementedError

    def probe_points(self) -> NDArray[np.float64]:
        raise NotImplementedError

    # ---------------------------------------------------------- engine hooks (buggy twins override one)
    def num_iterations(self, n: int) -> int:
        return self.T

    def output_iterations(self) -> int:
        return self.T

    def selection_eps(self) -> float:
        return self.eps_hat

    def noise(self, rng: np.random.Generator, runs: int, steps: int) -> NDArray[np.float64]:
        return np.floor(rng.laplace(0.0, self.noise_scale, size=(runs, steps)))

    def score(self, cover: NDArray[np.float64], prot: NDArray[np.float64], b: NDArray[np.float64]) -> Any:
        return np.minimum(cover - b[:, None] / self.k, -prot)

    def select(self, logits: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.intp]:
        return categorical(logits, rng)

    def candidate_log_base(
        self, support_labels: NDArray[np.uint8], n1: NDArray[np.float64], n0: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """Per-hypothesis log base measure of the candidate set (always all of H: data-independent)."""
        return self.log_base()

    def protected_alive(self, alive: NDArray[np.float64]) -> NDArray[np.float64]:
        """Which protected-side examples still count (correct: the same deletions as the covered side)."""
        return alive

    def running(self, alive_covered: NDArray[np.float64], step: int) -> NDArray[np.bool_] | None:
        """Runs still iterating (None: all, always exactly T iterations)."""
        return None

    def delete(self, alive: NDArray[np.float64], removed: NDArray[np.float64], table: Table) -> Any:
        return alive * (1.0 - removed)

    # ------------------------------------------------------------------ data reduction
    def reduce(
        self, dataset: Dataset
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """(support points, positive counts, negative counts)."""
        if dataset.n == 0:
            return np.zeros((0, dataset.num_features)), np.zeros(0), np.zeros(0)
        pts, inv = np.unique(dataset.X, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        y = np.zeros(dataset.n) if dataset.y is None else dataset.y
        n1 = np.bincount(inv, weights=(y == 1).astype(float), minlength=len(pts))
        n0 = np.bincount(inv, weights=(y == 0).astype(float), minlength=len(pts))
        return pts, n1.astype(np.float64), n0.astype(np.float64)

    def table(self, dataset: Dataset) -> tuple[Table, NDArray[np.uint8]]:
        """The dataset's table and support labels, computed once per (learner, dataset content) among
        the last few asked (`mechanisms.memo`): a function of both alone, reused across the
        chunks and rounds that sample one dataset (the same object, so the same draws)."""
        return TABLES.get((self,), dataset.key, lambda: self._table(dataset))

    def _table(self, dataset: Dataset) -> tuple[Table, NDArray[np.uint8]]:
        pts, n1, n0 = self.reduce(dataset)
        lab = self.hypothesis_labels(pts)
        tab = build_table(lab, self.candidate_log_base(lab, n1, n0), n1, n0, self.form)
        return tab, lab

    # ------------------------------------------------------------------ sampling
    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        tab, _ = self.table(dataset)
        probe = self.hypothesis_labels(self.probe_points()).astype(bool)  # (H, P0)
        Tw = self.output_iterations()
        width = Tw + probe.shape[1] * (1 + int(self.count_features) + int(self.first_removal_features))
        out = np.empty((num_samples, width))
        for lo in range(0, num_samples, _BATCH):
            hi = min(num_samples, lo + _BATCH)
            out[lo:hi] = self._run(tab, probe, hi - lo, dataset.n, Tw, rng)
        return out

    def _run(
        self, tab: Table, probe: NDArray[np.bool_], R: int, n: int, Tw: int, rng: np.random.Generator
    ) -> NDArray[np.float64]:
        """R runs: the fast engine (scl_fast.py: per-state rows of cumulative weights, identical
        outputs) when the step-shaping hooks are the base ones, else the generic engine."""
        T = self.num_iterations(n)
        W = self.noise(rng, R, T)
        if scl_fast.applicable(self, SetCoverLearner, tab, W):
            return scl_fast.run(self, tab, probe, R, T, Tw, W, rng)
        return self._run_generic(tab, probe, R, T, Tw, W, rng)

    def _run_generic(
        self,
        tab: Table,
        probe: NDArray[np.bool_],
        R: int,
        T: int,
        Tw: int,
        W: NDArray[np.float64],
        rng: np.random.Generator,
    ) -> NDArray[np.float64]:
        """The algorithm box step by step for every run (any hooks); W: the (R, T) noise draws."""
        S = tab.covered.shape[0]
        alive = np.ones((R, S))
        ids = np.full((R, Tw), -1.0)
        eps = self.selection_eps()
        # probe points each hypothesis removes (AND: h = 0, OR: h = 1); h_fin follows from the counts
        removes = ~probe if self.form == "and" else probe
        removed_count = np.zeros((R, probe.shape[1]), dtype=np.int32)
        first = np.full((R, probe.shape[1]), Tw + 1, dtype=np.int32)
        for j in range(T):
            ct = alive * tab.covered
            cp = self.protected_alive(alive) * tab.protected
            cover = ct @ tab.removal.T
            prot = cp @ tab.removal.T
            b = ct.sum(axis=1) + W[:, j] - self.Delta
            logits = tab.log_base + eps * self.score(cover, prot, b)
            g = self.select(logits, rng)
            pos = np.searchsorted(tab.key, g + rng.random(R), side="right")
            h = tab.order[np.minimum(pos, tab.order.size - 1)]
            act = self.running(ct, j)
            hit = removes[h] if act is None else removes[h] & act[:, None]
            first[hit & (removed_count == 0)] = j + 1
            removed_count += hit
            if act is None:
                ids[:, j] = h
                alive = self.delete(alive, tab.removal[g], tab)
            else:
                ids[act, j] = h[act]
                alive = np.where(act[:, None], self.delete(alive, tab.removal[g], tab), alive)
        # AND: h_fin(p) = 1 iff no iteration removed p; OR: h_fin(p) = 1 iff some iteration did
        fin = removed_count == 0 if self.form == "and" else removed_count > 0
        parts = [first.astype(np.float64)] if self.first_removal_features else []
        if self.count_features:
            parts.append(removed_count.astype(np.float64))
        return np.concatenate([*parts, ids, fin.astype(np.float64)], axis=1)

    # ------------------------------------------------- white-box oracle (docs/specs/seed-002.md §8.4)
    def privacy_loss(
        self, pair: NeighborPair, num_paths: int, *, rng: np.random.Generator
    ) -> NDArray[np.float64]:
        """Samples of the privacy loss L = ln P_D(h⃗)/P_D'(h⃗), h⃗ ~ SCL(D), D = pair.dataset.

        Exact per-path likelihoods: P(h_j | state) = Σ_w pmf(w)·softmax_w(h_j) with the floored
        Laplace noise summed out (two constant lumps below/above the range where q depends on
        w, explicit terms inside). Hypotheses are grouped on the union support of D and D', so
        the within-group factor cancels in the ratio. Valid for the correct learner and for twins
        that only change `selection_eps` (B1, no_eps_split), `protected_alive` (B9), `delete` (B13)
        or `score` (B11; evaluated at every w of the sum, exact when the score depends on w only
        inside the correct score's w-range, e.g. not at all);
        not for twins that change the noise law (B10), the stopping rule or the selection rule.
        """
        pts_a, n1a, n0a = self.reduce(pair.dataset)
        pts_b, n1b, n0b = self.reduce(pair.neighbor)
        pts = np.unique(np.concatenate([pts_a, pts_b]), axis=0)

        def counts(p: NDArray[np.float64], c: NDArray[np.float64]) -> NDArray[np.float64]:
            out = np.zeros(len(pts))
            for row, v in zip(p, c, strict=True):
                out[np.flatnonzero(np.all(pts == row, axis=1))[0]] += v
            return out

        lab = self.hypothesis_labels(pts)
        ta = build_table(lab, self.log_base(), counts(pts_a, n1a), counts(pts_a, n0a), self.form)
        tb = build_table(lab, self.log_base(), counts(pts_b, n1b), counts(pts_b, n0b), self.form)
        loss = np.zeros(num_paths)
        alive = np.ones((num_paths, len(pts)))
        for _ in range(self.T):
            la = self._step_logprob(ta, alive)
            lb = self._step_logprob(tb, alive)
            g = categorical(la, rng)
            r = np.arange(num_paths)
            loss += la[r, g] - lb[r, g]
            alive = self.delete(alive, ta.removal[g], ta)
        return loss

    def _step_logprob(self, tab: Table, alive: NDArray[np.float64]) -> NDArray[np.float64]:
        """(paths, G) log P(group | state), the floored-Laplace noise summed out."""
        ct = alive * tab.covered
        cover = ct @ tab.removal.T
        prot = (self.protected_alive(alive) * tab.protected) @ tab.removal.T
        custom = type(self).score is not SetCoverLearner.score
        n_cov = ct.sum(axis=1)
        k, s, eps = self.k, self.noise_scale, self.selection_eps()
        # q_c(w) = −prot_c for w ≤ k(cover_c + prot_c) − n_cov + Δ, else cover_c − b/k
        thr = k * (cover + prot) - n_cov[:, None] + self.Delta
        finite = np.isfinite(tab.log_base)
        tf = np.where(finite[None, :], thr, np.nan)
        w_lo = math.floor(np.nanmin(tf)) if np.any(finite) else 0
        w_hi = math.ceil(np.nanmax(tf)) + 1 if np.any(finite) else 1
        charge("softmax terms", cover.size * (w_hi - w_lo + 1))  # deterministic oracle budget
        out = np.full(cover.shape, -np.inf)

        def soft(w: float | NDArray[np.float64]) -> NDArray[np.float64]:
            b = n_cov[:, None] + np.asarray(w)[None, ...] - self.Delta
            if custom:
                cols = [np.asarray(self.score(cover, prot, bi), dtype=np.float64) for bi in b.T]
                q = cols[0] if np.ndim(w) == 0 else np.stack(cols, axis=1)
            elif np.ndim(w) == 0:
                q = np.minimum(cover - b / k, -prot)
            else:
                q = np.minimum(cover[:, None, :] - b[:, :, None] / k, -prot[:, None, :])
            lg = tab.log_base + eps * q
            m = lg.max(axis=-1, keepdims=True)
            return lg - m - np.log(np.exp(lg - m).sum(axis=-1, keepdims=True))

        out = np.logaddexp(out, lap_floor_logcdf_le(w_lo, s) + soft(float(w_lo)))
        out = np.logaddexp(out, lap_floor_logsf_ge(w_hi, s) + soft(float(w_hi)))
        mid = np.arange(w_lo + 1, w_hi, dtype=np.float64)
        for lo in range(0, mid.size, 64):
            ws = mid[lo : lo + 64]
            terms = lap_floor_logpmf(ws, s)[None, :, None] + soft(ws)
            m = terms.max(axis=1)
            mm = np.where(np.isfinite(m), m, 0.0)
            out = np.logaddexp(out, mm + np.log(np.exp(terms - mm[:, None, :]).sum(axis=1)))
        return out


def epsilon_from_losses(loss_pq: NDArray[np.float64], loss_qp: NDArray[np.float64], delta: float) -> float:
    """ε(δ) from privacy-loss samples of both directions: smallest ε with
    max(E_P[(1 − e^{ε−L})_+], E_Q[(1 − e^{ε−L'})_+]) ≤ δ (Monte Carlo estimate)."""

    def dlt(e: float) -> float:
        return max(
            float(np.mean(np.maximum(0.0, -np.expm1(e - loss_pq)))),
            float(np.mean(np.maximum(0.0, -np.expm1(e - loss_qp)))),
        )

    if dlt(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, float(max(loss_pq.max(), loss_qp.max()))
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if dlt(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi
