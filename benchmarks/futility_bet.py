"""What a laxer futility rule would buy and cost (issue 44: why a correct mechanism at its exact ε
cannot stop at a fifth of its budget without losing power).

    python benchmarks/futility_bet.py [--seeds 10] [--optimism 1e-4 1e-2 0.1 0.3] [--claims 1 0.99 0.985]

`randomized_response` (true ε = 1, the registered pair) audited as `dpaudit run randomized_response
--sequential` does at its registered budget (1,000,000 per side: the first round, then the search
in two rounds), with its claim set to each of `--claims` (1 is its exact ε: a correct mechanism
whose claim stays within reach to the end; 0.99 and 0.985 are violations of 1 % and 1.5 %, which
the cap can certify), and the futility projection's one-sided level γ (`runner.OPTIMISM`, 10⁻⁴ in
the product) set to each of `--optimism` for this script only. A larger γ projects the draws still
to come less optimistically, so audits stop for futility sooner: fewer samples on the exact claim,
and fewer of the near violations flagged. Printed per γ and claim: audits flagged out of the seeds
and the mean samples per side drawn in all (first round, both search rounds, certification where
it stopped), against the fixed-n route's 1,100,000 (`expensive.py`'s old side).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import time
from collections.abc import Iterator
from typing import Any

from dpaudit.app.route import Route, certify
from dpaudit.engine.runner import optimistic_counts
from dpaudit.engine.types import AuditConfig, AuditResult
from dpaudit.mechanisms.registry import resolve
from dpaudit.reports.samples_words import search_drawn

NAME = "randomized_response"
FIXED_N = 1_100_000
"""Samples per side the fixed-n default route draws on this row at its registered budget."""


class Claimed:
    """The registered mechanism with its headline claim's ε replaced (everything else delegated)."""

    def __init__(self, inner: Any, epsilon: float) -> None:
        self._inner = inner
        self.claim = dataclasses.replace(inner.claim, epsilon=epsilon)
        self.claims = ()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@contextlib.contextmanager
def optimism(level: float) -> Iterator[None]:
    """The futility projection's γ set to `level` while the block runs (this process only)."""
    defaults = optimistic_counts.__kwdefaults__
    assert defaults is not None
    before = defaults["optimism"]
    defaults["optimism"] = level
    try:
        yield
    finally:
        defaults["optimism"] = before


def drawn(r: AuditResult) -> int:
    """Samples per side the route drew in all: its first round, the first search round where a
    second ran, and the search's pilot, top-up and certification where it stopped."""
    first, rounds, search = (r.extra.get(k) for k in ("first_round", "search_rounds", "search"))
    total = int(first["drawn"]) if isinstance(first, dict) else 0
    if isinstance(first, dict) and first["verdict"] == "violation_found":
        return total
    if isinstance(rounds, dict) and not rounds["decided"]:
        total += int(rounds["drawn"])
    return total + (search_drawn(r) if isinstance(search, dict) else 0)


def audit(epsilon: float, level: float, seed: int) -> tuple[bool, int]:
    """One seeded sequential audit: (flagged, samples per side drawn)."""
    inner, _ = resolve(NAME, {})
    config = AuditConfig(num_samples=1_000_000, seed=seed, sequential=True)
    with optimism(level):
        r = certify(Claimed(inner, epsilon), config, Route("all"), show_progress=False).result
    return bool(r.violation), drawn(r)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--optimism", nargs="+", type=float, default=[1e-4, 1e-2, 0.1, 0.3])
    ap.add_argument("--claims", nargs="+", type=float, default=[1.0, 0.99, 0.985])
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    from joblib import Parallel, delayed

    start = time.perf_counter()
    print(f"{NAME} (true ε = 1), --sequential at 1,000,000 per side, seeds 0–{args.seeds - 1}")
    print("| γ | claim ε | flagged | samples per side drawn (mean) | of fixed n's 1,100,000 |")
    print("|---|---|---|---|---|")
    for level in args.optimism:
        for epsilon in args.claims:
            runs = Parallel(n_jobs=args.jobs)(delayed(audit)(epsilon, level, s) for s in range(args.seeds))
            mean = sum(n for _, n in runs) / len(runs)
            flagged = sum(v for v, _ in runs)
            print(
                f"| {level:g} | {epsilon:g} | {flagged}/{args.seeds} | {mean:,.0f} | {mean / FIXED_N:.3f} |",
                flush=True,
            )
    print(f"\n{time.perf_counter() - start:.0f} s wall")


if __name__ == "__main__":
    main()
