"""The Gaussian-DP route: certified lower bounds on μ (issue 7; Nasr et al. 2023 style).

**What this refutes.** A lower bound μ_lb certified here refutes a *μ-GDP claim* with
μ < μ_lb (Dong, Roth & Su, "Gaussian differential privacy"). The ε it implies at δ,
`gdp_epsilon(μ_lb, delta=δ)`, is the ε of the Gaussian profile with parameter μ_lb: it
refutes a claim of the form "ε at δ *via a Gaussian-DP (or Gaussian-profile) accounting*",
never an arbitrary (ε, δ) claim. A mechanism whose trade-off curve is not Gaussian (e.g.
randomized response) can have μ_lb large while its true ε(δ) is small; only the direct
route of `audit.bounds` refutes an (ε, δ) claim as such. Reports must say which is which.

**Derivation.** M is μ-GDP when, for every neighbouring pair (D, D'), the trade-off
function of testing M(D') against M(D) is at least

    G_μ(α) = Φ(Φ⁻¹(1 − α) − μ).

Take any event S as the rejection region of that test. Its type I error is
α = Q(S) = P[M(D') ∈ S] and its type II error is 1 − P(S), P(S) = P[M(D) ∈ S], so

    1 − P(S) ≥ Φ(Φ⁻¹(1 − Q(S)) − μ)
    ⇔ P(S) ≤ 1 − Φ(Φ⁻¹(1 − Q) − μ) = Φ(μ − Φ⁻¹(1 − Q)) = Φ(μ + Φ⁻¹(Q))
    ⇔ μ ≥ Φ⁻¹(P(S)) − Φ⁻¹(Q(S)).

(GDP is symmetric in the pair, so this holds for both orders.) The right-hand side is
increasing in P and decreasing in Q, so with one-sided Clopper–Pearson bounds p_lo ≤ P and
q_hi ≥ Q, each failing with probability ≤ β/2,

    μ ≥ μ_lb = Φ⁻¹(p_lo) − Φ⁻¹(q_hi)      with probability ≥ 1 − β.

For the Gaussian mechanism N(0, 1) vs N(μ, 1) and S = {x ≥ t}, Φ⁻¹(P) − Φ⁻¹(Q) = μ for
*every* t: the whole distribution (not only its 10⁻⁵ tail) carries the evidence, so the
best event is a central one where Clopper–Pearson intervals are narrowest in probit units,
and μ_lb is within O(1/√n) of μ. Converting μ_lb to ε at δ = 10⁻⁵ then gives a far tighter
figure than any direct tail test can at the same n, *under the GDP assumption*.

**Selection.** As in the direct route, the event and direction are chosen on a selection
split by the μ they are projected to certify (`projected_gdp_mu`, the analogue of
`bounds.projected_epsilon`) and certified on fresh samples (`gdp_audit`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpaudit.engine.bounds import cp_lower, cp_upper, projected_bounds
from dpaudit.engine.distinguishers import (
    DEFAULT_DISTINGUISHERS,
    Distinguisher,
    Event,
    GaussianMu,
    choose_event,
)
from dpaudit.engine.sampling import (
    Side,
    Task,
    auto_chunk_size,
    chunk_sizes,
    count_events,
    run_tasks,
    sample_rows,
)
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.analytic import gaussian_delta, gaussian_epsilon
from dpaudit.mechanisms.base import Mechanism
from dpaudit.neighbors.base import NeighborPair

ASSUMPTION = "μ-GDP (Gaussian trade-off curve): refutes a μ-GDP claim, not an arbitrary (ε, δ) claim"

GDP_SELECTION_PHASE = 3
"""Seed-key phase of the GDP route's selection chunks (the runner uses 0, 1 and 2)."""
GDP_CERTIFICATION_PHASE = 4
"""Seed-key phase of the GDP route's certification chunks."""
GDP_PROBE_PHASE = 5
"""Seed-key phase of the two-sample probe that sizes chunks."""


def gdp_mu_from_bounds(p_lo: ArrayLike, q_hi: ArrayLike) -> NDArray[np.float64]:
    """Vectorised Φ⁻¹(p_lo) − Φ⁻¹(q_hi); −inf where p_lo ≤ 0 or q_hi ≥ 1 (no evidence).

    The runner's `objectives.GaussianMu` is the single implementation of this objective."""
    return GaussianMu().value(p_lo, q_hi)


def gdp_mu_lower_bound(p_lo: float, q_hi: float) -> float:
    """μ_lb = Φ⁻¹(p_lo) − Φ⁻¹(q_hi): a lower bound on μ for any μ-GDP mechanism.

    `p_lo` lower-bounds P[M(D) ∈ S] and `q_hi` upper-bounds P[M(D') ∈ S] for one event S;
    if both hold, every μ for which M is μ-GDP satisfies μ ≥ μ_lb (module docstring).
    Returns −inf when p_lo ≤ 0 or q_hi ≥ 1 (no evidence) and +inf when p_lo = 1 > q_hi or
    q_hi = 0 < p_lo.
    """
    return float(gdp_mu_from_bounds(p_lo, q_hi))


def gdp_epsilon(mu: float, *, delta: float) -> float:
    """ε at `delta` of the Gaussian profile with parameter μ (0 for μ ≤ 0, inf for μ = inf).

    Applied to a certified μ_lb this is the smallest ε that any μ-GDP certificate of the
    mechanism can imply at `delta` (labelled by `ASSUMPTION`).
    """
    if not mu > 0:
        return 0.0
    if math.isinf(mu):
        return math.inf
    return gaussian_epsilon(delta, mu)


def gdp_delta(mu: float, *, epsilon: float) -> float:
    """δ at `epsilon` of the Gaussian profile with parameter μ (Balle–Wang Thm 8)."""
    if not mu > 0:
        return 0.0
    if math.isinf(mu):
        return 1.0
    return gaussian_delta(epsilon, mu)


def projected_gdp_mu(
    p_count: ArrayLike,
    q_count: ArrayLike,
    *,
    selection_total_p: int,
    selection_total_q: int,
    certify_total_p: int,
    certify_total_q: int,
    failure_probability: float,
    pessimism: float = 0.01,
) -> NDArray[np.float64]:
    """Predict the μ_lb an event would certify on fresh samples, from selection counts.

    The analogue of `bounds.projected_epsilon`, used only to *choose* an event (the choice
    does not affect validity): selection frequencies are shaded by a one-sided
    `pessimism`-level Clopper–Pearson bound, then the certified bounds are computed at the
    certification sample sizes with real-valued counts, each at failure_probability / 2.
    """
    return GaussianMu().value(
        *projected_bounds(
            p_count,
            q_count,
            selection_total_p=selection_total_p,
            selection_total_q=selection_total_q,
            certify_total_p=certify_total_p,
            certify_total_q=certify_total_q,
            bound_level=failure_probability,
            pessimism=pessimism,
        )
    )


@dataclass(frozen=True, slots=True)
class GdpSelection:
    """The event chosen on the selection split for the GDP route."""

    event: Event
    dataset_is_p: bool
    projected_mu: float
    distinguisher: str


def choose_gdp_event(
    a: NDArray[np.float64],
    b: NDArray[np.float64],
    *,
    certify_total: int,
    test_level: float,
    distinguishers: Sequence[Distinguisher] = DEFAULT_DISTINGUISHERS,
) -> GdpSelection:
    """Pick the (event, direction) with the highest projected certified μ_lb.

    `a` are selection outputs on the pair's dataset, `b` on its neighbour.
    """
    sel = choose_event(
        a,
        b,
        certify_total=certify_total,
        test_level=test_level,
        objective=GaussianMu(),
        distinguishers=distinguishers,
    )
    return GdpSelection(sel.event, sel.dataset_is_p, sel.projected, sel.distinguisher)


@dataclass(frozen=True, slots=True, kw_only=True)
class GdpEstimate:
    """The certified GDP test of one pair (one event, one direction, fresh samples)."""

    mu_lower_bound: float
    epsilon_at_delta: float
    delta: float
    p_count: int
    p_total: int
    q_count: int
    q_total: int
    p_lower: float
    q_upper: float
    failure_probability: float
    direction: str
    event: str
    distinguisher: str
    selection_mu: float
    description: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class GdpResult:
    """GDP-route result: μ_lb (max over pairs) and the ε it implies at `delta`.

    All pairs' intervals hold simultaneously with probability ≥ 1 − failure_probability
    (Bonferroni over pairs, test_level each). `assumption` labels what
    the figures refute.
    """

    mechanism: str
    mu_lower_bound: float
    delta: float
    epsilon_at_delta: float
    failure_probability: float
    test_level: float
    num_samples: int
    selection_samples: int
    certification_samples: int
    seed: int
    pairs: tuple[GdpEstimate, ...]
    elapsed_seconds: float
    assumption: str = ASSUMPTION

    def refutes(self, mu_claim: float) -> bool:
        """True when the certified μ_lb exceeds a claimed μ (a μ-GDP claim is refuted)."""
        return self.mu_lower_bound > mu_claim


def _selection_rows(
    mechanism: Mechanism, pair: NeighborPair, index: int, config: AuditConfig, chunk: int, n_sel: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The GDP route's selection outputs of one pair, (dataset side, neighbour side)."""
    sides = (pair.dataset, pair.neighbor)
    parts: dict[int, list[Any]] = {0: [], 1: []}
    tasks = [
        Task(
            sample_rows,
            (mechanism, sides[s], size, config.seed, (index, int(s), GDP_SELECTION_PHASE, j)),
            size,
            int(s),
        )
        for s in Side
        for j, size in enumerate(chunk_sizes(n_sel, chunk))
    ]

    def done(task: Task, rows: Any) -> None:
        parts[int(task.tag)].append(rows)

    run_tasks(tasks, jobs=config.jobs, backend=config.backend, on_done=done)
    return np.concatenate(parts[0]), np.concatenate(parts[1])


def gdp_selections(
    mechanism: Mechanism,
    pairs: Sequence[NeighborPair],
    config: AuditConfig,
    *,
    chunk: int,
    test_level: float,
    distinguishers: Sequence[Distinguisher] = DEFAULT_DISTINGUISHERS,
) -> list[GdpSelection]:
    """The GDP route's select stage: per pair, the event and direction with the highest projected
    μ_lb on a selection split drawn in phase `GDP_SELECTION_PHASE`."""
    n_sel, n_cert = config.split()
    selections = []
    for i, pair in enumerate(pairs):
        a, b = _selection_rows(mechanism, pair, i, config, chunk, n_sel)
        selections.append(
            choose_gdp_event(
                a,
                b,
                certify_total=n_cert,
                test_level=test_level,
                distinguishers=distinguishers,
            )
        )
    return selections


def gdp_counts(
    mechanism: Mechanism,
    pairs: Sequence[NeighborPair],
    selections: Sequence[GdpSelection],
    config: AuditConfig,
    *,
    chunk: int,
) -> NDArray[np.int64]:
    """The GDP route's certify stage: counts (pairs × (dataset, neighbour)) of each pair's event on
    a fresh certification split drawn in phase `GDP_CERTIFICATION_PHASE`."""
    n_cert = config.split()[1]
    counts = np.zeros((len(pairs), 2), dtype=np.int64)
    tasks = [
        Task(
            count_events,
            (
                mechanism,
                (pair.dataset, pair.neighbor)[s],
                [sel.event],
                size,
                config.seed,
                (i, int(s), GDP_CERTIFICATION_PHASE, j),
            ),
            size,
            (i, int(s)),
        )
        for i, (pair, sel) in enumerate(zip(pairs, selections, strict=True))
        for s in Side
        for j, size in enumerate(chunk_sizes(n_cert, chunk))
    ]

    def done(task: Task, k: list[int]) -> None:
        i, s = task.tag
        counts[i, s] += k[0]

    run_tasks(tasks, jobs=config.jobs, backend=config.backend, on_done=done)
    return counts


def gdp_estimate(
    pair: NeighborPair,
    sel: GdpSelection,
    counts: NDArray[np.int64],
    *,
    n_cert: int,
    test_level: float,
    delta: float,
) -> GdpEstimate:
    """One pair's certified μ_lb from its event's (dataset, neighbour) counts: one-sided
    Clopper–Pearson bounds at β_t/2 each (union bound: both hold with probability ≥ 1 − β_t)."""
    kp, kq = (counts[0], counts[1]) if sel.dataset_is_p else (counts[1], counts[0])
    p_lo = float(cp_lower(kp, n_cert, test_level / 2))
    q_hi = float(cp_upper(kq, n_cert, test_level / 2))
    mu = gdp_mu_lower_bound(p_lo, q_hi)
    return GdpEstimate(
        mu_lower_bound=mu,
        epsilon_at_delta=gdp_epsilon(mu, delta=delta),
        delta=delta,
        p_count=int(kp),
        p_total=n_cert,
        q_count=int(kq),
        q_total=n_cert,
        p_lower=p_lo,
        q_upper=q_hi,
        failure_probability=test_level,
        direction="dataset>neighbor" if sel.dataset_is_p else "neighbor>dataset",
        event=sel.event.describe(),
        distinguisher=sel.distinguisher,
        selection_mu=sel.projected_mu,
        description=pair.description,
    )


def gdp_audit(
    mechanism: Mechanism,
    pairs: Sequence[NeighborPair],
    config: AuditConfig,
    *,
    delta: float | None = None,
    distinguishers: Sequence[Distinguisher] = DEFAULT_DISTINGUISHERS,
) -> GdpResult:
    """Certify μ_lb for each pair: choose an event on a selection split by `projected_gdp_mu`,
    certify it on fresh samples with one-sided Clopper–Pearson bounds at β_t/2 each,
    β_t = failure_probability / len(pairs).

    `delta` (default: the mechanism's claimed δ, or 1e-5 when that is 0) is where the
    implied ε is reported. Samples are drawn with seed keys in phases
    `GDP_SELECTION_PHASE` / `GDP_CERTIFICATION_PHASE`, so they are independent of the direct
    route's samples under the same seed; if both routes' figures are reported as holding
    jointly, split `failure_probability` between them. Pair checks (neighbour relation,
    domain) are the runner's job; call this after `run_audit` or on validated pairs.
    """
    if not pairs:
        raise ValueError("no neighbour pairs")
    start = time.monotonic()
    report_delta = delta if delta is not None else (mechanism.claim.delta or 1e-5)
    n_sel, n_cert = config.split()
    test_level = config.failure_probability / len(pairs)
    probe = sample_rows(mechanism, pairs[0].dataset, 2, config.seed, (0, 0, GDP_PROBE_PHASE, 0))
    chunk = config.chunk_size or auto_chunk_size(int(probe.shape[1]))
    selections = gdp_selections(
        mechanism, pairs, config, chunk=chunk, test_level=test_level, distinguishers=distinguishers
    )
    counts = gdp_counts(mechanism, pairs, selections, config, chunk=chunk)
    estimates = [
        gdp_estimate(pair, sel, counts[i], n_cert=n_cert, test_level=test_level, delta=report_delta)
        for i, (pair, sel) in enumerate(zip(pairs, selections, strict=True))
    ]
    mu_best = max(e.mu_lower_bound for e in estimates)
    return GdpResult(
        mechanism=mechanism.name,
        mu_lower_bound=mu_best,
        delta=report_delta,
        epsilon_at_delta=gdp_epsilon(mu_best, delta=report_delta),
        failure_probability=config.failure_probability,
        test_level=test_level,
        num_samples=config.num_samples,
        selection_samples=n_sel,
        certification_samples=n_cert,
        seed=config.seed,
        pairs=tuple(estimates),
        elapsed_seconds=time.monotonic() - start,
    )
