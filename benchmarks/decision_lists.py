"""Benchmark for 003 (decision lists, DP-Winnow, online decision lists).

Prints per mechanism: proved claim, certified bound, oracle ε (max over pairs with an oracle),
bound/oracle, samples per side, seconds, audit samples/s and raw sampler samples/s.
Run: PYTHONPATH=. python3 benchmarks/decision_lists.py
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from audit.runner import run_audit
from audit.types import AuditConfig
from mechanisms.decision_lists import REGISTRY_ENTRIES

BUDGET = {
    "dp_winnow_no_cap": 200_000,
    "online_decision_list": 100_000,
    "dp_winnow_one_draw_charge": 200_000,
    "private_decision_list_medium": 30_000,
}


def oracle(m: object, pair: object, delta: float) -> float:
    try:
        return float(m.exact_epsilon(pair, delta))  # type: ignore[attr-defined]
    except (NotImplementedError, AttributeError):
        return math.nan


def main(entries=REGISTRY_ENTRIES) -> None:  # type: ignore[no-untyped-def]
    print(
        f"{'mechanism':36s} {'claim':>7s} {'bound':>7s} {'oracle':>7s} {'b/o':>5s} {'samples':>8s} "
        f"{'sec':>6s} {'audit/s':>9s} {'sample/s':>9s}  verdict"
    )
    for e in entries:
        m = e.build()
        pairs = m.neighbor_pairs()
        n = BUDGET.get(e.name, 100_000 if not e.buggy else 30_000)
        t0 = time.perf_counter()
        m.sample(pairs[0].dataset, 50_000, rng=np.random.default_rng(0))
        raw = 50_000 / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        r = run_audit(m, pairs, AuditConfig(num_samples=n, seed=5))
        sec = time.perf_counter() - t0
        best = max(r.pairs, key=lambda p: p.estimate.epsilon_lower_bound)
        orc = [oracle(m, pairs[p.index], p.claim.delta) for p in r.pairs]
        orc_best = oracle(m, pairs[best.index], best.claim.delta)
        ratio = (
            best.estimate.epsilon_lower_bound / orc_best
            if orc_best and not math.isnan(orc_best)
            else math.nan
        )
        tag = "" if e.detectable else " (listed undetectable)"
        print(
            f"{e.name:36s} {r.claim.epsilon:7.3f} {r.epsilon_lower_bound:7.3f} "
            f"{np.nanmax(orc) if not all(math.isnan(x) for x in orc) else math.nan:7.3f} {ratio:5.2f} "
            f"{n:8d} {sec:6.1f} {2 * n * len(pairs) / sec:9.0f} {raw:9.0f}  {r.verdict.value}{tag}",
            flush=True,
        )
        for p in r.pairs:
            o = orc[p.index]
            print(
                f"    pair {p.index}: {p.description[:60]:60s} bound {p.estimate.epsilon_lower_bound:6.3f}"
                f" oracle {o:6.3f} claim {p.claim.epsilon:6.3f} ({p.claim.relation.value})"
            )
    m = next(e for e in REGISTRY_ENTRIES if e.name == "private_decision_list").build()
    print("claims of private_decision_list:")
    for c in m.claims:  # type: ignore[attr-defined]
        print(
            f"    {c.kind.value:6s} {c.relation.value:15s} eps={c.epsilon:7.3f} delta={c.delta:.3g}  {c.note}"
        )
    w = next(e for e in REGISTRY_ENTRIES if e.name == "dp_winnow").build()
    print("claims of dp_winnow:")
    for c in w.claims:  # type: ignore[attr-defined]
        print(
            f"    {c.kind.value:6s} {c.relation.value:15s} eps={c.epsilon:7.3f} delta={c.delta:.3g}  {c.note}"
        )
    print(f"dp_winnow W1 binomial oracle eps(1e-5) = {w.sampling_epsilon(1e-5):.4f}")  # type: ignore[attr-defined]


if __name__ == "__main__":
    only = set(sys.argv[1:])
    main(tuple(e for e in REGISTRY_ENTRIES if not only or e.name in only))
