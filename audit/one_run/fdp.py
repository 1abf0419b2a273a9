"""f-DP one-run audits: Mahloujifar, Melis & Chaudhuri, "Auditing f-Differential Privacy in One Run"
(arXiv 2410.22235, ICML 2025), their bound for guessing games with abstention, computed by their
recursive procedure (the recursion on (r_i, h_i) of their numerical algorithm).

Setting: as in `one_run.py` (Steinke, Nasr & Jagielski): m canaries, S_i i.i.d. uniform (in/out),
one output, exactly k = k₊ + k₋ guesses chosen from the scores alone, W = the correct guesses.
The claim is a trade-off function f (symmetric, as every f below is): for a canary in or out (the
rest fixed), every test between the two output laws with type I error α has type II error ≥ f(α).
Write f̄(x) = 1 − f(x) (concave, non-decreasing) and g(y) = inf{x : f̄(x) ≥ y}.

Lemma 1 (one step). With R_i = E[W·1{W ≥ i}]/m and H_i = E[(k − W)·1{W ≥ i}]/m,
R_i ≤ f̄(H_{i−1}), i.e. H_{i−1} ≥ g(R_i), for i ≥ 1. Proof: fix canary j and the other bits.
The event {canary j guessed "in", the other canaries' correct guesses ≥ i − 1} is a function of
the output, so f-DP bounds its probability with j in by f̄(its probability with j out); the same
for "out" guesses (the other order). With j in, the event is "j right and W ≥ i"; with j out,
"j wrong and W ≥ i − 1". Average over j, the bits and the two guesses: f̄ is concave (Jensen).

The recursion. For τ ∈ (0, 1] start at level c with r = cτ/m, h = (k − c)τ/m (all the mass τ
at W = c) and, for j = c − 1, …, 0, add the least mass at W = j that Lemma 1 allows:
h ← max(h, g(r)), r ← r + j/(k − j)·(increase of h). G(τ) = r + h at level 0.

Theorem (our proof of their bound; ARCHITECTURE.md has it in full). If P[W ≥ c] = τ* then
G(τ*) ≤ k/m, and G is non-decreasing in τ; so G(τ) > k/m implies P[W ≥ c] < τ. Sketch: states
(R, H) are ordered by the cone K_j = {dR ≥ 0, dR + dH ≥ 0, dH ≤ (k − j)/j·dR}; one step of the
recursion maps a K_{j+1}-larger state to a K_j-larger one; the true (R_i, H_i) are K-larger than
the recursion started at their own level-c state (Lemma 1), which is K_c-larger than the
concentrated start; and R_0 + H_0 = k/m exactly (k guesses). The same monotonicity shows G
is non-increasing when g shrinks, so the test is monotone in μ (GDP) and in ε (fixed δ).

Numerics, conservative direction (the computed G is ≤ the exact G, so a computed rejection is
a real one): g is replaced by a lower bound (`TradeOff.blow_up_inverse`: GDP relative slack 2⁻³⁰,
(ε, δ) absolute slack 2⁻⁴⁰, both far above the float error); the start is rounded down (r by
2⁻³⁸, h by 2⁻³⁹, a K_c-smaller state); every new r is multiplied by 1 − 2⁻⁴⁰ (above its 5-ulp
error; h is assigned exactly), and rejection needs r + h > (k/m)(1 + 2⁻⁴⁰). Each of these is a
K-smaller perturbation, which the monotone recursion keeps K-smaller to the end.

Validity of the audit: as in `one_run.py`, rejection regions U = {c : G_c(β') > k/m} need no
monotonicity in c (P[W ∈ U] ≤ P[W ≥ min U] < β'), the K designs share β by a union bound, and the
largest rejected μ (ε) over the designs exceeds the true one with probability ≤ β.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from ...mechanisms.base import CurveKind, PrivacyClaim
from .bound import (
    Design,
    check_scores,
    checked_designs,
    default_design,
    guess_sets,
    share,
)

METHOD = (
    "Mahloujifar, Melis & Chaudhuri 2024, Auditing f-Differential Privacy in One Run, "
    "bound for guesses with abstention (recursive procedure)"
)
GDP_SLACK = 2.0**-30
"""Relative amount by which the GDP g(y) = Φ(Φ⁻¹(y) − μ) is lowered (its float error is < 10⁻¹²)."""
DP_SLACK = 2.0**-40
"""Absolute amount by which an (ε, δ) g(y) is lowered (its float error is < 10⁻¹⁵)."""
SHRINK = 1.0 - 2.0**-40
"""Each new r of the recursion is multiplied by this (rounds it down past its float error)."""
TOLERANCE = 1e-4
"""Bisection width (relative above 1) of the largest rejected μ and ε; the value returned is rejected."""
ZCDP_DELTAS = tuple(float(d) for d in np.geomspace(1e-15, 0.5, 64))
"""δ grid of the zCDP conversion (each (ε(δ), δ) point is implied by ρ-zCDP, so any grid is valid)."""
_CAP = 1e4
_TINY = 2.0**-900


@dataclass(frozen=True, slots=True, kw_only=True)
class TradeOff:
    """f = the largest of the GDP trade-off G_μ (when `gdp_mu` is set) and the (ε, δ)-DP
    trade-offs f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^−ε (1 − δ − α)) of `points`; valid when the
    mechanism is μ-GDP and (ε, δ)-DP for every listed point."""

    gdp_mu: float | None = None
    points: tuple[tuple[float, float], ...] = ()
    """(ε, δ) pairs."""
    label: str = ""
    _eps: np.ndarray = field(init=False, repr=False, compare=False)
    _delta: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pts = tuple((float(e), float(d)) for e, d in self.points)
        if self.gdp_mu is None and not pts:
            raise ValueError("a trade-off function needs a GDP μ or at least one (ε, δ) point")
        if self.gdp_mu is not None and not (math.isfinite(self.gdp_mu) and self.gdp_mu >= 0):
            raise ValueError(f"GDP μ must be finite and ≥ 0, got {self.gdp_mu}")
        if any(not (math.isfinite(e) and e >= 0 and 0 <= d < 1) for e, d in pts):
            raise ValueError("every (ε, δ) point needs a finite ε ≥ 0 and 0 ≤ δ < 1")
        object.__setattr__(self, "points", pts)
        object.__setattr__(self, "_eps", np.array([e for e, _ in pts], dtype=float))
        object.__setattr__(self, "_delta", np.array([d for _, d in pts], dtype=float))

    def blow_up_inverse(self, y: float) -> float:
        """A lower bound on g(y) = inf{x : 1 − f(x) ≥ y} (the conservative direction)."""
        if y <= 0.0:
            return 0.0
        best = 0.0
        if self.gdp_mu is not None:
            best = _gdp_inverse(y, self.gdp_mu)
        if self._eps.size == 1:
            return max(best, _dp_inverse(y, float(self._eps[0]), float(self._delta[0])))
        if self._eps.size:
            best = max(best, _dp_inverse_many(y, self._eps, self._delta))
        return best

    def describe(self) -> str:
        if self.label:
            return self.label
        parts = [f"{self.gdp_mu:g}-GDP"] if self.gdp_mu is not None else []
        parts += [f"({e:g}, {d:g})-DP" for e, d in self.points[:3]]
        more = len(self.points) - 3
        return " and ".join(parts) + (f" and {more} more (ε, δ) points" if more > 0 else "")


def _gdp_inverse(y: float, mu: float) -> float:
    """Φ(Φ⁻¹(y) − μ), lowered by the relative slack (1 for y ≥ 1)."""
    if y >= 1.0:
        return 1.0 - GDP_SLACK
    return float(special.ndtr(special.ndtri(y) - mu)) * (1.0 - GDP_SLACK)


def _exp(x: float) -> float:
    return math.exp(x) if x < 700.0 else math.inf


def _dp_inverse(y: float, eps: float, delta: float) -> float:
    """max(0, e^−ε (y − δ), 1 − δ − e^ε (1 − y)) lowered by the absolute slack."""
    first = math.exp(-eps) * (y - delta)
    tail = 1.0 - y
    second = (1.0 - delta) - (_exp(eps) * tail if tail > 0 else 0.0)
    return max(0.0, max(first, second) - DP_SLACK)


def _dp_inverse_many(y: float, eps: np.ndarray, delta: np.ndarray) -> float:
    first = np.exp(-eps) * (y - delta)
    tail = 1.0 - y
    with np.errstate(over="ignore"):
        second = (1.0 - delta) - (np.exp(eps) * tail if tail > 0 else 0.0)
    return max(0.0, float(max(first.max(), np.max(second))) - DP_SLACK)


# ---------------------------------------------------------------------- trade-off functions
def gdp(mu: float) -> TradeOff:
    """μ-GDP (Dong, Roth & Su): f(α) = Φ(Φ⁻¹(1 − α) − μ)."""
    return TradeOff(gdp_mu=float(mu), label=f"{mu:g}-GDP")


def approx_dp(epsilon: float, delta: float) -> TradeOff:
    """(ε, δ)-DP (Kairouz, Oh & Viswanath's trade-off f_{ε,δ})."""
    return TradeOff(points=((epsilon, delta),), label=f"({epsilon:g}, {delta:g})-DP")


def zcdp(rho: float, deltas: tuple[float, ...] = ZCDP_DELTAS) -> TradeOff:
    """ρ-zCDP through its (ρ + 2√(ρ ln 1/δ), δ)-DP points (Bun & Steinke 2016, Prop 1.3)."""
    if not (rho > 0 and math.isfinite(rho)):
        raise ValueError(f"zCDP ρ must be finite and > 0, got {rho}")
    pts = tuple((rho + 2.0 * math.sqrt(rho * math.log(1.0 / d)), d) for d in deltas)
    return TradeOff(points=pts, label=f"{rho:g}-zCDP")


def from_claim(claim: PrivacyClaim) -> TradeOff:
    """The claim's trade-off: its (ε, δ) point and, for a curve claim, the curve (GDP μ, the zCDP
    conversion, or every tabulated (ε_i, δ_i) of an accountant): all of them are asserted."""
    point = ((claim.epsilon, claim.delta),)
    curve = claim.curve
    if curve is None:
        return TradeOff(points=point, label=f"({claim.epsilon:g}, {claim.delta:g})-DP")
    if curve.kind is CurveKind.GDP:
        return TradeOff(gdp_mu=curve.parameter, points=point, label=curve.label())
    if curve.kind is CurveKind.ZCDP:
        return TradeOff(points=point + zcdp(curve.parameter).points, label=curve.label())
    table = tuple((e, d) for d, e in curve.points)
    return TradeOff(points=point + table, label=curve.label())


# ---------------------------------------------------------------------- the bound
def rejects(f: TradeOff, *, m: int, k: int, c: int, tau: float) -> bool:
    """G(τ) > k/m: under f, c or more right of k guesses has probability < τ (module docstring)."""
    _check(m=m, k=k, c=c, tau=tau)
    if c == 0:
        return False
    g = f.blow_up_inverse
    limit = (k / m) * (1.0 + 2.0**-40)
    r = c * tau / m * (1.0 - 2.0**-38)
    h = (k - c) * tau / m * (1.0 - 2.0**-39)
    for j in range(c - 1, -1, -1):
        need = g(r)
        if need <= h:  # nothing binds: the state stays as it is down to level 0
            break
        r = (r + j / (k - j) * (need - h)) * SHRINK
        h = need
        if r + h > limit:  # r + h only grows on the way down
            return True
    return r + h > limit


def tail_bound(f: TradeOff, *, m: int, k: int, v: int, rel: float = 0.02) -> float:
    """An upper bound on P[W ≥ v] under f: a τ that `rejects` (1.0 when even τ = 1 does not),
    within a factor 1 + `rel` of the smallest such τ; a bound below 2⁻⁵¹¹ is reported as 2⁻⁵¹¹."""
    if v == 0 or not rejects(f, m=m, k=k, c=v, tau=1.0):
        return 1.0
    hi, step = 1.0, 1
    while rejects(f, m=m, k=k, c=v, tau=hi * 2.0**-step):
        hi *= 2.0**-step
        step *= 2
        if hi * 2.0**-step < _TINY:  # stay with normal floats: hi is a rejected level
            return hi
    lo = hi * 2.0**-step
    while hi > lo * (1.0 + rel):
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if rejects(f, m=m, k=k, c=v, tau=mid) else (mid, hi)
    return hi


def largest_rejected(family: Callable[[float], TradeOff], *, m: int, k: int, c: int, tau: float) -> float:
    """The largest parameter t (to `TOLERANCE`) whose `family(t)` is rejected, 0.0 when family(0)
    is not; needs the family to weaken as t grows (GDP μ, ε at fixed δ). The value returned is
    itself rejected, so it exceeds the truth only when the test fails."""
    if not rejects(family(0.0), m=m, k=k, c=c, tau=tau):
        return 0.0
    lo, hi = 0.0, 1.0
    while rejects(family(hi), m=m, k=k, c=c, tau=tau):
        lo, hi = hi, 2.0 * hi
        if hi > _CAP:
            raise ArithmeticError("the f-DP test rejects every parameter")
    while hi - lo > TOLERANCE * max(1.0, lo):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if rejects(family(mid), m=m, k=k, c=c, tau=tau) else (lo, mid)
    return lo


def _check(*, m: int, k: int, c: int, tau: float) -> None:
    if not 0 <= c <= k <= m or k < 1:
        raise ValueError(f"need 0 ≤ c ≤ k ≤ m and k ≥ 1, got m={m}, k={k}, c={c}")
    if not 0 < tau <= 1:
        raise ValueError(f"the level τ must be in (0, 1], got {tau}")


@functools.lru_cache(maxsize=4096)
def epsilon_bound(*, m: int, k: int, c: int, delta: float, tau: float) -> float:
    """The largest ε whose (ε, δ)-DP trade-off this outcome rejects at level τ (0.0 if none)."""
    return largest_rejected(lambda e: approx_dp(e, delta), m=m, k=k, c=c, tau=tau)


@functools.lru_cache(maxsize=4096)
def mu_bound(*, m: int, k: int, c: int, tau: float) -> float:
    """The largest μ whose μ-GDP trade-off this outcome rejects at level τ (0.0 if none)."""
    return largest_rejected(gdp, m=m, k=k, c=c, tau=tau)


# ---------------------------------------------------------------------- certificates
@dataclass(frozen=True, slots=True, kw_only=True)
class FdpOutcome:
    """One design: its guesses, the claim's test and the certified μ and ε (and their ceilings)."""

    design: Design
    correct_plus: int
    correct_minus: int
    claim_rejected: bool
    claim_tail_bound: float
    """An upper bound on P[W ≥ correct] under the claimed f (the test's p-value, rounded up)."""
    claim_refutable: bool
    """Every guess right would reject the claim (False: this design has no power against it)."""
    epsilon: float
    mu: float
    epsilon_ceiling: float
    mu_ceiling: float

    @property
    def correct(self) -> int:
        return self.correct_plus + self.correct_minus


@dataclass(frozen=True, slots=True, kw_only=True)
class FdpCertificate:
    """The f-DP one-run certificate: with probability ≥ 1 − β none of the reported rejections
    (claim, μ, ε at δ) is wrong (one union bound over the designs)."""

    num_canaries: int
    included: int
    delta: float
    claim: TradeOff
    failure_probability: float
    test_level: float
    outcomes: tuple[FdpOutcome, ...]
    family_size: int = 0
    """N: β is split over this many designs fixed in advance (bound.py, `family_size`)."""

    @property
    def best(self) -> FdpOutcome:
        return max(self.outcomes, key=lambda o: (o.epsilon, o.mu, o.epsilon_ceiling))

    @property
    def epsilon_lower_bound(self) -> float:
        return max(o.epsilon for o in self.outcomes)

    @property
    def mu_lower_bound(self) -> float:
        return max(o.mu for o in self.outcomes)

    @property
    def claim_rejected(self) -> bool:
        return any(o.claim_rejected for o in self.outcomes)

    @property
    def claim_tail_bound(self) -> float:
        return min(o.claim_tail_bound for o in self.outcomes)

    @property
    def claim_refutable(self) -> bool:
        return any(o.claim_refutable for o in self.outcomes)

    @property
    def ceiling(self) -> float:
        return max(o.epsilon_ceiling for o in self.outcomes)

    @property
    def mu_ceiling(self) -> float:
        return max(o.mu_ceiling for o in self.outcomes)


def _outcome(
    f: TradeOff, design: Design, plus: int, minus: int, *, m: int, delta: float, tau: float
) -> FdpOutcome:
    k, c = design.guesses, plus + minus
    return FdpOutcome(
        design=design,
        correct_plus=plus,
        correct_minus=minus,
        claim_rejected=rejects(f, m=m, k=k, c=c, tau=tau),
        claim_tail_bound=tail_bound(f, m=m, k=k, v=c),
        claim_refutable=rejects(f, m=m, k=k, c=k, tau=tau),
        epsilon=epsilon_bound(m=m, k=k, c=c, delta=delta, tau=tau),
        mu=mu_bound(m=m, k=k, c=c, tau=tau),
        epsilon_ceiling=epsilon_bound(m=m, k=k, c=k, delta=delta, tau=tau),
        mu_ceiling=mu_bound(m=m, k=k, c=k, tau=tau),
    )


def certify_fdp(
    scores: ArrayLike,
    included: ArrayLike,
    *,
    claim: TradeOff,
    delta: float,
    failure_probability: float,
    designs: tuple[Design, ...] | None = None,
    family_size: int | None = None,
) -> FdpCertificate:
    """Test the claimed f and certify μ and ε at `delta` from one run's scores and inclusion bits,
    over `designs` (default `default_design(m)`, the SNJ grid), each at β/N, N = `family_size`
    (default the number of designs; bound.py's `certify`)."""
    s, bits = check_scores(scores, included)
    m = s.size
    chosen = checked_designs(m, designs)
    if not 0 <= delta < 1:
        raise ValueError(f"delta must be in [0, 1), got {delta}")
    if not 0 < failure_probability < 1:
        raise ValueError(f"failure probability must be in (0, 1), got {failure_probability}")
    tau, n = share(failure_probability, chosen, family_size)
    outcomes = []
    for d in chosen:
        ins, outs = guess_sets(s, d)
        plus, minus = int(bits[ins].sum()), int((~bits[outs]).sum())
        outcomes.append(_outcome(claim, d, plus, minus, m=m, delta=float(delta), tau=tau))
    return FdpCertificate(
        num_canaries=m,
        included=int(bits.sum()),
        delta=float(delta),
        claim=claim,
        failure_probability=float(failure_probability),
        test_level=tau,
        outcomes=tuple(outcomes),
        family_size=n,
    )


def fdp_ceiling(
    *, m: int, delta: float, failure_probability: float, designs: tuple[Design, ...] | None = None
) -> float:
    """The largest ε (at `delta`) any outcome of these designs can certify, before any run."""
    chosen = designs if designs is not None else default_design(m)
    tau = failure_probability / len(chosen)
    return max(epsilon_bound(m=m, k=d.guesses, c=d.guesses, delta=delta, tau=tau) for d in chosen)
