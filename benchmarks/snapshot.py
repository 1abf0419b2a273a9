"""Fingerprint every registered mechanism's audit result, to show a refactor changes nothing.

Runs `dpaudit run NAME --json` in-process for every registered mechanism (or `--only` names) at
a small budget on both routes (`--pairs registered` and `--pairs all`), drops the fields that
measure time, and writes one JSON object {name/route: result}. Compare two snapshots with
`--compare OLD NEW`: exit 1 and the differing names when numbers, events or verdicts differ;
results that differ only in prose (claim references, notes, descriptions) are counted apart.

    PYTHONPATH=/path/to/old/checkout python benchmarks/snapshot.py --out before.json
    python benchmarks/snapshot.py --out after.json
    python benchmarks/snapshot.py --compare before.json after.json
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
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


def snapshot(names: list[str], *, num_samples: int, seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, name in enumerate(names):
        for route in ("registered", "all"):
            t = time.monotonic()
            out[f"{name}/{route}"] = _run(name, route, num_samples, seed)
            print(f"[{i + 1}/{len(names)}] {name} {route} {time.monotonic() - t:.1f}s", file=sys.stderr)
    return out


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


def compare(old_path: str, new_path: str) -> int:
    with open(old_path) as f:
        old = json.load(f)
    with open(new_path) as f:
        new = json.load(f)
    keys = sorted(set(old) | set(new))
    differ = [k for k in keys if _numbers_only(old.get(k)) != _numbers_only(new.get(k))]
    worded = [k for k in keys if k not in differ and old.get(k) != new.get(k)]
    print(f"{len(old)} vs {len(new)} results; {len(differ)} differ; {len(worded)} differ only in wording")
    for k in differ:
        print("  differs:", k)
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--only", default="", help="comma-separated names (default: every registered mechanism)")
    ap.add_argument("--num-samples", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    from dpaudit.mechanisms.registry import entries

    names = args.only.split(",") if args.only else list(entries())
    result = snapshot(names, num_samples=args.num_samples, seed=args.seed)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
