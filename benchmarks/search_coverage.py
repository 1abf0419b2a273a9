"""Coverage of the default route (`dpaudit run`'s `--pairs all` search): certified bounds vs the truth.

`search_and_certify(mech, cfg, registered=mech.neighbor_pairs())` promises that, with
probability ≥ 1 − β, *every* certified pair's ε lower bound is ≤ that pair's true ε (the pilot
only chooses pairs and events on pilot-seed samples; the certification is fresh, Bonferroni over
the certified pairs). For mechanisms with a white-box `exact_epsilon(pair)` oracle (used here
only, never by the search) this runs S seeds and counts the runs in which some certified bound
exceeds its pair's true ε. Expected: at most about β·S such runs (the Clopper–Pearson 95% upper
bound on the exceedance rate is printed next to β); the margin column shows how close the
bounds come (max over runs of bound − truth, ≤ 0 when no run exceeds).

    python benchmarks/search_coverage.py [--seeds 40] [--num-samples 200000] [--beta 0.05]
                                         [--only NAME ...]
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

from dpaudit.engine.bounds import cp_upper
from dpaudit.engine.search import search_and_certify
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.registry import entries

# pure-DP learners and reference mechanisms whose oracle covers arbitrary generated pairs
DEFAULT = (
    "laplace_sum",
    "randomized_response",
    "exponential_mechanism",
    "report_noisy_max",
    "em_learner",
    "relabel_and_learn",
    "geo_select_halfplane",
    "geo_select_triangle",
)


def _run(mech: Any, cfg: AuditConfig) -> tuple[list[tuple[float, float]], float]:
    t = time.perf_counter()
    found = search_and_certify(mech, cfg, registered=tuple(mech.neighbor_pairs()))
    rows = []
    for pr, pair in zip(found.certified.pairs, found.certified_pairs, strict=True):
        try:
            truth = float(mech.exact_epsilon(pair))
        except Exception:  # the oracle does not cover this pair: not counted either way
            truth = math.nan
        rows.append((pr.estimate.epsilon_lower_bound, truth))
    return rows, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--num-samples", type=int, default=200_000, help="cap on the entry's default")
    ap.add_argument("--beta", type=float, default=0.05, help="failure probability of each audit")
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    names = args.only or DEFAULT
    print(
        f"{'mechanism':26s} {'N':>9s} {'runs':>5s} {'exceed':>6s} {'CP95 up':>8s} {'beta':>5s} "
        f"{'margin':>8s} {'bound/true':>10s} {'unknown':>7s} {'s/run':>6s}",
        flush=True,
    )
    for name in names:
        e = entries()[name]
        mech = e.build()
        n = min(args.num_samples, e.default_num_samples)
        exceed = unknown = 0
        margin = -math.inf
        ratios: list[float] = []
        seconds = 0.0
        for seed in range(args.seeds):
            rows, s = _run(mech, AuditConfig(num_samples=n, seed=seed, failure_probability=args.beta))
            seconds += s
            known = [(b, t) for b, t in rows if math.isfinite(t)]
            unknown += len(rows) - len(known)
            if any(b > t + 1e-12 for b, t in known):
                exceed += 1
            margin = max([margin, *(b - t for b, t in known)])
            ratios += [b / t for b, t in known if t > 0]
        mean_ratio = sum(ratios) / len(ratios) if ratios else math.nan
        upper = float(cp_upper(exceed, args.seeds, 0.05))
        print(
            f"{name:26s} {n:9,d} {args.seeds:5d} {exceed:6d} {upper:8.3f} "
            f"{args.beta:5.2f} {margin:8.4f} {mean_ratio:10.3f} {unknown:7d} {seconds / args.seeds:6.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
