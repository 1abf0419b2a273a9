"""Peak memory of a large audit: run as `/usr/bin/time -v python benchmarks/memory.py`.

Certification streams chunks reduced to counts, so peak RSS must not grow with num_samples
(DESIGN.md: 10^8 samples per side in well under 1 GiB).
"""

from __future__ import annotations

import argparse
import time

from dpaudit.engine.runner import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.reference import LaplaceSum


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-samples", type=int, default=100_000_000)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    m = LaplaceSum()
    t = time.perf_counter()
    r = run_audit(
        m, m.neighbor_pairs()[:1], AuditConfig(num_samples=args.num_samples, seed=0, jobs=args.jobs)
    )
    print(
        f"{args.num_samples:,} samples/side, jobs={args.jobs}: certified ε = {r.epsilon_lower_bound:.5f}, "
        f"{time.perf_counter() - t:.1f} s"
    )


if __name__ == "__main__":
    main()
