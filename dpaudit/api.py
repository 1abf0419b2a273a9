"""The one-call Python API: `dpaudit.audit(...)` and `dpaudit.gate(...)`.

`audit` is `dpaudit run` without the command line: it resolves a registered name or takes a
mechanism object, chooses the route (the searched pairs with the registered ones in the pool,
or the registered pairs alone) and returns the `AuditResult` whose certified bound holds with
probability ≥ 1 − `failure_probability` (the proof is in ARCHITECTURE.md). `gate` runs a gate
configuration file and returns its outcome (`outcome.exit_code` is what `dpaudit gate` exits
with).
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from dpaudit.engine.types import AuditConfig, AuditResult
from dpaudit.mechanisms.base import Mechanism
from dpaudit.mechanisms.registry import resolve
from dpaudit.neighbors.base import NeighborPair

from .app.gate_io import gate_io
from .app.route import Route, certify

if TYPE_CHECKING:
    from .app.gate import GateOutcome

PairsChoice = Literal["all", "registered", "search", "templates"] | Sequence[NeighborPair]


def audit(
    mechanism: Mechanism | str,
    *,
    num_samples: int | None = None,
    pairs: PairsChoice = "all",
    seed: int = 0,
    failure_probability: float = 0.05,
    params: Mapping[str, str] | None = None,
    jobs: int = 1,
    timeout: float | None = None,
    floating_point: bool = False,
    sweep_max_count: int | None = None,
    sequential: bool = False,
) -> AuditResult:
    """Audit `mechanism` (an object, a registered name, or "module:attribute") and return the
    result. `num_samples` defaults to the registered budget (10^6 for an unregistered one).
    `timeout` (seconds) stops the audit with `AuditTimeout` (as `dpaudit run --timeout`).
    `floating_point=True` (as `dpaudit run --floating-point`) adds the floating-point lattice
    events for a mechanism that does not declare `floating_point` (`AuditConfig.floating_point`).
    `sweep_max_count` (as `--sweep-max-count`) is the largest k of the search's count sweeps
    (0: none). `sequential=True` (as `dpaudit run --sequential`) certifies on the confidence
    sequence and stops once decided, `num_samples` then a cap (`AuditConfig.sequential`).

    `pairs="all"` (the default, as `dpaudit run`) searches the mechanism's domain with its
    registered pairs in the candidate pool and falls back to the registered pairs, with a
    warning in the result, when the budget or the domain cannot support a search; "registered"
    audits the registered pairs; "templates" the boundary templates of its domain; a sequence
    of `NeighborPair` audits exactly those.
    """
    raw = {k: str(v) for k, v in (params or {}).items()}
    if isinstance(mechanism, str):
        spec = mechanism
        mech, entry = resolve(mechanism, raw)
        default_n = entry.default_num_samples if entry else 1_000_000
    else:
        spec, mech, default_n = mechanism.name, mechanism, 1_000_000
    n = num_samples or default_n
    config = AuditConfig(
        num_samples=n,
        seed=seed,
        failure_probability=failure_probability,
        jobs=jobs,
        timeout=timeout,
        floating_point=floating_point,
        sequential=sequential,
    )
    command = _command(
        spec, raw, n, seed=seed, failure_probability=failure_probability, floating_point=floating_point
    )
    if sweep_max_count is not None:
        if sweep_max_count < 0:
            raise ValueError(f"sweep_max_count must be ≥ 0 (0: no sweeps), got {sweep_max_count}")
        command += f" --sweep-max-count {sweep_max_count}"
    if sequential:
        command += " --sequential"
    route = dataclasses.replace(_route(pairs), sweep_max_count=sweep_max_count)
    return certify(mech, config, route, parameters=tuple(raw.items()), command=command).result


def _route(pairs: PairsChoice) -> Route:
    if isinstance(pairs, str):
        if pairs not in {"all", "registered", "search", "templates"}:
            raise ValueError(
                "pairs must be 'all', 'registered', 'search', 'templates' or a sequence of pairs, "
                f"got {pairs!r}"
            )
        return Route(mode=pairs, explicit=pairs != "all")
    return Route(mode="explicit", pairs=tuple(pairs), explicit=True)


def _command(
    spec: str,
    raw: Mapping[str, str],
    n: int,
    *,
    seed: int,
    failure_probability: float,
    floating_point: bool = False,
) -> str:
    parts = ["dpaudit", "run", spec]
    for k, v in raw.items():
        parts += ["--param", f"{k}={v}"]
    parts += [
        "--num-samples",
        str(n),
        "--seed",
        str(seed),
        "--failure-probability",
        repr(float(failure_probability)),
        *(["--floating-point"] if floating_point else []),
    ]
    return shlex.join(parts)


def gate(
    config_path: str | Path,
    *,
    baseline: str | Path | None = None,
    update_baseline: bool = False,
    out: str | Path | None = None,
    strict: bool = False,
    jobs: int = 1,
) -> GateOutcome:
    """Run the privacy gate configured in `config_path` (TOML) and return its outcome;
    `outcome.exit_code` is 0 (pass), 1 (violation or regression) or 2 (stale baseline under
    `strict`). Result files go under `out` when given."""
    from .app.gate import GateOptions, load_config, run_gate

    options = GateOptions(
        baseline=Path(baseline) if baseline is not None else None,
        update_baseline=update_baseline,
        out=Path(out) if out is not None else None,
        strict=strict,
        jobs=jobs,
    )
    return run_gate(load_config(Path(config_path)), options, gate_io())
