"""Throughput and audit results of the DP-library adapters (OpenDP, diffprivlib, python-dp).

For every registered mechanism of the "DP libraries" family: samples per second on one core
through the adapter, then `dpaudit.audit` (what `dpaudit run NAME --num-samples N` does) at
N per side, printing the certified ε lower bound against the library's claim.

    python benchmarks/libraries.py                   # each mechanism's registered budget
    python benchmarks/libraries.py --num-samples 1000000 --only opendp_laplace diffprivlib_laplace
    python benchmarks/libraries.py --only pydp_laplace pydp_gaussian pydp_count pydp_sum pydp_mean
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpaudit import audit
from dpaudit.mechanisms.libraries import INSTALL_HINT
from dpaudit.mechanisms.registry import entries


def throughput(name: str, seconds: float = 1.0) -> float:
    """Samples per second of one `sample` call stream on the first registered pair's dataset."""
    mech = entries()[name].build()
    data = mech.neighbor_pairs()[0].dataset  # type: ignore[attr-defined]
    rng, n, done, start = np.random.default_rng(0), 200, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        mech.sample(data, n, rng=rng)
        done += n
        n = min(2 * n, 50_000)
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-samples", type=int, default=None, help="per side (default: registered budget)")
    parser.add_argument("--only", nargs="*", default=None, help="mechanism names")
    args = parser.parse_args()
    names = [n for n, e in entries().items() if e.family == "libraries" and (not args.only or n in args.only)]
    if not names:
        print(INSTALL_HINT)
        return
    print("| mechanism | samples/s (1 core) | N per side | claim ε (δ) | certified ε ≥ | verdict | seconds |")
    print("|---|---:|---:|---|---:|---|---:|")
    for name in names:
        rate = throughput(name)
        n = args.num_samples or entries()[name].default_num_samples
        start = time.perf_counter()
        r = audit(name, num_samples=n, seed=0)
        c = r.claim
        print(
            f"| {name} | {rate:,.0f} | {n:,} | {c.epsilon:.4g} ({c.delta:g}) | "
            f"{r.epsilon_lower_bound:.4g} | {r.verdict.value} | {time.perf_counter() - start:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
