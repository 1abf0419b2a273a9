"""Blind against registered (issue 35, item 4): what a user without pairs or statistics gets.

For every correct preset of a family with registered pairs (DP-SGD by default), two audits at the
preset's default budget and seed: the registered route (`pairs="registered"`, its pairs and its
`statistics`, e.g. DP-SGD's `MixtureLLR`), and the blind route (the same mechanism with its
`neighbor_pairs` and `statistics` hidden, audited as `dpaudit run` would audit a user's
`from_callable`: the pair search over the domain and the default distinguishers, among them the
learned trajectory likelihood ratio). Prints both certified ε at δ = 10⁻² (the profile point), the
accountant's value and blind / registered, each route's best pair under the claim's first relation
(add/remove for DP-SGD: the relation of the verdict; replace-one pairs are held to another
accountant value, so they are not compared with it), and each route's strength: the largest
certified ε / claimed ε over all its pairs, each held to its own relation's accountant value (what
decides a verdict), and blind / registered of that. A blind search certifies the pair its pilot
ranks first, which can be a replace-one pair; then the add/remove columns read nan.

    python benchmarks/blind_registered.py [--family dpsgd] [--only NAME ...] [--seed 0]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import dpaudit
from dpaudit.mechanisms.base import claims_of
from dpaudit.mechanisms.registry import entries


class Blind:
    """The mechanism with no registered pairs and no statistics (everything else delegated)."""

    def __init__(self, mechanism: Any) -> None:
        self._m = mechanism
        self.statistics: tuple[Any, ...] = ()

    def neighbor_pairs(self) -> list[Any]:
        return []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._m, name)


def at_delta(result: Any, delta: float, relation: Any) -> tuple[float, float]:
    """(certified ε, claimed ε) at the profile point δ of the best pair under `relation` (the
    claim's first relation: pairs under another relation are held to another accountant value);
    NaN when no such pair was certified."""
    points = [
        (pt.value, pt.claimed)
        for pair in result.pairs
        if pair.relation is relation
        for pt in pair.profile
        if pt.parameter == delta and pt.claimed is not None
    ]
    return max(points, default=(float("nan"), float("nan")))


def strength(result: Any, delta: float) -> float:
    """The largest certified ε / claimed ε at the profile point δ over every certified pair, each
    held to its own relation's claim: what decides a verdict (a violation is a ratio above 1)."""
    return max(
        (
            pt.value / pt.claimed
            for pair in result.pairs
            for pt in pair.profile
            if pt.parameter == delta and pt.claimed
        ),
        default=float("nan"),
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", default="dpsgd")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--delta", type=float, default=1e-2)
    args = ap.parse_args()
    print(
        f"{'preset':34s} {'n':>7s} {'claim':>6s} {'registered':>10s} {'blind':>7s} {'ratio':>6s} "
        f"{'reg/claim':>9s} {'blind/claim':>11s} {'ratio':>6s} {'s':>6s}"
    )
    for entry in entries().values():
        if entry.family != args.family or entry.buggy or (args.only and entry.name not in args.only):
            continue
        mech = entry.factory()
        t = time.perf_counter()
        reg = dpaudit.audit(mech, pairs="registered", num_samples=entry.default_num_samples, seed=args.seed)
        blind = dpaudit.audit(Blind(mech), num_samples=entry.default_num_samples, seed=args.seed)  # type: ignore[arg-type]
        relation = claims_of(mech)[0].relation
        (r, claim), (b, _) = at_delta(reg, args.delta, relation), at_delta(blind, args.delta, relation)
        ratio = b / r if r > 0 else float("nan")
        sr, sb = strength(reg, args.delta), strength(blind, args.delta)
        print(
            f"{entry.name:34s} {entry.default_num_samples:7d} {claim:6.3f} {r:10.3f} {b:7.3f} {ratio:6.2f} "
            f"{sr:9.3f} {sb:11.3f} {sb / sr if sr > 0 else float('nan'):6.2f} {time.perf_counter() - t:6.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
