"""Coverage of the learned quadratic discriminant (issue 35): certified ε against the exact ε(δ).

Two correct mechanisms with an exact ε(δ), audited on one registered pair with no `statistics`, so
a likelihood-ratio event is only reachable through the learned distinguishers (the defaults plus
`QuadraticDistinguisher`, fitted on the selection split, certified on fresh samples):

- **scale**: a 3-D Gaussian whose σ shrinks by `RATIO` from n = 1 to n = 2 records (the sides differ
  only in scale, the quadratic discriminant's case); exact ε(δ) from the χ² law of ‖x‖²
  (`tests.blind_mechanisms.scale_epsilon`).
- **gaussian**: the Gaussian mechanism on a sum of records in [0, 1]³, σ = √3 (μ = Δ/σ = 1; a
  shift, where the quadratic gate should stay shut); exact ε(δ) by the analytic Gaussian formula
  (`mechanisms.analytic.gaussian_epsilon`, Balle & Wang 2018).

Each audit claims the exact ε at `DELTA`; a certified bound above it is a coverage failure. Prints
the failures, their Clopper–Pearson 95% upper bound next to β, how often the certified event was the
quadratic one, and the mean ratio of the certified ε to the exact one.

    python benchmarks/quadratic_coverage.py [--audits 200] [--num-samples 20000] [--beta 0.05]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import dpaudit
from dpaudit.engine.bounds import cp_upper
from dpaudit.engine.distinguishers import DEFAULT_DISTINGUISHERS, QuadraticDistinguisher
from dpaudit.engine.runner import run_audit
from dpaudit.mechanisms.analytic import gaussian_epsilon

DELTA, RATIO, DIM = 1e-2, 1.25, 3
ONE = np.full((1, DIM), 0.5)


def _scale(ds: dpaudit.Dataset, m: int, rng: np.random.Generator) -> Any:
    sd = 1.0 / RATIO ** (max(ds.n, 1) - 1)
    return ds.X.mean(axis=0) + rng.normal(0.0, sd, (m, DIM))


def _gaussian(ds: dpaudit.Dataset, m: int, rng: np.random.Generator) -> Any:
    return ds.X.sum(axis=0) + rng.normal(0.0, math.sqrt(DIM), (m, DIM))


def scenarios() -> dict[str, tuple[dpaudit.CallableMechanism, dpaudit.NeighborPair, float]]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's tests/
    from tests.blind_mechanisms import scale_epsilon

    out = {}
    for name, fn, exact, neighbor in (
        ("scale", _scale, scale_epsilon(DELTA, RATIO, DIM), np.vstack([ONE, ONE])),
        ("gaussian", _gaussian, gaussian_epsilon(DELTA, 1.0), np.zeros((0, DIM))),
    ):
        d0 = np.ones((1, DIM)) if name == "gaussian" else ONE
        pair = dpaudit.NeighborPair(
            dataset=dpaudit.Dataset(X=d0),
            neighbor=dpaudit.Dataset(X=neighbor),
            relation=dpaudit.Relation.ADD_REMOVE_ONE,
            description=name,
        )
        claim = dpaudit.PrivacyClaim(
            epsilon=exact, delta=DELTA, relation=dpaudit.Relation.ADD_REMOVE_ONE, reference="exact"
        )
        mech = dpaudit.from_callable(
            batch_fn=fn,
            name=f"{name}_exact",
            claim=claim,
            domain=dpaudit.Domain(num_features=DIM, feature_low=0.0, feature_high=1.0),
            pairs=[pair],
        )
        out[name] = (mech, pair, exact)
    return out


DISTINGUISHERS = (
    DEFAULT_DISTINGUISHERS
    if any(isinstance(d, QuadraticDistinguisher) for d in DEFAULT_DISTINGUISHERS)
    else (*DEFAULT_DISTINGUISHERS, QuadraticDistinguisher())
)


def coverage(name: str, *, audits: int, num_samples: int, beta: float) -> dict[str, float]:
    mech, pair, exact = scenarios()[name]
    above = learned = 0
    ratios = []
    started = time.perf_counter()
    for seed in range(audits):
        config = dpaudit.AuditConfig(num_samples=num_samples, seed=seed, failure_probability=beta)
        r = run_audit(mech, [pair], config, distinguishers=DISTINGUISHERS)
        above += r.epsilon_lower_bound > exact
        learned += r.pairs[0].estimate.distinguisher == "quadratic-llr"
        ratios.append(max(r.epsilon_lower_bound, 0.0) / exact)
    return {
        "exact": exact,
        "above": above,
        "learned": learned,
        "ratio": float(np.mean(ratios)),
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--audits", type=int, default=200)
    ap.add_argument("--num-samples", type=int, default=20_000)
    ap.add_argument("--beta", type=float, nargs="*", default=[0.05])
    ap.add_argument("--only", nargs="*", default=["scale", "gaussian"])
    args = ap.parse_args()
    head = f"{'scenario':8s} {'exact':>6s} {'beta':>5s} {'audits':>6s} {'above':>5s} {'CP95 upper':>10s}"
    print(f"{head} {'quadratic':>9s} {'eps/exact':>9s} {'s':>6s}")
    for name in args.only:
        for beta in args.beta:
            c = coverage(name, audits=args.audits, num_samples=args.num_samples, beta=beta)
            upper = float(cp_upper(int(c["above"]), args.audits, 0.05))
            print(
                f"{name:8s} {c['exact']:6.3f} {beta:5g} {args.audits:6d} {int(c['above']):5d} {upper:10.4f} "
                f"{int(c['learned']):9d} {c['ratio']:9.3f} {c['seconds']:6.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
