"""The privacy gate end to end: learner twins caught as regressions, and measured false alarms.

Twins (default). For every registered learner twin (`registry.entries()`: buggy, family ≠
"reference"), `dpaudit.api.gate` writes a baseline of the correct learner (`twin_of`) under the
audit name "learner", then gates the twin under that name (the baseline's mechanism field is
renamed to the twin's, as if the learner's code had changed in place). Each twin is *caught as a
violation* (exit 1 on its claim), *caught as a regression* (exit 1 on the regression test only),
*stale* (no exit 1, but the gate names the baseline as no longer informative for a pair, which
`--strict` turns into exit 2: the twin's outputs no longer hit the stored witness), or *missed*;
a miss gets a reason: "no registered pair shows it" (the twin's exact ε, from
`exact_epsilon(pair, delta)`, exceeds the learner's on no registered pair), "too few samples"
(the witness's point loss rose, by less than the gate's detectable rise at power 0.8; that rise
is computed at the baseline's event frequencies, so when the twin moved the event's frequencies
the reason also gives the rise the test separates at today's frequencies: the sum of the two
confidence half-widths), or "the witness doesn't see it" (it did not rise). Without an exact
oracle the reason is "(no oracle)".

False alarms (`--false-alarm`). Unchanged mechanisms at β = 0.5 (β_reg = 0.25 per audit):
R seeded repetitions of baseline (run_audit at β/2 → `baseline_audit_from_result`) then the
regression test on the same mechanism at a different seed; prints the flag rate, which the proof
of audit/baseline.py bounds by β_reg.

    python benchmarks/gate.py [--num-samples N] [--only NAME ...]
    python benchmarks/gate.py --false-alarm [--reps 300] [--num-samples N]
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path
from typing import Any

from scipy import stats

from dpaudit.api import gate
from dpaudit.app.baseline import (
    WITNESS_CHOICES,
    RegressionCheck,
    baseline_audit_from_result,
    regression_checks,
)
from dpaudit.app.gate import VIOLATION_SHARE, AuditOutcome
from dpaudit.engine.runner import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.registry import entries

FALSE_ALARM_MECHANISMS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("laplace_sum", {}),
    ("randomized_response", {}),
    ("em_learner", {}),
)


def _toml(mechanism: str, num_samples: int | None, seed: int, witnesses: str = "reported") -> str:
    budget = f"num_samples = {num_samples}\n" if num_samples else ""
    head = f'witnesses = "{witnesses}"\n'
    return f'{head}[[audit]]\nname = "learner"\nmechanism = "{mechanism}"\nseed = {seed}\n{budget}'


def _exact_gap(twin: Mechanism, correct: Mechanism) -> bool | None:
    """Does the twin's exact ε exceed the learner's on some registered pair? (None: no oracle)."""
    try:
        gaps = []
        for pair in correct.neighbor_pairs():  # type: ignore[attr-defined]
            delta = float(getattr(twin, "delta", 0.0) or 0.0)
            gaps.append(twin.exact_epsilon(pair, delta) > correct.exact_epsilon(pair, delta) + 1e-9)  # type: ignore[attr-defined]
        return any(gaps)
    except (AttributeError, NotImplementedError, TypeError, ValueError):
        return None


def _miss_reason(o: AuditOutcome, twin: Mechanism, correct: Mechanism) -> str:
    gap = _exact_gap(twin, correct)
    if gap is False:
        return "no registered pair shows it"
    suffix = "" if gap else " (no oracle)"
    checks = () if o.regression is None else o.regression.checks
    if not checks:
        return "no comparable witness" + suffix
    risen = [c for c in checks if not math.isnan(c.new_point - c.baseline_point)]
    top = max(risen, key=lambda c: c.new_point - c.baseline_point, default=None)
    if top is None or top.new_point - top.baseline_point <= 0:
        return "the witness doesn't see it" + suffix
    rise, power = top.new_point - top.baseline_point, top.detectable_increase
    if rise < power:
        return f"too few samples (witness rose {rise:.3g} < detectable {power:.3g})" + suffix
    today = _separable_today(top)
    if rise < today:  # the twin made the event rarer: today's counts are too few to separate
        return (
            f"too few samples at today's event frequencies (witness rose {rise:.3g}; detectable "
            f"{power:.3g} at the baseline's frequencies, separable from {today:.3g} at today's)" + suffix
        )
    return f"not flagged this run (witness rose {rise:.3g}, detectable w.p. 0.8 from {power:.3g})" + suffix


def _certified_text(twin: AuditOutcome, learner: AuditOutcome) -> str:
    """The audits' own view at the gate budget: the best certified ε of the twin on its pairs and
    of the learner on its pairs (a rise well inside seed noise is not a measurable one)."""
    return (
        f" [certified at this budget: twin {twin.result.epsilon_lower_bound:.3g}, "
        f"learner {learner.result.epsilon_lower_bound:.3g}]"
    )


def _separable_today(check: RegressionCheck) -> float:
    """The rise at which this run's two bounds would just meet: the baseline's upper half-width
    plus today's lower half-width (a rise below it cannot be flagged on these counts)."""
    return (check.baseline_upper - check.baseline_point) + (check.new_point - check.new_lower)


def _one_twin(
    name: str, correct_name: str, num_samples: int | None, seed: int, tmp: Path, witnesses: str
) -> tuple[str, str]:
    registry = entries()
    (tmp / "base.toml").write_text(_toml(correct_name, num_samples, seed, witnesses))
    (base,) = gate(tmp / "base.toml", baseline=tmp / "b.json", update_baseline=True).outcomes
    data = json.loads((tmp / "b.json").read_text())
    twin = registry[name].build()
    data["audits"]["learner"]["mechanism"] = twin.name  # the learner's code changed in place
    (tmp / "b.json").write_text(json.dumps(data))
    (tmp / "twin.toml").write_text(_toml(name, num_samples, seed))
    (o,) = gate(tmp / "twin.toml", baseline=tmp / "b.json").outcomes
    if o.violation:
        return "violation", ""
    if o.regressed:
        return "regression", ""
    reason = _miss_reason(o, twin, registry[correct_name].build()) + _certified_text(o, base)
    if o.regression is not None and o.regression.stale:
        n_stale = len(o.regression.stale)
        return "stale", f"{n_stale} witness(es) no longer informative (exit 2 with --strict); {reason}"
    return "missed", reason


def twins(args: argparse.Namespace) -> None:
    rows, caught, stale = [], 0, 0
    learners = [e for e in entries().values() if e.buggy and e.family != "reference" and e.twin_of]
    learners = [e for e in learners if not args.only or e.name in args.only]
    print(f"{'twin':48s} {'learner':30s} {'outcome':10s} {'s':>6s}  reason", flush=True)
    for e in learners:
        start = time.monotonic()
        with tempfile.TemporaryDirectory() as d:
            try:
                outcome, reason = _one_twin(
                    e.name, str(e.twin_of), args.num_samples, args.seed, Path(d), args.witnesses
                )
            except (TypeError, ValueError) as exc:  # e.g. the twin's output no longer fits the witness
                outcome, reason = "missed", f"gate error: {type(exc).__name__}: {str(exc)[:60]}"
        caught += outcome in ("violation", "regression")
        stale += outcome == "stale"
        rows.append((e.name, outcome, reason))
        print(
            f"{e.name:48s} {e.twin_of!s:30s} {outcome:10s} {time.monotonic() - start:6.1f}  {reason}",
            flush=True,
        )
    n = max(len(rows), 1)
    print(
        f"catch rate: {caught}/{len(rows)} = {caught / n:.2f} (exit 1); with --strict also {stale} stale: "
        f"{caught + stale}/{len(rows)} = {(caught + stale) / n:.2f}"
    )


def _fires(m: Mechanism, *, seed: int, n: int, beta: float) -> bool:
    pairs = m.neighbor_pairs()  # type: ignore[attr-defined]
    config = AuditConfig(num_samples=n, seed=seed, failure_probability=beta * VIOLATION_SHARE)
    result = run_audit(m, pairs, config, show_progress=False)
    entry = baseline_audit_from_result("a", m.name, result, pairs, m)
    beta_reg = beta * (1 - VIOLATION_SHARE)
    seed2 = seed + 1_000_003
    report = regression_checks(
        m, entry, num_samples=result.certification_samples, seed=seed2, failure_probability=beta_reg
    )
    return report.regression


def false_alarm(args: argparse.Namespace) -> None:
    beta = 0.5
    beta_reg = beta * (1 - VIOLATION_SHARE)
    print(
        f"{'mechanism':22s} {'n':>7s} {'reps':>5s} {'alarms':>6s} {'rate':>6s} {'95% CI':>15s} "
        f"{'bound':>6s} {'s':>6s}"
    )
    for name, params in FALSE_ALARM_MECHANISMS:
        m = entries()[name].build(**params)
        start = time.monotonic()
        alarms = sum(_fires(m, seed=s, n=args.num_samples, beta=beta) for s in range(args.reps))
        ci = stats.binomtest(alarms, args.reps).proportion_ci(0.95)
        print(
            f"{name:22s} {args.num_samples:7d} {args.reps:5d} {alarms:6d} {alarms / args.reps:6.3f} "
            f"[{ci.low:.3f}, {ci.high:.3f}] {beta_reg:6.2f} {time.monotonic() - start:6.0f}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--false-alarm", action="store_true", help="measure false alarms on unchanged mechanisms")
    ap.add_argument("--num-samples", type=int, default=None, help="per audit (default: the gate's default)")
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument(
        "--witnesses",
        choices=WITNESS_CHOICES,
        default="reported",
        help="baseline witnesses per pair (the gate config's `witnesses`)",
    )
    args: Any = ap.parse_args(argv)
    if args.false_alarm:
        args.num_samples = args.num_samples or 4000
        false_alarm(args)
    else:
        twins(args)


if __name__ == "__main__":
    main()
