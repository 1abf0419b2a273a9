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
                                         [--only NAME ...] [--blind] [--verdict-pair]
                                         [--pairs-search]

`--blind` audits each mechanism as the blind route does (its registered pairs and statistics
hidden, `blind_registered.Blind`: the
boundary templates stand in for them, and `verdict_pair`: a pair under the verdict claim's
relation is certified next to a winner under another); `--verdict-pair` keeps the registered pairs
and asks for that extra pair alone. Both count the runs where it was certified ("verdict+").
`--pairs-search` audits as `dpaudit run NAME --pairs search` does (no registered pairs in the
pool): at a small `--num-samples` that is the racing plan of issue 44.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

from blind_registered import Blind

from dpaudit.app.route import pairs_for
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


def _run(
    mech: Any, cfg: AuditConfig, *, blind: bool = False, verdict_pair: bool = False, search: bool = False
) -> tuple[list[tuple[float, float]], float, bool]:
    t = time.perf_counter()
    if search:  # as `--pairs search`: no registered pairs (below 20,000 per side: the racing plan)
        found = search_and_certify(mech, cfg, registered=())
    elif blind:  # as the blind route: the boundary templates stand in for the hidden pairs
        hidden = Blind(mech)
        found = search_and_certify(hidden, cfg, registered=tuple(pairs_for(hidden)), verdict_pair=True)
    else:
        found = search_and_certify(
            mech, cfg, registered=tuple(mech.neighbor_pairs()), verdict_pair=verdict_pair
        )
    relations = [p.relation for p in found.certified_pairs]
    extra = (
        len(relations) > 1
        and relations[-1] is mech.claim.relation
        and relations[0] is not mech.claim.relation
    )
    rows = []
    for pr, pair in zip(found.certified.pairs, found.certified_pairs, strict=True):
        try:
            truth = float(mech.exact_epsilon(pair))
        except Exception:  # the oracle does not cover this pair: not counted either way
            truth = math.nan
        rows.append((pr.estimate.epsilon_lower_bound, truth))
    return rows, time.perf_counter() - t, extra


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--num-samples", type=int, default=200_000, help="cap on the entry's default")
    ap.add_argument("--beta", type=float, default=0.05, help="failure probability of each audit")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--blind", action="store_true", help="hide the registered pairs (module docstring)")
    ap.add_argument("--verdict-pair", action="store_true", help="certify a verdict-relation pair too")
    ap.add_argument("--pairs-search", action="store_true", help="as --pairs search (racing at small budgets)")
    args = ap.parse_args()
    names = args.only or DEFAULT
    print(
        f"{'mechanism':26s} {'N':>9s} {'runs':>5s} {'exceed':>6s} {'CP95 up':>8s} {'beta':>5s} "
        f"{'margin':>8s} {'bound/true':>10s} {'unknown':>7s} {'verdict+':>8s} {'s/run':>6s}",
        flush=True,
    )
    for name in names:
        e = entries()[name]
        mech = e.build()
        n = min(args.num_samples, e.default_num_samples)
        exceed = unknown = extras = 0
        margin = -math.inf
        ratios: list[float] = []
        seconds = 0.0
        for seed in range(args.seeds):
            cfg = AuditConfig(num_samples=n, seed=seed, failure_probability=args.beta)
            rows, s, extra = _run(
                mech, cfg, blind=args.blind, verdict_pair=args.verdict_pair, search=args.pairs_search
            )
            seconds += s
            extras += extra
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
            f"{args.beta:5.2f} {margin:8.4f} {mean_ratio:10.3f} {unknown:7d} {extras:8d} "
            f"{seconds / args.seeds:6.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
