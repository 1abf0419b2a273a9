"""Certified bounds of whole `run --all` runs side by side, seed by seed, with their spread.

    python benchmarks/compare_runs.py --a OLD_S0 OLD_S1 OLD_S2 --b NEW_S0 NEW_S1 NEW_S2 \
        [--a-name old --b-name new]

Each directory holds the `<mechanism>.json` results of one `dpaudit run --all --seed S --out DIR`
(seeds in the same order on both sides). Per audit in both: the bounds at each seed, their means,
the seed-to-seed spread (the larger of the two sides' sample standard deviations over the
seeds, bounds ≤ 0 counted as 0: they certify nothing) and whether b's bound at every seed is at
least a's at that seed minus the spread ("ok"), or its mean is at least a's mean minus the
spread ("ok (mean)"), else "LOWER". Used for issue 28 (new main against old main, default
route) and issue 29 (default route against `--pairs registered`).

`--seconds` prints instead each audit's `elapsed_seconds` on both sides (summed over the seeds),
largest growth first, and the totals: wall seconds inside each audit's worker, so two runs
compare only on one machine at the same load (`benchmarks/main_job_cpu.py` compares CPU
seconds, which a shared machine does not inflate).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any


def bounds(dirs: list[Path]) -> dict[str, list[float]]:
    """Each audit's certified ε bound in each directory, in directory order (audits in all of them)."""
    return _per_audit(dirs, "epsilon_lower_bound", _num)


def seconds(dirs: list[Path]) -> dict[str, float]:
    """Each audit's `elapsed_seconds`, summed over the directories (audits in all of them)."""
    return {k: sum(v) for k, v in _per_audit(dirs, "elapsed_seconds", float).items()}


def _per_audit(dirs: list[Path], key: str, number: Callable[[Any], float]) -> dict[str, list[float]]:
    """Each audit's `key` in every directory's result files, in directory order, for the audits
    found in all of them."""
    out: dict[str, list[float]] = {}
    for d in dirs:
        for f in sorted(d.glob("*.json")):
            data = json.loads(f.read_text())
            if isinstance(data, dict) and key in data:
                out.setdefault(data["mechanism"], []).append(number(data[key]))
    return {k: v for k, v in out.items() if len(v) == len(dirs)}


def seconds_table(a: dict[str, float], b: dict[str, float], a_name: str, b_name: str) -> str:
    """Per audit in both: seconds on each side and their ratio, largest growth first; totals."""
    names = sorted((n for n in a if n in b), key=lambda n: -(b[n] - a[n]))
    lines = [f"| audit | {a_name} s | {b_name} s | {b_name}/{a_name} |", "|---|---:|---:|---:|"]
    for n in names:
        ratio = b[n] / a[n] if a[n] > 0 else math.inf
        lines.append(f"| `{n}` | {a[n]:.1f} | {b[n]:.1f} | {ratio:.2f} |")
    ta, tb = sum(a[n] for n in names), sum(b[n] for n in names)
    lines.append(f"| total ({len(names)} audits) | {ta:.1f} | {tb:.1f} | {tb / ta:.2f} |")
    return "\n".join(lines)


def _num(x: object) -> float:
    return float(x) if isinstance(x, (int, float)) else float(str(x).replace("Infinity", "inf"))


def _sd(xs: list[float]) -> float:
    finite = [x for x in xs if math.isfinite(x)]
    return statistics.stdev(finite) if len(finite) > 1 else 0.0


def status(a: list[float], b: list[float]) -> tuple[float, str]:
    """Bounds ≤ 0 certify nothing and compare as 0 (−0.357 vs −0.358 is no loss)."""
    a, b = [max(x, 0.0) for x in a], [max(x, 0.0) for x in b]
    spread = max(_sd(a), _sd(b))
    if all(y >= x - spread - 1e-12 for x, y in zip(a, b, strict=True)):
        return spread, "ok"
    if statistics.fmean(b) >= statistics.fmean(a) - spread - 1e-12:
        return spread, "ok (mean)"
    return spread, "LOWER"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", nargs="+", type=Path, required=True)
    ap.add_argument("--b", nargs="+", type=Path, required=True)
    ap.add_argument("--a-name", default="a")
    ap.add_argument("--b-name", default="b")
    ap.add_argument("--seconds", action="store_true", help="each audit's elapsed seconds instead")
    args = ap.parse_args()
    if len(args.a) != len(args.b):
        raise SystemExit("compare_runs: --a and --b need the same number of seeds")
    if args.seconds:
        print(seconds_table(seconds(args.a), seconds(args.b), args.a_name, args.b_name))
        return
    a, b = bounds(args.a), bounds(args.b)
    names = [n for n in a if n in b]
    k = len(args.a)
    print(
        f"| audit | {args.a_name} (seeds 0–{k - 1}) | {args.b_name} (seeds 0–{k - 1}) | "
        f"mean {args.a_name} | mean {args.b_name} | spread | status |"
    )
    print("|---|---|---|---:|---:|---:|---|")
    counts: dict[str, int] = {}
    for n in names:
        spread, st = status(a[n], b[n])
        counts[st] = counts.get(st, 0) + 1
        fa = " / ".join(f"{x:.3f}" for x in a[n])
        fb = " / ".join(f"{x:.3f}" for x in b[n])
        print(
            f"| `{n}` | {fa} | {fb} | {statistics.fmean(a[n]):.3f} | {statistics.fmean(b[n]):.3f} "
            f"| {spread:.3f} | {st} |"
        )
    print()
    print(", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + f" (of {len(names)} audits)")


if __name__ == "__main__":
    main()
