"""Peak memory and CPU time of each main-job audit, each in a fresh process.

    python benchmarks/memory_per_audit.py [--only NAME ...] [--seed 0]

Every audit of `dpaudit run --all` (default budget, default route, `--jobs 1`) runs in its own
child process; the table gives the child's peak RSS (`ru_maxrss`), its CPU seconds and the
certified ε, sorted by peak RSS. The main job's peak memory is the largest row (plus the parent,
which holds only results): this finds the audit that sets it.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time


def _one(name: str, seed: int) -> tuple[str, float, float, float, float]:
    from dpaudit.api import audit

    start = time.process_time()
    wall = time.perf_counter()
    result = audit(name, seed=seed)
    cpu = time.process_time() - start
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return name, peak_mib, cpu, time.perf_counter() - wall, result.epsilon_lower_bound


def main() -> None:
    from dpaudit.mechanisms.libraries import FAMILY as LIBRARIES
    from dpaudit.mechanisms.registry import entries

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    names = [e.name for e in entries().values() if not e.buggy and e.family != LIBRARIES]
    names = [n for n in names if args.only is None or n in args.only]
    ctx = mp.get_context("spawn")
    rows = []
    for name in names:
        with ctx.Pool(1, maxtasksperchild=1) as pool:
            rows.append(pool.apply(_one, (name, args.seed)))
        print(f"{rows[-1][0]:40s} {rows[-1][1]:7.0f} MiB {rows[-1][2]:6.1f} s cpu", flush=True)
    print(f"\n{'audit':40s} {'peak MiB':>9s} {'CPU s':>7s} {'wall s':>7s} {'ε cert':>8s}")
    for name, mib, cpu, wall, eps in sorted(rows, key=lambda r: -r[1]):
        print(f"{name:40s} {mib:9.0f} {cpu:7.1f} {wall:7.1f} {eps:8.3f}")
    print(f"{'total':40s} {'':9s} {sum(r[2] for r in rows):7.1f} {sum(r[3] for r in rows):7.1f}")


if __name__ == "__main__":
    main()
