"""Coverage of the state-dependent trajectory statistic (issue 35) against a loop's true ε(δ).

`trajectory_coverage.py` checks the learned trajectory models on a stationary loop whose
accountant is exact; there the state-dependent model is rarely fitted (its χ² gate finds no state
dependence). This one audits a loop where it is the statistic: the README's DP-SGD loop
(`tests.blind_dpsgd:readme_correct`) on the saturating pair of `blind_dpsgd_saturating.py` (k rest
records at (3, 3) labelled 1, the neighbour adding one labelled 0), whose true ε(10⁻²) is computed
from the exact per-step privacy loss on `--reference-runs` runs per side (a Monte Carlo estimate:
its standard error is printed; a certified value above true + 2 standard errors counts as a
failure). S seeded audits of that fixed pair, no statistics given, the default distinguishers;
prints the failures, their Clopper–Pearson 95% upper bound next to β, how often the state model
was the certified event at δ = 10⁻² and the mean certified / true ratio.

    PYTHONPATH=. python benchmarks/state_coverage.py [--audits 200] [--num-samples 20000] [--k 3]
        [--beta 0.05 0.5] [--reference-runs 200000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import dpaudit
from benchmarks.blind_dpsgd_saturating import epsilon_at, pair, privacy_loss, simulate
from dpaudit.engine.bounds import cp_upper


def true_epsilon(k: int, runs: int, *, batches: int = 8) -> tuple[float, float]:
    """(ε(10⁻²), standard error over `batches` independent batches) from the exact privacy loss."""
    rng = np.random.default_rng(12345)
    size = runs // batches
    values = []
    for _ in range(batches):
        lp = privacy_loss(simulate(k, True, size, rng, False), k, False)
        lq = privacy_loss(simulate(k, False, size, rng, False), k, False)
        values.append(epsilon_at(lp, lq))
    return float(np.mean(values)), float(np.std(values, ddof=1) / np.sqrt(batches))


def coverage(*, k: int, audits: int, num_samples: int, beta: float, truth: float) -> dict[str, float]:
    import tests.blind_dpsgd as loops

    above = state = 0
    ratios = []
    started = time.perf_counter()
    for seed in range(audits):
        r = dpaudit.audit(
            loops.readme_correct,
            pairs=[pair(k)],
            num_samples=num_samples,
            seed=seed,
            failure_probability=beta,
        )
        at = [pt for p in r.pairs for pt in p.profile if pt.parameter == 1e-2]
        above += any(pt.value > truth for pt in at)
        state += any(pt.estimate.event.startswith("state-trajectory-llr") for pt in at)
        ratios += [max(pt.value, 0.0) / truth for pt in at]
    return {
        "above": above,
        "state": state,
        "ratio": float(np.mean(ratios)),
        "s": time.perf_counter() - started,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--audits", type=int, default=200)
    ap.add_argument("--num-samples", type=int, default=20_000)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--beta", type=float, nargs="*", default=[0.05, 0.5])
    ap.add_argument("--reference-runs", type=int, default=200_000)
    args = ap.parse_args()
    eps, se = true_epsilon(args.k, args.reference_runs)
    print(f"k = {args.k}: true ε(1e-2) = {eps:.4f} ± {se:.4f} (failure: certified above {eps + 2 * se:.4f})")
    head = f"{'beta':>5s} {'audits':>6s} {'above':>5s} {'CP95 upper':>10s} {'state':>5s}"
    print(f"{head} {'cert/true':>9s} {'s':>5s}")
    for beta in args.beta:
        c = coverage(
            k=args.k, audits=args.audits, num_samples=args.num_samples, beta=beta, truth=eps + 2 * se
        )
        n_above = int(c["above"])
        upper = float(cp_upper(n_above, args.audits, 0.05))
        print(
            f"{beta:5g} {args.audits:6d} {n_above:5d} {upper:10.4f} {int(c['state']):5d} "
            f"{c['ratio'] * (eps + 2 * se) / eps:9.3f} {c['s']:5.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
