"""Registered pairs vs the worst-case search, on the same total budget (issue 6).

For every registered mechanism that is not a buggy twin: the certified bound of `run_audit`
on its hand-registered pairs (N samples per side per pair, R pairs: T = N·R per side), and
the certified bound of `search_and_certify` with the same total T (its default budget),
blind (not told the registered pairs) and with the registered pairs in its pilot pool. The
true ε of the pairs each route certified (white-box oracle, where the mechanism has one;
for information only, the search never calls it) and each route's seconds are shown.

N is the entry's `default_num_samples` unless the estimated time of one route exceeds
`--max-seconds`, in which case N is reduced (equally for every route) to fit; `--num-samples`
caps N for every entry. "ratio" is search / registered (certified bounds).

    python benchmarks/search.py [--num-samples N] [--seed 0] [--family reference]
                                [--only NAME ...] [--max-seconds 300]
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

MIN_N = 20_000


def _truth(mech: Any, pairs: Any) -> float:
    oracle = getattr(mech, "exact_epsilon", None)
    if oracle is None:
        return math.nan
    try:
        return max(float(oracle(p)) for p in pairs)
    except Exception:
        return math.nan


def _fmt(x: float) -> str:
    return f"{x:7.3f}" if math.isfinite(x) else f"{x:>7}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-samples", type=int, default=None, help="cap on N (per side per registered pair)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--family", default=None, help="only this family (default: all)")
    ap.add_argument("--only", nargs="*", default=None, help="only these mechanisms")
    ap.add_argument("--max-seconds", type=float, default=300.0, help="per route: reduce N to fit")
    ap.add_argument("--no-registered-pool", action="store_true", help="skip the search with registered pairs")
    args = ap.parse_args()

    print(
        f"{'mechanism':32s} {'claim':>6s} {'R':>2s} {'N':>9s} | "
        f"{'registered':>10s} {'(true)':>7s} {'s':>6s} | "
        f"{'search':>7s} {'(true)':>7s} {'s':>6s} {'ratio':>6s} | {'+reg':>7s} {'(true)':>7s} {'s':>6s}",
        flush=True,
    )
    skipped = []
    for e in entries().values():
        if e.buggy or (args.family and e.family != args.family) or (args.only and e.name not in args.only):
            continue
        try:
            mech = e.build()
            registered = tuple(getattr(mech, "neighbor_pairs", lambda: ())())
            if not registered:
                skipped.append(f"{e.name}: no registered pairs")
                continue
            n = (
                e.default_num_samples
                if args.num_samples is None
                else min(args.num_samples, e.default_num_samples)
            )
            t = time.perf_counter()
            mech.sample(registered[0].dataset, 2000, rng=np.random.default_rng(0))
            per_sample = (time.perf_counter() - t) / 2000
            route = per_sample * 2 * n * len(registered)
            if route > args.max_seconds:
                n = max(MIN_N, int(n * args.max_seconds / route))
            cfg = AuditConfig(num_samples=n, seed=args.seed)
            t = time.perf_counter()
            reg = run_audit(mech, registered, cfg)
            t_reg = time.perf_counter() - t
            t = time.perf_counter()
            blind = search_and_certify(mech, cfg)
            t_blind = time.perf_counter() - t
            if args.no_registered_pool:
                both, t_both = None, math.nan
            else:
                t = time.perf_counter()
                both = search_and_certify(mech, cfg, registered=registered)
                t_both = time.perf_counter() - t
        except Exception as exc:  # a family under construction must not stop the benchmark
            skipped.append(f"{e.name}: {type(exc).__name__}: {exc}")
            continue
        r_eps, b_eps = reg.epsilon_lower_bound, blind.certified.epsilon_lower_bound
        ratio = b_eps / r_eps if r_eps > 0 else math.nan
        both_txt = f"{'-':>7s} {'-':>7s} {'-':>6s}"
        if both is not None:
            b2 = both.certified.epsilon_lower_bound
            both_txt = f"{b2:7.4f} {_fmt(_truth(mech, both.certified_pairs))} {t_both:6.1f}"
        print(
            f"{e.name:32s} {mech.claim.epsilon:6.3g} {len(registered):2d} {n:9,d} | "
            f"{r_eps:10.4f} {_fmt(_truth(mech, registered))} {t_reg:6.1f} | "
            f"{b_eps:7.4f} {_fmt(_truth(mech, blind.certified_pairs))} {t_blind:6.1f} {ratio:6.3f} | "
            f"{both_txt}",
            flush=True,
        )
    if skipped:
        print("\nskipped:")
        for s in skipped:
            print(f"  {s}")


if __name__ == "__main__":
    main()
