"""Published privacy bugs in DP libraries, each audited on its pinned version (issue 34, item 7).

    python benchmarks/known_bugs.py                      # every row, every version
    python benchmarks/known_bugs.py --only diffprivlib_nb_blind --cache /tmp/kb

One row per module in `benchmarks/known_bugs_rows/` (see its `__init__`): the package, the issue
or PR, the versions with their expected verdicts, the pip requirements, the budget. For each
(package, version) an isolated virtual environment is made once under the cache folder (default
`~/.cache/dpaudit/known-bugs/`), with the row's requirements and dpaudit's own dependencies, never
in the environment running this script; dpaudit itself is this checkout, on `PYTHONPATH`. Each row
is then audited there with

    python -m dpaudit run known_bugs_rows.<row>:mechanism --json --seed 0 --num-samples N

and the script prints a Markdown table: package, version, issue, expected, verdict (labelled
"(stated claim)" when the verdict claim is the library's statement, not a proved claim: the one
verdict rule of `run` lets a lone stated claim decide), certified ε against the claim, samples
per side, seconds, install seconds and disk. Needs only the standard library (it reads the rows'
constants with `ast`), so it runs from a fresh clone.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import os
import subprocess
import sys
import time
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
ROWS = HERE / "known_bugs_rows"
DEPS = ["numpy", "scipy", "statsmodels", "joblib", "jinja2", "dp-accounting"]
VERDICTS = {"violation_found": "violation", "no_violation_found": "no violation"}


def read_row(path: Path) -> dict[str, object]:
    """The row's literal constants (upper-case names), read without importing it."""
    out: dict[str, object] = {"ROW": path.stem}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name.isupper():
                try:
                    out[name] = ast.literal_eval(node.value)
                except ValueError:
                    continue
    return out


def rows(only: list[str]) -> list[dict[str, object]]:
    found = [read_row(p) for p in sorted(ROWS.glob("*.py")) if not p.stem.startswith("_")]
    found = [r for r in found if "PACKAGE" in r]
    if only:
        found = [r for r in found if r["ROW"] in only]
        missing = set(only) - {str(r["ROW"]) for r in found}
        if missing:
            raise SystemExit(f"known_bugs: no row named {', '.join(sorted(missing))}")
    return found


def pip_calls(requirements: list[object]) -> list[list[str]]:
    """The row's requirements as pip invocations: one list of strings, or a list of such lists."""
    if all(isinstance(r, str) for r in requirements):
        return [[str(r) for r in requirements]]
    return [[str(a) for a in call] for call in requirements]  # type: ignore[attr-defined]


def environment(cache: Path, package: str, version: str, requirements: list[object]) -> tuple[Path, float]:
    """The venv for (package, version), made once; returns its python and the install seconds."""
    home = cache / f"{package}-{version}"
    python = home / "bin" / "python"
    marker = home / ".dpaudit-installed.json"
    if marker.is_file():
        return python, float(json.loads(marker.read_text())["seconds"])
    start = time.perf_counter()
    venv.EnvBuilder(with_pip=True, clear=True).create(home)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, *DEPS], check=True)
    for call in pip_calls(requirements):
        subprocess.run([*pip, *call], check=True)
    seconds = time.perf_counter() - start
    marker.write_text(json.dumps({"seconds": seconds, "requirements": requirements}))
    return python, seconds


@functools.cache  # several rows share one (package, version) venv: walk it once
def disk(path: Path) -> str:
    total = sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())
    return f"{total / 2**20:.0f} MiB"


def rows_folder(cache: Path) -> Path:
    """A folder holding only a link to `known_bugs_rows`: the rows' import root and working
    directory. Not `benchmarks/` itself, where `benchmarks/opacus.py` would shadow the `opacus`
    package (`python -m` puts the working directory first on `sys.path`)."""
    home = cache / "rows"
    home.mkdir(parents=True, exist_ok=True)
    link = home / "known_bugs_rows"
    if not (link.is_symlink() and link.resolve() == ROWS):
        if link.is_symlink():
            link.unlink()
        link.symlink_to(ROWS, target_is_directory=True)
    return home


def audit(python: Path, row: dict[str, object], cache: Path) -> tuple[dict[str, object] | str, float]:
    """Run the row's audit in its venv: the result JSON, or the error line; and the seconds."""
    cmd = [str(python), "-m", "dpaudit", "run", f"known_bugs_rows.{row['ROW']}:mechanism", "--json"]
    cmd += ["--seed", "0", "--num-samples", str(row["NUM_SAMPLES"]), *map(str, row.get("ARGS", []))]  # type: ignore[call-overload]
    home = rows_folder(cache)
    env = {**os.environ, "PYTHONPATH": f"{CHECKOUT}{os.pathsep}{home}", "DPAUDIT_PROGRESS": "0"}
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=home)
    seconds = time.perf_counter() - start
    if done.returncode in (0, 1):
        return json.loads(done.stdout), seconds
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    return f"exit {done.returncode}: {lines[-1] if lines else ''}", seconds


BLIND = "blind"


def pairs_kind(row: dict[str, object]) -> str:
    """ "blind" (dpaudit found the pair) or "hand-written" (the row registers the user's pairs)."""
    return BLIND if "PAIRS" not in row else "hand-written"


def tally(outcomes: list[tuple[dict[str, object], str]]) -> str:
    """One line per pairs kind: how many (row, version) audits gave their expected verdict, the blind
    rows counted apart from the rows with hand-written pairs. `outcomes`: (row, table line)."""
    counts: dict[str, list[int]] = {}
    for row, text in outcomes:
        ok = "unexpected" not in text and "error" not in text
        got = counts.setdefault(pairs_kind(row), [0, 0])
        got[0] += ok
        got[1] += 1
    words = {BLIND: "blind (dpaudit found the pair)", "hand-written": "hand-written pairs (the user's)"}
    return "; ".join(f"{words[k]}: {ok} of {n} as expected" for k, (ok, n) in sorted(counts.items()))


def line(
    row: dict[str, object],
    version: str,
    expected: str,
    result: dict[str, object] | str,
    secs: float,
    install: float,
    size: str,
) -> str:
    if isinstance(result, str):
        verdict, bound = f"error ({result})", "—"
    else:
        verdict = VERDICTS.get(str(result["verdict"]), str(result["verdict"]))
        claim = result["claim"]
        assert isinstance(claim, dict)
        bound = f"{float(result['epsilon_lower_bound']):.2f} vs {float(claim['epsilon']):.2f}"  # type: ignore[arg-type]
        unexpected = verdict != expected
        if claim.get("kind") == "stated":  # the one verdict rule: a lone stated claim decides, said so
            verdict += " (stated claim)"
        if unexpected:
            verdict += " (unexpected)"
    cells = [
        str(row["PACKAGE"]),
        version,
        f"`{row['ROW']}`",
        pairs_kind(row),
        str(row["ISSUE"]),
        expected,
        verdict,
        bound,
        f"{row['NUM_SAMPLES']:,}",
        f"{secs:.0f}",
        f"{install:.0f}",
        size,
    ]
    return "| " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", action="append", default=[], metavar="ROW", help="run this row only (repeatable)"
    )
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "dpaudit" / "known-bugs")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    print(
        "| package | version | row | pairs | issue | expected | verdict | certified ε vs claim "
        "| samples/side | seconds | install s | disk |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    outcomes: list[tuple[dict[str, object], str]] = []
    for row in rows(args.only):
        for version, expected in dict(row["VERSIONS"]).items():  # type: ignore[call-overload]
            reqs = list(dict(row["REQUIREMENTS"])[version])  # type: ignore[call-overload]
            python, install = environment(args.cache, str(row["PACKAGE"]), version, reqs)
            result, secs = audit(python, row, args.cache)
            text = line(row, version, expected, result, secs, install, disk(python.parent.parent))
            outcomes.append((row, text))
            print(text, flush=True)
    print(f"\n{tally(outcomes)}")
    for row in rows(args.only):
        said = [str(row[k]) for k in ("PAIRS", "NOTE") if row.get(k)]
        if said:
            print(f"\n- `{row['ROW']}`: {'; '.join(said)}", end="")
    print()
    unexpected = sum("unexpected" in text or "error" in text for _, text in outcomes)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
