"""Power of the one-run methods (issue 37): which `--method` certifies more, by m and δ.

For m ∈ {10², 10³, 10⁴} canaries and δ ∈ {0, 10⁻⁵}, each method of `certify_method` — `snj`
(Steinke, Nasr & Jagielski 2023, "Privacy Auditing with One (1) Training Run", Thm 5.2, at β),
`fdp` (Mahloujifar, Melis & Chaudhuri, "Auditing f-Differential Privacy in One Run", at β) and
`both` (β/2 each, the larger ε̂) — certifies ε at δ on the same default designs and the same
seeded runs. Two mechanisms of known ε per canary:

- gauss: score = 2·bit + N(0, 1) (2-GDP per canary): the guesses are imperfect, the tail decides;
- rr8: ε = 8 randomised response: nearly every guess right, the ceiling decides.

Printed per cell: the mean certified ε̂ over the seeds (higher = more power), the ceiling, and the
CPU seconds per audit. A claim (ε = 0.5, δ) is given for the f-DP test; the ε̂ columns do not
depend on it. Usage: `python benchmarks/one_run_method.py --seeds 10`.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dpaudit.engine.one_run import METHODS, certify_method, inclusion_bits, train_rng
from dpaudit.engine.types import PrivacyClaim
from dpaudit.neighbors.base import Relation

Train = Callable[[np.ndarray[Any, Any], np.random.Generator], np.ndarray[Any, Any]]


def _gauss(included: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
    return 2.0 * included + rng.standard_normal(included.size)


def _rr8(included: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
    return (included ^ (rng.random(included.size) < 1.0 / (1.0 + math.exp(8.0)))).astype(float)


SCENARIOS: dict[str, Train] = {"gauss": _gauss, "rr8": _rr8}


def cell(
    train: Train, *, m: int, delta: float, method: str, seeds: int, beta: float
) -> tuple[float, float, float]:
    """(mean ε̂, ceiling, CPU seconds per audit) of `method` over `seeds` runs."""
    claim = PrivacyClaim(epsilon=0.5, delta=delta, relation=Relation.ADD_REMOVE_ONE, reference="benchmark")
    bounds, ceiling, start = [], 0.0, time.process_time()
    for s in range(seeds):
        bits = inclusion_bits(m, s)
        certs = certify_method(
            train(bits, train_rng(s)), bits, claim=claim, method=method, failure_probability=beta
        )
        made = [c for c in (certs.snj, certs.fdp) if c is not None]
        bounds.append(max(c.epsilon_lower_bound for c in made))
        ceiling = max(c.ceiling for c in made)
    return float(np.mean(bounds)), ceiling, (time.process_time() - start) / seeds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--beta", type=float, default=0.05)
    args = ap.parse_args()
    print(f"β = {args.beta}, {args.seeds} seeds per cell; mean certified ε̂ (ceiling) [CPU s per audit]")
    print("| scenario | m | δ | " + " | ".join(METHODS) + " | most power |")
    print("|---|---|---|" + "---|" * len(METHODS) + "---|")
    for name, train in SCENARIOS.items():
        for m in (100, 1000, 10000):
            for delta in (0.0, 1e-5):
                row = {
                    method: cell(train, m=m, delta=delta, method=method, seeds=args.seeds, beta=args.beta)
                    for method in METHODS
                }
                top = max(row[x][0] for x in METHODS)
                best = ", ".join(x for x in METHODS if row[x][0] >= top - 0.005)
                cells = " | ".join(f"{e:.3f} ({c:.2f}) [{t:.2f}]" for e, c, t in row.values())
                print(f"| {name} | {m} | {delta:g} | {cells} | {best} |", flush=True)


if __name__ == "__main__":
    main()
