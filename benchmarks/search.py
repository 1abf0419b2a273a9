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

`--twins` adds the buggy twins (a `*` after a bound marks a flagged violation), `--epsilon E ...`
rebuilds every entry whose factory takes `epsilon` at each E (small-ε power: the sparse-vector
family `--family svt --twins --epsilon 0.1 0.5 1`), and "k" is the number of pairs the pooled
search certified (1 when the pilot does not separate a better pair from the registered champion).

With `--seeds K` every route runs at seeds S..S+K−1 and a summary per mechanism prints the
mean certified bound of each route, the sample standard deviation of the registered route
over seeds (the noise the comparison is judged against), the smallest per-seed ratio
pooled / registered and the mean seconds per route.

    python benchmarks/search.py [--num-samples N] [--seed 0] [--seeds 1] [--family reference]
                                [--only NAME ...] [--max-seconds 300] [--min-n 20000] [--no-blind]
                                [--twins] [--epsilon E ...]
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
from dpaudit.mechanisms.registry import entries, factory_parameters

MIN_N = 20_000
Row = tuple[float, float, float, float, float, float]
"""(registered, blind, pooled) certified bounds and seconds."""


def _truth(mech: Any, pairs: Any) -> float:
    oracle = getattr(mech, "exact_epsilon", None)
    if oracle is None:
        return math.nan
    try:
        return max(float(oracle(p)) for p in pairs)
    except Exception:
        return math.nan


def _fmt(x: float, flagged: bool = False) -> str:
    mark = "*" if flagged else " "
    return f"{x:6.3f}{mark}" if math.isfinite(x) else f"{x:>6}{mark}"


def _flag(out: Any) -> bool:
    if out is None:
        return False
    result = getattr(out, "certified", out)
    return bool(result.violation)


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


def _parse() -> argparse.Namespace:
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
    ap.add_argument("--twins", action="store_true", help="include the buggy twins")
    ap.add_argument("--epsilon", type=float, nargs="*", default=None, help="rebuild entries at these ε")
    return ap.parse_args()


def _budget(mech: Any, entry: Any, registered: Any, args: argparse.Namespace) -> int:
    """N: the entry's default (capped by --num-samples), reduced to fit --max-seconds per route."""
    n = (
        entry.default_num_samples
        if args.num_samples is None
        else min(args.num_samples, entry.default_num_samples)
    )
    mech.sample(registered[0].dataset, 200, rng=np.random.default_rng(0))  # warm-up (caches)
    t = time.perf_counter()
    mech.sample(registered[0].dataset, 2000, rng=np.random.default_rng(0))
    route = (time.perf_counter() - t) / 2000 * 2 * n * len(registered)
    if route > args.max_seconds:
        n = max(args.min_n, int(n * args.max_seconds / route))
    return int(n)


def _seed_row(mech: Any, registered: Any, n: int, seed: int, args: argparse.Namespace) -> tuple[str, Row]:
    """One seed of the three routes: the printed line and the row for the summary."""
    cfg = AuditConfig(num_samples=n, seed=seed)
    t_reg, r_eps, reg = _route(lambda: run_audit(mech, registered, cfg))
    t_blind, b_eps, blind = (
        (math.nan, math.nan, None) if args.no_blind else _route(lambda: search_and_certify(mech, cfg))
    )
    t_both, p_eps, both = (
        (math.nan, math.nan, None)
        if args.no_registered_pool
        else _route(lambda: search_and_certify(mech, cfg, registered=registered))
    )
    ratio = p_eps / r_eps if r_eps > 0 else math.nan
    b_true = _truth(mech, blind.certified_pairs) if blind is not None else math.nan
    p_true = _truth(mech, both.certified_pairs) if both is not None else math.nan
    k = len(both.certified_pairs) if both is not None else 0
    line = (
        f"{mech.name:32s} {mech.claim.epsilon:4g} {seed:4d} {len(registered):2d} {n:9,d} | "
        f"{_fmt(r_eps, _flag(reg)):>10s} {_fmt(_truth(mech, registered))} {t_reg:6.1f} | "
        f"{_fmt(b_eps, _flag(blind))} {_fmt(b_true)} {t_blind:6.1f} | "
        f"{_fmt(p_eps, _flag(both))} {_fmt(p_true)} {t_both:6.1f} {k:2d} {ratio:6.3f}"
    )
    return line, (r_eps, b_eps, p_eps, t_reg, t_blind, t_both)


def _summary(label: str, rows: list[Row]) -> str:
    a = np.asarray(rows, dtype=float)
    sd = float(np.std(a[:, 0], ddof=1)) if len(rows) > 1 else math.nan
    ratios = [p / r for r, _, p, *_ in rows if r > 0]
    return (
        f"{label:32s} {len(rows):5d} | {a[:, 0].mean():10.4f} {sd:7.4f} | "
        f"{_fmt(a[:, 2].mean())} {_fmt(a[:, 1].mean())} | "
        f"{_fmt(min(ratios, default=math.nan))} {_fmt(a[:, 2].mean() - a[:, 0].mean())} | "
        f"{a[:, 3].mean():6.1f} {a[:, 5].mean():6.1f} {a[:, 4].mean():6.1f}"
    )


def main() -> None:
    args = _parse()
    print(
        f"{'mechanism':32s} {'ε':>4s} {'seed':>4s} {'R':>2s} {'N':>9s} | "
        f"{'registered':>10s} {'(true)':>7s} {'s':>6s} | "
        f"{'blind':>7s} {'(true)':>7s} {'s':>6s} | "
        f"{'pooled':>7s} {'(true)':>7s} {'s':>6s} {'k':>2s} {'ratio':>6s}",
        flush=True,
    )
    skipped = []
    summary: list[str] = []
    runs = [
        (e, eps)
        for e in entries().values()
        if not (e.buggy and not args.twins)
        and not (args.family and e.family != args.family)
        and not (args.only and e.name not in args.only)
        for eps in (args.epsilon if args.epsilon and "epsilon" in factory_parameters(e.factory) else [None])
    ]
    for e, eps in runs:
        rows: list[Row] = []
        label = e.name if eps is None else f"{e.name}@{eps:g}"
        try:
            mech = e.build() if eps is None else e.build(epsilon=eps)
            registered = tuple(getattr(mech, "neighbor_pairs", lambda: ())())
            if not registered:
                skipped.append(f"{label}: no registered pairs")
                continue
            n = _budget(mech, e, registered, args)
            for seed in range(args.seed, args.seed + args.seeds):
                line, row = _seed_row(mech, registered, n, seed, args)
                print(line, flush=True)
                rows.append(row)
        except Exception as exc:  # a family under construction must not stop the benchmark
            skipped.append(f"{label}: {type(exc).__name__}: {exc}")
        if rows:
            summary.append(_summary(label, rows))
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
