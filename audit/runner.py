"""The audit runner: pairs → selection → certification → verdict (DESIGN.md, "Sampling").

For each neighbour pair the runner

1. samples a bounded *selection* split on both sides and lets the distinguishers choose one
   event and one direction (the one projected to certify the highest ε);
2. samples a fresh *certification* split, streaming chunks reduced to event counts;
3. turns the counts into one-sided Clopper–Pearson bounds at β_t/2 each, where
   β_t = failure_probability / (number of pairs) (Bonferroni over every certified test).

Every certified statement of the result (each pair's ε and δ bounds, every claim check) is
a function of these intervals, so all of them hold simultaneously with probability at least
1 − failure_probability. Choosing the direction on the selection split instead of certifying
both halves the Bonferroni factor at no cost in validity.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from audit.bounds import cp_lower, cp_upper, delta_from_bounds, epsilon_ceiling, epsilon_from_bounds
from audit.checkpoint import Checkpoint
from audit.checkpoint import audit_key as checkpoint_key
from audit.estimators import (
    DEFAULT_DISTINGUISHERS,
    Distinguisher,
    Selection,
    choose_event,
    event_from_spec,
    event_spec,
)
from audit.objectives import DeltaAt, EpsilonAt, GaussianMu, Objective
from audit.progress import Progress
from audit.sampling import (
    Phase,
    Side,
    Task,
    auto_chunk_size,
    chunk_sizes,
    count_events,
    draw,
    run_tasks,
    sample_rows,
)
from audit.types import (
    AuditConfig,
    AuditResult,
    ClaimCheck,
    EpsilonEstimate,
    PairResult,
    ProfilePoint,
    Verdict,
)
from mechanisms.base import (
    ClaimKind,
    Mechanism,
    PrivacyClaim,
    applicable_claim,
    claims_of,
)
from neighbors.base import NeighborPair, is_neighbor

PROBE_PHASE = 2


class AuditInputError(ValueError):
    """The audit cannot start: bad pairs, a claim that does not apply, bad config."""


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dpaudit")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


@dataclass(frozen=True, slots=True)
class _Plan:
    pair: NeighborPair
    claim: PrivacyClaim


def _plan(mechanism: Mechanism, pairs: Sequence[NeighborPair]) -> list[_Plan]:
    if not pairs:
        raise AuditInputError(f"no neighbour pairs to audit for {mechanism.name!r}")
    claims = claims_of(mechanism)
    plans = []
    for pair in pairs:
        if not is_neighbor(pair):
            raise AuditInputError(f"pair {pair.description!r} is not a {pair.relation.value} neighbour pair")
        for side in (pair.dataset, pair.neighbor):
            reason = mechanism.domain.check(side)
            if reason is not None:
                raise AuditInputError(
                    f"pair {pair.description!r} is outside {mechanism.name!r}'s domain: {reason}"
                )
        reason = mechanism.domain.check_pair(pair)
        if reason is not None:
            raise AuditInputError(f"pair {pair.description!r} cannot be audited: {reason}")
        claim = applicable_claim(claims, pair.relation)
        if claim is None:
            raise AuditInputError(
                f"{mechanism.name!r} claims nothing under {pair.relation.value} "
                f"(its claims: {', '.join(c.relation.value for c in claims)}); "
                f"pair {pair.description!r} cannot be audited against it"
            )
        plans.append(_Plan(pair, claim))
    return plans


def _objectives(claim: PrivacyClaim, config: AuditConfig) -> list[Objective]:
    """The primary test (ε at the claim's δ) first, then the configured extras."""
    extras: list[Objective] = [EpsilonAt(d) for d in config.profile_deltas]
    extras += [DeltaAt(e) for e in config.profile_epsilons]
    if config.gdp:
        extras.append(GaussianMu())
    return [EpsilonAt(claim.delta), *extras]


def _select_pair(
    mechanism: Mechanism,
    plan: _Plan,
    index: int,
    objectives: Sequence[Objective],
    config: AuditConfig,
    chunk: int,
    n_sel: int,
    n_cert: int,
    beta_t: float,
    distinguishers: Sequence[Distinguisher],
    progress: Progress,
    checkpoint: Checkpoint | None,
) -> list[Selection]:
    """Choose one event per objective on the selection split (or reload them from a checkpoint)."""
    stored = [checkpoint.selections.get((index, k)) if checkpoint else None for k in range(len(objectives))]
    if all(r is not None and r.get("event") is not None for r in stored):
        progress.advance(2 * n_sel, f"pair {index + 1} selection (resumed)")
        return [
            Selection(
                event_from_spec(r["event"]),
                bool(r["dataset_is_p"]),
                float(r["projected"]),
                str(r["distinguisher"]),
            )
            for r in stored
            if r is not None
        ]
    sides = (plan.pair.dataset, plan.pair.neighbor)
    tasks = [
        Task(
            sample_rows,
            (mechanism, sides[s], size, config.seed, (index, int(s), int(Phase.SELECTION), j)),
            size,
            s,
        )
        for s in Side
        for j, size in enumerate(chunk_sizes(n_sel, chunk))
    ]
    parts: dict[int, list[Any]] = {0: [], 1: []}

    def done(task: Task, rows: Any) -> None:
        parts[int(task.tag)].append(rows)
        progress.advance(task.size, f"pair {index + 1} selection")

    run_tasks(tasks, jobs=config.jobs, backend=config.backend, on_done=done)
    a = np.concatenate(parts[0])
    b = np.concatenate(parts[1])
    selections = [
        choose_event(
            a,
            b,
            certify_total=n_cert,
            objective=obj,
            failure_probability=beta_t,
            distinguishers=distinguishers,
        )
        for obj in objectives
    ]
    if checkpoint is not None:
        for k, sel in enumerate(selections):
            checkpoint.record_selection(
                index,
                k,
                {
                    "event": event_spec(sel.event),
                    "dataset_is_p": sel.dataset_is_p,
                    "projected": sel.projected,
                    "distinguisher": sel.distinguisher,
                },
            )
    return selections


def _estimate(
    sel: Selection, counts: NDArray[np.int64], n_cert: int, beta_t: float, claim: PrivacyClaim
) -> EpsilonEstimate:
    """Certified intervals of one chosen event from its counts on both sides."""
    kp, kq = (counts[0], counts[1]) if sel.dataset_is_p else (counts[1], counts[0])
    p_lo = float(cp_lower(kp, n_cert, beta_t / 2))
    q_hi = float(cp_upper(kq, n_cert, beta_t / 2))
    return EpsilonEstimate(
        epsilon_lower_bound=float(epsilon_from_bounds(p_lo, q_hi, delta=claim.delta)),
        delta_lower_bound=float(delta_from_bounds(p_lo, q_hi, epsilon=claim.epsilon)),
        p_count=int(kp),
        p_total=n_cert,
        q_count=int(kq),
        q_total=n_cert,
        p_lower=p_lo,
        q_upper=q_hi,
        failure_probability=beta_t,
        infinite_witness=bool(kq == 0 and kp > 0),
        direction="dataset>neighbor" if sel.dataset_is_p else "neighbor>dataset",
        event=sel.event.describe(),
        distinguisher=sel.distinguisher,
        selection_epsilon=sel.projected,
    )


def audit_key(
    mechanism: Mechanism,
    plans: Sequence[_Plan],
    config: AuditConfig,
    chunk: int,
    parameters: Sequence[tuple[str, str]],
) -> str:
    """Hash of everything that determines an audit's result (for checkpoints)."""
    return checkpoint_key(
        {
            "mechanism": mechanism.name,
            "parameters": list(parameters),
            "claims": [c.to_dict() for c in claims_of(mechanism)],
            "pairs": [[p.pair.dataset.key(), p.pair.neighbor.key(), p.pair.relation.value] for p in plans],
            "seed": config.seed,
            "num_samples": config.num_samples,
            "failure_probability": config.failure_probability,
            "split": list(config.split()),
            "chunk": chunk,
            "profile": [list(config.profile_deltas), list(config.profile_epsilons), config.gdp],
            "version": package_version(),
        }
    )


def run_audit(
    mechanism: Mechanism,
    pairs: Sequence[NeighborPair],
    config: AuditConfig,
    *,
    distinguishers: Sequence[Distinguisher] = DEFAULT_DISTINGUISHERS,
    parameters: Sequence[tuple[str, str]] = (),
    command: str = "",
    show_progress: bool | None = None,
    checkpoint_path: Path | None = None,
    resume: bool = False,
) -> AuditResult:
    """Audit `mechanism` on `pairs`; see the module docstring for the procedure.

    With `checkpoint_path`, selections and certification chunks are recorded as they complete;
    `resume=True` continues from an earlier checkpoint of the same audit (same key) without
    redoing any recorded work, and the result equals that of an uninterrupted run.
    """
    start = time.monotonic()
    plans = _plan(mechanism, pairs)
    claims = claims_of(mechanism)
    verdict_claim = applicable_claim(claims, mechanism.claim.relation) or mechanism.claim
    n_sel, n_cert = config.split()
    objectives_per_pair = [_objectives(p.claim, config) for p in plans]
    num_tests = sum(len(o) for o in objectives_per_pair)
    beta_t = config.failure_probability / num_tests

    warnings: list[str] = []
    ceiling = epsilon_ceiling(n_cert, failure_probability=beta_t, delta=verdict_claim.delta)
    if verdict_claim.epsilon >= ceiling:
        warnings.append(
            f"claimed ε = {verdict_claim.epsilon:g} is at or above the largest ε that "
            f"{n_cert:,} certification samples per side can certify ({ceiling:.3f}); "
            "this audit cannot find a violation at this budget"
        )
    if not mechanism.seedable:
        warnings.append(f"{mechanism.name!r} is not seedable: results do not reproduce from the seed")

    probe = draw(mechanism, plans[0].pair.dataset, 2, config.seed, (0, 0, PROBE_PHASE, 0))
    chunk = config.chunk_size or auto_chunk_size(int(np.prod(probe.shape[1:], dtype=np.int64)))
    checkpoint = None
    if checkpoint_path is not None:
        checkpoint = Checkpoint(
            checkpoint_path, audit_key(mechanism, plans, config, chunk, parameters), resume=resume
        )

    progress = Progress(mechanism.name, 2 * len(plans) * config.num_samples, enabled=show_progress)
    try:
        selections = [
            _select_pair(
                mechanism,
                plan,
                i,
                objectives_per_pair[i],
                config,
                chunk,
                n_sel,
                n_cert,
                beta_t,
                distinguishers,
                progress,
                checkpoint,
            )
            for i, plan in enumerate(plans)
        ]
        counts = [np.zeros((len(objectives_per_pair[i]), 2), dtype=np.int64) for i in range(len(plans))]
        tasks = []
        for i, (p, sels) in enumerate(zip(plans, selections, strict=True)):
            events = [sel.event for sel in sels]
            for s in Side:
                for j, size in enumerate(chunk_sizes(n_cert, chunk)):
                    recorded = checkpoint.chunks.get((i, int(s), j)) if checkpoint else None
                    if recorded is not None:
                        counts[i][:, s] += np.asarray(recorded, dtype=np.int64)
                        progress.advance(size, f"pair {i + 1} certification (resumed)")
                        continue
                    dataset = (p.pair.dataset, p.pair.neighbor)[s]
                    chunk_key = (i, int(s), int(Phase.CERTIFICATION), j)
                    tasks.append(
                        Task(
                            count_events,
                            (mechanism, dataset, events, size, config.seed, chunk_key),
                            size,
                            (i, s, j),
                        )
                    )

        def done(task: Task, k: list[int]) -> None:
            i, s, j = task.tag
            counts[i][:, s] += np.asarray(k, dtype=np.int64)
            if checkpoint is not None:
                checkpoint.record_chunk(i, int(s), j, k)
            progress.advance(task.size, f"pair {i + 1} certification")

        run_tasks(tasks, jobs=config.jobs, backend=config.backend, on_done=done)
    finally:
        progress.close()
        if checkpoint is not None:
            checkpoint.close()

    pair_results = []
    intervals = []
    all_profile: list[ProfilePoint] = []
    for i, (plan, sels) in enumerate(zip(plans, selections, strict=True)):
        c = plan.claim
        est = _estimate(sels[0], counts[i][0], n_cert, beta_t, c)
        p_lo, q_hi = est.p_lower, est.q_upper
        intervals.append((p_lo, q_hi))
        profile = []
        for k in range(1, len(sels)):
            obj = objectives_per_pair[i][k]
            extra = _estimate(sels[k], counts[i][k], n_cert, beta_t, c)
            profile.append(
                ProfilePoint(
                    objective=obj.kind,
                    parameter=obj.parameter,
                    label=obj.label(),
                    value=float(obj.score(extra.p_lower, extra.q_upper)),
                    pair_index=i,
                    estimate=extra,
                )
            )
        all_profile += profile
        exceeded = tuple(
            k
            for k, claim in enumerate(claims)
            if claim.covers(plan.pair.relation)
            and float(delta_from_bounds(p_lo, q_hi, epsilon=claim.epsilon)) > claim.delta
        )
        pair_results.append(
            PairResult(
                index=i,
                description=plan.pair.description,
                relation=plan.pair.relation,
                tags=plan.pair.tags,
                claim=c,
                estimate=est,
                violation=est.delta_lower_bound > c.delta,
                claims_exceeded=exceeded,
                profile=tuple(profile),
                event_spec=event_spec(sels[0].event),
            )
        )

    best_profile: dict[tuple[str, float | None], ProfilePoint] = {}
    for pt in all_profile:
        key2 = (pt.objective, pt.parameter)
        if key2 not in best_profile or pt.value > best_profile[key2].value:
            best_profile[key2] = pt
    checks = []
    for k, claim in enumerate(claims):
        covered = [j for j, p in enumerate(plans) if claim.covers(p.pair.relation)]
        eps = [float(epsilon_from_bounds(*intervals[j], delta=claim.delta)) for j in covered]
        dels = [float(delta_from_bounds(*intervals[j], epsilon=claim.epsilon)) for j in covered]
        checks.append(
            ClaimCheck(
                claim=claim,
                epsilon_lower_bound=max(eps, default=-math.inf),
                delta_lower_bound=max(dels, default=0.0),
                exceeded=any(k in pair_results[j].claims_exceeded for j in covered),
                pairs_checked=len(covered),
            )
        )

    findings = []
    for check in checks:
        if check.claim.kind is ClaimKind.STATED and check.exceeded:
            proved = applicable_claim([c for c in claims if c.kind is ClaimKind.PROVED], check.claim.relation)
            if proved is not None and not any(
                pr.violation for pr in pair_results if proved.covers(pr.relation)
            ):
                findings.append(
                    f"certified bound exceeds the paper's statement (ε={check.claim.epsilon:g}, "
                    f"δ={check.claim.delta:g}, {check.claim.reference}) but not the proved claim "
                    f"(ε={proved.epsilon:g}, δ={proved.delta:g}): consistent with the proof; "
                    "a finding about the paper, not a violation"
                )

    primary = [pr for pr in pair_results if pr.claim == verdict_claim] or pair_results
    violation = any(pr.violation for pr in pair_results)
    return AuditResult(
        mechanism=mechanism.name,
        claim=verdict_claim,
        claims=tuple(checks),
        epsilon_lower_bound=max(pr.estimate.epsilon_lower_bound for pr in primary),
        delta_lower_bound=max(pr.estimate.delta_lower_bound for pr in primary),
        failure_probability=config.failure_probability,
        per_test_failure_probability=beta_t,
        verdict=Verdict.VIOLATION_FOUND if violation else Verdict.NO_VIOLATION_FOUND,
        num_samples=config.num_samples,
        selection_samples=n_sel,
        certification_samples=n_cert,
        seed=config.seed,
        pairs=tuple(pair_results),
        elapsed_seconds=time.monotonic() - start,
        package_version=package_version(),
        epsilon_ceiling=ceiling,
        warnings=tuple(warnings),
        findings=tuple(findings),
        parameters=tuple(parameters),
        command=command,
        seedable=mechanism.seedable,
        profile=tuple(best_profile.values()),
        extra={"chunk_size": chunk, "tests": num_tests},
    )
