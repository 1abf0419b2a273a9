"""Benchmark of the 002 learners (mechanisms.geometric): certified bounds vs claims and oracles.

Run: PYTHONPATH=. python3 benchmarks/geometric.py [--quick]

Per mechanism: the proved claim, the certified ε lower bound (max over its registered pairs),
the white-box oracle ε of the worst pair (exact for SelectHalfplane/SelectTriangle; the spec §8.4
privacy-loss Monte Carlo with 2000 exact-likelihood paths per direction for SCL learners, at the
claim's δ), bound / oracle, samples per side, seconds and samples per second (both sides, all pairs).
Then the component audit of SelectHalfplane: each standalone pair audited alone at 10⁶ per side.
"""

from __future__ import annotations

import sys
import time

from audit.runner import run_audit
from audit.types import AuditConfig
from mechanisms.geometric import REGISTRY_ENTRIES
from mechanisms.registry import resolve


def main() -> None:
    quick = "--quick" in sys.argv
    print(
        f"{'mechanism':40s} {'det':5s} {'verdict':19s} {'claim':>6s} {'bound':>7s} {'oracle':>7s} "
        f"{'b/o':>6s} {'n/side':>9s} {'sec':>6s} {'samples/s':>10s}"
    )
    for e in REGISTRY_ENTRIES:
        m, _ = resolve(e.name)
        pairs = m.neighbor_pairs()
        n = 20_000 if quick else e.default_num_samples
        t = time.monotonic()
        r = run_audit(m, pairs, AuditConfig(num_samples=n, seed=1), show_progress=False)
        sec = time.monotonic() - t
        worst = max(range(len(pairs)), key=lambda i: r.pairs[i].estimate.epsilon_lower_bound)
        oracle = float("nan")
        if hasattr(m, "exact_epsilon") and not e.buggy:
            if e.name.startswith("geo_select"):
                oracle = m.exact_epsilon(pairs[worst], 0.0)  # type: ignore[attr-defined]
            else:
                oracle = m.exact_epsilon(pairs[worst], r.claim.delta, num_paths=2000)  # type: ignore[attr-defined]
        elif hasattr(m, "exact_epsilon") and e.name.startswith("geo_select"):
            oracle = m.exact_epsilon(pairs[worst], 0.0)  # type: ignore[attr-defined]
        bound = r.epsilon_lower_bound
        ratio = bound / oracle if oracle == oracle and oracle > 0 else float("nan")
        rate = 2 * n * len(pairs) / sec
        print(
            f"{e.name:40s} {e.detectable!s:5s} {r.verdict.value:19s} {r.claim.epsilon:6.3g} {bound:7.3f} "
            f"{oracle:7.3f} {ratio:6.3f} {n:9d} {sec:6.1f} {rate:10.0f}",
            flush=True,
        )
        for f in r.findings:
            print("    finding:", f)
    print("\nComponent audit of SelectHalfplane (each pair alone, 10⁶ samples per side, δ = 0):")
    m, _ = resolve("geo_select_halfplane")
    for p in m.neighbor_pairs():
        t = time.monotonic()
        r = run_audit(m, [p], AuditConfig(num_samples=1_000_000, seed=3), show_progress=False)
        ex = m.exact_epsilon(p, 0.0)  # type: ignore[attr-defined]
        b = r.pairs[0].estimate.epsilon_lower_bound
        print(
            f"  {p.description[:70]:70s} bound={b:.3f} exact={ex:.3f} bound/exact={b / ex:.3f} "
            f"{time.monotonic() - t:.1f}s"
        )


if __name__ == "__main__":
    main()
