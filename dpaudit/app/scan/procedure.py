"""`dpaudit scan`: audit every export of an installed library, blind, at one stated budget.

Each target is built inside the worker that audits it and certified by the same route as
`dpaudit run` (the pair search, the registered or template pairs as its fallback), with the
mechanism's own pairs hidden from nobody: a preset keeps its registered pairs. Every audit has its
own failure probability β (each row is a separate audit, as if run alone; the table's exit code is
a union over rows, so `scan` splits β over the built targets: each audit runs at β / #built and
the whole table holds at 1 − β). A target that cannot be built, times out or raises is a row that
says so, never a crash of the scan.

Without `--budget`, a target whose measured cost does not fit its timeout is audited at the
largest budget that does (`fitting`), and its row says so. Every row carries the command that
reproduces it alone, to the last bit: its seed is drawn from (the scan's seed, the target's name),
not its position among the targets (`row_seed`), and the command passes the row's own failure
probability (`--row-failure-probability`, else `--only` would split β over fewer audits) and the
budget it was audited at (`--budget`, the fitted number, since a measured time is not
reproducible).
"""

from __future__ import annotations

import dataclasses
import shlex
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed

from dpaudit.engine.sampling import AuditTimeout, audit_session
from dpaudit.engine.types import AuditConfig, AuditResult, Verdict
from dpaudit.mechanisms.base import MechanismError
from dpaudit.reports.words import witnesses

from ..route import Route, certify
from .fitting import Fitted, fit_budget
from .targets import Target

DEFAULT_TIMEOUT = 300.0


@dataclass(frozen=True, slots=True, kw_only=True)
class ScanConfig:
    """One budget for every target: `num_samples` per side, `timeout` seconds per target."""

    num_samples: int = 1000
    seed: int = 0
    failure_probability: float = 0.05
    """For the whole table: each of the B audits runs at β / B."""
    timeout: float | None = DEFAULT_TIMEOUT
    jobs: int = 1
    fit_budget: bool = False
    """Lower a target's budget to what fits its timeout (`fitting`; the CLI's default without
    `--budget`). Needs a timeout."""
    row_failure_probability: float | None = None
    """Each audit's own β instead of the split (a row's reproduce command passes it)."""

    def row_level(self, audits: int) -> float:
        """The failure probability each of `audits` audits runs at."""
        if self.row_failure_probability is not None:
            return self.row_failure_probability
        return self.failure_probability / max(1, audits)


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
    num_samples: int = 0
    """The budget per side audited (the stated one, or the fitted one)."""
    budget_note: str = ""
    """The budget's fitting to the timeout, when there was any to say (`Fitted.note`)."""
    seconds_per_sample: float | None = None
    """The measured cost the fitting rests on (None: not measured)."""
    seed: int = 0
    """The audit's seed (`row_seed`)."""
    failure_probability: float = 0.0
    """The audit's own β."""
    command: str = ""
    """The command that reproduces this row alone."""

    @property
    def flagged(self) -> bool:
        return self.status == Verdict.VIOLATION_FOUND.value


def scan(targets: Sequence[Target], config: ScanConfig,
         progress: Callable[[ScanRow], None] | None = None) -> list[ScanRow]:
    """Audit each buildable target; rows in the targets' order."""
    built = [t for t in targets if t.build is not None]
    test_level = config.row_level(len(built))
    jobs = Parallel(n_jobs=config.jobs, return_as="generator", backend="loky") if config.jobs > 1 else None
    calls = [delayed(audit_target)(t, config, test_level) for t in built]
    audited: list[ScanRow] = []
    for row in (jobs(calls) if jobs is not None else (f(*a, **k) for f, a, k in calls)):
        audited.append(row)
        if progress is not None:
            progress(row)
    by_name = {r.target: r for r in audited}
    return [by_name[t.name] if t.build is not None else _not_built(t) for t in targets]


def row_seed(seed: int, name: str) -> int:
    """The audit seed of target `name` in a scan at `seed`: from (seed, CRC-32 of the name), so it
    does not depend on which other exports were scanned (`--only`) or in what order."""
    state = np.random.SeedSequence([seed, zlib.crc32(name.encode())]).generate_state(1, dtype=np.uint32)
    return int(state[0])


def _not_built(target: Target) -> ScanRow:
    return ScanRow(target=target.name, kind=target.kind, status="not built", detail=target.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Audit:
    """How a row's target is audited: what its row states besides the result."""

    seed: int
    failure_probability: float
    num_samples: int
    fitted: Fitted | None = None

    def command(self, target: Target, config: ScanConfig) -> str:
        """The command that reproduces the row alone: this export only, the budget it was audited
        at, the scan's seed (the row's is drawn from it and the name) and the row's β."""
        parts = ["dpaudit", "scan", target.library, "--only", target.export,
                 "--budget", str(self.num_samples), "--seed", str(config.seed),
                 "--row-failure-probability", repr(self.failure_probability)]
        if config.timeout is not None and config.timeout != DEFAULT_TIMEOUT:
            parts += ["--timeout", repr(config.timeout)]
        return shlex.join(parts)

    def said(self, row: ScanRow, target: Target, config: ScanConfig) -> ScanRow:
        """`row` with how it was audited."""
        fitted = self.fitted
        return dataclasses.replace(
            row,
            num_samples=self.num_samples,
            budget_note="" if fitted is None else fitted.note(),
            seconds_per_sample=None if fitted is None else fitted.seconds_per_sample,
            seed=self.seed,
            failure_probability=self.failure_probability,
            command=self.command(target, config),
        )


def audit_target(target: Target, config: ScanConfig, test_level: float) -> ScanRow:
    """Build and audit one target (its budget fitted first when asked); any failure of the
    library is the row's status. The timeout covers the timing and the audit."""
    assert target.build is not None
    start = time.perf_counter()
    how = _Audit(seed=row_seed(config.seed, target.name), failure_probability=test_level,
                 num_samples=config.num_samples)
    try:
        mechanism = target.build()
        with audit_session(mechanism.name, timeout=config.timeout):
            if config.fit_budget and config.timeout is not None:
                fitted = fit_budget(mechanism, stated=config.num_samples, timeout=config.timeout,
                                    seed=how.seed)
                how = dataclasses.replace(how, num_samples=fitted.num_samples, fitted=fitted)
            audit_config = AuditConfig(num_samples=how.num_samples, seed=how.seed,
                                       failure_probability=test_level, timeout=config.timeout)
            command = how.command(target, config)
            result = certify(mechanism, audit_config, Route(mode="all"), command=command).result
    except AuditTimeout:
        row = _failed(target, "timed out", f"no decision within {config.timeout:g} s", start)
        return how.said(row, target, config)
    except (MechanismError, ValueError, TypeError, ArithmeticError, RuntimeError) as exc:
        row = _failed(target, "failed", f"{type(exc).__name__}: {' '.join(str(exc).split())[:160]}", start)
        return how.said(row, target, config)
    return how.said(_row(target, result, time.perf_counter() - start), target, config)


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
