"""Benchmark for 004 (HS-StL, LazyBregBoost).

Prints per mechanism: proved claim, certified bound, oracle ε (max over pairs with an oracle),
bound/oracle, samples per side, seconds, audit samples/s and raw sampler samples/s.
Run: PYTHONPATH=. python3 benchmarks/boosting.py [NAME ...]
"""

from __future__ import annotations

import sys

from _family import audit_table, print_claims

from dpaudit.mechanisms.boosting import REGISTRY_ENTRIES

BUDGET = {"hs_stl": 200_000}


if __name__ == "__main__":
    only = set(sys.argv[1:])
    audit_table((e for e in REGISTRY_ENTRIES if not only or e.name in only), BUDGET)
    print_claims(REGISTRY_ENTRIES, "hs_stl")
