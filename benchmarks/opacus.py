"""Opacus adapter: throughput, Monte Carlo audits and one-run audits against Opacus' own ε.

Needs the extra (`pip install "dpaudit[opacus]"`); run on one core:

    OMP_NUM_THREADS=1 python benchmarks/opacus.py                      # both parts, defaults
    OMP_NUM_THREADS=1 python benchmarks/opacus.py --num-samples 6000 --only opacus_poisson_canary
    OMP_NUM_THREADS=1 python benchmarks/opacus.py --skip-monte-carlo --seeds 0 1 2

Monte Carlo: `dpaudit.audit(NAME, num_samples=N, pairs="registered")` (what `dpaudit run NAME
--num-samples N --pairs registered` does), certified ε at the claim's δ and at the profile points
δ = 10⁻³, 10⁻², 10⁻¹ against Opacus' accountant at the same δ. One run: `dpaudit.one_run` of
`dpaudit.mechanisms.opacus.one_run`'s targets (1,000 gradient canaries, one training) with the
SNJ and the f-DP method (what `dpaudit one-run …:train [--method fdp]` does).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# `python benchmarks/opacus.py` puts this folder first on sys.path, where this very file would
# shadow the `opacus` package: drop it (nothing here imports a sibling module)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import numpy as np  # noqa: E402

from dpaudit import audit  # noqa: E402
from dpaudit.engine.one_run import one_run  # noqa: E402
from dpaudit.mechanisms.opacus import INSTALL_MESSAGE, PRESETS  # noqa: E402
from dpaudit.mechanisms.registry import entries  # noqa: E402

MONTE_CARLO = ("opacus_poisson_canary", "opacus_shuffle_canary")
ONE_RUN = ("train", "train_shuffled")


def throughput(name: str, runs: int = 100) -> float:
    """Opacus trainings per second through `sample` on the registered pair's dataset."""
    mech = entries()[name].build()
    data = mech.neighbor_pairs()[0].dataset  # type: ignore[attr-defined]
    mech.sample(data, 5, rng=np.random.default_rng(1))  # torch import and first-call warm-up
    start = time.perf_counter()
    mech.sample(data, runs, rng=np.random.default_rng(0))
    return runs / (time.perf_counter() - start)


def monte_carlo(names: list[str], num_samples: int, seed: int) -> None:
    print("| preset | runs/s (1 core) | N per side | δ | Opacus ε(δ) | certified ε ≥ | seconds |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in names:
        rate = throughput(name)
        start = time.perf_counter()
        r = audit(name, num_samples=num_samples, pairs="registered", seed=seed)
        secs = time.perf_counter() - start
        rows = [(r.claim.delta, r.claim.epsilon, r.epsilon_lower_bound)]
        rows += [
            (p.parameter, r.claim.epsilon_at(p.parameter), p.value)
            for p in r.profile
            if p.objective == "epsilon" and p.parameter is not None and p.parameter != r.claim.delta
        ]
        for i, (delta, claimed, value) in enumerate(sorted(rows)):
            lead = f"| {name} | {rate:.0f} | {num_samples:,} |" if i == 0 else "| | | |"
            tail = f" {secs:.0f} |" if i == 0 else " |"
            print(f"{lead} {delta:g} | {claimed:.3f} | {max(value, 0.0):.3f} |{tail}")


def one_run_audits(seeds: list[int]) -> None:
    from dpaudit.mechanisms.opacus import one_run as targets

    print(
        "| target | sampling | canaries | claim ε (δ) | seed | SNJ ε̂ (ceiling) | f-DP ε̂ (ceiling) | s (SNJ) |"
    )
    print("|---|---|---:|---|---:|---:|---:|---:|")
    for attr in ONE_RUN:
        train = getattr(targets, attr)
        claim = train.claim
        for seed in seeds:
            out = []
            secs = []
            for method in ("snj", "fdp"):
                start = time.perf_counter()
                r = one_run(train, num_canaries=train.num_canaries, claim=claim, seed=seed, method=method)
                secs.append(time.perf_counter() - start)
                out.append(f"{r.epsilon_lower_bound:.3f} ({r.epsilon_ceiling:.3f})")
            sampling = "Poisson" if train.poisson_sampling else "shuffled"
            print(
                f"| {attr} | {sampling} | {train.num_canaries:,} | {claim.epsilon:.3f} ({claim.delta:g}) | "
                f"{seed} | {out[0]} | {out[1]} | {secs[0]:.1f} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-samples", type=int, default=6000, help="per side (Monte Carlo)")
    parser.add_argument("--only", nargs="*", default=None, help="Monte Carlo presets")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, nargs="*", default=[0], help="one-run seeds")
    parser.add_argument("--skip-monte-carlo", action="store_true")
    parser.add_argument("--skip-one-run", action="store_true")
    args = parser.parse_args()
    if not any(name in entries() for name in PRESETS):
        print(INSTALL_MESSAGE)
        return
    import torch

    torch.set_num_threads(1)
    if not args.skip_monte_carlo:
        monte_carlo(list(args.only or MONTE_CARLO), args.num_samples, args.seed)
    if not args.skip_one_run:
        one_run_audits(list(args.seeds))


if __name__ == "__main__":
    main()
