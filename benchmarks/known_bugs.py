"""Published privacy bugs in DP libraries, each audited on its pinned versions (issues 34 and 44, item 7).

    python benchmarks/known_bugs.py                      # every row at its small budget; writes README
    python benchmarks/known_bugs.py --full               # every row at its full budget
    python benchmarks/known_bugs.py --only diffprivlib_nb_blind --cache /tmp/kb   # prints only

One row per module in `benchmarks/known_bugs_rows/` (see its `__init__`): the package, the issue
or PR, the versions with their expected verdicts, the pip requirements, the budgets. For each
(package, version) an isolated virtual environment is made once under the cache folder (default
`~/.cache/dpaudit/known-bugs/`), with the row's requirements and dpaudit's own dependencies, never
in the environment running this script; dpaudit itself is this checkout, on `PYTHONPATH`. Each row
is then audited there with

    python -m dpaudit run known_bugs_rows.<row>:mechanism --json --seed 0 --num-samples N [ARGS]

N and ARGS being the row's small budget (`FAST_NUM_SAMPLES`, `ARGS` + `FAST_ARGS`, e.g. a
`--sequential` cap that stops once decided) by default, its `NUM_SAMPLES` and `ARGS` with `--full`.
The script prints a Markdown table: package, version, issue, expected, verdict (labelled
"(stated claim)" when the verdict claim is the library's statement, not a proved claim: the one
verdict rule of `run` lets a lone stated claim decide; an inconclusive audit is not flagged),
certified ε against the claim (and a claimed curve's refuted point), the witness of a violation,
samples per side drawn (and the `--num-samples` given), wall and CPU seconds, install seconds and
disk of the version's venv; and, on a run of every row, writes it with the command, the date and the totals
into benchmarks/README.md between `MARKERS` (a figure in the docs is never typed by hand).
Needs only the standard library (it reads the rows' constants with `ast`), so it runs from a fresh
clone. Exit 1 if a verdict is not the expected one.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import functools
import json
import os
import resource
import shlex
import subprocess
import sys
import time
import venv
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
ROWS = HERE / "known_bugs_rows"
DEPS = ["numpy", "scipy", "statsmodels", "joblib", "jinja2", "dp-accounting"]
VERDICTS = {
    "violation_found": "violation",
    "no_violation_found": "no violation",
    "inconclusive": "no violation (inconclusive)",
}
"""The verdicts as the table says them: an inconclusive audit (no evidence of any loss) is not
flagged (exit 0), so it meets an expected "no violation"."""


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


CACHE = Path.home() / ".cache" / "dpaudit" / "known-bugs"
"""The venvs' default folder (`--cache`), shared with `scan_versions.py` and `expensive.py`."""
MARKER = ".dpaudit-installed.json"
"""Written into a venv once its installs finished (install seconds, requirements)."""


def venv_python(cache: Path, package: str, version: str) -> Path:
    """Where the venv of (package, version) under `cache` has its python (made or not)."""
    return cache / f"{package}-{version}" / "bin" / "python"


def installed(python: Path) -> bool:
    """Whether the venv of `python` finished its installs (an interrupted one has no marker)."""
    return (python.parent.parent / MARKER).is_file()


def environment(cache: Path, package: str, version: str, requirements: list[object]) -> tuple[Path, float]:
    """The venv for (package, version), made once; returns its python and the install seconds."""
    python = venv_python(cache, package, version)
    home = python.parent.parent
    marker = home / MARKER
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


def budget(row: dict[str, object], *, full: bool) -> tuple[int, list[str]]:
    """Samples per side (a cap under `--sequential`) and extra `dpaudit run` arguments of the
    row's run: `NUM_SAMPLES` and `ARGS` with `--full`, else `FAST_NUM_SAMPLES` (default
    `NUM_SAMPLES`) and `ARGS` + `FAST_ARGS`."""
    args = [str(a) for a in row.get("ARGS", [])]  # type: ignore[attr-defined]
    if full:
        return int(str(row["NUM_SAMPLES"])), args
    fast = [str(a) for a in row.get("FAST_ARGS", [])]  # type: ignore[attr-defined]
    return int(str(row.get("FAST_NUM_SAMPLES", row["NUM_SAMPLES"]))), [*args, *fast]


def audit(
    python: Path, row: dict[str, object], cache: Path, *, full: bool = False
) -> tuple[dict[str, object] | str, float, float]:
    """Run the row's audit in its venv: the result JSON, or the error line; the wall seconds and
    the CPU seconds (user + system) of the audit's processes (load-independent on a busy machine)."""
    num_samples, extra = budget(row, full=full)
    cmd = [str(python), "-m", "dpaudit", "run", f"known_bugs_rows.{row['ROW']}:mechanism", "--json"]
    cmd += ["--seed", "0", "--num-samples", str(num_samples), *extra]
    home = rows_folder(cache)
    env = {**os.environ, "PYTHONPATH": f"{CHECKOUT}{os.pathsep}{home}", "DPAUDIT_PROGRESS": "0"}
    start, before = time.perf_counter(), children_cpu()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=home)
    seconds, cpu = time.perf_counter() - start, children_cpu() - before
    if done.returncode in (0, 1):
        return json.loads(done.stdout), seconds, cpu
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    return f"exit {done.returncode}: {lines[-1] if lines else ''}", seconds, cpu


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's waited-for children so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


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


WITNESS_CHARS = 90
"""A witness longer than this is cut (the full text is in the audit's own report)."""


def witness(result: dict[str, object]) -> str:
    """The violating pair with the highest bound, its event and counts; "—" without a violation."""
    if result.get("verdict") != "violation_found":
        return "—"
    pairs = [p for p in result.get("pairs", []) if p.get("violation")]  # type: ignore[attr-defined]
    if not pairs:
        return "—"
    best = max(pairs, key=lambda p: float(p["estimate"]["epsilon_lower_bound"]))
    e = best["estimate"]
    event = " ".join(str(e["event"]).split())
    event = event if len(event) <= WITNESS_CHARS else event[: WITNESS_CHARS - 1] + "…"
    counts = f"{e['p_count']:,}/{e['p_total']:,} vs {e['q_count']:,}/{e['q_total']:,}"
    return f"{best['description']}: {event} ({counts})".replace("|", "\\|")


def refuted_point(result: dict[str, object]) -> str:
    """ "; ε(δ) = a vs b" for the refuted point of a claimed curve with the largest margin, where
    the headline bound does not exceed the claim's ε (a curve refuted at another δ); else ""."""
    claim = result.get("claim")
    if not isinstance(claim, dict) or float(result["epsilon_lower_bound"]) > float(claim["epsilon"]):  # type: ignore[arg-type]
        return ""
    points = [
        p for p in result.get("profile", []) if p.get("exceeds_claim") and p.get("objective") == "epsilon"
    ]  # type: ignore[attr-defined]
    if not points:
        return ""
    best = max(points, key=lambda p: float(p["value"]) - float(p["claimed"]))
    return f"; ε(δ = {float(best['parameter']):g}) {float(best['value']):.2f} vs {float(best['claimed']):.2f}"


def samples_drawn(result: dict[str, object]) -> int:
    """Samples per side the audit drew (a sequential audit's where it stopped), as
    `benchmarks/expensive.py` counts them."""
    import expensive  # stdlib only, beside this file

    return expensive.samples_spent(result)  # type: ignore[arg-type]


def line(
    row: dict[str, object],
    version: str,
    expected: str,
    result: dict[str, object] | str,
    secs: float,
    install: float,
    size: str,
    *,
    cap: int | None = None,
    cpu: float | None = None,
) -> str:
    """One Markdown row; `cap` the run's samples per side (default the row's `NUM_SAMPLES`), `cpu`
    the audit's CPU seconds (shown beside the wall seconds)."""
    cap = int(str(row["NUM_SAMPLES"])) if cap is None else cap
    drawn, seen = "—", "—"
    if isinstance(result, str):
        verdict, bound = f"error ({result})", "—"
    else:
        verdict = VERDICTS.get(str(result["verdict"]), str(result["verdict"]))
        claim = result["claim"]
        assert isinstance(claim, dict)
        bound = f"{float(result['epsilon_lower_bound']):.2f} vs {float(claim['epsilon']):.2f}"  # type: ignore[arg-type]
        bound += refuted_point(result)
        unexpected = verdict.split(" (")[0] != expected
        if claim.get("kind") == "stated":  # the one verdict rule: a lone stated claim decides, said so
            verdict += " (stated claim)"
        if unexpected:
            verdict += " (unexpected)"
        seen = witness(result)
        drawn = f"{samples_drawn(result):,}" if "certification_samples" in result else "—"
    cells = [
        str(row["PACKAGE"]),
        version,
        f"`{row['ROW']}`",
        pairs_kind(row),
        str(row["ISSUE"]),
        expected,
        verdict,
        bound,
        seen,
        f"{drawn} ({cap:,})",
        f"{secs:.0f}" if cpu is None else f"{secs:.0f} ({cpu:.0f})",
        f"{install:.0f}",
        size,
    ]
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| package | version | row | pairs | issue | expected | verdict | certified ε vs claim | witness "
    "| samples/side drawn (--num-samples) | seconds (CPU) | install s | disk |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)
README = HERE / "README.md"
MARKERS = (
    "<!-- known_bugs:begin (written by benchmarks/known_bugs.py) -->",
    "<!-- known_bugs:end -->",
)


def write_between(path: Path, text: str, markers: tuple[str, str]) -> None:
    """Replace what lies between the two markers in `path` by `text` (the markers stay); append
    the markers and `text` at the end when the file has neither. One marker without the other,
    or either twice, is an error (the file is left as it was)."""
    begin, end = markers
    old = path.read_text() if path.is_file() else ""
    counts = old.count(begin), old.count(end)
    if counts == (0, 0):
        new = old.rstrip("\n") + ("\n\n" if old else "") + f"{begin}\n{text.strip()}\n{end}\n"
    elif counts == (1, 1) and old.index(begin) < old.index(end):
        head, rest = old.split(begin, 1)
        _, tail = rest.split(end, 1)
        new = f"{head}{begin}\n{text.strip()}\n{end}{tail}"
    else:
        raise ValueError(
            f"{path}: expected the markers once each, in order (found {counts[0]} and {counts[1]})"
        )
    path.write_text(new)


@dataclass(frozen=True, slots=True, kw_only=True)
class Totals:
    """What a whole run cost: audit seconds, one-time install seconds and disk of its venvs."""

    audit_seconds: float
    audit_cpu: float
    install_seconds: float
    disk_mib: float
    venvs: int


def block(
    command: str, lines: list[str], tally_line: str, said: list[str], totals: Totals, *, full: bool
) -> str:
    """What goes between the markers: how the table was made, the table, the count, the notes."""
    when = datetime.datetime.now(datetime.UTC)
    head = (
        f"Written by `{command}` on {when:%Y-%m-%d %H:%M} UTC ({'full' if full else 'small'} budgets, "
        f"seed 0): {totals.audit_seconds:.0f} s of audits ({totals.audit_cpu:.0f} s of CPU); "
        f"{totals.venvs} venvs, installed once in {totals.install_seconds:.0f} s in all (reused after), "
        f"{totals.disk_mib:,.0f} MiB on disk."
    )
    return "\n".join([head, "", HEADER, *lines, "", tally_line, "", *said])


def notes(found: list[dict[str, object]]) -> list[str]:
    """The rows' `PAIRS` and `NOTE` constants, one bullet per row that has either."""
    out = []
    for row in found:
        said = [str(row[k]) for k in ("PAIRS", "NOTE") if row.get(k)]
        if said:
            out.append(f"- `{row['ROW']}`: {'; '.join(said)}")
    return out


def mib(size: str) -> float:
    return float(size.split()[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", action="append", default=[], metavar="ROW", help="this row only (repeatable); prints only"
    )
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--full", action="store_true", help="every row at its full budget (NUM_SAMPLES)")
    parser.add_argument("--no-write", action="store_true", help="print the table only; leave README.md alone")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    print(HEADER, flush=True)
    outcomes: list[tuple[dict[str, object], str]] = []
    audit_s, audit_cpu, venvs = 0.0, 0.0, {}
    found = rows(args.only)
    for row in found:
        for version, expected in dict(row["VERSIONS"]).items():  # type: ignore[call-overload]
            reqs = list(dict(row["REQUIREMENTS"])[version])  # type: ignore[call-overload]
            python, install = environment(args.cache, str(row["PACKAGE"]), version, reqs)
            size = disk(python.parent.parent)
            venvs[python] = (install, size)
            result, secs, cpu = audit(python, row, args.cache, full=args.full)
            audit_s, audit_cpu = audit_s + secs, audit_cpu + cpu
            cap = budget(row, full=args.full)[0]
            text = line(row, version, expected, result, secs, install, size, cap=cap, cpu=cpu)
            outcomes.append((row, text))
            print(text, flush=True)
    counted = tally(outcomes)
    said = notes(found)
    print(f"\n{counted}\n" + "\n".join(said))
    totals = Totals(
        audit_seconds=audit_s,
        audit_cpu=audit_cpu,
        install_seconds=sum(i for i, _ in venvs.values()),
        disk_mib=sum(mib(s) for _, s in venvs.values()),
        venvs=len(venvs),
    )
    if not args.only and not args.no_write:
        given = argv if argv is not None else sys.argv[1:]
        command = "python benchmarks/known_bugs.py" + "".join(f" {shlex.quote(a)}" for a in given)
        lines = [t for _, t in outcomes]
        write_between(README, block(command, lines, counted, said, totals, full=args.full), MARKERS)
    unexpected = sum("unexpected" in text or "error" in text for _, text in outcomes)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
