"""Held-out gates on a declared table (`tests/blind_tabular.py`), blind at small budgets (issue 44,
item 2): bound and decision per row, budget and seed, with the table's declared columns
(`DesignAxis`: numeric bounds, every category and label enumerated) and without them (the
space-filling design over the record box, no level locations: the search before this change).

Each audit is `dpaudit run tests.blind_tabular:NAME --pairs search --num-samples N --seed S`
(`search_and_certify` at budget N). A row is right when a buggy gate is flagged and its noisy
twin is not.

    python benchmarks/blind_tabular.py [--budgets 1000 2000 3000 5000] [--seeds 0 1 2] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from dpaudit.engine.search import search_and_certify
from dpaudit.engine.types import AuditConfig


def _parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budgets", type=int, nargs="*", default=[1000, 2000, 3000, 5000])
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    ap.add_argument("--only", nargs="*", default=None, help="only these rows")
    return ap.parse_args()


def main() -> None:
    args = _parse()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's tests/
    from tests.blind_tabular import TABULAR

    print(f"{'mechanism':30s} {'budget':>6s} {'seed':>4s} {'bound':>7s} {'without':>7s} {'s':>5s}  ok")
    wrong = []
    for row in TABULAR:
        if args.only and row.name not in args.only:
            continue
        mech = row.mechanism
        plain = dataclasses.replace(mech, domain=dataclasses.replace(mech.domain, design=None))
        for budget in args.budgets:
            for seed in args.seeds:
                config = AuditConfig(num_samples=budget, seed=seed)
                t = time.perf_counter()
                found = search_and_certify(row.mechanism, config, budget=budget).certified
                seconds = time.perf_counter() - t
                without = search_and_certify(plain, config, budget=budget).certified
                ok = found.violation == row.buggy
                if not ok:
                    wrong.append(f"{row.name} at {budget} seed {seed}")
                flag = lambda r: f"{r.epsilon_lower_bound:6.2f}{'*' if r.violation else ' '}"  # noqa: E731
                print(
                    f"{row.name:30s} {budget:6d} {seed:4d} {flag(found)} {flag(without)} "
                    f"{seconds:5.1f}  {'ok' if ok else 'WRONG'}"
                )
    print("* flagged (a violation certified). 'without': the same audit without the declared columns.")
    print("all right" if not wrong else "wrong: " + ", ".join(wrong))


if __name__ == "__main__":
    main()
