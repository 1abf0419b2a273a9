"""Expensive mechanisms: samples per side to a decision, today's main against this tree (issue 44).

    git -C /work/main worktree add /tmp/oldmain 6e919db        # "today's main", once
    python benchmarks/expensive.py --old /tmp/oldmain --work /tmp/expensive
    python benchmarks/expensive.py --old /tmp/oldmain --work /tmp/expensive --only laplace_sum --reuse

Each row is audited twice, once per side, each in its own process (`OMP_NUM_THREADS=1`), at
seed 0 and the row's default budget:

- **old**: `python -m dpaudit run NAME --json --seed 0` run from the `--old` checkout with
  `PYTHONPATH=OLD` (it imports itself from that folder): the default route at the registered
  budget, fixed n;
- **new**: the same from this checkout with `--sequential`: the default route, the budget a cap,
  the certification stopping once a violation is certified or out of reach.

Samples per side (`samples_spent`) count everything drawn per side: a search's pilot (selection
and top-up included) plus certification times the certified pairs; on registered pairs or
templates, selection plus certification times the pairs; a sequential audit's certification is
where it stopped, not its cap. The table (row, each side's verdict, samples per side and wall
seconds, the ratio of new to old samples, and whether the issue's bar is met: the same verdict
at ≤ 1/5 of the samples, or a violation where today finds none) is printed and written into
benchmarks/README.md between the `expensive.py` markers, so no figure there is typed by hand.

The smartnoise-synth and Opacus rows are `benchmarks/known_bugs_rows` modules at the row's own
`NUM_SAMPLES` (a user mechanism has no registered budget), run in the venv of the library version
that has the bug the row audits (`Row.venv`: smartnoise-synth 1.0.5, opacus 1.6.0), the one
`benchmarks/known_bugs.py` makes under `--cache` (default `~/.cache/dpaudit/known-bugs/`), never in
this interpreter's environment: both sides run with that venv's python, each side's checkout and
the rows' folder on `PYTHONPATH`. A venv not made yet is listed as skipped with its path, unless
`--make-venvs` (which installs it there, from the public index, as `known_bugs.py` does); a row
whose library this interpreter lacks, as "not installed: skipped". Every run's JSON and wall time
is kept under `--work` (`SIDE/ROW.json`, `SIDE/ROW.meta.json`, with the command, the venv and the
checkout's commit); `--reuse` reads them instead of re-running (when the kept command, venv and
checkout are the same), so a table can be assembled from rows run separately with `--only` (which
prints and leaves the README alone: only a full table replaces it). `--reuse --reuse-any` also reads
runs kept from another checkout (another worktree of the same commits, or an earlier commit of the
new side); the header then names each side's commits with their rows, from the kept metas
(`--kept-commit HOME=COMMIT` names a run kept before commits were recorded).

The new side is run at each cap in `--fractions` of the default budget (default 1 and 0.2); at a
cap below the default, today's main at that same cap (fixed n) is run beside it as the control:
a saving that today's main gets too at that cap is the default budget's generosity, not this
tree's doing. Where this tree registers another default budget than today's main (the diffprivlib
`LinearRegression` and `KMeans` presets: 4,000 against 2,000 and 1,000), the default line's cap is
this tree's, with today's main at that cap as its control, and the fractions after it are of this
tree's default. `--new CHECKOUT` runs the new side
from another checkout (e.g. a branch not merged yet), `--new-args` adds `dpaudit run` arguments
to it (e.g. `--pairs search`).
"""

from __future__ import annotations

import argparse
import ast
import datetime
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:  # imported as benchmarks.expensive (the tests) or run as a script from benchmarks/
    from benchmarks import known_bugs
    from benchmarks._venv_rows import package_of, venv_of, venv_python
except ImportError:
    import known_bugs  # type: ignore[no-redef]
    from _venv_rows import package_of, venv_of, venv_python  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
README = HERE / "README.md"
BEGIN, END = "<!-- expensive.py: begin -->", "<!-- expensive.py: end -->"
BAR = 0.2
"""The issue's bar: the same verdict at ≤ 1/5 of today's samples."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One audited mechanism: a registered preset, or a known-bugs row module (`known_bug`), in
    this interpreter (`requires` the modules it needs) or in the known-bugs venv of the library
    version `venv` (one of the row module's `VERSIONS`: the one with the bug it audits)."""

    name: str
    kind: str
    requires: tuple[str, ...] = ()
    known_bug: bool = False
    venv: str = ""


ROWS = (
    Row(name="diffprivlib_model_logistic_regression", kind="library model", requires=("diffprivlib",)),
    Row(name="diffprivlib_model_gaussian_nb", kind="library model", requires=("diffprivlib",)),
    Row(name="diffprivlib_model_linear_regression", kind="library model", requires=("diffprivlib",)),
    Row(name="smartnoise_dpcovariance", kind="synthesizer", known_bug=True, venv="1.0.5"),
    Row(name="opacus_expected_batch_size", kind="training", known_bug=True, venv="1.6.0"),
    Row(name="laplace_sum_range_bug", kind="textbook (buggy twin)"),
    Row(name="laplace_sum", kind="textbook"),
    Row(name="randomized_response", kind="textbook"),
    Row(name="private_decision_list", kind="learner"),
    Row(name="geo_halfplane_grid4_corrected", kind="learner"),
    Row(name="dpsgd_canary_t10", kind="training"),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """One side's run of one row: its verdict (or why there is none), samples per side, seconds."""

    verdict: str
    samples: int | None
    seconds: float | None
    epsilon: float | None = None


def missing(row: Row) -> list[str]:
    """The row's required modules that this interpreter cannot import."""
    return [m for m in row.requires if importlib.util.find_spec(m) is None]


def venv_words(row: Row) -> str:
    """What the table says of where a row ran: "venv: smartnoise-synth 1.0.5", or ""."""
    return f"venv: {package_of(row.name)} {row.venv}" if row.venv else ""


def interpreter(row: Row, *, cache: Path, make: bool) -> tuple[str, str]:
    """The python a row runs with, or why it cannot run: ("", reason). A venv row's python is its
    known-bugs venv's (made here with `make`, from the row module's `REQUIREMENTS`), others this
    interpreter, when it has the row's modules."""
    if row.venv:
        return venv_python(row.name, row.venv, cache=cache, make=make)
    lacking = ", ".join(missing(row))
    return ("", f"not installed: skipped ({lacking})") if lacking else (sys.executable, "")


def samples_spent(result: dict[str, Any]) -> int:
    """Samples per side an audit drew, from its result JSON. With a search (`extra.search`), its
    `total_samples` (pilot, selection top-up, certification × certified pairs) with the
    certification replaced by the result's own (where a sequential audit stopped: the search
    records the cap it planned); otherwise (registered pairs, templates) selection plus
    certification, times the pairs; a sequential audit with selection in rounds, what its rounds
    drew in all (`extra.sequential.drawn`, selection included), times the pairs; plus, when the
    default route's first round (`extra.first_round`) did not decide, what it drew, and when the
    first search round (`extra.search_rounds`) did not decide (a second ran), what it drew."""
    first = result.get("extra", {}).get("first_round")
    before = int(first["drawn"]) if isinstance(first, dict) and first["verdict"] != "violation_found" else 0
    rounds = result.get("extra", {}).get("search_rounds")
    if isinstance(rounds, dict) and not rounds["decided"]:
        before += int(rounds["drawn"])
    return before + _spent(result)


def _spent(result: dict[str, Any]) -> int:
    """`samples_spent` without the default route's first round."""
    seq = result.get("extra", {}).get("sequential")
    if isinstance(seq, dict) and "drawn" in seq:
        return int(seq["drawn"]) * len(result["pairs"])
    cert = int(result["certification_samples"])
    search = result.get("extra", {}).get("search")
    if isinstance(search, dict) and "total_samples" in search:
        k = len(search.get("certified_pairs", result["pairs"]))
        return int(search["total_samples"]) - int(search["certification_samples"]) * k + cert * k
    return (int(result["selection_samples"]) + cert) * len(result["pairs"])


def verdict_words(result: dict[str, Any]) -> str:
    return str(result["verdict"]).removesuffix("_found").replace("_", " ")


def read_outcome(json_path: Path, meta_path: Path) -> Outcome:
    """The outcome of a finished run from its kept stdout (the result JSON) and meta (exit code,
    wall seconds); a run without a result (exit 2, timeout) keeps its reason as the verdict."""
    meta = json.loads(meta_path.read_text())
    seconds = float(meta["seconds"])
    if meta["rc"] not in (0, 1):
        return Outcome(verdict=str(meta.get("reason") or f"exit {meta['rc']}"), samples=None, seconds=seconds)
    result = json.loads(json_path.read_text())
    return Outcome(
        verdict=verdict_words(result),
        samples=samples_spent(result),
        seconds=seconds,
        epsilon=float(result["epsilon_lower_bound"]),
    )


def num_samples_of(row: Row) -> int:
    """A known-bugs row's `NUM_SAMPLES` literal, read without importing it."""
    tree = ast.parse((HERE / "known_bugs_rows" / f"{row.name}.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "NUM_SAMPLES":
            return int(ast.literal_eval(node.value))
    raise SystemExit(f"error: benchmarks/known_bugs_rows/{row.name}.py has no NUM_SAMPLES")


def budget_of(row: Row, old: dict[str, Any] | None) -> int | None:
    """The row's default budget per side: a known-bugs row's `NUM_SAMPLES`, else the
    `--num-samples` today's main wrote into its result's command (its registered budget)."""
    if row.known_bug:
        return num_samples_of(row)
    found = re.search(r"--num-samples (\d+)", str((old or {}).get("command", "")))
    return int(found.group(1)) if found else None


def command(
    row: Row,
    *,
    sequential: bool,
    num_samples: int | None,
    extra: Sequence[str] = (),
    python: str = sys.executable,
) -> list[str]:
    """The `dpaudit run` command of one side, run by `python` (a venv row's venv): the new side is
    `sequential`, with `extra` arguments (`--new-args`, e.g. `--pairs search`)."""
    target = f"known_bugs_rows.{row.name}:mechanism" if row.known_bug else row.name
    cmd = [python, "-m", "dpaudit", "run", target, "--json", "--seed", "0"]
    if num_samples is not None:
        cmd += ["--num-samples", str(num_samples)]
    return cmd + (["--sequential", *extra] if sequential else [])


def run_side(row: Row, side: str, cmd: list[str], *, home: Path, work: Path, timeout: float) -> None:
    """Run one side of one row in its own process (`cmd[0]`, a venv's python for a venv row) from
    `home` (the checkout it imports), keeping stdout (the result JSON) and a meta file (command,
    venv, the checkout's commit, exit code, wall seconds)."""
    out = work / side
    out.mkdir(parents=True, exist_ok=True)
    path = [str(home)]
    if row.known_bug:  # the rows' package alone: benchmarks/ itself would shadow opacus
        path.append(str(known_bugs.rows_folder(work)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "OMP_NUM_THREADS": "1"}
    started = time.perf_counter()
    reason = ""
    with open(out / f"{row.name}.json", "w") as stdout, open(out / f"{row.name}.err", "w") as stderr:
        try:
            rc = subprocess.run(
                cmd, cwd=home, env=env, stdout=stdout, stderr=stderr, timeout=timeout
            ).returncode
        except subprocess.TimeoutExpired:
            rc, reason = -1, f"timeout ({timeout:.0f} s)"
    seconds = time.perf_counter() - started
    if rc not in (0, 1, -1):
        lines = (out / f"{row.name}.err").read_text().strip().splitlines()
        reason = f"exit {rc}: {lines[-1][:80]}" if lines else f"exit {rc}"
    meta = {
        "command": cmd[1:],
        "venv": venv_of(cmd),
        "home": str(home),
        "commit": commit_of(home),
        "rc": rc,
        "reason": reason,
        "seconds": seconds,
    }
    (out / f"{row.name}.meta.json").write_text(json.dumps(meta, indent=1))


def outcome(
    row: Row,
    side: str,
    cmd: list[str],
    *,
    home: Path,
    work: Path,
    timeout: float,
    reuse: bool,
    any_checkout: bool = False,
) -> Outcome:
    """One side's outcome: its kept result under `work/side` with `reuse` (the same command and
    venv, run from `home`, or from any checkout with `any_checkout`), else a fresh run."""
    meta = work / side / f"{row.name}.meta.json"
    kept_run = json.loads(meta.read_text()) if reuse and meta.is_file() else {}
    same = (kept_run.get("command"), kept_run.get("venv", "")) == (cmd[1:], venv_of(cmd))
    if not (same and (any_checkout or kept_run.get("home") == str(home))):
        run_side(row, side, cmd, home=home, work=work, timeout=timeout)
    return read_outcome(work / side / f"{row.name}.json", meta)


def bar(old: Outcome, new: Outcome) -> str:
    """Whether the row meets the issue's bar: the same verdict at ≤ 1/5 of today's samples, or a
    violation where today finds none."""
    if new.samples is None:
        return "no: no new result"
    if flagged(new) and not flagged(old):
        return "yes: new verdict"
    if old.samples is None or flagged(new) != flagged(old):
        return "no: verdict differs"
    ratio = new.samples / old.samples
    same = "" if new.verdict == old.verdict else " (both not flagged)"
    return f"yes{same}" if ratio <= BAR else f"no: {ratio:.3g} > {BAR:g}{same}"


def flagged(o: Outcome) -> bool:
    """Exit 1: a violation. "no violation" and "inconclusive" (this tree's word for a bound with no
    evidence, issue 42; today's main has no such verdict) both exit 0 and are compared as one."""
    return o.verdict == "violation"


def _n(x: int | None) -> str:
    return "—" if x is None else f"{x:,}"


def _s(x: float | None) -> str:
    return "—" if x is None else f"{x:.0f}"


def _v(o: Outcome) -> str:
    return o.verdict if o.epsilon is None else f"{o.verdict} (ε ≥ {o.epsilon:.2f})"


HEADER = (
    "| row | kind | old verdict | old samples/side | old s | new cap | new verdict "
    "| new samples/side to decision | new s | new/old samples | bar met "
    "| old at the new cap (samples/side) |\n"
    "|---|---|---|---:|---:|---|---|---:|---:|---:|---|---|"
)


def cap_words(fraction: float, cap: int | None) -> str:
    """The new side's cap: the default budget, or a fraction of it."""
    share = "default" if fraction == 1 else f"{fraction:g} × default"
    return share if cap is None else f"{share}: {cap:,}"


def table_line(
    row: Row,
    old: Outcome | None,
    new: Outcome | None,
    *,
    cap: str = "default",
    control: Outcome | None = None,
    why: str = "",
) -> str:
    """One Markdown line; `old`/`new` None when the row was skipped, `why` (its libraries or its
    venv missing); `control` is today's main at the new side's cap (`old` itself at the default
    cap). A venv row's kind names its venv."""
    kind = f"{row.kind}; {venv_words(row)}" if row.venv else row.kind
    if old is None or new is None:
        why = why or "not installed: skipped (" + ", ".join(missing(row) or row.requires) + ")"
        return f"| `{row.name}` | {kind} | {why} | — | — | {cap} | {why} | — | — | — | — | — |"
    seen = "same as old" if control is None or control is old else f"{_v(control)}, {_n(control.samples)}"
    ratio = "—" if old.samples is None or new.samples is None else f"{new.samples / old.samples:.4f}"
    return (
        f"| `{row.name}` | {kind} | {_v(old)} | {_n(old.samples)} | {_s(old.seconds)} | {cap} "
        f"| {_v(new)} | {_n(new.samples)} | {_s(new.seconds)} | {ratio} | {bar(old, new)} | {seen} |"
    )


def table(lines: list[str]) -> str:
    return "\n".join([HEADER, *lines])


def write_readme(block: str, readme: Path = README) -> None:
    """Replace what lies between the markers in `readme` by `block`."""
    text = readme.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"error: {readme} has no {BEGIN} … {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{BEGIN}\n{block}\n{END}{tail}")


def commit_of(home: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(home), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or "?"


def kept(work: Path, side: str, row: Row) -> dict[str, Any] | None:
    """A kept result JSON, None if the run left none."""
    path = work / side / f"{row.name}.json"
    text = path.read_text() if path.is_file() else ""
    return json.loads(text) if text.strip() else None


def _kw(args: argparse.Namespace) -> dict[str, Any]:
    return {"work": args.work, "timeout": args.timeout, "reuse": args.reuse, "any_checkout": args.reuse_any}


def row_lines(row: Row, args: argparse.Namespace) -> list[str]:
    """The row's table lines, one per new-side cap: today's main once at its default budget, this
    tree with `--sequential` at each fraction of that budget (the default budget itself at 1);
    both sides with the row's python (its venv's for a venv row)."""
    python, why = interpreter(row, cache=args.cache, make=args.make_venvs)
    if why:
        return [table_line(row, None, None, cap=cap_words(f, None), why=why) for f in args.fractions]
    base = None if not row.known_bug else num_samples_of(row)
    old_cmd = command(row, sequential=False, num_samples=base, python=python)
    old = outcome(row, "old", old_cmd, home=args.old.resolve(), **_kw(args))
    budget = budget_of(row, kept(args.work, "old", row))
    lines, scale = [], budget  # fractions of this tree's default once its line has read it
    for f in args.fractions:
        cap = base if f == 1 else (None if scale is None else max(1, round(f * scale)))
        if f != 1 and cap is None:
            none = Outcome(verdict="no default budget read", samples=None, seconds=None)
            lines.append(table_line(row, old, none, control=none))
            continue
        new = outcome(
            row,
            f"new-{f:g}",
            command(row, sequential=True, num_samples=cap, extra=args.new_args.split(), python=python),
            home=args.new.resolve(),
            **_kw(args),
        )
        control, shown = old, budget if f == 1 else cap
        if f == 1 and base is None:  # a registered budget this tree changed: today's main at it too
            own = budget_of(row, kept(args.work, f"new-{f:g}", row))
            if own is not None and own != budget:
                cap, shown, scale = own, own, own
        if cap is not None and (f != 1 or cap != (base or budget)):  # today's main at the same cap
            cmd = command(row, sequential=False, num_samples=cap, python=python)
            control = outcome(row, f"old-{f:g}", cmd, home=args.old.resolve(), **_kw(args))
        lines.append(table_line(row, old, new, cap=cap_words(f, shown), control=control))
    return lines


def provenance(shown: Sequence[Row], args: argparse.Namespace) -> str:
    """ "old = `C`, new = `C`": the commits the table's runs came from, read from their metas; a
    side whose runs came from several checkouts (`--reuse-any`) names each commit's rows. A run
    kept before commits were recorded is named by `--kept-commit HOME=COMMIT`, else its folder."""
    named = dict(kv.split("=", 1) for kv in args.kept_commit)
    ran = [r for r in shown if not interpreter(r, cache=args.cache, make=False)[1]]
    sides = {
        "old": ["old", *(f"old-{f:g}" for f in args.fractions if f != 1)],
        "new": [f"new-{f:g}" for f in args.fractions],
    }
    words = []
    for kind, folders in sides.items():
        by: dict[str, list[str]] = {}
        for row, folder in ((r, f) for r in ran for f in folders):
            meta = args.work / folder / f"{row.name}.meta.json"
            if meta.is_file():
                kept_run = json.loads(meta.read_text())
                commit = kept_run.get("commit") or named.get(kept_run["home"]) or kept_run["home"]
                if row.name not in by.setdefault(commit, []):
                    by[commit].append(row.name)
        if len(by) < 2:
            words.append(f"{kind} = `{next(iter(by), commit_of(getattr(args, kind)))}`")
        else:
            words.append(f"{kind} = " + "; ".join(f"`{c}` ({', '.join(rs)})" for c, rs in by.items()))
    return ", ".join(words)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--old", type=Path, required=True, help="checkout of today's main (e.g. 6e919db)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/dpaudit-expensive"), help="kept results")
    ap.add_argument("--only", nargs="+", default=[], metavar="ROW", choices=[r.name for r in ROWS])
    ap.add_argument("--reuse", action="store_true", help="read kept results instead of re-running")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per run (default 1800)")
    ap.add_argument(
        "--fractions",
        nargs="+",
        type=float,
        default=[1.0, 0.2],
        help="the new side's cap as fractions of the default budget (default: 1 0.2)",
    )
    ap.add_argument("--new", type=Path, default=CHECKOUT, help="checkout of the new side (default: this one)")
    ap.add_argument("--new-args", default="", help="further `dpaudit run` arguments of the new side")
    ap.add_argument("--no-readme", action="store_true", help="print only (as with --only)")
    ap.add_argument("--cache", type=Path, default=known_bugs.CACHE, help="the known-bugs venvs' folder")
    ap.add_argument("--make-venvs", action="store_true", help="make a venv row's venv if missing")
    ap.add_argument("--reuse-any", action="store_true", help="with --reuse: kept runs of any checkout")
    ap.add_argument("--kept-commit", nargs="+", default=[], metavar="HOME=COMMIT", help="older kept runs")
    args = ap.parse_args(argv)
    if not (args.old / "dpaudit" / "__init__.py").is_file():
        raise SystemExit(f"error: {args.old} is not a dpaudit checkout")
    lines, shown_rows = [], [r for r in ROWS if not args.only or r.name in args.only]
    for row in shown_rows:
        lines += row_lines(row, args)
        print("\n".join(lines[-len(args.fractions) :]), flush=True)
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    shown = " ".join(
        [
            "python benchmarks/expensive.py --old OLD",
            *(["--new NEW"] if args.new.resolve() != CHECKOUT else []),
            *(["--fractions", *(f"{f:g}" for f in args.fractions)] if args.fractions != [1.0, 0.2] else []),
            *([f"--new-args '{args.new_args}'"] if args.new_args else []),
            *(["--reuse --reuse-any"] if args.reuse and args.reuse_any else []),
            *(["--only", *args.only] if args.only else []),
        ]
    )
    block = (
        f"`{shown}` ({today}; {provenance(shown_rows, args)}; seed 0, "
        f"`OMP_NUM_THREADS=1`, one run per side, wall seconds on a shared 2-core machine)\n\n{table(lines)}"
    )
    print("\n" + block)
    if not (args.no_readme or args.only):  # only a full table replaces the README's
        write_readme(block)


if __name__ == "__main__":
    main()
