"""DP-SGD tightness: certified ε(δ) against dp_accounting's ε(δ), per preset and threat model.

For each correct DP-SGD preset (`mechanisms/dpsgd/`) and threat model (the all-iterates gradient
presets also under `view=last_iterate` and `view=score`) it audits the registered canary pairs
(`run_audit`, registered pairs, `--num-samples` per side, `--seed`) and prints, per pair and
δ ∈ {10⁻¹, 10⁻², 10⁻³}: the accountant's ε(δ) (the claim's curve), the white-box ε(δ) where the
mechanism has an oracle (the accountant itself in the all-iterates view; the one-dimensional
binomial mixture for the last iterate and the score), the certified ε(δ) (the pair's profile
test at that δ), their ratio certified / accountant, the trainer's throughput (runs per CPU
second, both sides, one core, chunks of 2¹⁶), the audit's CPU seconds and the process's peak
resident memory so far (`resource.getrusage`).

    PYTHONPATH=. python3 benchmarks/dpsgd.py [--num-samples 1000000] [--seed 0] [--only NAME ...]
        [--own-view-only]

Issue 26's target: the all-iterates gradient canary certifies ≥ 0.9 × the accountant at δ = 10⁻²
and ≥ 0.8 × at δ = 10⁻³ with ≤ 10⁶ runs per side.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import resource  # noqa: E402
import time  # noqa: E402
from collections.abc import Sequence  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from dpaudit.engine.runner import run_audit  # noqa: E402
from dpaudit.engine.types import AuditConfig  # noqa: E402
from dpaudit.mechanisms.registry import entries  # noqa: E402

DELTAS = (1e-1, 1e-2, 1e-3)
VIEWS = ("all_iterates", "last_iterate", "score")
BLOCK = 1 << 16


def runs_per_second(mech: Any, pair: Any, seconds: float = 1.0) -> float:
    """Runs per CPU second of `mech.sample` on both sides of `pair` (blocks of 2¹⁶)."""
    rng = np.random.default_rng(0)
    for side in (pair.dataset, pair.neighbor):
        mech.sample(side, 1024, rng=rng)  # warm-up
    done, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for side in (pair.dataset, pair.neighbor):
            mech.sample(side, BLOCK, rng=rng)
            done += BLOCK
    return done / (time.process_time() - start)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def cases(only: Sequence[str], own_view_only: bool) -> list[tuple[str, dict[str, str]]]:
    """(registered name, parameter overrides) for every preset and threat model to audit."""
    out: list[tuple[str, dict[str, str]]] = []
    for name, e in entries().items():
        if e.family != "dpsgd" or e.buggy or (only and name not in only):
            continue
        mech = e.build()
        own = str(getattr(mech, "view", ""))
        views = [own]
        if not own_view_only and own == "all_iterates" and getattr(mech, "model", "") == "gradient":
            views = list(VIEWS)
        out += [(name, {} if v == own else {"view": v}) for v in views]
    return out


def exact_or_none(mech: Any, pair: Any, delta: float) -> float | None:
    try:
        return float(mech.exact_epsilon(pair, delta=delta))
    except NotImplementedError:
        return None


def audit_rows(name: str, params: dict[str, str], args: argparse.Namespace) -> list[list[str]]:
    mech: Any = entries()[name].build(**params)
    pairs = mech.neighbor_pairs()
    speed = runs_per_second(mech, pairs[0])
    start = time.process_time()
    result = run_audit(mech, pairs, AuditConfig(num_samples=args.num_samples, seed=args.seed))
    cpu = time.process_time() - start
    rows = []
    for pair, res in zip(pairs, result.pairs, strict=True):
        certified = {
            p.parameter: p.value for p in res.profile if p.objective == "epsilon" and p.parameter is not None
        }
        for delta in DELTAS:
            claimed = res.claim.epsilon_at(delta)
            cert = certified.get(delta)
            exact = exact_or_none(mech, pair, delta)
            rows.append(
                [
                    name,
                    str(getattr(mech, "view", "")),
                    pair.relation.value,
                    f"{delta:g}",
                    f"{claimed:.3f}",
                    "—" if exact is None else f"{exact:.3f}",
                    "—" if cert is None else f"{cert:.3f}",
                    "—" if cert is None or claimed <= 0 else f"{cert / claimed:.2f}",
                    f"{speed:,.0f}",
                    f"{cpu:.0f}",
                    f"{peak_mb():.0f}",
                ]
            )
    return rows


HEADER = [
    "preset",
    "view",
    "relation",
    "δ",
    "accountant ε",
    "white-box ε",
    "certified ε",
    "ratio",
    "runs/s",
    "audit CPU s",
    "peak MB",
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--num-samples", type=int, default=1_000_000, help="runs per side (default 10⁶)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", default=[], help="registered preset names")
    parser.add_argument("--own-view-only", action="store_true", help="each preset in its own view only")
    args = parser.parse_args(argv)
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "---|" * len(HEADER))
    for name, params in cases(args.only, args.own_view_only):
        for row in audit_rows(name, params, args):
            print("| " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
