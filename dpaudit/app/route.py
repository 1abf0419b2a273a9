"""Which pairs an audit certifies, and the call that certifies them: the one route shared by
`dpaudit run`, `dpaudit.audit()`, the gate and the pytest plugin (issue 43, item 3).

`pairs_for` is a mechanism's registered worst-case pairs, else boundary templates for its
claims. `certify` runs a `Route`: the default pair search (the registered pairs in its pool) with
a fallback to the registered pairs when the budget or domain cannot support a search, the
registered pairs alone, the boundary templates alone, or explicit pairs, and returns the result
with the pairs it certified (`Certified`: the gate's baseline re-counts those). The whole route
runs in one audit session, so the timeout and the output-shape check cover all of it, and the
budget guard (`check_budget`) covers every entry point. The `command` a result carries names
the pairs the route actually audited (`--pairs registered` only for a mechanism that registers
pairs, `--pairs templates` for boundary templates), so it reproduces the result. Every
certificate is the engine's (the proof is in ARCHITECTURE.md); this module only chooses which
procedure runs.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import numpy as np

from dpaudit.engine.runner import CHECKED_FROM, FUTILITY, check_budget, run_audit
from dpaudit.engine.sampling import audit_session
from dpaudit.engine.search import SearchBudgetError, SearchUnsupportedError, search_and_certify
from dpaudit.engine.types import AuditConfig, AuditResult
from dpaudit.mechanisms.base import Mechanism, claims_of
from dpaudit.neighbors.base import NeighborPair
from dpaudit.neighbors.generators import BoundaryPairs, check_amplification
from dpaudit.neighbors.sweeps import DEFAULT_MAX_COUNT
from dpaudit.reports.samples_words import search_drawn

FALLBACK = "the default pair search is unavailable"


@dataclasses.dataclass(frozen=True)
class Route:
    """Which pairs an audit certifies: `mode` "all" (search, registered pairs in the pool),
    "search" (search only), "registered" (the registered pairs), "templates" (boundary
    templates), or explicit `pairs`."""

    mode: str
    """"all", "search", "registered", "templates" (the boundary templates of the claims'
    relations, registered pairs or not) or "explicit"."""
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
    search_rounds: bool = True
    """A sequential search with the budget for it runs in two rounds (`SEARCH_FIRST`); False:
    one search on the whole budget (what `benchmarks/pilot_fraction.py` compares it with)."""


def has_registered_pairs(mechanism: Mechanism) -> bool:
    registered = getattr(mechanism, "neighbor_pairs", None)
    return callable(registered) and len(registered()) > 0


def pairs_for(mechanism: Mechanism) -> list[NeighborPair]:
    """The mechanism's registered worst-case pairs, else boundary templates for its claims.

    A mechanism whose claim relies on subsampling amplification under one relation cannot be
    audited on pairs of another: that is an input error, never a silent audit."""
    registered = getattr(mechanism, "neighbor_pairs", None)
    pairs: list[NeighborPair] = list(registered()) if callable(registered) else []
    return _checked(mechanism, pairs) if pairs else template_pairs(mechanism)


def template_pairs(mechanism: Mechanism) -> list[NeighborPair]:
    """The boundary templates (`neighbors.generators.BoundaryPairs`) of the mechanism's domain for
    every relation its claims name (what `pairs_for` audits for a mechanism without pairs)."""
    relations = dict.fromkeys(c.relation for c in claims_of(mechanism))
    gen = BoundaryPairs()
    return _checked(mechanism, [p for rel in relations for p in gen.pairs(mechanism.domain, rel)])


def _checked(mechanism: Mechanism, pairs: list[NeighborPair]) -> list[NeighborPair]:
    for rel in dict.fromkeys(p.relation for p in pairs):
        check_amplification(mechanism.domain, rel)
    return pairs


def registered_flag(mechanism: Mechanism) -> str:
    """The `--pairs` value that reproduces an audit of `pairs_for(mechanism)`."""
    return "registered" if has_registered_pairs(mechanism) else "templates"


@dataclasses.dataclass(frozen=True)
class Certified:
    """What the route certified: the result and the pairs behind it (the registered pairs, the
    templates, the explicit pairs, or the search's certified pairs)."""

    result: AuditResult
    pairs: tuple[NeighborPair, ...]


def certify(
    mechanism: Mechanism,
    config: AuditConfig,
    route: Route,
    *,
    parameters: tuple[tuple[str, str], ...] = (),
    command: str = "",
    checkpoint_path: Path | None = None,
    resume: bool = False,
    show_progress: bool | None = None,
) -> Certified:
    """Run `route` on `mechanism`: the search (with a registered fallback) or `run_audit`, and
    return the result with the pairs it certified.
    A search the budget or domain cannot support falls back to the registered pairs with a
    note in the result's warnings, unless the route was asked for explicitly (then it raises).
    The whole route runs in one `audit_session`: `config.timeout` bounds all of it, and every
    output's shape is checked against the first. A claim of the wrong type or an absurd
    `num_samples` (`check_budget`) is refused before the search draws anything."""
    claims_of(mechanism)
    with audit_session(mechanism.name, timeout=config.timeout):
        if route.mode != "explicit" and 2 * config.num_samples >= CHECKED_FROM:
            check_budget(mechanism, pairs_for(mechanism)[0].dataset, config, pairs=1)
        saved = Saved(checkpoint_path=checkpoint_path, resume=resume, show_progress=show_progress)
        return _certify(mechanism, config, route, parameters, command, saved)


def _certify(
    mechanism: Mechanism,
    config: AuditConfig,
    route: Route,
    parameters: tuple[tuple[str, str], ...],
    command: str,
    saved: Saved,
) -> Certified:
    if route.mode == "explicit":
        return _run(mechanism, list(route.pairs), config, parameters, command, saved)
    if route.mode == "templates":
        pairs = template_pairs(mechanism)
        return _run(mechanism, pairs, config, parameters, f"{command} --pairs templates", saved)
    note = ""
    first: dict[str, object] | None = None
    if route.mode == "all" and config.sequential and config.num_samples >= FIRST_MIN:
        done, first = _first_round(mechanism, config, parameters, command, saved)
        if done is not None:
            return done
        config = _after_first(config)
    if route.mode != "registered":
        try:
            found = _search_rounds(mechanism, config, route, parameters, command, saved)
            return _with_first(found, first)
        except (SearchBudgetError, SearchUnsupportedError) as exc:
            if route.explicit:
                raise
            which = "registered pairs" if has_registered_pairs(mechanism) else "boundary template pairs"
            note = f"note: audited on the {which} ({FALLBACK}: {exc})"
    flag = registered_flag(mechanism)
    done = _with_first(
        _run(mechanism, pairs_for(mechanism), config, parameters, f"{command} --pairs {flag}", saved), first
    )
    if not note:
        return done
    return dataclasses.replace(
        done, result=dataclasses.replace(done.result, warnings=(*done.result.warnings, note))
    )


FIRST_BUDGET = 0.2
"""The default route's first round (sequential audits only): this share of the budget per side
and pair on the registered pairs (else the boundary templates), in selection rounds."""
FIRST_SHARE = 0.25
"""…at this share of the failure probability; the search (or its fallback) gets the rest of
both."""
FIRST_MIN = 1_000
"""Budgets below this have no first round (its share would be under `AuditConfig`'s minimum)."""


def _first_round(
    mechanism: Mechanism,
    config: AuditConfig,
    parameters: tuple[tuple[str, str], ...],
    command: str,
    saved: Saved,
) -> tuple[Certified | None, dict[str, object]]:
    """The default route's first round on a sequential audit: the registered pairs (else the
    templates) at `FIRST_BUDGET` of the budget and `FIRST_SHARE` of β, in selection rounds
    (`runner_rounds`, seed keys of their own). A violation there is the route's result (its
    failure probability stated as the whole route's β: the two stages' levels sum to β, union
    bound); else its record, and the search runs on the rest."""
    cap = max(200, int(FIRST_BUDGET * config.num_samples))
    first = dataclasses.replace(
        config, num_samples=cap, failure_probability=config.failure_probability * FIRST_SHARE, rounds_stream=1
    )
    pairs = pairs_for(mechanism)
    flag = registered_flag(mechanism)
    quiet = dataclasses.replace(saved, checkpoint_path=None, resume=False)
    done = _run(mechanism, pairs, first, parameters, f"{command} --pairs {flag}", quiet)
    seq = done.result.extra.get("sequential")
    drawn = int(seq["drawn"]) if isinstance(seq, dict) else cap
    record: dict[str, object] = {
        "pairs": flag,
        "cap": cap,
        "share": FIRST_SHARE,
        "drawn": drawn * len(pairs),
        "verdict": done.result.verdict.value,
        "asked": config.num_samples,
    }
    if not done.result.violation:
        return None, record
    result = dataclasses.replace(
        done.result,
        command=f"{command} --pairs all",
        failure_probability=config.failure_probability,
        extra={**done.result.extra, "first_round": record},
    )
    return dataclasses.replace(done, result=result), record


def _after_first(config: AuditConfig) -> AuditConfig:
    """What the route has left after a first round without a violation: the rest of the budget
    per side and pair and of β."""
    cap = max(200, int(FIRST_BUDGET * config.num_samples))
    return dataclasses.replace(
        config,
        num_samples=config.num_samples - cap,
        failure_probability=config.failure_probability * (1 - FIRST_SHARE),
    )


def _with_first(done: Certified, first: dict[str, object] | None) -> Certified:
    """`done` with the first round recorded (`extra["first_round"]`) and its failure probability
    the whole route's (the first round's share added back), when there was one."""
    if first is None:
        return done
    whole = done.result.failure_probability / (1 - FIRST_SHARE)
    extra = {**done.result.extra, "first_round": first}
    return dataclasses.replace(
        done, result=dataclasses.replace(done.result, failure_probability=whole, extra=extra)
    )


SEARCH_FIRST = 0.25
"""A sequential search runs in two rounds: the first on this share of its budget per side…"""
SEARCH_FIRST_SHARE = 0.25
"""…at this share of its failure probability, on a seed of its own (`round_seed`); the second, on
the rest of both, only when the first neither certified a violation nor found its events out of
reach at the certification the second round would plan (`AuditConfig.futility_scale`)."""
SEARCH_ROUNDS_MIN = 20_000
"""Search budgets (per side and pair) whose first round would be below this run one search: the
pilot at small budgets is already a race, and a quarter of it would screen too few candidates."""
ROUND_SEED_KEY = 150
"""The first search round's seed: `SeedSequence([seed, ROUND_SEED_KEY])`'s first word."""


def round_seed(seed: int) -> int:
    """The first search round's seed, derived from the audit's: its pilot and certification
    streams are then independent of the second round's (drawn at the audit seed)."""
    return int(np.random.SeedSequence([seed, ROUND_SEED_KEY]).generate_state(1)[0])


def _search_rounds(
    mechanism: Mechanism,
    config: AuditConfig,
    route: Route,
    parameters: tuple[tuple[str, str], ...],
    command: str,
    saved: Saved,
) -> Certified:
    """The search, in two rounds on a sequential audit with the budget for them (else one).
    Validity: each round is a complete search at its own share of β (its pairs and events chosen
    on its own pilot, certified on its own fresh samples), so by the union bound over the two the
    route's statements hold together w.p. ≥ 1 − β, whichever round the result comes from and
    whatever rule (a function of the first round's outcome) decided whether the second ran."""
    first_cap = int(SEARCH_FIRST * config.num_samples)
    if not (config.sequential and route.search_rounds) or first_cap < SEARCH_ROUNDS_MIN:
        return _search(mechanism, config, route, parameters, command, saved)
    rest = config.num_samples - first_cap
    first_config = dataclasses.replace(
        config,
        num_samples=first_cap,
        failure_probability=config.failure_probability * SEARCH_FIRST_SHARE,
        seed=round_seed(config.seed),
        futility_scale=rest / first_cap,
        futility_level=(1 - SEARCH_FIRST_SHARE) / SEARCH_FIRST_SHARE,
    )
    quiet = dataclasses.replace(saved, checkpoint_path=None, resume=False)
    try:
        done = _search(mechanism, first_config, route, parameters, command, quiet)
    except (SearchBudgetError, SearchUnsupportedError):
        return _search(mechanism, config, route, parameters, command, saved)
    record = _round_record(done.result, first_config, asked=config.num_samples)
    if done.result.violation or record["reason"] == FUTILITY:
        return _stated(done, config, record, decided=True)
    second_config = dataclasses.replace(
        config,
        num_samples=rest,
        failure_probability=config.failure_probability * (1 - SEARCH_FIRST_SHARE),
    )
    second = _search(mechanism, second_config, route, parameters, command, saved)
    return _stated(second, config, record, decided=False)


def _round_record(result: AuditResult, config: AuditConfig, *, asked: int) -> dict[str, object]:
    """The first search round, for `extra["search_rounds"]`: the search's budget (`asked`) and
    the round's, its pilot, share and seed, what it drew per side in all, its verdict and why its
    certification stopped."""
    seq, search = result.extra.get("sequential"), result.extra.get("search")
    return {
        "asked": asked,
        "pilot": int(search.get("pilot_samples", 0)) if isinstance(search, dict) else 0,
        "cap": config.num_samples,
        "share": SEARCH_FIRST_SHARE,
        "seed": config.seed,
        "futility_scale": config.futility_scale,
        "drawn": search_drawn(result),
        "verdict": result.verdict.value,
        "reason": seq.get("reason") if isinstance(seq, dict) else None,
    }


def _stated(done: Certified, config: AuditConfig, record: dict[str, object], *, decided: bool) -> Certified:
    """`done` (a round at its share of the search's β) stated at the search's whole β, `config`'s
    (the two rounds' shares sum to it), with the first round recorded in `extra["search_rounds"]`."""
    rounds = {**record, "decided": decided}
    result = dataclasses.replace(
        done.result,
        failure_probability=config.failure_probability,
        seed=config.seed,
        extra={**done.result.extra, "search_rounds": rounds},
    )
    return dataclasses.replace(done, result=result)


@dataclasses.dataclass(frozen=True)
class Saved:
    """Where the audit checkpoints, and whether it resumes from there."""

    checkpoint_path: Path | None = None
    resume: bool = False
    show_progress: bool | None = None
    """None: the progress line when stderr is a terminal (`engine.progress`); False: none."""


def _run(
    mechanism: Mechanism,
    pairs: list[NeighborPair],
    config: AuditConfig,
    parameters: tuple[tuple[str, str], ...],
    command: str,
    saved: Saved,
) -> Certified:
    result = run_audit(
        mechanism,
        pairs,
        config,
        parameters=parameters,
        command=command,
        checkpoint_path=saved.checkpoint_path,
        resume=saved.resume,
        show_progress=saved.show_progress,
    )
    return Certified(result=result, pairs=tuple(pairs))


def _search(
    mechanism: Mechanism,
    config: AuditConfig,
    route: Route,
    parameters: tuple[tuple[str, str], ...],
    command: str,
    saved: Saved,
) -> Certified:
    if getattr(mechanism, "domain", None) is None:
        raise SearchUnsupportedError(f"{mechanism.name!r} declares no domain to search")
    own = has_registered_pairs(mechanism)
    search = functools.partial(
        search_and_certify,
        mechanism,
        config,
        parameters=parameters,
        command=f"{command} --pairs {route.mode}",
        checkpoint_path=saved.checkpoint_path,
        resume=saved.resume,
        show_progress=saved.show_progress,
        pilot_fraction=route.pilot_fraction,
        budget=None if route.search_pairs is None else config.num_samples * route.search_pairs,
        sweep_max_count=DEFAULT_MAX_COUNT if route.sweep_max_count is None else route.sweep_max_count,
        verdict_pair=not own,
        blind=not own,
    )
    try:
        found = search(registered=pairs_for(mechanism) if route.mode == "all" else ())
    except SearchBudgetError:
        if route.mode != "all" or own:
            raise
        # a blind mechanism's boundary templates stand in for registered pairs only where the full
        # plan fits; below it the default route races blind, as `--pairs search` does
        found = search(registered=())
    return Certified(result=found.certified, pairs=tuple(found.certified_pairs))
