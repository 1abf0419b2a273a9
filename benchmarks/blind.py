"""Blind user mechanisms (`tests/blind_mechanisms.py`): decision, bound, truth and seconds per row.

Each row is audited as `dpaudit run tests.blind_mechanisms:NAME --seed S` would audit it: the
default route (the pair search, with the boundary templates standing in for registered pairs, since
none are registered), at the default budget (10⁶ samples per side per boundary template). A row is
right when a buggy mechanism (true ε above the claim) is flagged and a correct one is not.

    python benchmarks/blind.py [--seeds 0 1 2] [--only NAME ...] [--num-samples N]
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
    return ap.parse_args()


def _fmt(x: float) -> str:
    return f"{x:7.3f}" if math.isfinite(x) else f"{x:>7}"


def main() -> None:
    args = _parse()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's tests/
    from tests.blind_mechanisms import ROWS

    head = f"{'mechanism':26s} {'seed':>4s} {'claim':>5s} {'truth':>7s} {'bound':>7s}"
    print(f"{head} {'decision':>9s} {'s':>6s}  ok")
    wrong = []
    for row in ROWS:
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
            print(
                f"{row.name:26s} {seed:4d} {row.mechanism.claim.epsilon:5g} {_fmt(row.truth)} "
                f"{_fmt(r.epsilon_lower_bound)} {decision:>9s} {seconds:6.1f}  {'ok' if ok else 'WRONG'}",
                flush=True,
            )
    print(f"\n{len(wrong)} wrong decision(s)" + (": " + ", ".join(wrong) if wrong else ""))


if __name__ == "__main__":
    main()
