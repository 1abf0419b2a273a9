"""One-run audits: Steinke, Nasr & Jagielski, "Privacy Auditing with One (1) Training Run"
(NeurIPS 2023), Theorem 5.2 (ε with δ, abstentions allowed) and their Algorithm for ε.

Setting. m canaries; canary i is included in the training set iff S_i = 1, the S_i i.i.d.
Bernoulli(½) drawn from dpaudit's seed. The auditor sees one output (one score per canary),
guesses "in" on the k₊ highest scores and "out" on the k₋ lowest (r = k₊ + k₋ guesses, abstaining
on the rest) and counts W, the correct guesses. The guesses are a function of the output alone.

The tail bound (their Theorem 5.2). If the training procedure is (ε, δ)-DP with respect to each
canary's inclusion (add/remove one record), then for every v,

    P[W ≥ v] ≤ f_ε(v) := P[Bin(r, q) ≥ v] + 2mδ · max_{1≤i≤v} P[v − i ≤ Bin(r, q) ≤ v − 1] / i,

q = e^ε / (1 + e^ε) (the accuracy of ε-randomised response). δ = 0 leaves the binomial tail.

The bound (`epsilon_bound`). ε̂(W) = the largest ε on the grid G = {0, h, 2h, …} (h = 10⁻³) with
f_ε(W) < β, 0 when there is none (ε ≥ 0 always holds, so 0 certifies nothing).
Claim: for every (ε₀, δ)-DP procedure, P[ε̂ > ε₀] ≤ β. Proof: an (ε₀, δ)-DP procedure is
(ε, δ)-DP for every ε ≥ ε₀, so g(u) := min_{ε∈G, ε>ε₀} f_ε(u) is a valid tail bound:
P[W ≥ u] ≤ g(u) for all u. Let U = {u : g(u) < β}; ε̂ > ε₀ iff W ∈ U. If U is empty the event is
impossible; else with u* = min U, P[W ∈ U] ≤ P[W ≥ u*] ≤ g(u*) < β. No monotonicity of f in ε
or v is used, which is why the grid is scanned (from the top) instead of bisected. With δ = 0,
f_ε(v) is strictly increasing in ε, so the bound is found by bisection to 10⁻⁹, returning a point
ε̂ with f_ε̂(W) < β: ε̂ > ε₀ then implies f_ε₀(W) < β, probability ≤ β by the argument above.

Choice of k (`default_design`, `certify`): a union bound over a fixed grid of (k₊, k₋) designs
that depends on m only, each certified at β/K (K designs); the result is the largest of the K
bounds. Proof: each design's guesses are a function of the output (scores sorted, ties by
canary index), so each ε̂_k fails with probability ≤ β/K; max_k ε̂_k > ε₀ needs one of them to
fail, probability ≤ K·β/K = β. No design is chosen by looking at which guesses are right.
More generally (`family_size`): designs certified at β/N each, taken from a family of N designs
fixed before the scores, may be any subset of it, even one chosen after looking at the scores: a
reported ε̂ above ε₀ needs some design of the family to fail at β/N, probability ≤ N·β/N = β
(design_choice.py uses this for a design given after the scores).

The ceiling (`ceiling`): the largest ε any outcome of this design can certify, the bound with
every guess right (v = r), maximised over the K designs. With δ = 0 and one design it has the
closed form ε* = −ln(β^(−1/r) − 1) (q^r < β iff ε < ε*).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

GRID_STEP = 1e-3
"""h: the spacing of the ε grid scanned when δ > 0 (the bound is exact up to h, and never above)."""
_BLOCK_CELLS = 1 << 22
DEFAULT_FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
"""Total guesses r = fraction · m of the default designs, split evenly between "in" and "out"."""

F64 = NDArray[np.float64]


def tail_bound(*, m: int, r: int, v: int, epsilon: ArrayLike, delta: float) -> F64:
    """f_ε(v) of Theorem 5.2 for each ε given (vectorised over ε), clipped to 1."""
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    if v <= 0:
        return np.ones_like(eps)
    q = special.expit(eps)
    tail = np.asarray(stats.binom.sf(v - 1, r, q), dtype=float)
    if delta == 0:
        return np.minimum(tail, 1.0)
    below = np.arange(v - 1, -1, -1)  # v−1, v−2, …, 0: the window's new point for i = 1, …, v
    widths = np.arange(1, v + 1, dtype=float)
    alpha = np.empty_like(eps)
    rows = max(1, _BLOCK_CELLS // v)
    for s in range(0, eps.size, rows):
        pmf = stats.binom.pmf(below[None, :], r, q[s : s + rows, None])
        alpha[s : s + rows] = np.max(np.cumsum(pmf, axis=1) / widths, axis=1)
    return np.asarray(np.minimum(tail + 2.0 * m * delta * alpha, 1.0), dtype=float)


def _pure_bracket(*, r: int, v: int, bound_level: float) -> tuple[float, float] | None:
    """(lo, hi) with P[Bin(r, q(lo)) ≥ v] < β ≤ P[Bin(r, q(hi)) ≥ v], |hi − lo| ≤ 10⁻⁹; None when
    even ε = 0 is not rejected."""

    def f(e: float) -> float:
        return float(tail_bound(m=1, r=r, v=v, epsilon=e, delta=0.0)[0])

    if f(0.0) >= bound_level:
        return None
    lo, hi = 0.0, 1.0
    while f(hi) < bound_level:
        lo, hi = hi, 2 * hi
        if hi > 1e4:  # q = 1 in floating point long before: the tail is 1 there
            raise ArithmeticError("binomial tail did not reach β")
    while hi - lo > 1e-9:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < bound_level else (lo, mid)
    return lo, hi


@functools.lru_cache(maxsize=4096)
def epsilon_bound(*, m: int, r: int, v: int, delta: float, bound_level: float) -> float:
    """ε̂: the largest ε this outcome (v correct of r guesses, m canaries) certifies at failure
    probability β (module docstring for the proof); 0.0 when it certifies nothing."""
    _check(m=m, r=r, v=v, delta=delta, bound_level=bound_level)
    bracket = _pure_bracket(r=r, v=v, bound_level=bound_level)
    if bracket is None:
        return 0.0
    if delta == 0:
        return bracket[0]
    high = math.floor(bracket[1] / GRID_STEP)  # f_δ ≥ f_0: nothing above the δ = 0 bracket passes
    block = 16
    while high >= 0:  # every grid point from the top down, in growing blocks
        ks = np.arange(high, max(high - block, -1), -1)
        ok = np.flatnonzero(tail_bound(m=m, r=r, v=v, epsilon=ks * GRID_STEP, delta=delta) < bound_level)
        if ok.size:
            return float(ks[ok[0]] * GRID_STEP)
        high -= block
        block = min(2 * block, 4096)
    return 0.0


def pure_ceiling(*, r: int, bound_level: float) -> float:
    """Steinke et al.'s closed form at δ = 0: every one of r guesses right certifies ε < −ln(β^(−1/r) − 1)."""
    return -math.log(math.expm1(-math.log(bound_level) / r))


def _check(*, m: int, r: int, v: int, delta: float, bound_level: float) -> None:
    if not 0 <= v <= r <= m or r < 1:
        raise ValueError(f"need 0 ≤ v ≤ r ≤ m and r ≥ 1, got m={m}, r={r}, v={v}")
    if not 0 <= delta < 1:
        raise ValueError(f"delta must be in [0, 1), got {delta}")
    if not 0 < bound_level < 1:
        raise ValueError(f"failure probability must be in (0, 1), got {bound_level}")


# ---------------------------------------------------------------------- designs and guesses
@dataclass(frozen=True, slots=True)
class Design:
    """k₊ "in" guesses on the highest scores, k₋ "out" guesses on the lowest."""

    k_plus: int
    k_minus: int

    @property
    def guesses(self) -> int:
        return self.k_plus + self.k_minus


def default_design(m: int, fractions: tuple[float, ...] = DEFAULT_FRACTIONS) -> tuple[Design, ...]:
    """The fixed grid of designs for m canaries (a function of m only): r = ⌈f·m⌉ guesses for
    each fraction f, k₊ = ⌈r/2⌉, k₋ = ⌊r/2⌋, duplicates dropped."""
    if m < 1:
        raise ValueError(f"need at least one canary, got m={m}")
    out: dict[Design, None] = {}
    for f in fractions:
        r = min(m, max(1, math.ceil(f * m)))
        out[Design(k_plus=(r + 1) // 2, k_minus=r // 2)] = None
    return tuple(out)


def guess_sets(scores: F64, design: Design) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """(indices guessed "in", indices guessed "out"): the k₊ highest and k₋ lowest scores, ties
    broken by canary index (a function of the scores alone)."""
    order = np.argsort(-scores, kind="stable")
    return order[: design.k_plus], order[scores.size - design.k_minus :]


@dataclass(frozen=True, slots=True, kw_only=True)
class DesignOutcome:
    design: Design
    correct_plus: int
    correct_minus: int
    epsilon: float
    ceiling: float

    @property
    def correct(self) -> int:
        return self.correct_plus + self.correct_minus


@dataclass(frozen=True, slots=True, kw_only=True)
class OneRunCertificate:
    """The certified one-run bound: ε ≥ `epsilon_lower_bound` with probability ≥ 1 − β."""

    num_canaries: int
    included: int
    delta: float
    failure_probability: float
    test_level: float
    outcomes: tuple[DesignOutcome, ...]
    best: DesignOutcome
    family_size: int = 0
    """N: β is split over this many designs fixed in advance (the outcomes' designs are among them)."""

    @property
    def epsilon_lower_bound(self) -> float:
        return self.best.epsilon

    @property
    def ceiling(self) -> float:
        return max(o.ceiling for o in self.outcomes)


def check_scores(scores: ArrayLike, included: ArrayLike) -> tuple[F64, NDArray[np.bool_]]:
    """Scores as finite float64 (m,), inclusion bits as bool (m,); ValueError naming the problem."""
    s = np.asarray(scores)
    b = np.asarray(included)
    if s.ndim != 1 or s.size < 1:
        raise ValueError(f"scores must be a non-empty 1-d array, got shape {s.shape}")
    if not np.issubdtype(s.dtype, np.number) or np.issubdtype(s.dtype, np.complexfloating):
        raise ValueError(f"scores must be real numbers, got dtype {s.dtype}")
    s = s.astype(np.float64)
    if not np.all(np.isfinite(s)):
        raise ValueError(f"scores must be finite ({int(np.sum(~np.isfinite(s)))} are not)")
    if b.shape != s.shape:
        raise ValueError(f"inclusion bits have shape {b.shape}, scores {s.shape}")
    if b.dtype != np.bool_ and not np.all((b == 0) | (b == 1)):
        raise ValueError("inclusion bits must be 0/1 or booleans")
    return s, b.astype(bool)


def checked_designs(m: int, designs: tuple[Design, ...] | None) -> tuple[Design, ...]:
    """`designs` (default `default_design(m)`), each with k₊, k₋ ≥ 0 and 1 ≤ k₊ + k₋ ≤ m."""
    chosen = designs if designs is not None else default_design(m)
    if not chosen or any(d.k_plus < 0 or d.k_minus < 0 or not 1 <= d.guesses <= m for d in chosen):
        raise ValueError(f"every design needs k₊, k₋ ≥ 0 and 1 ≤ k₊ + k₋ ≤ m = {m}")
    return chosen


def share(
    failure_probability: float, designs: tuple[Design, ...], family_size: int | None
) -> tuple[float, int]:
    """(β/N, N): each design's share of β when the designs are taken from a family of N fixed in
    advance (default N = the number of designs; N below it would not be a union bound)."""
    n = len(designs) if family_size is None else family_size
    if n < len(designs):
        raise ValueError(f"a family of {n} designs cannot hold the {len(designs)} certified")
    return failure_probability / n, n


def certify(
    scores: ArrayLike,
    included: ArrayLike,
    *,
    delta: float,
    failure_probability: float,
    designs: tuple[Design, ...] | None = None,
    family_size: int | None = None,
) -> OneRunCertificate:
    """Certify ε from one run's canary scores (higher = more likely included) and the inclusion
    bits, over `designs` (default: `default_design(m)`), each at β/N, N = `family_size` (default:
    the number of designs; a larger family fixed in advance covers designs chosen after the scores;
    module docstring)."""
    s, bits = check_scores(scores, included)
    m = s.size
    chosen = checked_designs(m, designs)
    test_level, n = share(failure_probability, chosen, family_size)
    outcomes = []
    for d in chosen:
        ins, outs = guess_sets(s, d)
        plus, minus = int(bits[ins].sum()), int((~bits[outs]).sum())
        eps = epsilon_bound(m=m, r=d.guesses, v=plus + minus, delta=delta, bound_level=test_level)
        top = epsilon_bound(m=m, r=d.guesses, v=d.guesses, delta=delta, bound_level=test_level)
        outcomes.append(
            DesignOutcome(design=d, correct_plus=plus, correct_minus=minus, epsilon=eps, ceiling=top)
        )
    best = max(outcomes, key=lambda o: (o.epsilon, o.ceiling))
    return OneRunCertificate(
        num_canaries=m,
        included=int(bits.sum()),
        delta=float(delta),
        failure_probability=float(failure_probability),
        test_level=test_level,
        outcomes=tuple(outcomes),
        best=best,
        family_size=n,
    )


def ceiling(
    *, m: int, delta: float, failure_probability: float, designs: tuple[Design, ...] | None = None
) -> float:
    """The largest ε any outcome of these designs can certify (every guess right), before any run."""
    chosen = designs if designs is not None else default_design(m)
    test_level = failure_probability / len(chosen)
    return max(
        epsilon_bound(m=m, r=d.guesses, v=d.guesses, delta=delta, bound_level=test_level) for d in chosen
    )
