"""Coverage of the stopping bound (issue 44, item 3), and samples to a decision.

**Coverage.** Textbook rows with an exact ε on a fixed pair and a fixed event (so the event is
chosen before certification, as the runner's selection split guarantees):

- `rr`: randomized response at ε = 1, event "output = 1": P = e/(1+e), Q = 1/(1+e), ln(P/Q) = 1;
- `laplace`: Laplace(0, 1) against Laplace(1, 1), event x > 1.5: ln(P/Q) = 1 exactly;
- `laplace_tail`: the same with x > 5 (P ≈ 0.009: few counts, where Clopper–Pearson is discrete).

Each seeded audit draws the event's counts on both sides look by look up to the cap
(`audit.sequential.look_schedule`, binomial increments, vectorised over audits) and certifies
ε ≥ ln(p_lo/q_hi) at every look with the sequence's bounds (`sequence_bounds`). A failure is an
audit in which the bound exceeds the exact ε at ANY look: the worst stopping rule (stop the first
time the bound is wrong) fails exactly then, so every stopping rule, the runner's included (a
violation stop with the claim at the exact ε is such a failure), fails at most that often.
Beside it, `peeking` is the same looks at the fixed-n level β (no share): what stopping on
plain Clopper–Pearson bounds would give. Failures are reported with their Clopper–Pearson 95%
upper bound. The "rounds" table does the same through the selection rounds of a sequential
audit (`runner.round_levels`: every round's looks at the runner's own levels, fresh counts each
round), beside the same rounds with the split dropped. `--runner N` adds N seeded `run_audit`s
through the runner's own stopping rule and selection rounds on `randomized_response` and
`laplace_sum` (claim = exact ε = 1, the events chosen on each round's selection sample): false
violations out of N. `--route N` adds N seeded audits through the whole sequential default route
(`dpaudit run NAME --sequential`: the first round on the registered pairs at a quarter of β, then
the pair search, its pilot choosing pairs and events, certified sequentially on the rest) on the
same rows at `--route-samples` per side (30,000 by default: large enough that the search runs
rather than falling back; 150,000 or more for the search in two rounds, whose first round needs
`route.SEARCH_ROUNDS_MIN` per side): false violations (the claim is the exact ε, so every
violation verdict is a failure: an ε bound above it, a δ bound above the claim's δ or a profile
point above a proved claim), among them the audits whose certified ε bound exceeds the exact ε,
and the audits whose search ran both rounds. `--audits 0` skips the first two tables.

**Samples to a decision** (`--decision`): registered pairs, `run_audit` with and without
`AuditConfig.sequential` (selection in rounds) at the registered default budget, seeds 0..S−1:
verdicts and the samples per side and pair each drew, selection included.

    python benchmarks/stopping_coverage.py [--audits 1000] [--cap 20000] [--runner 1000]
                                           [--route 1000 [--route-samples 30000] [--jobs 2]]
                                           [--decision 5 [--rows NAME …]]
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np

from dpaudit.app.route import Route, certify, pairs_for
from dpaudit.engine.bounds import cp_lower, cp_upper, epsilon_from_bounds
from dpaudit.engine.runner import (
    LookSchedule,
    look_schedule,
    plan_audit,
    round_levels,
    round_schedule,
    run_audit,
    sequence_bounds,
)
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.registry import resolve

E = math.e
ROWS: dict[str, tuple[float, float]] = {
    "rr": (E / (1 + E), 1 / (1 + E)),
    "laplace": (0.5 * math.exp(-0.5), 0.5 * math.exp(-1.5)),
    "laplace_tail": (0.5 * math.exp(-4.0), 0.5 * math.exp(-5.0)),
}
EXACT = 1.0
RUNNER_ROWS = ("randomized_response", "laplace_sum")
"""Registered rows whose claim is their exact ε (on their registered pairs) for `--runner`."""
BETAS = (0.05, 0.5)
DECISION_ROWS = (
    "laplace_sum_range_bug",
    "laplace_sum",
    "randomized_response_half_flip",
    "randomized_response",
)


def look_counts(p: float, schedule: LookSchedule, audits: int, rng: np.random.Generator) -> Any:
    """Counts at each look, shape (audits, looks): cumulative binomial increments."""
    steps = np.diff(np.concatenate([[0], schedule.looks]))
    return np.cumsum(rng.binomial(steps[None, :], p, size=(audits, len(steps))), axis=1)


def failures(row: str, *, beta: float, cap: int, audits: int, seed: int) -> tuple[int, int]:
    """(sequence failures, peeking failures) out of `audits` for one row and β."""
    p, q = ROWS[row]
    s = look_schedule(cap)
    rng = np.random.default_rng([seed, int(beta * 1000), list(ROWS).index(row)])
    kp, kq = look_counts(p, s, audits, rng), look_counts(q, s, audits, rng)
    seq_bad = np.zeros(audits, dtype=bool)
    peek_bad = np.zeros(audits, dtype=bool)
    for j, n in enumerate(s.looks):
        p_lo, q_hi = sequence_bounds(kp[:, j], kq[:, j], schedule=s, j=j, test_level=beta)
        seq_bad |= epsilon_from_bounds(p_lo, q_hi, delta=0.0) > EXACT
        naive = epsilon_from_bounds(
            cp_lower(kp[:, j], n, beta / 2), cp_upper(kq[:, j], n, beta / 2), delta=0.0
        )
        peek_bad |= naive > EXACT
    return int(seq_bad.sum()), int(peek_bad.sum())


def levels_of(cap: int, beta: float, *, split: bool = True) -> list[tuple[LookSchedule, list[float]]]:
    """Each round's look schedule and each look's level, from the runner's own
    `runner.round_levels` on a one-test plan at the cap; `split=False` drops the split (every look
    at β): the ablation."""
    mechanism, _ = resolve("randomized_response", {})
    config = AuditConfig(num_samples=cap, failure_probability=beta, sequential=True)
    out = round_levels(plan_audit(mechanism, pairs_for(mechanism), config), cap)
    return out if split else [(s, [beta] * len(levels)) for s, levels in out]


def round_failures(row: str, *, beta: float, cap: int, audits: int, seed: int, split: bool = True) -> int:
    """Audits (of `audits`) in which ANY look of ANY round certifies ε above the exact one, each
    round on fresh binomial counts of the row's event at the runner's levels (`levels_of`):
    the worst stopping rule over rounds and looks fails exactly then."""
    p, q = ROWS[row]
    rng = np.random.default_rng([seed, int(beta * 1000), list(ROWS).index(row), 7])
    bad = np.zeros(audits, dtype=bool)
    for schedule, levels in levels_of(cap, beta, split=split):
        kp, kq = look_counts(p, schedule, audits, rng), look_counts(q, schedule, audits, rng)
        for j, n in enumerate(schedule.looks):
            half = levels[j] / 2
            eps = epsilon_from_bounds(cp_lower(kp[:, j], n, half), cp_upper(kq[:, j], n, half), delta=0.0)
            bad |= eps > EXACT
    return int(bad.sum())


def rounds_coverage(audits: int, cap: int, seed: int) -> None:
    rounds = round_schedule(cap)
    print(
        f"\nrounds: {audits} audits per row and β, cap {cap:,} per side, {len(rounds)} rounds "
        f"(selection, certification: {[(r.selection, r.certification) for r in rounds]})"
    )
    print("| row | β | failures (the runner's split) | CP 95% upper | without the split (each look at β) |")
    print("|---|---|---|---|---|")
    for row in ROWS:
        for beta in BETAS:
            bad = round_failures(row, beta=beta, cap=cap, audits=audits, seed=seed)
            drop = round_failures(row, beta=beta, cap=cap, audits=audits, seed=seed, split=False)
            upper = float(cp_upper(bad, audits, 0.05))
            print(f"| {row} | {beta} | {bad}/{audits} | {upper:.3f} | {drop}/{audits} |")


def coverage(audits: int, cap: int, seed: int) -> None:
    print(f"coverage: {audits} audits per row and β, cap {cap:,} per side, looks {look_schedule(cap).looks}")
    print("| row | β | sequence failures | CP 95% upper | peeking at β (no sequence) |")
    print("|---|---|---|---|---|")
    for row in ROWS:
        for beta in BETAS:
            bad, peek = failures(row, beta=beta, cap=cap, audits=audits, seed=seed)
            upper = float(cp_upper(bad, audits, 0.05))
            print(f"| {row} | {beta} | {bad}/{audits} | {upper:.3f} | {peek}/{audits} |")


def runner_coverage(audits: int, num_samples: int, rows: tuple[str, ...] = RUNNER_ROWS) -> None:
    """Seeded `run_audit`s through the runner's own stopping rule (with `--sequential`, the
    selection rounds of `runner_rounds`) on registered rows whose claim is their exact ε."""
    for name in rows:
        mechanism, _ = resolve(name, {})
        pairs = pairs_for(mechanism)
        print(f"\nrunner: {name} (claim = exact ε = 1), {audits} seeds, --num-samples {num_samples}, rounds")
        print("| β | false violations | CP 95% upper | rounds drawn (mean) | samples drawn per side (mean) |")
        print("|---|---|---|---|---|")
        for beta in BETAS:
            bad, rounds, drawn = 0, [], []
            for seed in range(audits):
                config = AuditConfig(
                    num_samples=num_samples, seed=seed, failure_probability=beta, sequential=True
                )
                r = run_audit(mechanism, pairs, config, show_progress=False)
                bad += r.violation
                seq = r.extra["sequential"]
                assert isinstance(seq, dict)
                rounds.append(len(seq["rounds"]))
                drawn.append(int(seq["drawn"]))
            upper = float(cp_upper(bad, audits, 0.05))
            print(
                f"| {beta} | {bad}/{audits} | {upper:.3f} | {np.mean(rounds):.2f} | {np.mean(drawn):,.0f} |"
            )


def _route_audit(name: str, seed: int, beta: float, num_samples: int) -> tuple[bool, float, bool, bool]:
    """One seeded sequential audit through the default route: (violation, certified ε, searched,
    ran a second search round)."""
    mechanism, _ = resolve(name, {})
    config = AuditConfig(num_samples=num_samples, seed=seed, failure_probability=beta, sequential=True)
    r = certify(mechanism, config, Route("all"), show_progress=False).result
    rounds = r.extra.get("search_rounds")
    second = isinstance(rounds, dict) and not rounds["decided"]
    return bool(r.violation), float(r.epsilon_lower_bound), "search" in r.extra, second


def route_coverage(audits: int, num_samples: int, jobs: int, rows: tuple[str, ...] = RUNNER_ROWS) -> None:
    """Seeded audits through the whole sequential default route (first round, then the search)
    on registered rows whose claim is their exact ε: false violations and bounds above it."""
    from joblib import Parallel, delayed

    for name in rows:
        print(f"\nroute: {name} (claim = exact ε = 1), {audits} seeds, --sequential", end="")
        print(f" --num-samples {num_samples}")
        print(
            "| β | false violations | CP 95% upper | ε bound above the exact ε | audits that searched "
            "| …in two search rounds |"
        )
        print("|---|---|---|---|---|---|")
        for beta in BETAS:
            runs = Parallel(n_jobs=jobs)(
                delayed(_route_audit)(name, seed, beta, num_samples) for seed in range(audits)
            )
            bad = sum(r[0] for r in runs)
            above = sum(r[1] > EXACT for r in runs)
            searched = sum(r[2] for r in runs)
            second = sum(r[3] for r in runs)
            upper = float(cp_upper(bad, audits, 0.05))
            print(
                f"| {beta} | {bad}/{audits} | {upper:.3f} | {above}/{audits} | {searched}/{audits} "
                f"| {second}/{audits} |"
            )


def decision(seeds: int, rows: tuple[str, ...] = DECISION_ROWS) -> None:
    print(f"\nsamples to a decision: registered pairs, default budgets, seeds 0–{seeds - 1}")
    print("| mechanism | route | verdicts | samples drawn per side and pair (median, range) | mean ε bound |")
    print("|---|---|---|---|---|")
    for name in rows:
        mechanism, entry = resolve(name, {})
        n = entry.default_num_samples if entry is not None else 1_000_000
        pairs = pairs_for(mechanism)
        for sequential in (False, True):
            verdicts, spent, eps = [], [], []
            for seed in range(seeds):
                config = AuditConfig(num_samples=n, seed=seed, sequential=sequential)
                r = run_audit(mechanism, pairs, config, show_progress=False)
                verdicts.append("V" if r.violation else "-")
                seq = r.extra.get("sequential")
                drawn = seq.get("drawn") if isinstance(seq, dict) else None
                spent.append(
                    int(drawn) if drawn is not None else r.selection_samples + r.certification_samples
                )
                eps.append(r.epsilon_lower_bound)
            route = "sequential" if sequential else f"fixed n = {n:,}"
            print(
                f"| {name} | {route} | {''.join(verdicts)} | {int(np.median(spent)):,} "
                f"({min(spent):,}–{max(spent):,}) | {np.mean(eps):.3f} |"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--audits", type=int, default=1000, help="seeded audits per row and β (default 1000; 0: skip)"
    )
    ap.add_argument("--cap", type=int, default=20_000, help="certification samples per side at the cap")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--runner", type=int, default=0, help="seeded run_audit's per β (default 0: skip)")
    ap.add_argument("--runner-samples", type=int, default=2000, help="--num-samples of those audits")
    ap.add_argument("--route", type=int, default=0, help="seeded default-route audits per β (0: skip)")
    ap.add_argument("--route-samples", type=int, default=30_000, help="--num-samples of those audits")
    ap.add_argument("--jobs", type=int, default=1, help="processes for the --route audits")
    ap.add_argument(
        "--decision", type=int, default=0, help="seeds of the samples-to-decision table (0: skip)"
    )
    ap.add_argument(
        "--rows", nargs="+", default=list(DECISION_ROWS), help="registered mechanisms of that table"
    )
    args = ap.parse_args()
    start = time.process_time()
    if args.audits:
        coverage(args.audits, args.cap, args.seed)
        rounds_coverage(args.audits, args.cap, args.seed)
    if args.runner:
        runner_coverage(args.runner, args.runner_samples)
    if args.route:
        route_coverage(args.route, args.route_samples, args.jobs)
    if args.decision:
        decision(args.decision, tuple(args.rows))
    print(f"\n{time.process_time() - start:.0f} s CPU")


if __name__ == "__main__":
    main()
