"""Registered pairs vs the worst-case search, on the same total budget (issue 6).

For every registered mechanism that is not a buggy twin: the certified bound of
`run_audit` on its hand-registered pairs (N samples per side per pair, R pairs: N·R per side)
and the certified bound of `search_and_certify` on the same total (num_samples = ⌊N·R / k⌋,
k = top_k), blind (not told the registered pairs) and with them in its pilot pool. The true ε
of the pairs each certified (white-box oracle, where the mechanism has one) is shown too.
Mechanisms whose estimated audit time exceeds --max-seconds are skipped (and listed).

    python benchmarks/search.py [--num-samples 200000] [--seed 0] [--family reference]
                                [--max-seconds 60]
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np

from audit.runner import run_audit
from audit.search import search_and_certify
from audit.types import AuditConfig
from mechanisms.registry import entries


def _truth(mech: Any, pairs: Any) -> float:
    oracle = getattr(mech, "exact_epsilon", None)
    if oracle is None:
        return math.nan
    try:
        return max(float(oracle(p)) for p in pairs)
    except Exception:
        return math.nan


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-samples", type=int, default=200_000, help="per side per registered pair (cap)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top-k", type=int, default=3)
    ap.add_argument("--family", default=None, help="only this family (default: all)")
    ap.add_argument("--max-seconds", type=float, default=60.0, help="skip mechanisms estimated slower")
    args = ap.parse_args()

    print(
        f"{'mechanism':34s} {'claim':>6s} {'R':>2s} {'total/side':>11s} | "
        f"{'registered':>10s} {'(true)':>7s} | {'search':>7s} {'(true)':>7s} | "
        f"{'+reg':>7s} {'(true)':>7s} | {'seconds':>7s}"
    )
    skipped = []
    for e in entries().values():
        if e.buggy or (args.family and e.family != args.family):
            continue
        try:
            mech = e.build()
            registered = tuple(getattr(mech, "neighbor_pairs", lambda: ())())
            if not registered:
                skipped.append(f"{e.name}: no registered pairs")
                continue
            n = min(args.num_samples, e.default_num_samples)
            t = time.perf_counter()
            mech.sample(registered[0].dataset, 2000, rng=np.random.default_rng(0))
            per_sample = (time.perf_counter() - t) / 2000
            total = n * len(registered)
            est = per_sample * 2 * total * 3.5  # registered + two searches, both sides
            if est > args.max_seconds:
                skipped.append(f"{e.name}: estimated {est:.0f} s > --max-seconds")
                continue
            t = time.perf_counter()
            reg = run_audit(mech, registered, AuditConfig(num_samples=n, seed=args.seed))
            cfg = AuditConfig(num_samples=max(total // args.top_k, 200), seed=args.seed)
            blind = search_and_certify(mech, cfg, top_k=args.top_k)
            both = search_and_certify(mech, cfg, top_k=args.top_k, registered=registered)
            secs = time.perf_counter() - t
        except Exception as exc:  # a family under construction must not stop the benchmark
            skipped.append(f"{e.name}: {type(exc).__name__}: {exc}")
            continue
        print(
            f"{e.name:34s} {mech.claim.epsilon:6.3g} {len(registered):2d} {total:11,d} | "
            f"{reg.epsilon_lower_bound:10.4f} {_truth(mech, registered):7.3f} | "
            f"{blind.certified.epsilon_lower_bound:7.4f} {_truth(mech, blind.certified_pairs):7.3f} | "
            f"{both.certified.epsilon_lower_bound:7.4f} {_truth(mech, both.certified_pairs):7.3f} | "
            f"{secs:7.1f}"
        )
    if skipped:
        print("\nskipped:")
        for s in skipped:
            print(f"  {s}")


if __name__ == "__main__":
    main()
