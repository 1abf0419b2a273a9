"""An expensive audit (a library model fitted once per sample) on a Dask LocalCluster of N workers,
against `--jobs 1` and `--jobs N` (issue 44, item 4).

    python benchmarks/dask_expensive.py [--mechanism NAME] [--num-samples N] [--workers W]
    python benchmarks/dask_expensive.py --sleep 0.05 [--num-samples N] [--workers W]

Runs `dpaudit run NAME --num-samples N --seed 0 --json` (the default route: the search's pilot, then
the certified audit) in this process three times: with `--jobs 1`, with `--jobs W` (joblib's loky
workers) and with `--backend dask --scheduler ADDRESS` on `distributed.LocalCluster(n_workers=W,
threads_per_worker=1, processes=True)`. Prints the wall seconds of each, the speed-up over
`--jobs 1`, the chunk size the runner chose from the measured cost of one fit (it may differ between
runs: the cost is measured each time), the tasks the cluster ran, and whether the three result JSONs
are identical apart from time fields and the chunk size ("identical results: yes"; exit 1 if not).
The mechanism draws every sample from its own seed stream (`per_sample_streams`), so they must be.

Before the timed runs each parallel kind runs once at 200 samples per side, not counted (loky starts
its workers, the Dask workers import dpaudit and the library).

An audit that ends without a result (exit 2, e.g. `--num-samples` below the minimum) ends the
script with that audit's one-line error and exit 2.

`--sleep S` audits `SLEEPY` instead (this module): a Laplace sum that sleeps S seconds per release
(a stand-in for a fit that holds no CPU), on its registered pair (`--pairs registered`). Its
speed-up shows the scheduling alone, which a machine shared with others cannot disturb much; the
library model's shows what a real fit gets on the machine as loaded (the load average is printed).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit import Dataset, Domain, NeighborPair, PrivacyClaim, Relation, from_callable

try:  # one runner and one scheduler plugin for both Dask benchmarks
    from dask_vs_jobs import AuditFailed, task_counter
    from dask_vs_jobs import cli_run as run
except ImportError:  # imported as benchmarks.dask_expensive (the tests)
    from benchmarks.dask_vs_jobs import AuditFailed, task_counter
    from benchmarks.dask_vs_jobs import cli_run as run

__all__ = ["SLEEPY", "AuditFailed", "comparable", "main", "run", "sleepy"]

VOLATILE = {"chunk_size", "seconds", "elapsed", "wall_seconds", "duration"}


@dataclass(frozen=True)
class SleepySum:
    """One release: sleep `seconds` (the fit), then the sum plus Laplace(1) noise (1-DP)."""

    seconds: float

    def __call__(self, dataset: Dataset, rng: np.random.Generator) -> float:
        time.sleep(self.seconds)
        return float(dataset.X.sum() + rng.laplace(0.0, 1.0))


def sleepy(seconds: float) -> Any:
    """`SleepySum` as a mechanism with per-sample streams and one registered pair."""
    pair = NeighborPair(
        dataset=Dataset(np.zeros((3, 1))),
        neighbor=Dataset(np.array([[0.0], [0.0], [1.0]])),
        relation=Relation.REPLACE_ONE,
        description="replace one record: 0 → 1",
    )
    reference = "Laplace mechanism, sensitivity 1"
    claim = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference=reference)
    return from_callable(
        SleepySum(seconds),
        name="sleepy_sum",
        claim=claim,
        domain=Domain(num_features=1),
        pairs=(pair,),
        per_sample_streams=True,
    )


SLEEPY = sleepy(float(os.environ.get("DPAUDIT_BENCH_SLEEP", "0.05")))


def comparable(value: Any) -> Any:
    """A result without what measures time (or the chunk size, sized by a measured cost)."""
    if isinstance(value, dict):
        kept = (k for k in value if k not in VOLATILE and not k.endswith("_seconds"))
        return {k: comparable(value[k]) for k in kept}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


def main(argv: list[str] | None = None) -> int:
    """Exit 0 when the three results are identical, 1 when not, 2 (one line) when an audit ends
    without a result."""
    try:
        return compare(argv)
    except AuditFailed as failed:
        print(f"dask_expensive: error: {failed}", file=sys.stderr)
        return 2


def compare(argv: list[str] | None) -> int:
    """Time the three kinds of runs and print them (`main`)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mechanism", default="diffprivlib_model_linear_regression")
    ap.add_argument("--num-samples", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--sleep", type=float, default=None, help="audit SLEEPY, S seconds per release")
    args = ap.parse_args(argv)
    from dask import distributed

    if args.sleep is not None:  # the CLI imports this module as dask_expensive; so do the workers
        os.environ["DPAUDIT_BENCH_SLEEP"] = repr(args.sleep)
        base = ["run", "dask_expensive:SLEEPY", "--pairs", "registered", "--seed", "0", "--json"]
    else:
        base = ["run", args.mechanism, "--seed", "0", "--json"]
    timed = [*base, "--num-samples", str(args.num_samples)]
    w = str(args.workers)

    with distributed.LocalCluster(
        n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        on_dask = ["--backend", "dask", "--scheduler", cluster.scheduler_address, "--jobs", w]
        kinds = {"--jobs 1": ["--jobs", "1"], f"--jobs {w} (loky)": ["--jobs", w]}
        kinds[f"Dask, {w} workers"] = on_dask
        for extra in list(kinds.values())[1:]:  # warm-up, not counted
            run([*base, "--num-samples", "200", *extra])
        counter = task_counter()
        cluster.scheduler.add_plugin(counter)
        rows = []
        for label, extra in kinds.items():
            before = counter.finished
            code, result, seconds = run([*timed, *extra])
            rows.append((label, code, result, seconds, counter.finished - before))
    one = rows[0][3]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"audit: dpaudit {' '.join(timed)}")
    print(f"  one timed run each; {os.cpu_count()} cores, load average {load:.1f} (a shared machine)")
    for label, code, result, seconds, tasks in rows:
        extra = result.get("extra", {})
        ran = f", {tasks} cluster tasks" if label.startswith("Dask") else ""
        print(
            f"  {label:<20} {seconds:7.1f} s   speed-up {one / seconds:4.2f}×   exit {code}, "
            f"chunk {extra.get('chunk_size')}{ran}"
        )
    first = comparable(rows[0][2])
    same = all(comparable(r[2]) == first and r[1] == rows[0][1] for r in rows[1:])
    eps = rows[0][2]["epsilon_lower_bound"]
    print(f"certified ε ≥ {eps:.4g}; identical results: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
