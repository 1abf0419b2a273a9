"""Sampling throughput per core of every registered mechanism at its preset (issue 28, item 7).

For each registered mechanism (correct ones; buggy twins with `--twins`) it builds the
registered preset, takes its first registered pair (or, without one, the first pair the audit
would generate from its domain) and times `sample` on both sides of that pair the way the audit
calls it: chunks of the audit's automatic chunk size, split into the mechanism's `max_block`,
one generator per chunk (a sampler too slow to fill two chunks within `--seconds` is called with
smaller powers of two, ≥ 1024: the `call` field of `--json`). A small warm-up call per side is
not timed (one-time caches, imports). Threads of the BLAS / OpenMP pools are pinned to one
before numpy loads, and the time is the process's CPU time (`time.process_time`), so the figure
is per core and holds on a machine shared with other jobs (wall-clock time there measures the
neighbours too).

    PYTHONPATH=. python3 benchmarks/throughput.py [--twins] [--only NAME ...] [--family 002,003]
        [--seconds 1.0] [--json]
    python3 benchmarks/throughput.py --compare BEFORE.json AFTER.json   # the Markdown table

Run it against another checkout (e.g. the old main) with `PYTHONPATH=/path/to/checkout`; the
script imports only public registry and sampling helpers that exist on both.

Columns: `samples/s` (outputs per CPU second, both sides together), `us/sample` (its inverse in
microseconds), `width` (values per output), `chunk` (the audit's samples per chunk), `flag`
("<1e5" below 10⁵ samples/s).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from dpaudit.mechanisms.base import block_sizes  # noqa: E402
from dpaudit.mechanisms.registry import RegistryEntry, entries  # noqa: E402

TARGET = 100_000
MAX_CHUNK = 1 << 16
MIN_CHUNK = 1 << 10
CHUNK_BYTES = 64 << 20


def chunk_for(width: int) -> int:
    """The audit's automatic chunk size for outputs of `width` values (power of two, ≤ 64 MiB)."""
    size = MAX_CHUNK
    while size > MIN_CHUNK and size * max(1, width) * 8 > CHUNK_BYTES:
        size //= 2
    return size


def first_pair(mech: Any) -> Any:
    pairs = list(getattr(mech, "neighbor_pairs", lambda: ())())
    if pairs:
        return pairs[0]
    from dpaudit.neighbors.generators import WorstCasePairs

    return next(iter(WorstCasePairs().pairs(mech.domain, mech.claim.relation)))


def draw(mech: Any, dataset: Any, size: int, rng: np.random.Generator) -> Any:
    out = None
    for m in block_sizes(mech, size):
        out = mech.sample(dataset, m, rng=rng)
    return out


def measure(entry: RegistryEntry, seconds: float, seed: int) -> dict[str, Any]:
    mech = entry.build()
    pair = first_pair(mech)
    sides = (pair.dataset, pair.neighbor)
    rng = np.random.default_rng(seed)
    probe = np.asarray(mech.sample(sides[0], 2, rng=rng))
    width = int(np.prod(probe.shape[1:], dtype=np.int64)) if probe.ndim > 1 else 1
    chunk = chunk_for(width)
    # warm-up (small, so a slow sampler does not spend its whole budget here); it also sets the
    # call size of a sampler too slow for whole chunks within the budget (a power of two ≥ 1024)
    warm = max(1, min(chunk, 256))
    t0 = time.process_time()
    for side in sides:
        draw(mech, side, warm, rng)
    guess = 2 * warm / max(time.process_time() - t0, 1e-9)
    size = chunk
    while size > 1024 and size > guess * seconds / 2:
        size //= 2
    done = calls = 0
    elapsed = 0.0
    while elapsed < seconds or calls < 2:  # whole calls, both sides at least once
        side = sides[calls % 2]
        t0 = time.process_time()
        draw(mech, side, size, np.random.default_rng([seed, calls]))
        elapsed += time.process_time() - t0
        done += size
        calls += 1
    rate = done / elapsed
    return {
        "name": entry.name,
        "family": entry.family,
        "buggy": entry.buggy,
        "samples_per_second": rate,
        "us_per_sample": 1e6 / rate,
        "width": width,
        "chunk": chunk,
        "call": size,
        "max_block": getattr(mech, "max_block", None),
        "samples": done,
        "calls": calls,
        "seconds": elapsed,
        "default_num_samples": entry.default_num_samples,
    }


def compare_table(before: str, after: str) -> str:
    """Markdown rows: mechanism, samples/s before and after, speed-up, µs/sample after."""
    with open(before, encoding="utf-8") as fb, open(after, encoding="utf-8") as fa:
        old = {r["name"]: r for r in json.load(fb)}
        new = {r["name"]: r for r in json.load(fa)}
    lines = [
        "| mechanism | family | before (samples/s) | after (samples/s) | after / before | µs/sample after |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, r in new.items():
        o = old.get(name)
        b = f"{o['samples_per_second']:,.0f}" if o else "-"
        ratio = f"{r['samples_per_second'] / o['samples_per_second']:.2f}" if o else "-"
        mark = " **<10⁵**" if r["samples_per_second"] < TARGET else ""
        lines.append(
            f"| {name} | {r['family']} | {b} | {r['samples_per_second']:,.0f}{mark} | {ratio} | "
            f"{r['us_per_sample']:.2f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None, help="only these registered names")
    ap.add_argument("--family", default=None, help="family labels, e.g. 002,003 (comma list)")
    ap.add_argument("--twins", action="store_true", help="include the buggy twins")
    ap.add_argument("--seconds", type=float, default=1.0, help="timed sampling per mechanism")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument(
        "--compare",
        nargs=2,
        metavar=("BEFORE.json", "AFTER.json"),
        help="print the Markdown before/after table of two --json outputs (no measuring)",
    )
    args = ap.parse_args(argv)
    if args.compare:
        print(compare_table(*args.compare))
        return 0
    wanted = None if args.family is None else {f.strip() for f in args.family.split(",")}
    chosen = [
        e
        for e in entries().values()
        if (args.only is None or e.name in args.only)
        and (args.twins or not e.buggy or args.only is not None)
        and (wanted is None or wanted & set(e.family.split(",")))
    ]
    rows = []
    if not args.json:
        head = f"{'mechanism':44s} {'family':>8s} {'samples/s':>12s} {'us/sample':>10s}"
        print(f"{head} {'width':>6s} {'chunk':>6s}  flag")
    for e in chosen:
        try:
            row = measure(e, args.seconds, args.seed)
        except Exception as exc:  # a library adapter without its library, etc.
            print(f"{e.name:44s} error: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            continue
        rows.append(row)
        if not args.json:
            flag = "<1e5" if row["samples_per_second"] < TARGET else ""
            rate, us, w, c = row["samples_per_second"], row["us_per_sample"], row["width"], row["chunk"]
            print(f"{e.name:44s} {e.family:>8s} {rate:12,.0f} {us:10.2f} {w:6d} {c:6d}  {flag}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
