"""What a smaller search pilot costs the sequential default route, and what the search in two
rounds saves: every buggy twin audited at several settings (issue 44).

    python benchmarks/pilot_fraction.py [--settings auto auto/one 0.05/one] [--seed 0] [--jobs 2]
                                        [--optimism 0.1] [--correct] [--only NAME ...]

Each audit is `dpaudit run NAME --sequential --seed S [--pilot-fraction F]` at the twin's
registered budget (the sequential default route: the first round on the registered pairs at a quarter of β,
then the pair search at the rest, certified sequentially); twins of the DP-library and Opacus
families are left out, as in the main job. A setting is a pilot fraction ("auto": without
`--pilot-fraction`, the default that adapts to the budget) and, with "/one", the search as one
round on the whole budget (`Route(search_rounds=False)`, as before the search ran in two rounds);
without it the route's default, a first search round on a quarter of the budget and a second
only when the first is not decided (`route.SEARCH_FIRST`). Printed: one row per twin where any
setting differs from the first or where the search mattered (not decided in the first round),
leaving out twins registered `detectable=False` that no setting flags; then per setting the
twins flagged, those decided in the first round, and the pilot samples per side drawn in all,
both search rounds' (every twin counted), and the samples per side drawn in all. `--correct` runs
the main job's correct mechanisms instead (a violation there would be a false one, or a claim
that does not hold). `--optimism G` sets the futility projection's γ
(`benchmarks/futility_bet.py`) for every audit, for this script only.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from dataclasses import dataclass

from dpaudit.app.route import Route, certify
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.libraries import FAMILY as LIBRARIES
from dpaudit.mechanisms.opacus import FAMILY as OPACUS
from dpaudit.mechanisms.registry import entries, resolve

try:  # imported as benchmarks.pilot_fraction (the tests) or run as a script from benchmarks/
    from benchmarks.futility_bet import drawn, optimism
except ImportError:
    from futility_bet import drawn, optimism  # type: ignore[no-redef]


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """One twin's sequential audit at one pilot fraction."""

    name: str
    fraction: float | None
    """The pilot fraction asked (None: the automatic default)."""
    rounds: bool = True
    """The search in two rounds (the route's default); False: one search."""
    violation: bool
    epsilon: float
    first_round: bool
    """Decided by a violation in the first round (no search ran)."""
    pilot: int
    """Pilot samples per side the search drew (0 without a search)."""
    detectable: bool
    drawn: int = 0
    """Samples per side the route drew in all (first round, both search rounds, certification
    where it stopped; `futility_bet.drawn`)."""


def twins(*, buggy: bool = True) -> list[str]:
    """The registered buggy twins the main job's families hold (`buggy=False`: the correct
    mechanisms the main job audits)."""
    return [e.name for e in entries().values() if e.buggy == buggy and e.family not in (LIBRARIES, OPACUS)]


Setting = tuple[float | None, bool]
"""A pilot fraction (None: automatic) and whether the search runs in two rounds."""


def audit(
    name: str, fraction: float | None, seed: int, *, rounds: bool = True, gamma: float | None = None
) -> Outcome:
    mechanism, entry = resolve(name, {})
    assert entry is not None
    config = AuditConfig(num_samples=entry.default_num_samples, seed=seed, sequential=True)
    route = Route(mode="all", pilot_fraction=fraction, search_rounds=rounds)
    with optimism(gamma) if gamma is not None else contextlib.nullcontext():
        r = certify(mechanism, config, route, show_progress=False).result
    search, first = r.extra.get("search"), r.extra.get("first_round")
    pilot = int(search.get("pilot_samples", 0)) if isinstance(search, dict) else 0
    earlier = r.extra.get("search_rounds")
    if isinstance(earlier, dict) and not earlier["decided"]:
        pilot += int(earlier["pilot"])
    return Outcome(
        name=name,
        fraction=fraction,
        rounds=rounds,
        violation=bool(r.violation),
        epsilon=float(r.epsilon_lower_bound),
        first_round=isinstance(first, dict) and first.get("verdict") == "violation_found",
        pilot=pilot,
        detectable=entry.detectable,
        drawn=drawn(r),
    )


def label(setting: Setting) -> str:
    fraction, rounds = setting
    return ("auto" if fraction is None else f"{fraction:g}") + ("" if rounds else ", one search")


def parse(text: str) -> Setting:
    """"auto", "0.05", "auto/one", "0.05/one"."""
    fraction, _, one = text.partition("/")
    if one not in ("", "one"):
        raise SystemExit(f"a setting is a fraction or auto, optionally /one; got {text!r}")
    return (None if fraction == "auto" else float(fraction)), not one


def table(outcomes: list[Outcome], settings: list[Setting], *, kind: str = "twin") -> list[str]:
    by: dict[str, dict[Setting, Outcome]] = {}
    for o in outcomes:
        by.setdefault(o.name, {})[(o.fraction, o.rounds)] = o
    head = " | ".join(f"pilot fraction {label(f)}" for f in settings)
    lines = [f"| {kind} | detectable | {head} |", "|---|---|" + "---|" * len(settings)]
    for name, row in by.items():
        first = row[settings[0]]
        differs = any(row[f].violation != first.violation for f in settings)
        never = not any(row[f].violation for f in settings)
        if (first.first_round and not differs) or (never and not first.detectable):
            continue
        cells = " | ".join(
            f"{'V' if row[f].violation else '-'} {row[f].epsilon:.3f} (pilot {row[f].pilot:,}; "
            f"drawn {row[f].drawn:,})"
            for f in settings
        )
        lines.append(f"| `{name}` | {'yes' if first.detectable else 'no'} | {cells} |")
    lines += [
        "",
        "| pilot fraction | flagged | decided in the first round | pilot samples per side "
        "| samples per side drawn in all |",
        "|---|---|---|---|---|",
    ]
    for f in settings:
        mine = [o for o in outcomes if (o.fraction, o.rounds) == f]
        flagged = sum(o.violation for o in mine)
        decided = sum(o.first_round for o in mine)
        pilot, spent = sum(o.pilot for o in mine), sum(o.drawn for o in mine)
        lines.append(f"| {label(f)} | {flagged}/{len(mine)} | {decided} | {pilot:,} | {spent:,} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--settings",
        nargs="+",
        default=["auto", "auto/one"],
        help='"auto" or a share in (0, 1), with "/one" for one search round',
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--optimism",
        type=float,
        default=None,
        help="the futility projection's γ for every audit (default: the product's, 1e-4)",
    )
    ap.add_argument("--jobs", type=int, default=1, help="processes (one audit each)")
    ap.add_argument("--only", nargs="+", default=None, help="these twins only")
    ap.add_argument(
        "--correct", action="store_true", help="the main job's correct mechanisms instead of the twins"
    )
    args = ap.parse_args()
    names = args.only or twins(buggy=not args.correct)
    settings = [parse(s) for s in args.settings]
    start = time.perf_counter()
    from joblib import Parallel, delayed

    gamma = args.optimism
    calls = (delayed(audit)(n, f, args.seed, rounds=r, gamma=gamma) for n in names for f, r in settings)
    outcomes = list(Parallel(n_jobs=args.jobs)(calls))
    said = "" if gamma is None else f", futility γ = {gamma:g}"
    kind = "mechanism" if args.correct else "twin"
    print(f"sequential default route, seed {args.seed}, {len(names)} {kind}s, registered budgets{said}")
    print("\n".join(table(outcomes, settings, kind=kind)))
    print(f"\n{time.perf_counter() - start:.0f} s wall")


if __name__ == "__main__":
    main()
