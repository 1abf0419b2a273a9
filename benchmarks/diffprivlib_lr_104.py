"""diffprivlib 0.6.6 `LinearRegression` (IBM/differential-privacy-library#104), blind and on the
pair that shows it (issue 44, item 2).

#104, item 1: `_construct_regression_obj` calibrates the noise of each diagonal term Σ(xᵢ − m)²
to |lower − m|² (the lower bound twice), where m is the DP mean the fit centres X on; correct
is max(|lower − m|, |upper − m|)². With bounds_X = (0, 1) and data near 0, m is near 0 (exactly
0 when the truncated noisy mean hits the bound), so that term carries almost no noise while one
record moved to 1 changes it by about 1. The published coef_ shows it through a rare event: the
noisy quadratic is positive definite (the fit converges to a small coefficient vector) far more
often on the dataset that holds the moved record.

The mechanism is what a new user writes: `from_estimator` on `LinearRegression(epsilon=1,
bounds_X=(0, 1), bounds_y=(0, 1))`, two features in [0, 1], a continuous target in [0, 1]
(`target=(0, 1)`), claim ε = 1 under replace-one. Rows:

- `blind`: `--pairs search` at `--num-samples` per side (no registered pair);
- `pair k`: the sweep pair "k records at (0, 0, 0) vs k − 1 there and one at (1, 1, 1)" audited
  as a registered pair at the same budget (the pair the search would need to reach).

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/diffprivlib_lr_104.py [--num-samples N]
        [--counts K ...] [--seed S] [--no-blind]      (defaults: 4000, 64, 0)
"""

from __future__ import annotations

import argparse
import time
import warnings
from typing import Any

import numpy as np

import dpaudit
from dpaudit.api import audit
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation


def make(rng: np.random.Generator) -> Any:
    """The user's estimator, seeded from dpaudit's generator."""
    from diffprivlib.models import LinearRegression

    warnings.filterwarnings("ignore", module="diffprivlib")
    seed = int(rng.integers(2**31))
    return LinearRegression(epsilon=1.0, bounds_X=(0, 1), bounds_y=(0, 1), random_state=seed)


def mechanism() -> Any:
    claim = dpaudit.PrivacyClaim(
        epsilon=1.0, relation=Relation.REPLACE_ONE, reference="diffprivlib 0.6.6 LinearRegression(epsilon=1)"
    )
    return dpaudit.from_estimator(
        make,
        output=("coef_", "intercept_"),
        claim=claim,
        domain=Domain(num_features=2, feature_low=0.0, feature_high=1.0),
        target=(0.0, 1.0),
        name="diffprivlib_lr_104",
    )


def corner_pair(k: int) -> NeighborPair:
    """k records at (0, 0, 0) (x₀, x₁, y) against k − 1 there and one at (1, 1, 1)."""
    low = np.zeros((k, 3))
    moved = low.copy()
    moved[-1] = 1.0
    desc = f"{k} records at (0, 0, 0) vs {k - 1} and one at (1, 1, 1)"
    return NeighborPair(
        dataset=Dataset(low), neighbor=Dataset(moved), relation=Relation.REPLACE_ONE, description=desc
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-samples", type=int, default=4000)
    ap.add_argument("--counts", type=int, nargs="*", default=[64])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-blind", action="store_true")
    args = ap.parse_args()
    mech = mechanism()
    runs: list[tuple[str, Any]] = [] if args.no_blind else [("blind (--pairs search)", "search")]
    runs += [(f"pair k = {k}", [corner_pair(k)]) for k in args.counts]
    print(
        f"{'audit':24s} {'samples':>7s} {'seed':>4s} {'bound':>7s} {'verdict':>10s} {'s':>6s}  certified pair"
    )
    for label, pairs in runs:
        t = time.perf_counter()
        r = audit(mech, num_samples=args.num_samples, pairs=pairs, seed=args.seed)
        seconds = time.perf_counter() - t
        verdict = "flagged" if r.violation else "-"
        shown = r.pairs[0].description if r.pairs else "-"
        print(
            f"{label:24s} {args.num_samples:7d} {args.seed:4d} {r.epsilon_lower_bound:7.3f} {verdict:>10s} "
            f"{seconds:6.1f}  {shown}"
        )


if __name__ == "__main__":
    main()
