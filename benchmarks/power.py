"""Power of the learner audits against the white-box truth, one row per registered mechanism.

For each correct learner and each buggy twin of the chosen families it prints:

- `claim`: the ε of the claim that decides the verdict (the tightest proved claim);
- `reg`: the exact ε (the mechanism's `exact_epsilon` oracle) of its worst registered pair;
- `wb`: the best exact ε a white-box search finds over small pairs: the registered pairs, the
  worst-case template prefix of the mechanism's declared domain (`WorstCasePairs`) and local
  moves around every pair ranked so far, within `--search-seconds` (the count searched and the
  count the oracle could evaluate are printed, so the budget is stated);
- `cert`: the certified ε lower bound of `dpaudit run NAME` on its defaults (the default route,
  the registered default budget), and its exit code;
- `cert/reg`, `reg/claim` and `reg/wb`: the ratios the audit issues are judged by;
- with `--show-pairs`: the search's best pair under each row, both sides run-length encoded
  (`(x,y)xcount` per run of equal records), ready to be registered in `neighbor_pairs`;
- `util` / `bound`: measured excess error against the theorem's bound where the learner exposes
  `utility_check(rng=...)` (a `(measured, bound)` pair), and seconds.

    PYTHONPATH=. python3 -W ignore benchmarks/power.py --family 000,001 [--json] [--only NAME ...]

A twin is "caught" when `dpaudit run` exits 1; a correct learner must exit 0.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from dpaudit.engine.runner import white_box_reference
from dpaudit.mechanisms.base import Mechanism, claims_of
from dpaudit.mechanisms.registry import RegistryEntry, entries
from dpaudit.neighbors.base import NeighborPair, Relation
from dpaudit.neighbors.generators import WorstCasePairs
from dpaudit.neighbors.local_moves import local_moves
from dpaudit.neighbors.space import DEFAULT_MAX_ROWS


@dataclass(frozen=True, slots=True, kw_only=True)
class PowerRow:
    name: str
    family: str
    twin_of: str | None
    detectable: bool
    claim: float
    registered_exact: float | None
    search_exact: float | None
    search_ranked: int
    search_tried: int
    search_best_pair: str
    search_best_data: str
    certified: float | None
    exit_code: int
    utility: float | None
    utility_bound: float | None
    seconds: float


def oracle(mech: Mechanism, pair: NeighborPair, delta: float) -> float | None:
    """The white-box ε the audit itself reports (`audit.whitebox`: None when the oracle declines,
    fails or takes over its time limit, so one huge template pair cannot stall the search)."""
    return white_box_reference(mech, pair, delta=delta).epsilon


def _relations(mech: Mechanism) -> list[Relation]:
    rels = {c.relation for c in claims_of(mech)}
    return [r for r in Relation if any(c is r for c in rels)] or [mech.claim.relation]


def pair_text(pair: NeighborPair) -> str:
    """Both sides of a pair, run-length encoded: `(x, y)×count` per run of equal records, and
    the changed index, so a search's best pair can be pasted into a `neighbor_pairs`."""

    def rle(rows: Any) -> str:
        if len(rows) == 0:
            return "(empty)"
        runs: list[tuple[tuple[float, ...], int]] = []
        for row in np.asarray(rows).reshape(len(rows), -1):
            key = tuple(float(v) for v in row)
            if runs and runs[-1][0] == key:
                runs[-1] = (key, runs[-1][1] + 1)
            else:
                runs.append((key, 1))
        return " ".join(f"({','.join(f'{v:g}' for v in k)})x{c}" for k, c in runs)

    a, b = pair.dataset.records(), pair.neighbor.records()
    return f"n={len(a)}/{len(b)} [{pair.relation.name}]\n      A: {rle(a)}\n      B: {rle(b)}"


def white_box_search(
    mech: Mechanism, registered: Sequence[NeighborPair], *, delta: float, seconds: float, seed: int = 0
) -> tuple[float | None, int, int, str, str]:
    """(best exact ε, pairs tried, pairs the oracle ranked, best pair's description, best pair's
    data) over the registered pairs, the template prefix and local moves around the best pairs
    so far, until `seconds` run out."""
    deadline = time.monotonic() + seconds
    rng = np.random.default_rng(seed)
    ranked: list[tuple[float, NeighborPair]] = []
    tried = 0

    def rank(pairs: Iterable[NeighborPair]) -> bool:
        nonlocal tried
        for pair in pairs:
            if time.monotonic() > deadline:
                return False
            tried += 1
            value = oracle(mech, pair, delta)
            if value is not None:
                ranked.append((value, pair))
        return True

    domain = getattr(mech, "domain", None)
    templates: Iterable[NeighborPair] = ()
    if domain is not None:
        gens = [WorstCasePairs(max_rows=DEFAULT_MAX_ROWS).pairs(domain, r) for r in _relations(mech)]
        templates = (p for g in gens for p in g)
    if rank(registered) and rank(templates) and domain is not None:
        while time.monotonic() < deadline and ranked:
            ranked.sort(key=lambda vp: -vp[0])
            moves = [m for _, p in ranked[:4] for m in local_moves(p, domain, rng, count=4)]
            if not moves or not rank(moves):
                break
    if not ranked:
        return None, tried, 0, "", ""
    value, pair = max(ranked, key=lambda vp: vp[0])
    return value, tried, len(ranked), pair.description, pair_text(pair)


def certified_run(name: str, seed: int) -> tuple[float | None, int]:
    """`dpaudit run NAME` on its defaults: (certified ε lower bound, exit code)."""
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run(
            [
                sys.executable,
                "-W",
                "ignore",
                "-m",
                "dpaudit",
                "run",
                name,
                "--seed",
                str(seed),
                "--json",
                "--out",
                out,
                "--format",
                "json",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    if proc.returncode not in (0, 1):
        print(f"  {name}: dpaudit run exited {proc.returncode}: {proc.stderr.strip()[:200]}", file=sys.stderr)
        return None, proc.returncode
    try:
        value = json.loads(proc.stdout)["epsilon_lower_bound"]
    except (json.JSONDecodeError, KeyError, TypeError):
        print(f"  {name}: dpaudit run printed no result JSON: {proc.stderr.strip()[:200]}", file=sys.stderr)
        return None, proc.returncode
    return float(value), proc.returncode


def power_row(entry: RegistryEntry, *, seed: int, search_seconds: float) -> PowerRow:
    start = time.monotonic()
    mech = entry.build()
    claim = mech.claim
    registered = list(getattr(mech, "neighbor_pairs", lambda: ())())
    reg = [v for p in registered if (v := oracle(mech, p, claim.delta)) is not None]
    best, tried, ranked, best_pair, best_data = white_box_search(
        mech, registered, delta=claim.delta, seconds=search_seconds
    )
    cert, code = certified_run(entry.name, seed)
    util = bound = None
    check = getattr(mech, "utility_check", None)
    if callable(check):
        util, bound = (float(x) for x in check(rng=np.random.default_rng(seed)))
    return PowerRow(
        name=entry.name,
        family=entry.family,
        twin_of=entry.twin_of,
        detectable=entry.detectable,
        claim=claim.epsilon,
        registered_exact=max(reg, default=None),
        search_exact=best,
        search_ranked=ranked,
        search_tried=tried,
        search_best_pair=best_pair,
        search_best_data=best_data,
        certified=cert,
        exit_code=code,
        utility=util,
        utility_bound=bound,
        seconds=time.monotonic() - start,
    )


def _f(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "-"
    return "inf" if math.isinf(x) else f"{x:.{digits}f}"


def _ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b <= 0 or not math.isfinite(b):
        return "-"
    return f"{max(a, 0.0) / b:.2f}" if math.isfinite(a) else "inf"


HEADER = (
    f"{'mechanism':40s} {'claim':>6s} {'reg':>7s} {'wb':>7s} {'tried':>10s} {'cert':>7s} "
    f"{'c/reg':>6s} {'reg/cl':>6s} {'reg/wb':>6s} {'util':>6s} {'bound':>6s} {'sec':>6s} exit  status"
)


def status(row: PowerRow) -> str:
    if row.twin_of is None:
        return "ok" if row.exit_code == 0 else "FALSE ALARM" if row.exit_code == 1 else "error"
    if row.exit_code == 1:
        return "caught"
    return "missed" if row.detectable else "missed (listed undetectable)"


def format_row(row: PowerRow) -> str:
    return (
        f"{row.name:40s} {row.claim:6.3f} {_f(row.registered_exact):>7s} {_f(row.search_exact):>7s} "
        f"{row.search_ranked:>4d}/{row.search_tried:<5d} {_f(row.certified):>7s} "
        f"{_ratio(row.certified, row.registered_exact):>6s} {_ratio(row.registered_exact, row.claim):>6s} "
        f"{_ratio(row.registered_exact, row.search_exact):>6s} {_f(row.utility):>6s} "
        f"{_f(row.utility_bound):>6s} {row.seconds:6.1f} {row.exit_code:>4d}  {status(row)}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="000,001", help="family labels, e.g. 000,001 or 002 (comma list)")
    ap.add_argument("--only", nargs="*", default=None, help="only these registered names")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--search-seconds", type=float, default=10.0, help="white-box search time per mechanism")
    ap.add_argument("--show-pairs", action="store_true", help="print the white-box search's best pair")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON instead of a table")
    args = ap.parse_args(argv)
    wanted = {f.strip() for f in args.family.split(",")}
    chosen = [
        e
        for e in entries().values()
        if (args.only is None or e.name in args.only) and wanted & set(e.family.split(","))
    ]
    rows = []
    if not args.json:
        print(HEADER, flush=True)
    for e in chosen:
        row = power_row(e, seed=args.seed, search_seconds=args.search_seconds)
        rows.append(row)
        if not args.json:
            print(format_row(row), flush=True)
            if args.show_pairs and row.search_best_pair:
                print(f"    white-box best: {row.search_best_pair}", flush=True)
                print(f"      {row.search_best_data}", flush=True)
    twins = [r for r in rows if r.twin_of is not None and r.detectable]
    correct = [r for r in rows if r.twin_of is None]
    summary = {
        "twins_caught": sum(r.exit_code == 1 for r in twins),
        "twins_detectable": len(twins),
        "false_alarms": sum(r.exit_code == 1 for r in correct),
        "errors": sum(r.exit_code not in (0, 1) for r in rows),
    }
    if args.json:
        print(json.dumps({"rows": [_jsonable(asdict(r)) for r in rows], "summary": summary}, indent=2))
    else:
        print(
            f"\ntwins caught (detectable): {summary['twins_caught']}/{summary['twins_detectable']}; "
            f"correct learners flagged: {summary['false_alarms']}; errors: {summary['errors']}"
        )
    return 0


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    return {k: (str(v) if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}


if __name__ == "__main__":
    raise SystemExit(main())
