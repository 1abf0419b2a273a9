"""Benchmark of the 002 learners (mechanisms.geometric): certified bounds vs claims and oracles.

Run: PYTHONPATH=. python3 benchmarks/geometric.py [--quick] [--only NAME,NAME] [--skip-registry]
     [--component-seeds K] [--component-sizes N,N]

Per mechanism: the proved claim, the certified ε lower bound (max over its registered pairs),
the white-box oracle ε of the worst pair (exact for SelectHalfplane/SelectTriangle; the spec §8.4
privacy-loss Monte Carlo with 2000 exact-likelihood paths per direction for SCL learners, at the
claim's δ), bound / oracle, samples per side, seconds and samples per second (both sides, all pairs),
and the claims the bound exceeds (a STATED one only is a finding about the paper, not a violation).

Then the component audit of SelectHalfplane: each standalone pair audited alone at 10⁶ samples per
side over K seeds (mean, median, min, max of bound/exact and the fraction of seeds at ≥ 0.85, the
issue-5 target), next to the best single event's expected certified bound computed from the
oracle's exact output distribution (a likelihood-ratio upper set; no event of any encoding
certifies more in expectation), and the same at 2·10⁶ (`--component-sizes` picks the sizes).
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
from numpy.typing import NDArray

from dpaudit.engine.bounds import cp_lower, cp_upper
from dpaudit.engine.runner import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.geometric import REGISTRY_ENTRIES
from dpaudit.mechanisms.geometric.select import SelectHalfplane
from dpaudit.mechanisms.registry import resolve


def best_event_bound(p: NDArray[np.float64], q: NDArray[np.float64], n_cert: int, beta: float) -> float:
    """Largest ln(p_lo/q_hi) over likelihood-ratio upper sets of the exact distributions (both
    orders), with Clopper–Pearson bounds at β/2 evaluated at the expected counts."""
    best = -math.inf
    for a, b in ((p, q), (q, p)):
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.nan_to_num(np.log(a) - np.log(b), nan=-np.inf)
        o = np.argsort(-r, kind="stable")
        ca, cb = np.cumsum(a[o]), np.cumsum(b[o])
        m = min(o.size, 4000)
        lo = cp_lower(np.floor(ca[:m] * n_cert), n_cert, beta / 2)
        hi = cp_upper(np.ceil(cb[:m] * n_cert), n_cert, beta / 2)
        ok = lo > 0
        if np.any(ok):
            best = max(best, float(np.max(np.log(lo[ok]) - np.log(hi[ok]))))
    return best


def registry_table(quick: bool, only: set[str] | None) -> None:
    print(
        f"{'mechanism':40s} {'det':5s} {'verdict':19s} {'claim':>6s} {'bound':>7s} {'oracle':>7s} "
        f"{'b/o':>6s} {'n/side':>9s} {'sec':>6s} {'samples/s':>10s}  exceeded"
    )
    for e in REGISTRY_ENTRIES:
        if only is not None and e.name not in only:
            continue
        m, _ = resolve(e.name)
        pairs = m.neighbor_pairs()  # type: ignore[attr-defined]
        n = 20_000 if quick else e.default_num_samples
        t = time.monotonic()
        r = run_audit(m, pairs, AuditConfig(num_samples=n, seed=1), show_progress=False)
        sec = time.monotonic() - t
        worst = max(range(len(pairs)), key=lambda i: r.pairs[i].estimate.epsilon_lower_bound)
        oracle = float("nan")
        if hasattr(m, "exact_epsilon"):
            if e.name.startswith("geo_select"):
                oracle = m.exact_epsilon(pairs[worst], 0.0)
            elif not e.buggy and e.name != "geo_convex_probe":
                oracle = m.exact_epsilon(pairs[worst], r.claim.delta, num_paths=2000)
        bound = r.epsilon_lower_bound
        ratio = bound / oracle if oracle == oracle and oracle > 0 else float("nan")
        rate = 2 * n * len(pairs) / sec
        exceeded = [
            f"{c.claim.kind.value}({c.claim.epsilon:g},{c.claim.relation.value})"
            for c in r.claims
            if c.exceeded
        ]
        print(
            f"{e.name:40s} {e.detectable!s:5s} {r.verdict.value:19s} {r.claim.epsilon:6.3g} {bound:7.3f} "
            f"{oracle:7.3f} {ratio:6.3f} {n:9d} {sec:6.1f} {rate:10.0f}  {' '.join(exceeded)}",
            flush=True,
        )
        for f in r.findings:
            print("    finding:", f)


def component_audit(seeds: int, sizes: tuple[int, ...] = (1_000_000, 2_000_000)) -> None:
    print(
        f"\nComponent audit of SelectHalfplane: each standalone pair alone, failure probability 0.05, "
        f"seeds 0..{seeds - 1}; 'best' = best single event's expected certified bound from the exact "
        "distribution (9·10⁵ / 1.8·10⁶ certification samples)."
    )
    m = SelectHalfplane()
    for pair in m.neighbor_pairs():
        ex = m.exact_epsilon(pair, 0.0)
        p, q = m.probabilities(pair.dataset), m.probabilities(pair.neighbor)
        print(f"  {pair.description[:78]}")
        for n in sizes:
            cfg0 = AuditConfig(num_samples=n)
            n_sel, n_cert = cfg0.split()
            best = best_event_bound(p, q, n_cert, 0.05)
            ratios = []
            t = time.monotonic()
            for seed in range(seeds):
                r = run_audit(m, [pair], AuditConfig(num_samples=n, seed=seed), show_progress=False)
                ratios.append(r.pairs[0].estimate.epsilon_lower_bound / ex)
            sec = (time.monotonic() - t) / seeds
            rs = np.asarray(ratios)
            print(
                f"    n={n:>9,d} (selection {n_sel:,}) exact={ex:.3f} best={best:.3f} "
                f"(best/exact {best / ex:.3f}) "
                f"bound/exact mean={rs.mean():.3f} median={np.median(rs):.3f} min={rs.min():.3f} "
                f"max={rs.max():.3f} ≥0.85: {np.mean(rs >= 0.85):.2f} "
                f"[{', '.join(f'{x:.3f}' for x in rs)}] {sec:.1f}s/audit",
                flush=True,
            )


def main() -> None:
    args = sys.argv[1:]
    quick = "--quick" in args
    only = None
    if "--only" in args:
        only = set(args[args.index("--only") + 1].split(","))
    seeds = int(args[args.index("--component-seeds") + 1]) if "--component-seeds" in args else 5
    if "--skip-registry" not in args:
        registry_table(quick, only)
    sizes: tuple[int, ...] = (1_000_000, 2_000_000)
    if "--component-sizes" in args:
        sizes = tuple(int(x) for x in args[args.index("--component-sizes") + 1].split(","))
    if only is None or "geo_select_halfplane" in only:
        component_audit(seeds, sizes)


if __name__ == "__main__":
    main()
