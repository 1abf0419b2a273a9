"""Benchmark of the 000/001 learners (issue 4): certified bound vs claims and exact oracle.

Prints, per registered mechanism: proved claim, nominal (stated) ε if any, certified lower
bound, exact oracle ε (max over the registered pairs, where an oracle exists), bound/oracle,
verdict, findings, samples per side, seconds, samples/second (both sides, all pairs).

Run: PYTHONPATH=. python3 benchmarks/agnostic.py [name,...] [--num-samples N]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import time

from dpaudit.engine.runner import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.agnostic import REGISTRY_ENTRIES
from dpaudit.mechanisms.base import ClaimKind


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="?", default="")
    ap.add_argument("--num-samples", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    wanted = set(args.names.split(",")) if args.names else None
    print(
        f"{'mechanism':38s} {'claim':>6s} {'nominal':>7s} {'bound':>7s} {'oracle':>7s} {'b/o':>5s} "
        f"{'verdict':19s} {'find':>4s} {'samples':>9s} {'sec':>6s} {'samp/s':>9s}"
    )
    for e in REGISTRY_ENTRIES:
        if wanted and e.name not in wanted:
            continue
        m = e.build()
        pairs = m.neighbor_pairs()  # type: ignore[attr-defined]
        n = args.num_samples or e.default_num_samples
        t = time.time()
        r = run_audit(m, pairs, AuditConfig(num_samples=n, seed=args.seed))
        sec = time.time() - t
        oracle = math.nan
        with contextlib.suppress(NotImplementedError, AttributeError):
            oracle = max(m.exact_epsilon(p) for p in pairs)  # type: ignore[attr-defined]
        nominal = next((c.epsilon for c in m.claims if c.kind is ClaimKind.STATED), math.nan)  # type: ignore[attr-defined]
        finite = math.isfinite(oracle) and oracle > 0
        ratio = r.epsilon_lower_bound / oracle if finite else math.nan
        rate = 2 * n * len(pairs) / sec
        tag = "" if not e.buggy else (" [twin]" if e.detectable else " [twin,undet]")
        print(
            f"{e.name + tag:38s} {m.claim.epsilon:6.3f} {nominal:7.3f} {r.epsilon_lower_bound:7.3f} "
            f"{oracle:7.3f} {ratio:5.2f} {r.verdict.value:19s} {len(r.findings):4d} {n:9d} {sec:6.1f} "
            f"{rate:9.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
