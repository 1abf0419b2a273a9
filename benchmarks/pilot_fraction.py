"""What a smaller search pilot costs the sequential default route: every buggy twin audited at
several pilot fractions (issue 44: the measurement behind a search pilot in rounds).

    python benchmarks/pilot_fraction.py [--fractions auto 0.05] [--seed 0] [--jobs 2] [--only NAME ...]

Each audit is `dpaudit run NAME --sequential --seed S [--pilot-fraction F]` ("auto": without it,
the default that adapts to the budget; the gate's route: the
first round on the registered pairs at a quarter of β, then the pair search at the rest, certified
sequentially), at the twin's registered budget; twins of the DP-library and Opacus families are
left out, as in the main job. A search pilot in rounds would start with a small pilot and go on
only when that round is not futile; this table shows which twins a small pilot alone would lose or
gain. Printed: one row per twin where any fraction differs from the first or where the search
mattered (not decided in the first round), leaving out twins registered `detectable=False` that no
fraction flags; then per fraction the twins flagged, those decided in the first round, and the
pilot samples per side drawn in all (every twin counted).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from dpaudit.app.route import Route, certify
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.libraries import FAMILY as LIBRARIES
from dpaudit.mechanisms.opacus import FAMILY as OPACUS
from dpaudit.mechanisms.registry import entries, resolve


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """One twin's sequential audit at one pilot fraction."""

    name: str
    fraction: float | None
    """The pilot fraction asked (None: the automatic default)."""
    violation: bool
    epsilon: float
    first_round: bool
    """Decided by a violation in the first round (no search ran)."""
    pilot: int
    """Pilot samples per side the search drew (0 without a search)."""
    detectable: bool


def twins() -> list[str]:
    """The registered buggy twins the main job's families hold."""
    return [e.name for e in entries().values() if e.buggy and e.family not in (LIBRARIES, OPACUS)]


def audit(name: str, fraction: float | None, seed: int) -> Outcome:
    mechanism, entry = resolve(name, {})
    assert entry is not None
    config = AuditConfig(num_samples=entry.default_num_samples, seed=seed, sequential=True)
    r = certify(mechanism, config, Route(mode="all", pilot_fraction=fraction), show_progress=False).result
    search, first = r.extra.get("search"), r.extra.get("first_round")
    pilot = int(search.get("pilot_samples", 0)) if isinstance(search, dict) else 0
    return Outcome(
        name=name,
        fraction=fraction,
        violation=bool(r.violation),
        epsilon=float(r.epsilon_lower_bound),
        first_round=isinstance(first, dict) and first.get("verdict") == "violation_found",
        pilot=pilot,
        detectable=entry.detectable,
    )


def label(fraction: float | None) -> str:
    return "auto" if fraction is None else f"{fraction:g}"


def table(outcomes: list[Outcome], fractions: list[float | None]) -> list[str]:
    by: dict[str, dict[float | None, Outcome]] = {}
    for o in outcomes:
        by.setdefault(o.name, {})[o.fraction] = o
    head = " | ".join(f"pilot fraction {label(f)}" for f in fractions)
    lines = [f"| twin | detectable | {head} |", "|---|---|" + "---|" * len(fractions)]
    for name, row in by.items():
        first = row[fractions[0]]
        differs = any(row[f].violation != first.violation for f in fractions)
        never = not any(row[f].violation for f in fractions)
        if (first.first_round and not differs) or (never and not first.detectable):
            continue
        cells = " | ".join(
            f"{'V' if row[f].violation else '-'} {row[f].epsilon:.3f} (pilot {row[f].pilot:,})"
            for f in fractions
        )
        lines.append(f"| `{name}` | {'yes' if first.detectable else 'no'} | {cells} |")
    lines += [
        "",
        "| pilot fraction | flagged | decided in the first round | pilot samples per side |",
        "|---|---|---|---|",
    ]
    for f in fractions:
        mine = [o for o in outcomes if o.fraction == f]
        flagged = sum(o.violation for o in mine)
        decided = sum(o.first_round for o in mine)
        lines.append(f"| {label(f)} | {flagged}/{len(mine)} | {decided} | {sum(o.pilot for o in mine):,} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fractions", nargs="+", default=["auto", "0.05"], help='"auto" or a share in (0, 1)')
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="processes (one audit each)")
    ap.add_argument("--only", nargs="+", default=None, help="these twins only")
    args = ap.parse_args()
    names = args.only or twins()
    fractions = [None if f == "auto" else float(f) for f in args.fractions]
    start = time.perf_counter()
    from joblib import Parallel, delayed

    calls = (delayed(audit)(n, f, args.seed) for n in names for f in fractions)
    outcomes = list(Parallel(n_jobs=args.jobs)(calls))
    print(f"sequential default route, seed {args.seed}, {len(names)} twins, registered budgets")
    print("\n".join(table(outcomes, fractions)))
    print(f"\n{time.perf_counter() - start:.0f} s wall")


if __name__ == "__main__":
    main()
