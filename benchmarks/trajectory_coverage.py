"""Coverage of the learned trajectory likelihood ratio (issue 35): certified ε(δ) against the exact ε(δ).

A user's loop with the accountant exact: T steps, each releasing B_t·x + N(0, σ²) with B_t ~
Bernoulli(q) the record's Poisson inclusion and x ∈ [0, 1] its clipped gradient (a gradient canary
on an empty rest), every update released; claimed with `dpaudit.accountant_claim(σ, q, T)`, which
is then the mechanism's exact ε(δ) curve (dp_accounting's PLD accountant composes exactly this
privacy loss). No `statistics` are given, so the Neyman–Pearson statistic is only reachable through
the learned `TrajectoryDistinguisher` (the default distinguishers, fitted on the selection split).
Each of S seeded audits certifies ε at every δ of the profile; a value above the exact curve is a
coverage failure of that audit. Prints the failures, their Clopper–Pearson 95% upper bound next to
β, how often the certified event was the learned trajectory statistic (and of those, the
state-dependent model: `state`), and the mean ratio of the
certified ε(10⁻²) to the exact value.

    python benchmarks/trajectory_coverage.py [--audits 200] [--num-samples 20000] [--beta 0.05 0.5]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import dpaudit
from dpaudit.engine.bounds import cp_upper

SIGMA, Q, STEPS = 1.0, 0.1, 20


def _train(ds: dpaudit.Dataset, runs: int, rng: np.random.Generator) -> Any:
    x = float(np.clip(ds.X[:, 0], 0.0, 1.0).sum()) if ds.n else 0.0
    return (rng.random((runs, STEPS)) < Q) * x + rng.normal(0.0, SIGMA, (runs, STEPS))


def mechanism() -> dpaudit.CallableMechanism:
    pair = dpaudit.NeighborPair(
        dataset=dpaudit.Dataset(X=np.ones((1, 1))),
        neighbor=dpaudit.Dataset(X=np.zeros((0, 1))),
        relation=dpaudit.Relation.ADD_REMOVE_ONE,
        description="x = 1 vs none",
    )
    return dpaudit.from_callable(
        batch_fn=_train,
        name="subsampled_gaussian_steps",
        claim=dpaudit.accountant_claim(
            noise_multiplier=SIGMA, sample_rate=Q, steps=STEPS, relation=dpaudit.Relation.ADD_REMOVE_ONE
        ),
        domain=dpaudit.Domain(num_features=1, feature_low=0.0, feature_high=1.0),
        pairs=[pair],
    )


def coverage(*, audits: int, num_samples: int, beta: float) -> dict[str, float]:
    mech = mechanism()
    above = learned = state = 0
    ratios = []
    started = time.perf_counter()
    for seed in range(audits):
        r = dpaudit.audit(
            mech, pairs="registered", num_samples=num_samples, seed=seed, failure_probability=beta
        )
        points = [pt for p in r.pairs for pt in p.profile if pt.claimed is not None]
        above += any(pt.value > pt.claimed for pt in points)
        at = [pt for pt in points if pt.parameter == 1e-2]
        learned += any(pt.estimate.distinguisher == "trajectory-llr" for pt in at)
        state += any(pt.estimate.event.startswith("state-trajectory-llr") for pt in at)
        ratios += [max(pt.value, 0.0) / pt.claimed for pt in at]
    return {
        "above": above,
        "learned": learned,
        "state": state,
        "ratio": float(np.mean(ratios)) if ratios else float("nan"),
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--audits", type=int, default=200)
    ap.add_argument("--num-samples", type=int, default=20_000)
    ap.add_argument("--beta", type=float, nargs="*", default=[0.05, 0.5])
    args = ap.parse_args()
    head = f"{'beta':>5s} {'audits':>6s} {'above':>5s} {'CP95 upper':>10s} {'learned':>7s} {'state':>5s}"
    print(f"{head} {'eps(1e-2)/exact':>15s} {'s':>6s}")
    for beta in args.beta:
        c = coverage(audits=args.audits, num_samples=args.num_samples, beta=beta)
        upper = float(cp_upper(int(c["above"]), args.audits, 0.05))
        print(
            f"{beta:5g} {args.audits:6d} {int(c['above']):5d} {upper:10.4f} {int(c['learned']):7d} "
            f"{int(c['state']):5d} {c['ratio']:15.3f} {c['seconds']:6.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
