"""Coverage of the one-run bound (audit/one_run/bound.py) on mechanisms of known ε.

For each scenario and seed s = 0 … S−1: dpaudit draws the inclusion bits from s, one training
run produces a score per canary, and `one_run.certify` gives ε̂ at failure probability β. The
table shows the true ε, the mean / max bound, the ceiling, and the coverage: the fraction of
seeds with ε̂ ≤ true ε (must be ≥ 1 − β), with its 95% Clopper–Pearson lower bound.

Scenarios (m canaries each, every canary its own mechanism of the stated ε):
- rr: ε-randomised response per canary (score = the bit, flipped w.p. 1/(1+e^ε)); pure ε-DP and
  the worst case of the bound (Steinke et al.'s tail is exact for it);
- gauss: score = μ·bit + N(0, 1), μ-GDP per canary; true ε(δ) from the Gaussian profile;
- dpsgd: the DP-SGD family's reference trainer (`mechanisms/dpsgd/reference.py`, gradient model,
  all-iterates view), one gradient canary C·e_i per coordinate i; score = the Neyman–Pearson
  statistic along e_i (Σ_t log mixture likelihood ratio); true ε(δ) = dp_accounting's PLD ε
  for T Poisson-subsampled Gaussian steps, add/remove;
- null: scores N(0, 1) independent of the bits (true ε = 0): a bound > 0 is a false certificate.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.engine.bounds import cp_lower
from dpaudit.engine.gdp import gdp_epsilon
from dpaudit.engine.one_run import Design, certify, default_design, inclusion_bits, train_rng
from dpaudit.mechanisms.accountants.dp_accounting import accountant_epsilon
from dpaudit.mechanisms.dpsgd.reference import DPSGD
from dpaudit.neighbors.base import Dataset, Relation

Train = Callable[[np.ndarray[Any, Any], np.random.Generator], np.ndarray[Any, Any]]


def rr(epsilon: float) -> Train:
    def train(included: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
        flip = rng.random(included.size) < 1.0 / (1.0 + math.exp(epsilon))
        return (included ^ flip).astype(float)

    return train


def gauss(mu: float) -> Train:
    def train(included: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
        return mu * included + rng.standard_normal(included.size)

    return train


def null() -> Train:
    def train(included: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
        return rng.standard_normal(included.size)

    return train


def dpsgd(m: int, *, sigma: float, q: float, steps: int) -> tuple[Train, DPSGD]:
    """One gradient canary C·e_i per coordinate of a dim-m DP-SGD (C = 1, B = 1): canary i's
    inclusion changes coordinate i of every released update only."""
    mech = DPSGD(
        noise_multiplier=sigma,
        sample_rate=q,
        steps=steps,
        clip_norm=1.0,
        batch_size=1.0,
        dim=m,
        model="gradient",
        view="all_iterates",
        relation="add_remove_one",
    )

    def train(included: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
        rows = np.eye(m)[included]
        updates, _, _ = mech.train(Dataset(X=rows), 1, rng)
        assert updates is not None
        y = updates[0]  # (T, m), in units of C since B = 1
        z = (y - 0.5) / (sigma * sigma)
        llr = np.logaddexp(math.log1p(-q), math.log(q) + z) if q < 1 else z
        return np.asarray(llr.sum(axis=0))

    return train, mech


def scenarios(m: int, delta: float) -> dict[str, tuple[Train, float, float]]:
    """name → (train, δ audited, true ε at that δ)."""
    sigma, q, steps = 1.0, 0.5, 4
    train_sgd, _ = dpsgd(m, sigma=sigma, q=q, steps=steps)
    true_sgd = accountant_epsilon(
        noise_multiplier=sigma, sample_rate=q, steps=steps, relation=Relation.ADD_REMOVE_ONE, delta=delta
    )
    return {
        "rr eps=2": (rr(2.0), 0.0, 2.0),
        "rr eps=4": (rr(4.0), 0.0, 4.0),
        "gauss mu=2": (gauss(2.0), delta, gdp_epsilon(2.0, delta=delta)),
        f"dpsgd s={sigma} q={q} T={steps}": (train_sgd, delta, true_sgd),
        "null": (null(), delta, 0.0),
    }


def run(
    name: str,
    train: Train,
    delta: float,
    truth: float,
    *,
    m: int,
    seeds: int,
    beta: float,
    designs: tuple[Design, ...] | None,
) -> dict[str, Any]:
    bounds, start, ceiling = [], time.perf_counter(), 0.0
    for s in range(seeds):
        bits = inclusion_bits(m, s)
        cert = certify(
            train(bits, train_rng(s)), bits, delta=delta, failure_probability=beta, designs=designs
        )
        bounds.append(cert.epsilon_lower_bound)
        ceiling = cert.ceiling
    b = np.array(bounds)
    covered = int(np.sum(b <= truth))
    return {
        "scenario": name,
        "delta": delta,
        "true": truth,
        "mean": float(b.mean()),
        "max": float(b.max()),
        "ceiling": ceiling,
        "covered": covered,
        "runs": seeds,
        "cp95": float(cp_lower(covered, seeds, 0.05)),
        "seconds": time.perf_counter() - start,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--canaries", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=1000)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--only", default="", help="comma-separated scenario name prefixes")
    args = ap.parse_args()
    m = args.canaries
    grid = default_design(m)
    single = (Design(k_plus=(m + 1) // 2, k_minus=m // 2),)
    print(
        f"m = {m}, β = {args.beta}, {args.seeds} seeds; designs: default grid of {len(grid)} (union bound) "
        f"and 'all m guesses' (one design at β)"
    )
    print(
        "| scenario | design | δ | true ε | mean ε̂ | max ε̂ | ceiling | ε̂ ≤ true | coverage (95% CP lo) | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    only = [o for o in args.only.split(",") if o]
    for name, (train, delta, truth) in scenarios(m, args.delta).items():
        if only and not any(name.startswith(o) for o in only):
            continue
        for label, designs in (("grid", None), ("all", single)):
            row = run(name, train, delta, truth, m=m, seeds=args.seeds, beta=args.beta, designs=designs)
            print(
                f"| {name} | {label} | {delta:g} | {truth:.3f} | {row['mean']:.3f} | {row['max']:.3f} | "
                f"{row['ceiling']:.3f} | {row['covered']}/{row['runs']} | "
                f"{row['covered'] / row['runs']:.3f} ({row['cp95']:.3f}) | {row['seconds']:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
