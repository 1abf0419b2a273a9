"""`dpaudit scan` on a bug's library, buggy version against its fix (issue 44, items 5 and 7).

    python benchmarks/scan_versions.py                       # every row; writes benchmarks/README.md
    python benchmarks/scan_versions.py --repeats 3 --cache /tmp/kb --no-write

For each row (a library, the exports a bug lives in, a buggy and a fixed version) and each version,
an isolated virtual environment is made once under the cache folder with
`known_bugs.environment` (the same folder and venvs as `benchmarks/known_bugs.py`: PyPI only,
pip in the venv, never the environment running this script); dpaudit itself is this checkout, on
`PYTHONPATH` (it imports without being installed, `dpaudit/_folders.py`). There the scan runs
exactly as a user runs it in CI on a pinned version:

    python -m dpaudit scan LIBRARY --only EXPORT --budget N --seed S --jobs 1 --out DIR

blind (the scan writes no pair for any bug), at the scan's default budget. The script reads
`DIR/scan.json`, prints a Markdown table (version, export, expected, verdict, certified ε against
the claim, seconds) and writes it, with the command and the date, into benchmarks/README.md
between the markers `MARKERS` (a figure in the docs is never typed by hand). Exit 1 if a verdict
differs from the expected one. Needs only the standard library.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import known_bugs  # noqa: E402  (the venv machinery, from this folder)

README = HERE / "README.md"
MARKERS = (
    "<!-- scan_versions:begin (written by benchmarks/scan_versions.py) -->",
    "<!-- scan_versions:end -->",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """A bug in `library`: the exports it lives in, the versions with the scan's expected verdict,
    and the known-bugs row whose pip requirements make each version's venv."""

    library: str
    only: tuple[str, ...]
    issue: str
    versions: dict[str, str]
    requirements_row: str


ROWS = (
    Row(
        library="smartnoise-synth",
        only=("DPcovariance",),
        issue="opendp/smartnoise-sdk#622 (fixed by #624)",
        versions={"1.0.5": "flagged", "1.0.6": "not flagged"},
        requirements_row="smartnoise_dpcovariance",
    ),
)


def requirements(row: Row, version: str) -> list[object]:
    """The pip calls for one version, read (with `ast`) from its known-bugs row."""
    constants = known_bugs.read_row(known_bugs.ROWS / f"{row.requirements_row}.py")
    return list(dict(constants["REQUIREMENTS"])[version])  # type: ignore[call-overload]


def run_scan(
    python: Path, row: Row, *, budget: int, seed: int, folder: Path
) -> tuple[dict[str, object] | str, float]:
    """`python -m dpaudit scan` in the venv: its scan.json, or the error line; and the wall seconds."""
    out = Path(tempfile.mkdtemp(prefix="scan-", dir=folder))
    cmd = [
        str(python),
        "-m",
        "dpaudit",
        "scan",
        row.library,
        *scan_args(row, budget=budget, seed=seed),
        "--out",
        str(out),
    ]
    env = {**os.environ, "PYTHONPATH": str(known_bugs.CHECKOUT), "DPAUDIT_PROGRESS": "0"}
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=folder)
    seconds = time.perf_counter() - start
    if done.returncode in (0, 1) and (out / "scan.json").is_file():
        return json.loads((out / "scan.json").read_text()), seconds
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    return f"exit {done.returncode}: {lines[-1] if lines else ''}", seconds


def scan_args(row: Row, *, budget: int, seed: int) -> list[str]:
    args = [a for o in row.only for a in ("--only", o)]
    return [*args, "--budget", str(budget), "--seed", str(seed), "--jobs", "1"]


VERDICTS = {
    "violation_found": "flagged",
    "no_violation_found": "not flagged",
    "inconclusive": "not flagged (inconclusive)",
}
"""The scan's statuses as the table says them: an inconclusive audit is not flagged (exit 0)."""


def lines(
    row: Row, version: str, expected: str, seed: int, result: dict[str, object] | str, wall: float
) -> list[str]:
    """One Markdown line per export the scan reported (or one for the error)."""
    if isinstance(result, str):
        return [_cells(row.library, version, "—", expected, f"error ({result})", "—", seed, wall, wall)]
    out = []
    for r in result["rows"]:  # type: ignore[attr-defined]
        flagged = r["status"] == "violation_found"
        verdict = VERDICTS.get(r["status"], r["status"])
        if verdict.split(" (")[0] != expected:
            verdict += " (unexpected)"
        bound = (
            "—"
            if r["certified_epsilon"] is None
            else f"{r['certified_epsilon']:.2f} vs {r['claimed_epsilon']:.2f}"
        )
        if flagged and r["witness"]:
            bound += f"; {r['witness']}"
        out.append(
            _cells(
                row.library, version, f"`{r['export']}`", expected, verdict, bound, seed, r["seconds"], wall
            )
        )
    return out


def _cells(
    library: str,
    version: str,
    export: str,
    expected: str,
    verdict: str,
    bound: str,
    seed: int,
    seconds: float,
    wall: float,
) -> str:
    cells = [library, version, export, expected, verdict, bound, str(seed), f"{seconds:.0f}", f"{wall:.0f}"]
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| library | version | export | expected | verdict | certified ε vs claim; witness | seed "
    "| audit s | run s |\n|---|---|---|---|---|---|---|---|---|"
)


def write_between(path: Path, text: str, markers: tuple[str, str] = MARKERS) -> None:
    """`known_bugs.write_between` with this script's markers by default."""
    known_bugs.write_between(path, text, markers)


def block(command: str, table: list[str], installs: list[str], *, budget: int, unexpected: int) -> str:
    """What goes between the markers: how the table was made, then the table."""
    scans = ", ".join(
        f"`dpaudit scan {r.library} {shlex.join(scan_args(r, budget=budget, seed=0))}`" for r in ROWS
    )
    when = datetime.datetime.now(datetime.UTC)
    outcome = "All verdicts as expected." if not unexpected else f"{unexpected} unexpected."
    head = (
        f"Written by `{command}` on {when:%Y-%m-%d %H:%M} UTC; each version in its own venv (installed once: "
        f"{'; '.join(installs)}), scanned with {scans} (the seed as in the table). {outcome}"
    )
    return "\n".join([head, "", *table])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=known_bugs.CACHE)
    parser.add_argument("--budget", type=int, default=1000, help="samples per side (the scan's default)")
    parser.add_argument("--repeats", type=int, default=1, help="scans per version, at seeds 0, 1, …")
    parser.add_argument("--no-write", action="store_true", help="print the table only; leave README.md alone")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    folder = args.cache / "scan-versions"
    folder.mkdir(exist_ok=True)
    table, unexpected, installs = [HEADER], 0, []
    print(HEADER, flush=True)
    for row in ROWS:
        for version, expected in row.versions.items():
            python, install = known_bugs.environment(
                args.cache, row.library, version, requirements(row, version)
            )
            installs.append(
                f"{row.library} {version}: {install:.0f} s, {known_bugs.disk(python.parent.parent)}"
            )
            for seed in range(args.repeats):
                result, wall = run_scan(python, row, budget=args.budget, seed=seed, folder=folder)
                for text in lines(row, version, expected, seed, result, wall):
                    unexpected += "unexpected" in text or "error (" in text
                    table.append(text)
                    print(text, flush=True)
    command = "python benchmarks/scan_versions.py" + "".join(
        f" {shlex.quote(a)}" for a in (argv if argv is not None else sys.argv[1:]) if a != "--no-write"
    )
    text = block(command, table, installs, budget=args.budget, unexpected=unexpected)
    if not args.no_write:
        write_between(README, text)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
