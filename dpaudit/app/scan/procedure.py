"""`dpaudit scan`: audit every export of an installed library, blind, at one stated budget.

Each target is built inside the worker that audits it and certified by the same route as
`dpaudit run` (the pair search, the registered or template pairs as its fallback), with the
mechanism's own pairs hidden from nobody: a preset keeps its registered pairs. Every audit has its
own failure probability β (each row is a separate audit, as if run alone; the table's exit code is
a union over rows, so `scan` splits β over the built targets: each audit runs at β / #built and
the whole table holds at 1 − β). A target that cannot be built, times out or raises is a row that
says so, never a crash of the scan.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from joblib import Parallel, delayed

from dpaudit.engine.sampling import AuditTimeout
from dpaudit.engine.types import AuditConfig, AuditResult, Verdict
from dpaudit.mechanisms.base import MechanismError
from dpaudit.reports.words import witnesses

from ..route import Route, certify
from .targets import Target


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanConfig:
    """One budget for every target: `num_samples` per side, `timeout` seconds per target."""

    num_samples: int = 1000
    seed: int = 0
    failure_probability: float = 0.05
    timeout: float | None = 300.0
    jobs: int = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanRow:
    """What one target's audit showed."""

    target: str
    kind: str
    status: str
    """violation_found, no_violation_found, inconclusive, not built, timed out, or failed."""
    claimed: float | None = None
    certified: float | None = None
    claim_kind: str = ""
    witness: str = ""
    seconds: float = 0.0
    detail: str = ""
    result: AuditResult | None = None

    @property
    def flagged(self) -> bool:
        return self.status == Verdict.VIOLATION_FOUND.value


def scan(targets: Sequence[Target], config: ScanConfig,
         progress: Callable[[ScanRow], None] | None = None) -> list[ScanRow]:
    """Audit each buildable target; rows in the targets' order."""
    built = [t for t in targets if t.build is not None]
    test_level = config.failure_probability / max(1, len(built))
    jobs = Parallel(n_jobs=config.jobs, return_as="generator", backend="loky") if config.jobs > 1 else None
    calls = [delayed(audit_target)(t, config, test_level, i) for i, t in enumerate(built)]
    audited: list[ScanRow] = []
    for row in (jobs(calls) if jobs is not None else (f(*a, **k) for f, a, k in calls)):
        audited.append(row)
        if progress is not None:
            progress(row)
    by_name = {r.target: r for r in audited}
    return [by_name[t.name] if t.build is not None else _not_built(t) for t in targets]


def _not_built(target: Target) -> ScanRow:
    return ScanRow(target=target.name, kind=target.kind, status="not built", detail=target.reason)


def audit_target(target: Target, config: ScanConfig, test_level: float, index: int) -> ScanRow:
    """Build and audit one target; any failure of the library is the row's status."""
    assert target.build is not None
    start = time.perf_counter()
    try:
        mechanism = target.build()
        audit_config = AuditConfig(
            num_samples=config.num_samples,
            seed=config.seed + index,
            failure_probability=test_level,
            timeout=config.timeout,
        )
        command = _command(target, config, index)
        result = certify(mechanism, audit_config, Route(mode="all"), command=command).result
    except AuditTimeout:
        return _failed(target, "timed out", f"no decision within {config.timeout:g} s", start)
    except (MechanismError, ValueError, TypeError, ArithmeticError, RuntimeError) as exc:
        return _failed(target, "failed", f"{type(exc).__name__}: {' '.join(str(exc).split())[:160]}", start)
    return _row(target, result, time.perf_counter() - start)


def _command(target: Target, config: ScanConfig, index: int) -> str:
    return (f"dpaudit scan {target.library} --only {target.export} --budget {config.num_samples} "
            f"--seed {config.seed}")


def _failed(target: Target, status: str, detail: str, start: float) -> ScanRow:
    return ScanRow(target=target.name, kind=target.kind, status=status, detail=detail,
                   seconds=time.perf_counter() - start)


def _row(target: Target, result: AuditResult, seconds: float) -> ScanRow:
    shown = witnesses(result) if result.verdict is Verdict.VIOLATION_FOUND else []
    witness = ""
    if shown:  # the strongest violating pair, its counts oriented so that D is its dataset
        w = shown[0]
        (kd, nd), (kn, nn) = w.on_dataset, w.on_neighbor
        counts = "" if w.counted else f" in {kd:,} of {nd:,} on D, {kn:,} of {nn:,} on D′"
        witness = f"{w.pair.description}: {w.pair.estimate.event}{counts}"
    return ScanRow(
        target=target.name,
        kind=target.kind,
        status=str(result.verdict.value),
        claimed=result.claim.epsilon,
        certified=result.epsilon_lower_bound,
        claim_kind=str(result.claim.kind.value),
        witness=witness,
        seconds=seconds,
        result=result,
    )
