"""Registered pairs vs the worst-case search, on the same total budget (issue 6).

For every registered mechanism that is not a buggy twin: the certified bound of `run_audit`
on its hand-registered pairs (N samples per side per pair, R pairs: T = N·R per side), and
the certified bound of `search_and_certify` with the same total T (its default budget),
blind (not told the registered pairs) and with the registered pairs in its pilot pool. The
true ε of the pairs each route certified (white-box oracle, where the mechanism has one;
for information only, the search never calls it) and each route's seconds are shown.

N is the entry's `default_num_samples` unless the estimated time of one route exceeds
`--max-seconds`, in which case N is reduced (equally for every route, not below `--min-n`) to fit;
the per-sample time is measured after a warm-up call; `--num-samples`
caps N for every entry. "ratio" is search / registered (certified bounds).

With `--seeds K` every route runs at seeds S..S+K−1 and a summary per mechanism prints the
mean certified bound of each route, the sample standard deviation of the registered route
over seeds (the noise the comparison is judged against), the smallest per-seed ratio
pooled / registered and the mean seconds per route.

    python benchmarks/search.py [--num-samples N] [--seed 0] [--seeds 1] [--family reference]
                                [--only NAME ...] [--max-seconds 300] [--min-n 20000] [--no-blind]
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np

from dpaudit.engine.runner import run_audit
from dpaudit.engine.search import search_and_certify
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.registry import entries

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


def _route(fn: Any) -> tuple[float, float, Any]:
    t = time.perf_counter()
    out = fn()
    return (
        time.perf_counter() - t,
        out.epsilon_lower_bound
        if hasattr(out, "epsilon_lower_bound")
        else (out.certified.epsilon_lower_bound),
        out,
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-samples", type=int, default=None, help="cap on N (per side per registered pair)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seeds", type=int, default=1, help="run seeds SEED..SEED+K-1 and summarise")
    ap.add_argument("--family", default=None, help="only this family (default: all)")
    ap.add_argument("--only", nargs="*", default=None, help="only these mechanisms")
    ap.add_argument("--max-seconds", type=float, default=300.0, help="per route: reduce N to fit")
    ap.add_argument("--no-registered-pool", action="store_true", help="skip the search with registered pairs")
    ap.add_argument("--no-blind", action="store_true", help="skip the blind search")
    ap.add_argument("--min-n", type=int, default=MIN_N, help="floor of N when --max-seconds reduces it")
    args = ap.parse_args()

    print(
        f"{'mechanism':32s} {'seed':>4s} {'R':>2s} {'N':>9s} | "
        f"{'registered':>10s} {'(true)':>7s} {'s':>6s} | "
        f"{'blind':>7s} {'(true)':>7s} {'s':>6s} | {'pooled':>7s} {'(true)':>7s} {'s':>6s} {'ratio':>6s}",
        flush=True,
    )
    skipped = []
    summary: list[str] = []
    for e in entries().values():
        if e.buggy or (args.family and e.family != args.family) or (args.only and e.name not in args.only):
            continue
        rows: list[tuple[float, float, float, float, float, float]] = []
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
            mech.sample(registered[0].dataset, 200, rng=np.random.default_rng(0))  # warm-up (caches)
            t = time.perf_counter()
            mech.sample(registered[0].dataset, 2000, rng=np.random.default_rng(0))
            per_sample = (time.perf_counter() - t) / 2000
            route = per_sample * 2 * n * len(registered)
            if route > args.max_seconds:
                n = max(args.min_n, int(n * args.max_seconds / route))
            for seed in range(args.seed, args.seed + args.seeds):
                cfg = AuditConfig(num_samples=n, seed=seed)
                t_reg, r_eps, _ = _route(lambda: run_audit(mech, registered, cfg))  # noqa: B023
                t_blind, b_eps, blind = (
                    (math.nan, math.nan, None)
                    if args.no_blind
                    else _route(lambda: search_and_certify(mech, cfg))  # noqa: B023
                )
                t_both, p_eps, both = (
                    (math.nan, math.nan, None)
                    if args.no_registered_pool
                    else _route(lambda: search_and_certify(mech, cfg, registered=registered))  # noqa: B023
                )
                ratio = p_eps / r_eps if r_eps > 0 else math.nan
                rows.append((r_eps, b_eps, p_eps, t_reg, t_blind, t_both))
                b_true = _truth(mech, blind.certified_pairs) if blind is not None else math.nan
                p_true = _truth(mech, both.certified_pairs) if both is not None else math.nan
                print(
                    f"{e.name:32s} {seed:4d} {len(registered):2d} {n:9,d} | "
                    f"{r_eps:10.4f} {_fmt(_truth(mech, registered))} {t_reg:6.1f} | "
                    f"{_fmt(b_eps)} {_fmt(b_true)} {t_blind:6.1f} | "
                    f"{_fmt(p_eps)} {_fmt(p_true)} {t_both:6.1f} {ratio:6.3f}",
                    flush=True,
                )
        except Exception as exc:  # a family under construction must not stop the benchmark
            skipped.append(f"{e.name}: {type(exc).__name__}: {exc}")
        if rows:
            a = np.asarray(rows, dtype=float)
            sd = float(np.std(a[:, 0], ddof=1)) if len(rows) > 1 else math.nan
            ratios = [p / r for r, _, p, *_ in rows if r > 0]
            summary.append(
                f"{e.name:32s} {len(rows):5d} | {a[:, 0].mean():10.4f} {sd:7.4f} | "
                f"{_fmt(a[:, 2].mean())} {_fmt(a[:, 1].mean())} | "
                f"{_fmt(min(ratios, default=math.nan))} {_fmt(a[:, 2].mean() - a[:, 0].mean())} | "
                f"{a[:, 3].mean():6.1f} {a[:, 5].mean():6.1f} {a[:, 4].mean():6.1f}"
            )
    if summary:
        print(
            f"\n{'mechanism':32s} {'seeds':>5s} | {'registered':>10s} {'sd':>7s} | {'pooled':>7s} "
            f"{'blind':>7s} | {'minrat':>7s} {'p-r':>7s} | {'s reg':>6s} {'s pool':>6s} {'s blnd':>6s}"
        )
        for line in summary:
            print(line)
    if skipped:
        print("\nskipped:")
        for s in skipped:
            print(f"  {s}")


if __name__ == "__main__":
    main()
