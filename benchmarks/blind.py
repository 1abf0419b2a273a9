"""Blind user mechanisms (`tests/blind_mechanisms.py`, then the held-out region gates of
`tests/blind_regions.py`): decision, bound, truth and seconds per row.

Each row is audited as `dpaudit run tests.blind_mechanisms:NAME --seed S` would audit it: the
default route (the pair search, with the boundary templates standing in for registered pairs, since
none are registered), at the default budget (10⁶ samples per side per boundary template). A row is
right when a buggy mechanism (true ε above the claim) is flagged and a correct one is not.

`--registered` also audits, for the rows that carry hand-written pairs (`Row.registered`: the
pairs a user who knew the bug would register), those pairs alone at the same budget and seed, and
prints that bound and blind / registered (issue 35, item 4: how much of a hand-written audit's
power the blind route keeps); "-" for rows without.

    python benchmarks/blind.py [--seeds 0 1 2] [--only NAME ...] [--num-samples N] [--registered]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from dpaudit.api import audit


def _parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    ap.add_argument("--only", nargs="*", default=None, help="only these rows")
    ap.add_argument("--num-samples", type=int, default=None, help="default: 10^6 (as dpaudit run)")
    ap.add_argument("--registered", action="store_true", help="also audit each row's hand-written pairs")
    return ap.parse_args()


def _fmt(x: float) -> str:
    return f"{x:7.3f}" if math.isfinite(x) else f"{x:>7}"


def _ratio(blind: float, registered: float) -> str:
    """blind / registered, both clipped at 0 ("-" when the registered bound is not positive)."""
    if not registered > 0:
        return f"{'-':>5s}"
    if not math.isfinite(registered):
        return f"{'1' if blind == registered else '0':>5s}"
    return f"{max(blind, 0.0) / registered:5.2f}"


def main() -> None:
    args = _parse()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's tests/
    from tests.blind_mechanisms import ROWS as MECHANISM_ROWS
    from tests.blind_regions import HELD_OUT

    rows = (*MECHANISM_ROWS, *HELD_OUT)  # issue 44: gates on regions no template names

    head = f"{'mechanism':26s} {'seed':>4s} {'claim':>5s} {'truth':>7s} {'bound':>7s}"
    if args.registered:
        head += f" {'regist.':>7s} {'b/r':>5s}"
    print(f"{head} {'decision':>9s} {'s':>6s}  ok")
    wrong = []
    for row in rows:
        if args.only and row.name not in args.only:
            continue
        for seed in args.seeds:
            t = time.perf_counter()
            r = audit(row.mechanism, num_samples=args.num_samples, seed=seed)
            seconds = time.perf_counter() - t
            ok = r.violation == row.buggy
            if not ok:
                wrong.append(f"{row.name} seed {seed}")
            decision = "flagged" if r.violation else "-"
            reg = ""
            if args.registered:
                reg = f" {'-':>7s} {'-':>5s}"
                if row.registered:
                    rr = audit(
                        row.mechanism, pairs=list(row.registered), num_samples=args.num_samples, seed=seed
                    )
                    b, g = r.epsilon_lower_bound, rr.epsilon_lower_bound
                    reg = f" {_fmt(g)} {_ratio(b, g)}"
            verdict = "ok" if ok else "WRONG"
            print(
                f"{row.name:26s} {seed:4d} {row.mechanism.claim.epsilon:5g} {_fmt(row.truth)} "
                f"{_fmt(r.epsilon_lower_bound)}{reg} {decision:>9s} {seconds:6.1f}  {verdict}",
                flush=True,
            )
    print(f"\n{len(wrong)} wrong decision(s)" + (": " + ", ".join(wrong) if wrong else ""))


if __name__ == "__main__":
    main()
