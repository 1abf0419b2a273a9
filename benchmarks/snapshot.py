"""Fingerprint every registered mechanism's audit result, to show a refactor changes nothing.

Runs `dpaudit run NAME --json` in-process for every registered mechanism (or `--only` names) at
a small budget (or the mechanism's own default where smaller) on both routes (`--pairs
registered` and `--pairs all`), drops the fields that measure time, and writes one JSON object
{name/route: result}, after each result (`--resume` continues an interrupted run). Compare two snapshots with
`--compare OLD NEW`: exit 1 and the differing names when numbers, events or verdicts differ;
results that differ only in prose (claim references, notes, descriptions) are counted apart, and
so are results that say they do not reproduce from the seed (`"seedable": false` on both sides).

Values renamed on purpose and listed in CHANGELOG.md (`RENAMED`) are mapped to their new form on
both sides first, and counted apart. `--compare-runs OLD_DIR NEW_DIR` compares two main jobs'
`--format json` results (`dpaudit run --all --out DIR --format json`) file by file the same way.

    PYTHONPATH=/path/to/old/checkout python benchmarks/snapshot.py --out before.json
    python benchmarks/snapshot.py --out after.json
    python benchmarks/snapshot.py --compare before.json after.json
    python benchmarks/snapshot.py --compare-runs old-run/ new-run/
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

VOLATILE = {"seconds", "elapsed", "timestamp", "created", "started", "finished", "wall_seconds", "duration"}


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE and not k.endswith("_seconds")}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _run(name: str, route: str, num_samples: int, seed: int) -> Any:
    from dpaudit.app.cli import main

    out, err = io.StringIO(), io.StringIO()
    argv = ["run", name, "--num-samples", str(num_samples), "--seed", str(seed), "--json", "--pairs", route]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    text = out.getvalue()
    try:
        return {"exit": code, "result": _strip(json.loads(text))}
    except json.JSONDecodeError:
        return {"exit": code, "stderr": err.getvalue().strip().splitlines()[-1:]}


def snapshot(
    budgets: dict[str, int], *, seed: int, out_path: str, done: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Both routes of every named mechanism at its budget; the file is rewritten after each result,
    so an interrupted run keeps what it finished (`--resume` skips it)."""
    out: dict[str, Any] = dict(done or {})
    for i, (name, num_samples) in enumerate(budgets.items()):
        for route in ("registered", "all"):
            key = f"{name}/{route}"
            if key in out:
                continue
            t = time.monotonic()
            out[key] = _run(name, route, num_samples, seed)
            with open(out_path, "w") as f:
                json.dump(out, f, indent=1, sort_keys=True)
            print(f"[{i + 1}/{len(budgets)}] {name} {route} {time.monotonic() - t:.1f}s", file=sys.stderr)
    return out


def budgets_of(names: list[str], num_samples: int) -> dict[str, int]:
    """The script's budget, or a mechanism's own default where that is smaller (the library models
    fit a model per sample: `default_num_samples` 1,000)."""
    from dpaudit.mechanisms.registry import entries

    known = entries()
    return {
        n: min(num_samples, known[n].default_num_samples or num_samples) if n in known else num_samples
        for n in names
    }


WORDING = {
    "reference",
    "note",
    "description",
    "certified_pairs",
    "findings",
    "warnings",
    "summary",
    "bug",
    "exact_epsilon",
    "exact_epsilon_method",
}
"""Fields that hold prose (claim references, notes, pair descriptions and the search's list of them,
findings) or the white-box
reference (descriptive, and cut off after 10 s per oracle call, so it can vary with machine load):
a change there is reported separately from a change of numbers, events or verdicts."""


def _numbers_only(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _numbers_only(v) for k, v in value.items() if k not in WORDING}
    if isinstance(value, list):
        return [_numbers_only(v) for v in value]
    return value


RENAMED: dict[str, dict[str, str]] = {"type": {"score": "learned-statistic"}}
"""Key → {old value: new value} for values renamed on purpose (CHANGELOG.md, issue 43: learned
events are written with `"type": "learned-statistic"`; the old name is still read)."""


def _renamed(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: RENAMED[k].get(v, v) if k in RENAMED and isinstance(v, str) else _renamed(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_renamed(v) for v in value]
    return value


def classify(old: dict[str, Any], new: dict[str, Any]) -> dict[str, list[str]]:
    """Each key of either side as identical, renamed (identical after `RENAMED`), wording (differs
    only in prose), unseedable (both sides say they do not reproduce) or differs (numbers, events or
    verdicts)."""
    kinds = ("identical", "renamed", "wording", "unseedable", "differs")
    out: dict[str, list[str]] = {kind: [] for kind in kinds}
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k), new.get(k)
        if a == b:
            out["identical"].append(k)
        elif _renamed(a) == _renamed(b):
            out["renamed"].append(k)
        elif _numbers_only(_renamed(a)) == _numbers_only(_renamed(b)):
            out["wording"].append(k)
        elif _unseedable(a) and _unseedable(b):
            out["unseedable"].append(k)
        else:
            out["differs"].append(k)
    return out


def _unseedable(value: Any) -> bool:
    """A result that says it does not reproduce from its seed (`"seedable": false`: a library
    whose noise the audit cannot seed): it differs between any two runs of one tree."""
    if not isinstance(value, dict):
        return False
    result = value.get("result", value)
    return isinstance(result, dict) and result.get("seedable") is False


def _report(old: dict[str, Any], new: dict[str, Any]) -> int:
    kinds = classify(old, new)
    print(
        f"{len(old)} vs {len(new)} results; {len(kinds['identical'])} identical; "
        f"{len(kinds['renamed'])} identical after the renames listed in CHANGELOG.md; "
        f"{len(kinds['wording'])} differ only in wording; {len(kinds['unseedable'])} not seedable "
        f"(differ run to run); {len(kinds['differs'])} differ"
    )
    for k in kinds["wording"]:
        print("  wording:", k)
    for k in kinds["unseedable"]:
        print("  not seedable:", k)
    for k in kinds["differs"]:
        print("  differs:", k)
    return 1 if kinds["differs"] else 0


def compare(old_path: str, new_path: str) -> int:
    with open(old_path) as f:
        old = json.load(f)
    with open(new_path) as f:
        new = json.load(f)
    return _report(old, new)


def _run_files(folder: str) -> dict[str, Any]:
    """Every JSON file of a main job's output folder, by its path in the folder, times dropped."""
    root = Path(folder)
    return {str(p.relative_to(root)): _strip(json.loads(p.read_text())) for p in sorted(root.rglob("*.json"))}


def compare_runs(old_dir: str, new_dir: str) -> int:
    return _report(_run_files(old_dir), _run_files(new_dir))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--only", default="", help="comma-separated names (default: every registered mechanism)")
    ap.add_argument("--num-samples", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--resume", action="store_true", help="keep the results already in --out")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    ap.add_argument("--compare-runs", nargs=2, metavar=("OLD_DIR", "NEW_DIR"))
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.compare_runs:
        return compare_runs(*args.compare_runs)
    from dpaudit.mechanisms.registry import entries

    names = args.only.split(",") if args.only else list(entries())
    done = None
    if args.resume and Path(args.out).exists():
        done = json.loads(Path(args.out).read_text())
    snapshot(budgets_of(names, args.num_samples), seed=args.seed, out_path=args.out, done=done)
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
