"""Benchmark for 003 (decision lists, DP-Winnow, online decision lists).

Prints per mechanism: proved claim, certified bound, oracle ε (max over pairs with an oracle),
bound/oracle, samples per side, seconds, audit samples/s and raw sampler samples/s.
Run: PYTHONPATH=. python3 benchmarks/decision_lists.py [NAME ...]
"""

from __future__ import annotations

import sys

from _family import audit_table, print_claims

from dpaudit.mechanisms.decision_lists import REGISTRY_ENTRIES

BUDGET = {
    "dp_winnow_no_cap": 200_000,
    "online_decision_list": 100_000,
    "dp_winnow_one_draw_charge": 200_000,
    "private_decision_list_medium": 30_000,
}


if __name__ == "__main__":
    only = set(sys.argv[1:])
    audit_table((e for e in REGISTRY_ENTRIES if not only or e.name in only), BUDGET)
    print_claims(REGISTRY_ENTRIES, "private_decision_list")
    w = print_claims(REGISTRY_ENTRIES, "dp_winnow")
    print(f"dp_winnow W1 binomial oracle eps(1e-5) = {w.sampling_epsilon(1e-5):.4f}")  # type: ignore[attr-defined]
