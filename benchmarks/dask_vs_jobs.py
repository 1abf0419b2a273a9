"""A Dask LocalCluster of 2 worker processes against `--jobs 2` on the same audit.

    python benchmarks/dask_vs_jobs.py [--mechanism NAME] [--num-samples N] [--repeats R]

Starts `distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True)` (what
`dask scheduler` + `dask worker ADDR --nworkers 2 --nthreads 1` give on one machine), then runs
`dpaudit run NAME --pairs registered --num-samples N --seed 0 --json` in this process, alternately
with `--jobs 2` (joblib's loky workers) and `--backend dask --scheduler ADDRESS`, R times each.
Prints the median wall time of each, the number of chunk tasks the scheduler ran per audit, the
overhead per chunk ((dask − jobs) / tasks), and whether the two result JSONs are identical apart
from `elapsed_seconds` (they must be: every chunk draws from its own seed stream).

The first run of each kind is a warm-up and is not counted (loky starts its workers, the Dask
workers import dpaudit and the mechanism).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import time
import warnings
from typing import Any


class AuditFailed(Exception):
    """An audit that ended without a result (exit 2, no JSON): its own one-line error."""


def cli_run(argv: list[str]) -> tuple[int, dict[str, Any], float]:
    """`dpaudit ARGV` (ending in `--json`) in this process: (exit code, result JSON, wall seconds),
    with its console output and warnings silenced; the Dask client it leaves behind is closed.
    An exit other than 0 or 1 raises `AuditFailed` with the audit's last stderr line.
    `dask_expensive.py` times its audits with it too."""
    from dask import distributed

    from dpaudit.app.cli import main

    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(argv)
    seconds = time.perf_counter() - start
    with contextlib.suppress(ValueError):  # the CLI leaves its client as the default: close it
        distributed.default_client().close()
    if code not in (0, 1):
        said = [ln.strip() for ln in err.getvalue().splitlines() if ln.strip()]
        raise AuditFailed(f"`dpaudit {' '.join(argv)}` exited {code}: {said[-1] if said else 'no message'}")
    return code, json.loads(out.getvalue()), seconds


def _timeless(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "elapsed_seconds"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mechanism", default="geo_conj_small")
    ap.add_argument("--num-samples", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    from dask import distributed

    base = ["run", args.mechanism, "--pairs", "registered", "--num-samples", str(args.num_samples)]
    base += ["--seed", "0", "--json"]
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        dask_argv = [*base, "--backend", "dask", "--scheduler", cluster.scheduler_address]
        counter = task_counter()
        cluster.scheduler.add_plugin(counter)
        runs: dict[str, list[float]] = {"jobs": [], "dask": []}
        results: dict[str, dict[str, Any]] = {}
        tasks: list[int] = []
        for i in range(args.repeats + 1):
            for kind, cmd in (("jobs", [*base, "--jobs", "2"]), ("dask", dask_argv)):
                before = counter.finished
                _, result, seconds = cli_run(cmd)
                if kind == "dask":
                    tasks.append(counter.finished - before)
                results[kind] = result
                if i:  # the first round warms the workers up
                    runs[kind].append(seconds)
        same = _timeless(results["jobs"]) == _timeless(results["dask"])
    jobs_s, dask_s = statistics.median(runs["jobs"]), statistics.median(runs["dask"])
    per_chunk = (dask_s - jobs_s) / max(tasks[-1], 1)
    print(f"audit: dpaudit {' '.join(base)}  ({args.repeats} timed runs each, median)")
    print(f"  --jobs 2 (loky)                 {jobs_s:8.2f} s   runs {_fmt(runs['jobs'])}")
    print(f"  --backend dask, 2 worker procs  {dask_s:8.2f} s   runs {_fmt(runs['dask'])}")
    print(f"  chunk tasks per audit           {tasks[-1]:8d}")
    print(f"  dask overhead per chunk         {per_chunk * 1000:8.1f} ms")
    print(f"  results identical (but elapsed_seconds): {same}")
    return 0 if same else 1


def task_counter() -> Any:
    from distributed.diagnostics.plugin import SchedulerPlugin

    class TaskCounter(SchedulerPlugin):
        """A scheduler plugin counting tasks that finished (the scheduler runs in this process)."""

        name = "dpaudit-task-counter"

        def __init__(self) -> None:
            self.finished = 0

        def transition(self, key: Any, start: str, finish: str, *args: Any, **kwargs: Any) -> None:
            if finish == "memory":
                self.finished += 1

    return TaskCounter()


def _fmt(xs: list[float]) -> str:
    return ", ".join(f"{x:.2f}" for x in xs)


if __name__ == "__main__":
    sys.exit(main())
