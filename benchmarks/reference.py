"""Tightness and speed of the audit on the reference mechanisms (issue 2).

Prints, for each reference mechanism and buggy twin: claim, true ε on its registered pairs
(white-box oracle), certified bound, bound / true, samples per side, seconds; then the raw
sampling throughput of each mechanism.

    python benchmarks/reference.py [--num-samples 1000000] [--seed 0] [--jobs 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpaudit.engine.runner import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.reference import LaplaceSum
from dpaudit.mechanisms.registry import entries


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-samples", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()

    print(
        f"{'mechanism':32s} {'claim ε':>8s} {'true ε':>8s} {'bound':>8s} {'bound/true':>10s} "
        f"{'verdict':>10s} {'samples':>10s} {'seconds':>8s}"
    )
    for e in entries().values():
        if e.family != "reference":
            continue
        m = e.build()
        pairs = m.neighbor_pairs()
        cfg = AuditConfig(num_samples=args.num_samples, seed=args.seed, jobs=args.jobs)
        t = time.perf_counter()
        r = run_audit(m, pairs, cfg)
        secs = time.perf_counter() - t
        truth = max(m.exact_epsilon(p) for p in pairs)
        ratio = r.epsilon_lower_bound / truth if np.isfinite(truth) else float("nan")
        print(
            f"{e.name:32s} {m.claim.epsilon:8.3f} {truth:8.3f} {r.epsilon_lower_bound:8.4f} {ratio:10.3f} "
            f"{'VIOLATION' if r.violation else 'ok':>10s} {args.num_samples:10,d} {secs:8.2f}"
        )

    print("\nLaplace tightness, one pair (replace one record), failure probability 0.05:")
    for eps in (1.0, 0.1):
        m = LaplaceSum(epsilon=eps)
        r = run_audit(m, m.neighbor_pairs()[:1], AuditConfig(num_samples=args.num_samples, seed=args.seed))
        print(
            f"  ε = {eps}: certified {r.epsilon_lower_bound:.4f} "
            f"(bound/true {r.epsilon_lower_bound / eps:.3f})"
        )

    print("\nSampling throughput (outputs per second, one core, 10^6 per call):")
    rng = np.random.default_rng(args.seed)
    for e in entries().values():
        if e.family != "reference" or e.buggy:
            continue
        m = e.build()
        ds = m.neighbor_pairs()[0].dataset
        m.sample(ds, 1000, rng=rng)
        t = time.perf_counter()
        m.sample(ds, 1_000_000, rng=rng)
        print(f"  {e.name:32s} {1_000_000 / (time.perf_counter() - t):14,.0f}")


if __name__ == "__main__":
    main()
