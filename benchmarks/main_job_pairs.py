"""The whole main job, one checkout against another, in alternating runs (issue 44's ≤ 1.0 bar).

    git -C /work/main worktree add --detach /tmp/old92639 92639a6      # once
    python benchmarks/main_job_pairs.py --old /tmp/old92639 [--new CHECKOUT] [--pairs 3] \
        [--work DIR]

Each run is the README's main job, `CI=true python -m dpaudit run --all --out DIR --format json`,
started in the checkout's root in `main_job_cpu`'s environment (no `PYTHONPATH`: `import dpaudit`
is that checkout's), old then new, `--pairs` times: alternating, so a drift in the machine's load falls on
both sides alike. Wall seconds are measured around the process and CPU seconds (user + sys of the
run and every worker it waited for) and its peak resident set size come from `os.wait4`, as
`/usr/bin/time` reports them. Printed: one line per run, then each side's mean, the new side's
ratios to the old, and whether every run of a side certified the same verdicts and bounds (a
result must not depend on the run). Needs an idle machine: the figures compare only when
nothing else runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

try:  # imported as benchmarks.main_job_pairs (the tests) or run as a script from benchmarks/
    from benchmarks.main_job_cpu import checkout_env
except ImportError:
    from main_job_cpu import checkout_env  # type: ignore[no-redef]

CHECKOUT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """One main-job run: its side, wall and CPU seconds, peak RSS (MB), and exit code."""

    side: str
    wall: float
    cpu: float
    peak_mb: float
    code: int


def main_job(checkout: Path, out: Path, side: str) -> Run:
    """Run the main job from `checkout` into `out` and measure it."""
    argv = [sys.executable, "-m", "dpaudit", "run", "--all", "--out", str(out), "--format", "json"]
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=checkout, env=checkout_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return Run(side=side, wall=wall, cpu=cpu, peak_mb=usage.ru_maxrss / 1024, code=proc.returncode)


def results(out: Path) -> dict[str, tuple[object, object]]:
    """Each audit's (verdict, certified ε) from the JSON results a run wrote."""
    found = {}
    for path in sorted(out.glob("*.json")):
        data = json.loads(path.read_text())
        if isinstance(data, dict) and "verdict" in data:
            found[path.stem] = (data["verdict"], data.get("epsilon_lower_bound"))
    return found


def summary(runs: list[Run]) -> list[str]:
    """Each side's mean wall and CPU seconds, and the new side's ratios to the old."""
    lines = []
    means = {}
    for side in ("old", "new"):
        mine = [r for r in runs if r.side == side]
        means[side] = (statistics.fmean(r.wall for r in mine), statistics.fmean(r.cpu for r in mine))
        walls = ", ".join(f"{r.wall:.1f}" for r in mine)
        cpus = ", ".join(f"{r.cpu:.1f}" for r in mine)
        lines.append(
            f"{side}: wall {walls} s (mean {means[side][0]:.1f}); CPU {cpus} s (mean {means[side][1]:.1f}); "
            f"peak {max(r.peak_mb for r in mine):.0f} MB"
        )
    wall_ratio = means["new"][0] / means["old"][0]
    cpu_ratio = means["new"][1] / means["old"][1]
    lines.append(f"new/old: {wall_ratio:.3f}× wall, {cpu_ratio:.3f}× CPU")
    return lines


def alternate(old: Path, new: Path, *, pairs: int, work: Path) -> tuple[list[Run], dict[str, set[str]]]:
    """`pairs` runs of each side, old then new; each side's distinct result sets (one if stable)."""
    runs: list[Run] = []
    seen: dict[str, set[str]] = {"old": set(), "new": set()}
    for i in range(pairs):
        for side, checkout in (("old", old), ("new", new)):
            out = work / f"{side}{i + 1}"
            run = main_job(checkout, out, side)
            if run.code not in (0, 1):
                raise SystemExit(f"main_job_pairs: the {side} run {i + 1} exited {run.code} (see {out})")
            runs.append(run)
            seen[side].add(json.dumps(results(out), sort_keys=True))
            line = f"{side} {i + 1}: wall {run.wall:.1f} s, CPU {run.cpu:.1f} s, peak {run.peak_mb:.0f} MB"
            print(line, flush=True)
    return runs, seen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", type=Path, required=True, help="the checkout to compare against")
    ap.add_argument("--new", type=Path, default=CHECKOUT, help="default: this checkout")
    ap.add_argument("--pairs", type=int, default=3, help="alternating old/new runs (default 3)")
    ap.add_argument("--work", type=Path, default=None, help="where runs write (default: a temp folder)")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="main_job_pairs-"))
    runs, seen = alternate(args.old.resolve(), args.new.resolve(), pairs=args.pairs, work=work)
    for line in summary(runs):
        print(line)
    for side in ("old", "new"):
        same = "yes" if len(seen[side]) == 1 else "NO"
        print(f"{side}: every run certified the same verdicts and bounds: {same}")


if __name__ == "__main__":
    main()
