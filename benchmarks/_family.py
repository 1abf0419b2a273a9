"""Shared table for the per-family learner benchmarks (boosting.py, decision_lists.py).

For each registry entry: proved claim, certified bound, oracle ε (max over pairs with an
oracle), bound/oracle, samples per side, seconds, audit samples/s and raw sampler samples/s,
then one line per pair.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping

import numpy as np

from dpaudit.engine.runner import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.registry import RegistryEntry


def oracle(m: object, pair: object, delta: float) -> float:
    try:
        return float(m.exact_epsilon(pair, delta))  # type: ignore[attr-defined]
    except (NotImplementedError, AttributeError):
        return math.nan


def audit_table(entries: Iterable[RegistryEntry], budget: Mapping[str, int], *, seed: int = 5) -> None:
    print(
        f"{'mechanism':36s} {'claim':>7s} {'bound':>7s} {'oracle':>7s} {'b/o':>5s} {'samples':>8s} "
        f"{'sec':>6s} {'audit/s':>9s} {'sample/s':>9s}  verdict"
    )
    for e in entries:
        m = e.build()
        pairs = m.neighbor_pairs()  # type: ignore[attr-defined]
        n = budget.get(e.name, 100_000 if not e.buggy else 30_000)
        t0 = time.perf_counter()
        m.sample(pairs[0].dataset, 50_000, rng=np.random.default_rng(0))
        raw = 50_000 / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        r = run_audit(m, pairs, AuditConfig(num_samples=n, seed=seed))
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


def print_claims(entries: Iterable[RegistryEntry], name: str) -> object:
    """Print every claim of the registered mechanism `name`; return the built mechanism."""
    m = next(e for e in entries if e.name == name).build()
    print(f"claims of {name}:")
    for c in m.claims:  # type: ignore[attr-defined]
        print(
            f"    {c.kind.value:6s} {c.relation.value:15s} eps={c.epsilon:7.3f} delta={c.delta:.3g}  {c.note}"
        )
    return m
