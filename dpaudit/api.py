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

from dpaudit.app.cli_commands import gate_io
from dpaudit.app.cli_commands import pairs_for as registered_pairs
from dpaudit.engine.runner import CHECKED_FROM, check_budget, run_audit
from dpaudit.engine.sampling import audit_session
from dpaudit.engine.search import SearchBudgetError, SearchUnsupportedError, search_and_certify
from dpaudit.engine.types import AuditConfig, AuditResult
from dpaudit.mechanisms.base import Mechanism, claims_of
from dpaudit.mechanisms.registry import resolve
from dpaudit.neighbors.base import NeighborPair
from dpaudit.neighbors.sweeps import DEFAULT_MAX_COUNT

if TYPE_CHECKING:
    from dpaudit.app.gate_types import GateOutcome

PairsChoice = Literal["all", "registered", "search"] | Sequence[NeighborPair]

FALLBACK = "the default pair search is unavailable"


@dataclasses.dataclass(frozen=True)
class Route:
    """Which pairs an audit certifies: `mode` "all" (search, registered pairs in the pool),
    "search" (search only), "registered" (the registered pairs), or explicit `pairs`."""

    mode: str
    pairs: tuple[NeighborPair, ...] = ()
    explicit: bool = False
    """The mode was asked for (an impossible search is then an error, not a fallback)."""
    pilot_fraction: float | None = None
    """Share of the search budget spent on the pilot (None: automatic, 0.2 with registered pairs)."""
    search_pairs: int | None = None
    """Search budget per side = num_samples × this (None: the number of registered pairs, else of
    boundary templates: what the registered route would spend)."""
    sweep_max_count: int | None = None
    """The largest k of the count sweeps (None: `neighbors.sweeps.DEFAULT_MAX_COUNT`, 64)."""


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
) -> AuditResult:
    """Audit `mechanism` (an object, a registered name, or "module:attribute") and return the
    result. `num_samples` defaults to the registered budget (10^6 for an unregistered one).
    `timeout` (seconds) stops the audit with `AuditTimeout` (as `dpaudit run --timeout`).
    `floating_point=True` (as `dpaudit run --floating-point`) adds the floating-point lattice
    events for a mechanism that does not declare `floating_point` (`AuditConfig.floating_point`).
    `sweep_max_count` (as `--sweep-max-count`) is the largest k of the search's count sweeps
    (0: none).

    `pairs="all"` (the default, as `dpaudit run`) searches the mechanism's domain with its
    registered pairs in the candidate pool and falls back to the registered pairs, with a
    warning in the result, when the budget or the domain cannot support a search; "registered"
    audits the registered pairs; a sequence of `NeighborPair` audits exactly those.
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
    )
    command = _command(
        spec, raw, n, seed=seed, failure_probability=failure_probability, floating_point=floating_point
    )
    if sweep_max_count is not None:
        if sweep_max_count < 0:
            raise ValueError(f"sweep_max_count must be ≥ 0 (0: no sweeps), got {sweep_max_count}")
        command += f" --sweep-max-count {sweep_max_count}"
    route = dataclasses.replace(_route(pairs), sweep_max_count=sweep_max_count)
    return certify(mech, config, route, parameters=tuple(raw.items()), command=command)


def _route(pairs: PairsChoice) -> Route:
    if isinstance(pairs, str):
        if pairs not in {"all", "registered", "search"}:
            raise ValueError(
                f"pairs must be 'all', 'registered', 'search' or a sequence of pairs, got {pairs!r}"
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


def certify(
    mechanism: Mechanism,
    config: AuditConfig,
    route: Route,
    *,
    parameters: tuple[tuple[str, str], ...] = (),
    command: str = "",
    checkpoint_path: Path | None = None,
    resume: bool = False,
) -> AuditResult:
    """Run `route` on `mechanism`: the search (with a registered fallback) or `run_audit`.
    A search the budget or domain cannot support falls back to the registered pairs with a
    note in the result's warnings, unless the route was asked for explicitly (then it raises).
    The whole route runs in one `audit_session`: `config.timeout` bounds all of it, and every
    output's shape is checked against the first. A claim of the wrong type or an absurd
    `num_samples` (`check_budget`) is refused before the search draws anything."""
    claims_of(mechanism)
    with audit_session(mechanism.name, timeout=config.timeout):
        if route.mode != "explicit" and 2 * config.num_samples >= CHECKED_FROM:
            check_budget(mechanism, registered_pairs(mechanism)[0].dataset, config, pairs=1)
        return _certify(mechanism, config, route, parameters, command, checkpoint_path, resume)


def _certify(
    mechanism: Mechanism,
    config: AuditConfig,
    route: Route,
    parameters: tuple[tuple[str, str], ...],
    command: str,
    checkpoint_path: Path | None,
    resume: bool,
) -> AuditResult:
    saved = Saved(checkpoint_path=checkpoint_path, resume=resume)
    if route.mode == "explicit":
        return _run(mechanism, list(route.pairs), config, parameters, command, saved)
    note = ""
    if route.mode != "registered":
        try:
            return _search(mechanism, config, route, parameters, command, saved)
        except (SearchBudgetError, SearchUnsupportedError) as exc:
            if route.explicit:
                raise
            listed = getattr(mechanism, "neighbor_pairs", None)
            registered = callable(listed) and len(listed()) > 0
            which = "registered pairs" if registered else "boundary template pairs"
            note = f"note: audited on the {which} ({FALLBACK}: {exc})"
    pairs = registered_pairs(mechanism)
    result = _run(mechanism, pairs, config, parameters, f"{command} --pairs registered", saved)
    return dataclasses.replace(result, warnings=(*result.warnings, note)) if note else result


@dataclasses.dataclass(frozen=True)
class Saved:
    """Where the audit checkpoints, and whether it resumes from there."""

    checkpoint_path: Path | None = None
    resume: bool = False


def _run(
    mechanism: Mechanism,
    pairs: list[NeighborPair],
    config: AuditConfig,
    parameters: tuple[tuple[str, str], ...],
    command: str,
    saved: Saved,
) -> AuditResult:
    return run_audit(
        mechanism,
        pairs,
        config,
        parameters=parameters,
        command=command,
        checkpoint_path=saved.checkpoint_path,
        resume=saved.resume,
    )


def _search(
    mechanism: Mechanism,
    config: AuditConfig,
    route: Route,
    parameters: tuple[tuple[str, str], ...],
    command: str,
    saved: Saved,
) -> AuditResult:
    if getattr(mechanism, "domain", None) is None:
        raise SearchUnsupportedError(f"{mechanism.name!r} declares no domain to search")
    found = search_and_certify(
        mechanism,
        config,
        registered=registered_pairs(mechanism) if route.mode == "all" else (),
        parameters=parameters,
        command=f"{command} --pairs {route.mode}",
        checkpoint_path=saved.checkpoint_path,
        resume=saved.resume,
        pilot_fraction=route.pilot_fraction,
        budget=None if route.search_pairs is None else config.num_samples * route.search_pairs,
        sweep_max_count=DEFAULT_MAX_COUNT if route.sweep_max_count is None else route.sweep_max_count,
    )
    return found.certified


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
    from dpaudit.app.gate import GateOptions, run_gate
    from dpaudit.app.gate_config import load_config

    options = GateOptions(
        baseline=Path(baseline) if baseline is not None else None,
        update_baseline=update_baseline,
        out=Path(out) if out is not None else None,
        strict=strict,
        jobs=jobs,
    )
    return run_gate(load_config(Path(config_path)), options, gate_io())
