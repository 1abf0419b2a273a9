"""Buggy twins under both routes: the registered pairs vs the default search (`--pairs all`).

For every registered buggy twin the spec calls detectable, at the entry's default budget
(capped by `--num-samples`), seed S: does `run_audit` on the registered pairs flag a violation,
and does `search_and_certify(..., registered=pairs)` (what `dpaudit run` does by default) on the
same total budget? Also prints both certified bounds, the twin's proved claim and each route's
seconds. A flag is a certificate (each holds with probability ≥ 1 − β), so a difference in flags
is a difference in power, never a false alarm.

    python benchmarks/search_twins.py [--num-samples N] [--seed 0] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import time

from dpaudit.engine.runner import run_audit
from dpaudit.engine.search import SearchBudgetError, search_and_certify
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.registry import entries


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-samples", type=int, default=None, help="cap on the entry's default")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    print(
        f"{'twin':48s} {'N':>9s} {'claim':>7s} | {'registered':>10s} {'flag':>4s} {'s':>6s} | "
        f"{'search':>8s} {'flag':>4s} {'s':>6s}",
        flush=True,
    )
    both = reg_only = search_only = neither = 0
    for e in entries().values():
        if not e.buggy or not e.detectable or (args.only and e.name not in args.only):
            continue
        mech = e.build()
        pairs = tuple(mech.neighbor_pairs()) if hasattr(mech, "neighbor_pairs") else ()
        if not pairs:
            continue
        n = min(args.num_samples or e.default_num_samples, e.default_num_samples)
        cfg = AuditConfig(num_samples=n, seed=args.seed)
        t = time.perf_counter()
        reg = run_audit(mech, pairs, cfg)
        t_reg = time.perf_counter() - t
        t = time.perf_counter()
        try:
            found = search_and_certify(mech, cfg, registered=pairs).certified
        except (SearchBudgetError, ValueError) as exc:  # as the CLI: falls back to registered
            print(f"{e.name:48s} search unavailable: {exc}")
            found = reg
        t_s = time.perf_counter() - t
        both += reg.violation and found.violation
        reg_only += reg.violation and not found.violation
        search_only += found.violation and not reg.violation
        neither += not (reg.violation or found.violation)
        print(
            f"{e.name:48s} {n:9,d} {mech.claim.epsilon:7.3f} | {reg.epsilon_lower_bound:10.4f} "
            f"{'Y' if reg.violation else '-':>4s} {t_reg:6.1f} | {found.epsilon_lower_bound:8.4f} "
            f"{'Y' if found.violation else '-':>4s} {t_s:6.1f}",
            flush=True,
        )
    print(
        f"\nflagged by both {both}, registered only {reg_only}, search only {search_only}, neither {neither}"
    )


if __name__ == "__main__":
    main()
