"""CPU seconds of every main-job audit, one checkout against another, audit by audit back to back.

    python benchmarks/main_job_cpu.py --a OLD_CHECKOUT [--b NEW_CHECKOUT] [--only NAME ...] \
        [--a-name old --b-name new] [--seed 0]

Each checkout gets one long-lived driver process, started in that checkout's root (so
`import dpaudit` is that checkout's; old commits with links run the same way), that runs
`dpaudit run NAME --format json --out DIR` (the main job's audit: default budget and route,
`--jobs 1`, `CI=true`) for each name it is sent and answers with the audit's CPU seconds
(`time.process_time`: this process and its threads; the machine's load does not enter it, so a
shared machine still compares). The parent sends each audit to `--a`, then to `--b`, then the next
audit, so the two sides of a row ran back to back; imports are paid once per side, as in a
`run --all` worker, and a first audit (`--warmup`, untimed) fills first-call caches. The table:
per audit the CPU seconds of both sides, their ratio, and both sides' certified ε (from the JSON
they wrote, which must agree with `run --all`'s: the result of an audit does not depend on
`--jobs`), largest difference first; then how many bounds are equal to the last bit, and the
totals.

`--b` defaults to this checkout. Names default to the main job's (`run --all`: registered, not a
buggy twin, not the libraries or Opacus families, read from `--b`'s registry).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

DRIVER = r"""
import json, os, sys, time, contextlib, io
from dpaudit.app.cli import main
out = sys.argv[1]
with contextlib.redirect_stdout(io.StringIO()):  # imports and first-call caches, not timed
    main(["run", sys.argv[3], "--format", "json", "--out", out + "-warmup", "--seed", sys.argv[2]])
print("{}", flush=True)
for line in sys.stdin:
    name = line.strip()
    start, wall = time.process_time(), time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["run", name, "--format", "json", "--out", out, "--seed", sys.argv[2]])
    row = {"name": name, "cpu": time.process_time() - start, "wall": time.perf_counter() - wall,
           "code": code}
    print(json.dumps(row), flush=True)
"""

NAMES = r"""
from dpaudit.mechanisms.libraries import FAMILY as LIBRARIES
from dpaudit.mechanisms.opacus import FAMILY as OPACUS
from dpaudit.mechanisms.registry import entries
for e in entries().values():
    if not e.buggy and e.family not in (LIBRARIES, OPACUS):
        print(e.name)
"""


@dataclass(frozen=True)
class Row:
    name: str
    cpu_a: float
    cpu_b: float
    eps_a: float
    eps_b: float

    @property
    def ratio(self) -> float:
        return self.cpu_b / self.cpu_a if self.cpu_a > 0 else float("inf")


def checkout_env() -> dict[str, str]:
    env = dict(os.environ, CI="true", DPAUDIT_PROGRESS="0")
    env.pop("PYTHONPATH", None)  # the checkout's own dpaudit, from its root
    return env


def main_job_names(checkout: Path) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", NAMES],
        cwd=checkout,
        env=checkout_env(),
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.split()


def _driver(checkout: Path, out: Path, seed: int, warmup: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(out), str(seed), warmup],
        cwd=checkout,
        env=checkout_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    proc.stdout.readline()  # the warm-up audit ran
    return proc


def _ask(proc: subprocess.Popen[str], name: str) -> dict[str, float]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(name + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if not line:
        raise SystemExit(f"main_job_cpu: the driver stopped at {name} (exit {proc.wait()})")
    return json.loads(line)


def epsilon(out: Path, name: str) -> float:
    data = json.loads((out / f"{name}.json").read_text())
    x = data["epsilon_lower_bound"]
    return float(x) if isinstance(x, (int, float)) else float(str(x).replace("Infinity", "inf"))


def measure(a: Path, b: Path, names: list[str], *, seed: int, warmup: str, work: Path) -> list[Row]:
    out_a, out_b = work / "a", work / "b"
    procs = (_driver(a, out_a, seed, warmup), _driver(b, out_b, seed, warmup))
    rows = []
    try:
        for name in names:
            ra, rb = _ask(procs[0], name), _ask(procs[1], name)
            rows.append(Row(name, ra["cpu"], rb["cpu"], epsilon(out_a, name), epsilon(out_b, name)))
            r = rows[-1]
            print(f"{name:40s} {r.cpu_a:7.1f} {r.cpu_b:7.1f} {r.ratio:6.2f}", file=sys.stderr, flush=True)
    finally:
        for p in procs:
            if p.stdin is not None:
                p.stdin.close()
            p.wait()
    return rows


def table(rows: list[Row], a_name: str, b_name: str) -> str:
    lines = [
        f"| audit | {a_name} CPU s | {b_name} CPU s | {b_name}/{a_name} | ε {a_name} | ε {b_name} |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in sorted(rows, key=lambda r: -(r.cpu_b - r.cpu_a)):
        lines.append(
            f"| `{r.name}` | {r.cpu_a:.1f} | {r.cpu_b:.1f} | {r.ratio:.2f} | {r.eps_a:.3f} | {r.eps_b:.3f} |"
        )
    same = sum(r.eps_a == r.eps_b for r in rows)
    lines.append(f"| certified ε equal to the last bit | {same} of {len(rows)} | | | | |")
    ta, tb = sum(r.cpu_a for r in rows), sum(r.cpu_b for r in rows)
    lines.append(f"| total ({len(rows)} audits) | {ta:.1f} | {tb:.1f} | {tb / ta:.2f} | | |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", type=Path, required=True, help="the old checkout's root")
    ap.add_argument("--b", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--a-name", default="a")
    ap.add_argument("--b-name", default="b")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--warmup", default="exponential_mechanism", help="an audit run first, untimed")
    args = ap.parse_args()
    names = args.only or main_job_names(args.b)
    with tempfile.TemporaryDirectory(prefix="main_job_cpu_") as tmp:
        rows = measure(
            args.a.resolve(), args.b.resolve(), names, seed=args.seed, warmup=args.warmup, work=Path(tmp)
        )
    print(table(rows, args.a_name, args.b_name))


if __name__ == "__main__":
    main()
