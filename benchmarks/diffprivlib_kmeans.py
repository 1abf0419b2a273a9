"""diffprivlib 0.6.6 `KMeans`: which defect of `_update_centers` makes the preset
`diffprivlib_model_kmeans` exceed its stated ε = 1 (issue 44 follow-up).

The blind search flagged the preset on the pair "64 records at (−1, −1) vs 63 there and one at
(1, 1)". Two properties of `KMeans._update_centers` (diffprivlib 0.6.6) could explain it:

(a) a cluster with no member is skipped (`if cluster not in labels: continue`): its centre keeps
    its previous value with no noise, so whether a cluster was empty at an iteration is released
    exactly, under any neighbour relation;
(b) under replace-one, a record that moves between clusters changes two clusters' counts (and
    sums), while the count's noise (`GeometricFolded`, sensitivity 1) is calibrated to one.

This script audits the pair against variants of the class in this process: the library's class as
released, and subclasses whose `_update_centers` is the library's body with (a) fixed (every
cluster gets its noisy count and sum, an empty one included: count 0, sum 0), (b) fixed (count
sensitivity 2; each sum's sensitivity max(upper − lower, 2·max(|lower|, |upper|)), which for the
preset's bounds (−1, 1) is the library's 2), or both. With both switches off the subclass draws
exactly what the library draws (checked on a few seeds before the audits, `same_draws`). Under
add/remove (the pair "63 records at (−1, −1) vs those and one at (1, 1)") only (a) applies.

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/diffprivlib_kmeans.py [--num-samples N]
        [--seed S] [--rows NAME ...]          (defaults: 3000, 0, every row)

Each row is one `dpaudit.audit` of one variant on its one pair (β = 0.05), as the preset's
wrapper builds it (`from_estimator`, `cluster_centers_` published, claim ε = 1).
"""

from __future__ import annotations

import argparse
import functools
import time
import warnings
from typing import Any

import numpy as np

import dpaudit
from dpaudit.api import audit
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

LOW, HIGH = [-1.0, -1.0], [1.0, 1.0]
FEATURES = Domain(num_features=2, feature_low=-1.0, feature_high=1.0)


def update_centers(
    km: Any, X: Any, centers: Any, labels: Any, dims: int, total_iters: int, random_state: Any, *, fix: str
) -> Any:
    """diffprivlib 0.6.6 `KMeans._update_centers`, line for line, with the fixes named in `fix`:
    "a" updates every cluster (an empty one too), "b" calibrates to replace-one."""
    from diffprivlib.mechanisms import GeometricFolded, LaplaceBoundedDomain

    epsilon_0, epsilon_i = km._split_epsilon(dims, total_iters)
    geometric_mech = GeometricFolded(
        epsilon=epsilon_0,
        sensitivity=2 if "b" in fix else 1,
        lower=0.5,
        upper=float("inf"),
        random_state=random_state,
    )
    for cluster in range(km.n_clusters):
        if "a" not in fix and cluster not in labels:
            continue
        cluster_count = sum(labels == cluster)
        noisy_count = geometric_mech.randomise(cluster_count)
        cluster_sum = np.sum(X[labels == cluster], axis=0)
        noisy_sum = np.zeros_like(cluster_sum)
        for i in range(dims):
            low, high = km.bounds[0][i], km.bounds[1][i]
            sensitivity = max(high - low, 2 * max(abs(low), abs(high))) if "b" in fix else high - low
            laplace_mech = LaplaceBoundedDomain(
                epsilon=epsilon_i,
                sensitivity=sensitivity,
                lower=noisy_count * low,
                upper=noisy_count * high,
                random_state=random_state,
            )
            noisy_sum[i] = laplace_mech.randomise(cluster_sum[i])
        centers[cluster, :] = noisy_sum / noisy_count
    return centers


@functools.cache
def kmeans_class(fix: str) -> type:
    """The library's `KMeans` when `fix` is "as-released", else a subclass whose
    `_update_centers` is `update_centers(..., fix=fix)` ("", "a", "b" or "ab")."""
    from diffprivlib.models import KMeans

    if fix == "as-released":
        return KMeans

    def _update(
        self: Any, X: Any, centers: Any, labels: Any, dims: int, total_iters: int, random_state: Any
    ) -> Any:
        return update_centers(self, X, centers, labels, dims, total_iters, random_state, fix=fix)

    return type(f"KMeans_fix_{fix or 'none'}", (KMeans,), {"_update_centers": _update})


class Make:
    """`make(rng)`: the variant `fix` of `KMeans(n_clusters=2, epsilon=1, bounds=...)`, seeded from rng."""

    def __init__(self, fix: str) -> None:
        self.fix = fix

    def __call__(self, rng: np.random.Generator) -> Any:
        warnings.filterwarnings("ignore", module="diffprivlib")
        seed = int(rng.integers(2**31))
        return kmeans_class(self.fix)(n_clusters=2, epsilon=1.0, bounds=(LOW, HIGH), random_state=seed)


def mechanism(fix: str, relation: Relation) -> Any:
    built = f"diffprivlib 0.6.6 KMeans(n_clusters=2, epsilon=1), fix {fix!r}"
    claim = dpaudit.PrivacyClaim(epsilon=1.0, relation=relation, reference=built)
    return dpaudit.from_estimator(
        Make(fix),
        output=("cluster_centers_",),
        claim=claim,
        domain=FEATURES,
        name=f"diffprivlib_kmeans_{fix or 'none'}",
        payload_width=16,
    )


def corner_pair(relation: Relation) -> NeighborPair:
    """Replace-one: 64 records at (−1, −1) vs 63 there and one at (1, 1); add/remove: 63 records
    at (−1, −1) vs those and one at (1, 1)."""
    k = 64 if relation is Relation.REPLACE_ONE else 63
    low = np.full((k, 2), -1.0)
    moved = low.copy()
    if relation is Relation.REPLACE_ONE:
        moved[-1] = 1.0
        desc = f"{k} records at (−1, −1) vs {k - 1} and one at (1, 1)"
    else:
        moved = np.vstack([low, [1.0, 1.0]])
        desc = f"{k} records at (−1, −1) vs those and one at (1, 1)"
    return NeighborPair(dataset=Dataset(low), neighbor=Dataset(moved), relation=relation, description=desc)


ROWS: dict[str, tuple[str, Relation]] = {
    # row: (the variant's fix, the relation of its claim and pair)
    "replace": ("as-released", Relation.REPLACE_ONE),
    "replace-a": ("a", Relation.REPLACE_ONE),
    "replace-b": ("b", Relation.REPLACE_ONE),
    "replace-ab": ("ab", Relation.REPLACE_ONE),
    "add": ("as-released", Relation.ADD_REMOVE_ONE),
    "add-a": ("a", Relation.ADD_REMOVE_ONE),
}


def same_draws(seeds: range) -> bool:
    """The subclass with no fix releases bit for bit what the library's class releases."""
    X = np.array(corner_pair(Relation.REPLACE_ONE).neighbor.X)
    ours, theirs = Make(""), Make("as-released")
    for s in seeds:
        a = ours(np.random.default_rng(s)).fit(X).cluster_centers_
        b = theirs(np.random.default_rng(s)).fit(X).cluster_centers_
        if not np.array_equal(a, b):
            return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-samples", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rows", nargs="*", default=list(ROWS), choices=list(ROWS), metavar="NAME")
    args = ap.parse_args()
    if not same_draws(range(20)):
        raise SystemExit("diffprivlib_kmeans: the unfixed subclass does not reproduce the library's draws")
    print(f"{'row':10s} {'samples':>7s} {'seed':>4s} {'bound':>7s} {'verdict':>8s} {'s':>6s}  event (P vs Q)")
    for label in args.rows:
        fix, relation = ROWS[label]
        t = time.perf_counter()
        pairs = [corner_pair(relation)]
        r = audit(mechanism(fix, relation), num_samples=args.num_samples, pairs=pairs, seed=args.seed)
        e = r.pairs[0].estimate
        verdict = "flagged" if r.violation else "-"
        counts = f"{e.p_count}/{e.p_total} vs {e.q_count}/{e.q_total}"
        print(
            f"{label:10s} {args.num_samples:7d} {args.seed:4d} {r.epsilon_lower_bound:7.3f} {verdict:>8s} "
            f"{time.perf_counter() - t:6.1f}  {counts}: {e.event}",
            flush=True,
        )


if __name__ == "__main__":
    main()
