"""Coverage and power of the f-DP one-run audit (audit/one_run/fdp.py: Mahloujifar, Melis &
Chaudhuri 2024) against the Steinke–Nasr–Jagielski (SNJ) bound, at the same β and designs.

Per seed s: dpaudit's inclusion bits from s (`inclusion_bits`), one score per canary from the
training stream of s (`train_rng`), default designs (union bound over 7), β = 0.05, δ = 10⁻⁵.

(i) coverage: score = μ·S_i + N(0, 1) (μ-GDP per canary), claim μ-GDP (and ε-randomised response
    with the claim (ε, 0)-DP): the fraction of seeds whose claim is rejected must be ≤ β; shown
    with its 95% Clopper–Pearson upper bound, and the fraction with the f-DP ε bound above the
    true ε(δ) (also a false certificate);
(ii) no signal: scores N(0, 1) independent of the bits (true μ = ε = 0): the fraction certifying
    μ > 0 or ε > 0, and the fraction rejecting a small claim (0.1-GDP);
(iii) power: certified μ (GDP family) and ε at δ ((ε, δ) family) against the truth, beside SNJ's
    ε at the whole β and `both` (max of SNJ and f-DP at β/2 each).

Run: python benchmarks/one_run_fdp_coverage.py [--seeds 200] [--coverage-seeds 1000] (about 2 minutes)
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit.engine.bounds import cp_upper
from dpaudit.engine.one_run import TradeOff, approx_dp, certify, certify_fdp, gdp, inclusion_bits, train_rng
from dpaudit.mechanisms.analytic import gaussian_epsilon

BETA = 0.05
DELTA = 1e-5
Train = Callable[[np.ndarray[Any, Any], np.random.Generator], np.ndarray[Any, Any]]


def gauss(mu: float) -> Train:
    def train(included: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
        return mu * included + rng.standard_normal(included.size)

    return train


def rr(epsilon: float) -> Train:
    def train(included: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
        flip = rng.random(included.size) < 1.0 / (1.0 + math.exp(epsilon))
        return (included ^ flip).astype(float)

    return train


def run(train: Train, m: int, seed: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    bits = inclusion_bits(m, seed)
    return np.asarray(train(bits.copy(), train_rng(seed)), dtype=float), bits


@dataclass(frozen=True, slots=True, kw_only=True)
class Coverage:
    name: str
    m: int
    seeds: int
    rejected: int
    eps_above: int
    mean_mu: float
    seconds: float


def coverage(name: str, train: Train, claim: TradeOff, true_eps: float, *, m: int, seeds: int) -> Coverage:
    start = time.perf_counter()
    rejected = above = 0
    mus = []
    for s in range(seeds):
        scores, bits = run(train, m, s)
        c = certify_fdp(scores, bits, claim=claim, delta=DELTA, failure_probability=BETA)
        rejected += c.claim_rejected
        above += c.epsilon_lower_bound > true_eps
        mus.append(c.mu_lower_bound)
    return Coverage(
        name=name,
        m=m,
        seeds=seeds,
        rejected=rejected,
        eps_above=above,
        mean_mu=float(np.mean(mus)),
        seconds=time.perf_counter() - start,
    )


def print_coverage(rows: list[Coverage]) -> None:
    print(f"\n(i)/(ii) false rejections, β = {BETA}, δ = {DELTA:g}, default designs")
    print(
        "| scenario | m | seeds | claim rejected (95% CP upper) | f-DP ε̂ > true ε (95% CP upper) "
        "| mean μ̂ | s |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        hi = float(cp_upper(r.rejected, r.seeds, 0.05))
        hi_eps = float(cp_upper(r.eps_above, r.seeds, 0.05))
        print(
            f"| {r.name} | {r.m} | {r.seeds} | {r.rejected} ({hi:.4f}) | {r.eps_above} ({hi_eps:.4f}) "
            f"| {r.mean_mu:.3f} | {r.seconds:.0f} |"
        )


def power(mu: float, *, m: int, seeds: int) -> dict[str, float]:
    """Means over seeds of μ̂, ε(μ̂), the f-DP ε, SNJ's ε (β), and `both` (β/2 each)."""
    start = time.perf_counter()
    cols: dict[str, list[float]] = {k: [] for k in ("mu", "eps_mu", "fdp", "snj", "both", "fdp_wins")}
    for s in range(seeds):
        scores, bits = run(gauss(mu), m, s)
        fd = certify_fdp(scores, bits, claim=gdp(mu), delta=DELTA, failure_probability=BETA)
        snj = certify(scores, bits, delta=DELTA, failure_probability=BETA).epsilon_lower_bound
        half_f = certify_fdp(scores, bits, claim=gdp(mu), delta=DELTA, failure_probability=BETA / 2)
        half_s = certify(scores, bits, delta=DELTA, failure_probability=BETA / 2).epsilon_lower_bound
        mu_hat = fd.mu_lower_bound
        cols["mu"].append(mu_hat)
        cols["eps_mu"].append(gaussian_epsilon(DELTA, mu_hat) if mu_hat > 0 else 0.0)
        cols["fdp"].append(fd.epsilon_lower_bound)
        cols["snj"].append(snj)
        cols["both"].append(max(half_s, half_f.epsilon_lower_bound))
        cols["fdp_wins"].append(float(fd.epsilon_lower_bound > snj))
    out = {k: float(np.mean(v)) for k, v in cols.items()}
    out["seconds"] = time.perf_counter() - start
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=200, help="seeds per power row (default 200)")
    ap.add_argument("--coverage-seeds", type=int, default=1000, help="seeds per coverage row (default 1000)")
    ap.add_argument("--large", type=int, default=10000, help="the larger m (default 10000)")
    args = ap.parse_args()
    n, big = args.seeds, args.large
    cov = args.coverage_seeds
    eps1, eps2 = gaussian_epsilon(DELTA, 1.0), gaussian_epsilon(DELTA, 2.0)
    rows = [
        coverage("gauss μ=1, claim 1-GDP", gauss(1.0), gdp(1.0), eps1, m=1000, seeds=cov),
        coverage("gauss μ=2, claim 2-GDP", gauss(2.0), gdp(2.0), eps2, m=1000, seeds=cov),
        coverage("rr ε=2, claim (2, 0)-DP", rr(2.0), approx_dp(2.0, 0.0), 2.0, m=1000, seeds=cov),
        coverage("gauss μ=2, claim 2-GDP", gauss(2.0), gdp(2.0), eps2, m=big, seeds=cov),
        coverage("no signal, claim 0.1-GDP", gauss(0.0), gdp(0.1), 0.0, m=1000, seeds=cov),
        coverage("no signal, claim 0.1-GDP", gauss(0.0), gdp(0.1), 0.0, m=big, seeds=cov),
    ]
    print_coverage(rows)
    print(
        f"\n(iii) power, means over {n} seeds; β = {BETA}, δ = {DELTA:g}; truth: μ and ε(δ) of the Gaussian"
    )
    print(
        "| m | true μ | true ε(δ) | f-DP μ̂ | ε(μ̂) (GDP assumed) | f-DP ε̂ | SNJ ε̂ | both ε̂ (β/2 each) "
        "| f-DP ε̂ > SNJ | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m in (1000, big):
        for mu in (1.0, 2.0, 4.0):
            p = power(mu, m=m, seeds=n)
            print(
                f"| {m} | {mu:g} | {gaussian_epsilon(DELTA, mu):.2f} | {p['mu']:.3f} | {p['eps_mu']:.2f} "
                f"| {p['fdp']:.3f} | {p['snj']:.3f} | {p['both']:.3f} | {p['fdp_wins']:.2f} "
                f"| {p['seconds']:.0f} |"
            )


if __name__ == "__main__":
    main()
