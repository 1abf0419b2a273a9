"""False-alarm rate and power of the sampler conformance check (audit/one_run/sampler_check.py).

For each sampler and seed s: record T batches over n examples from the sampler's generator
(`SeedSequence(s, spawn_key=(134,))`, as `dpaudit sampler`) and run the check at β. A Poisson
sampler at the accountant's rate must be flagged in ≤ β of the seeds (the false-alarm rate, with
its 95% Clopper–Pearson upper bound); the others must be flagged.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from dpaudit.engine.bounds import cp_upper
from dpaudit.engine.one_run import check_sampler

Sampler = Callable[[int, float, int, np.random.Generator], Iterator[Any]]


def poisson(n: int, q: float, steps: int, rng: np.random.Generator) -> Iterator[Any]:
    for _ in range(steps):
        yield rng.random(n) < q


def fixed_size(n: int, q: float, steps: int, rng: np.random.Generator) -> Iterator[Any]:
    """B = round(nq) examples drawn without replacement, independently each step."""
    for _ in range(steps):
        yield rng.choice(n, size=round(n * q), replace=False)


def shuffler(n: int, q: float, steps: int, rng: np.random.Generator) -> Iterator[Any]:
    """Epochs of a fresh permutation cut into batches of B = round(nq)."""
    b = round(n * q)
    while True:
        perm = rng.permutation(n)
        for s in range(0, n - b + 1, b):
            yield perm[s : s + b]


def weighted(n: int, q: float, steps: int, rng: np.random.Generator) -> Iterator[Any]:
    """Poisson with per-example rates 1.5q (half the examples) and 0.5q (the other half): right mean rate."""
    rates = np.where(np.arange(n) < n // 2, 1.5 * q, 0.5 * q)
    for _ in range(steps):
        yield rng.random(n) < rates


def wrong_rate(n: int, q: float, steps: int, rng: np.random.Generator) -> Iterator[Any]:
    """Poisson at 0.9q: the accountant's rate is not the sampler's."""
    for _ in range(steps):
        yield rng.random(n) < 0.9 * q


SAMPLERS: dict[str, Sampler] = {
    "poisson": poisson,
    "fixed_size": fixed_size,
    "shuffler": shuffler,
    "weighted": weighted,
    "wrong_rate_0.9q": wrong_rate,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--rate", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    print(f"n = {args.examples}, T = {args.steps}, q = {args.rate}, β = {args.beta}, {args.seeds} seeds")
    print("| sampler | flagged | rate | 95% CP upper | s |")
    print("|---|---|---|---|---|")
    for name, sampler in SAMPLERS.items():
        if args.only and name not in args.only.split(","):
            continue
        start, flagged = time.perf_counter(), 0
        for s in range(args.seeds):
            rng = np.random.default_rng(np.random.SeedSequence(s, spawn_key=(134,)))
            check = check_sampler(
                sampler(args.examples, args.rate, args.steps, rng),
                num_examples=args.examples,
                steps=args.steps,
                sample_rate=args.rate,
                failure_probability=args.beta,
                seed=s,
            )
            flagged += check.departure_found
        upper = float(cp_upper(flagged, args.seeds, 0.05))
        print(
            f"| {name} | {flagged}/{args.seeds} | {flagged / args.seeds:.3f} | {upper:.3f} | "
            f"{time.perf_counter() - start:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
