"""The audit runner: pairs → selection → certification → verdict (DESIGN.md, "Sampling").

For each neighbour pair the runner

1. samples a bounded *selection* split on both sides and lets the distinguishers choose one
   event and one direction (the one projected to certify the highest ε);
2. samples a fresh *certification* split, streaming chunks reduced to event counts;
3. turns the counts into one-sided Clopper–Pearson bounds at β_t/2 each, where
   β_t = failure_probability / (number of tests) (Bonferroni over every certified test); a test
   that certifies k events (adaptive top-k, below) puts β_t/(2k) on each of its 2k intervals.

Every certified statement of the result (each pair's ε and δ bounds, every claim check) is
a function of these intervals, so all of them hold simultaneously with probability at least
1 − failure_probability. Choosing the direction on the selection split instead of certifying
both halves the Bonferroni factor at no cost in validity.

Distinguishers. The defaults (`distinguishers.DEFAULT_DISTINGUISHERS`) are the exact-value
histogram, per-coordinate and mean-difference thresholds, and, for vector outputs with more
distinct values than the histogram handles, learned scores (`audit.learned`: logistic
regression with linear and squared features, fixed projections) fitted on a capped subsample
of the selection split. Every distinguisher proposes candidates once per pair; for each test the
candidate with the best *projected* certified value wins, so the number of candidates costs
nothing in the Bonferroni split. Adaptive top-k (`estimators.choose_events`): when the selection
split cannot tell the winner from a few *distinct* runners-up (their point-estimate projection
exceeds the winner's pessimistic one; at most `estimators.MAX_CERTIFIED` events in all), the test
certifies all k of them at β_t/k each and reports the best. k and the events are functions of
the selection split only, so given them the 2k intervals hold together with probability
≥ 1 − β_t (union bound) and the best of the k values is as valid as any one: the test's failure
probability stays β_t, and every other test's is untouched. The reported estimate carries its
level (`EpsilonEstimate.failure_probability` = β_t/k) and each test with k > 1 is listed, with
every event it certified and its value, in `AuditResult.extra["certified_events"]`; the pair's
`event_spec` and trajectory are those of the reported event. What was considered, with each
distinguisher's best projected value, is recorded in `AuditResult.extra["selection"]`, and each
estimate states what its certificate assumes (`EpsilonEstimate.assumption`).

Privacy profile. Besides the primary test (ε at the claim's δ) each pair gets the configured
profile tests (ε at `profile_deltas`, δ at `profile_epsilons`, Gaussian-DP μ with `gdp`). When
the pair's claim is a curve (`PrivacyClaim.curve`) and no grid was given, the runner adds
ε at δ ∈ `CURVE_PROFILE_DELTAS` and, for a GDP curve, the μ test. Every profile point is
compared with the claim's value there (`PrivacyClaim.epsilon_at` / `delta_at`, the GDP μ): a
point above a PROVED claim is a violation, above only a STATED one a finding. All tests, of
all pairs, share the Bonferroni split.

Trajectory. The primary event's counts are also kept on the prefixes of the certification split
ending near n/64, n/16, n/4 and n (exact row offsets, in the fixed chunk order: a few small
integers per chunk, never samples), giving each pair's certified ε against sample size.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpaudit.engine.bounds import cp_lower, cp_upper, delta_from_bounds, epsilon_ceiling, epsilon_from_bounds
from dpaudit.engine.checkpoint import Checkpoint
from dpaudit.engine.checkpoint import audit_key as checkpoint_key
from dpaudit.engine.distinguishers import default_distinguishers
from dpaudit.engine.estimators import (
    Distinguisher,
    Selection,
    choose_events,
    event_from_spec,
    event_spec,
)
from dpaudit.engine.jsonnum import json_number, parse_number
from dpaudit.engine.objectives import DIRECT_ASSUMPTION, DeltaAt, EpsilonAt, GaussianMu, Objective
from dpaudit.engine.progress import Progress
from dpaudit.engine.sampling import (
    Phase,
    Side,
    Task,
    auto_chunk_size,
    chunk_sizes,
    count_events_segmented,
    draw,
    run_tasks,
    sample_rows,
)
from dpaudit.engine.types import (
    AuditConfig,
    AuditResult,
    ClaimCheck,
    EpsilonEstimate,
    PairResult,
    ProfilePoint,
    Verdict,
)
from dpaudit.engine.whitebox import white_box_reference
from dpaudit.mechanisms.base import (
    ClaimKind,
    CurveKind,
    Mechanism,
    PrivacyClaim,
    applicable_claim,
    claims_of,
)
from dpaudit.neighbors.base import NeighborPair, is_neighbor

PROBE_PHASE = 2

CURVE_PROFILE_DELTAS: tuple[float, ...] = (1e-3, 1e-2, 1e-1)
"""δ grid audited when the claim is a curve and no profile grid is configured.

Why these: (1) a certified ε at δ needs events of probability well above δ seen on both sides,
so at 10⁴–10⁶ certification samples a point below ~10⁻³ certifies about what the primary test
(δ = the claim's, typically 10⁻⁵–10⁻⁶) already does, and would only cost Bonferroni budget;
(2) from 10⁻³ up a curve claim is strictly stronger than its headline point (a point claim
(4.38, 10⁻⁵) still allows 4.38, 4.37, 4.27 at 10⁻³, 10⁻², 10⁻¹ where the 1-GDP curve through it
allows 3.14, 2.32, 1.16), so these are the points where the curve can refute what the headline cannot;
(3) three decades keep the split at 1 + 3 (+1 for the GDP μ) tests per pair."""

TRAJECTORY_FRACTIONS: tuple[float, ...] = (1 / 64, 1 / 16, 1 / 4, 1.0)
"""Prefixes of the certification split at which the trajectory reports the certified ε."""


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


def objectives_for(claim: PrivacyClaim, config: AuditConfig) -> list[Objective]:
    """The primary test (ε at the claim's δ) first, then the configured extras; for a curve
    claim without a configured grid, ε at `CURVE_PROFILE_DELTAS` (and μ for a GDP curve)."""
    extras: list[Objective] = [EpsilonAt(d) for d in config.profile_deltas]
    extras += [DeltaAt(e) for e in config.profile_epsilons]
    gdp = config.gdp
    if claim.curve is not None and not config.profile_deltas and not config.profile_epsilons:
        extras += [EpsilonAt(d) for d in CURVE_PROFILE_DELTAS if d != claim.delta]
        gdp = gdp or claim.curve.kind is CurveKind.GDP
    if gdp:
        extras.append(GaussianMu())
    return [EpsilonAt(claim.delta), *extras]


def claimed_value(claim: PrivacyClaim, objective: Objective) -> float | None:
    """What `claim` allows for `objective`'s certified value: ε at δ (`epsilon_at`), δ at ε
    (`delta_at`), or μ for a GDP curve claim; None when the claim says nothing comparable."""
    if isinstance(objective, EpsilonAt):
        return float(claim.epsilon_at(objective.delta))
    if isinstance(objective, DeltaAt):
        return float(claim.delta_at(objective.epsilon))
    if isinstance(objective, GaussianMu) and claim.curve is not None and claim.curve.kind is CurveKind.GDP:
        return float(claim.curve.parameter)
    return None


def assumption_of(objective: Objective, distinguisher: str) -> str:
    """What a certificate from `objective` on an event of `distinguisher` assumes (one line)."""
    text = str(getattr(objective, "assumption", DIRECT_ASSUMPTION))
    if distinguisher.startswith(("logistic", "projection")):
        text += (
            f"; event from a {distinguisher} score fitted on the selection split "
            "(the model need not be correct)"
        )
    return text


def _selection_record(sel: Selection) -> dict[str, Any]:
    """A Selection as a checkpoint record (JSON); runners-up nested in "also"."""
    return {
        "event": event_spec(sel.event),
        "dataset_is_p": sel.dataset_is_p,
        "projected": json_number(sel.projected),
        "distinguisher": sel.distinguisher,
        "considered": [[name, json_number(v)] for name, v in sel.considered],
        "also": [_selection_record(x) for x in sel.also],
    }


def _selection_from_record(r: dict[str, Any]) -> Selection:
    """The Selection a `_selection_record` stands for."""
    return Selection(
        event_from_spec(r["event"]),
        bool(r["dataset_is_p"]),
        parse_number(r["projected"]),
        str(r["distinguisher"]),
        tuple((str(name), parse_number(v)) for name, v in r.get("considered", ())),
        tuple(_selection_from_record(x) for x in r.get("also", ())),
    )


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
    given: tuple[NDArray[Any], NDArray[Any]] | None = None,
) -> list[Selection]:
    """Choose one event per objective on the selection split (or reload them from a checkpoint);
    with `given` (outputs on the dataset and neighbour sides), on those instead of a fresh split."""
    stored = [checkpoint.selections.get((index, k)) if checkpoint else None for k in range(len(objectives))]
    if all(r is not None and r.get("event") is not None for r in stored):
        progress.advance(0 if given is not None else 2 * n_sel, f"pair {index + 1} selection (resumed)")
        return [_selection_from_record(r) for r in stored if r is not None]
    if given is not None:
        a, b = given
    else:
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
        a, b = np.concatenate(parts[0]), np.concatenate(parts[1])
    selections = choose_events(
        a,
        b,
        certify_total=n_cert,
        objectives=objectives,
        failure_probability=beta_t,
        distinguishers=distinguishers,
    )
    if checkpoint is not None:
        for k, sel in enumerate(selections):
            checkpoint.record_selection(index, k, _selection_record(sel))
    return selections


def _estimate(
    sel: Selection,
    counts: NDArray[np.int64],
    n_cert: int,
    beta_t: float,
    claim: PrivacyClaim,
    assumption: str = DIRECT_ASSUMPTION,
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
        assumption=assumption,
    )


def _certify_test(
    sel: Selection,
    counts: NDArray[np.int64],
    n_cert: int,
    beta_t: float,
    claim: PrivacyClaim,
    objective: Objective,
) -> tuple[EpsilonEstimate, list[dict[str, Any]], int]:
    """One test's certificate: its k = len(sel.certified) events, each certified at β_t/k
    (Bonferroni within the test), and the estimate of the one with the best value for `objective`
    (the first on ties). `counts` holds one row of (dataset, neighbour) counts per event. Also
    returns one record per event (for `AuditResult.extra["certified_events"]`) and the reported
    event's index in `sel.certified`."""
    events = sel.certified
    level = beta_t / len(events)
    estimates = [
        _estimate(e, counts[j], n_cert, level, claim, assumption_of(objective, e.distinguisher))
        for j, e in enumerate(events)
    ]
    values = [float(objective.score(e.p_lower, e.q_upper)) for e in estimates]
    best = int(np.argmax(values))
    records = [
        {
            "event": e.event.describe(),
            "distinguisher": e.distinguisher,
            "direction": est.direction,
            "projected": json_number(e.projected),
            "certified": json_number(v),
            "reported": j == best,
        }
        for j, (e, est, v) in enumerate(zip(events, estimates, values, strict=True))
    ]
    return estimates[best], records, best


def trajectory_points(n_cert: int) -> list[int]:
    """Prefix lengths (certification samples per side) at which the trajectory is reported:
    `TRAJECTORY_FRACTIONS` of `n_cert`, rounded, distinct, increasing, the last one `n_cert`."""
    return sorted({max(1, round(f * n_cert)) for f in TRAJECTORY_FRACTIONS})


def _cuts(points: Sequence[int], offset: int, size: int) -> list[int]:
    """Row offsets inside the chunk [offset, offset + size) where a trajectory prefix ends."""
    return [m - offset for m in points if offset < m < offset + size]


def _prefix_counts(
    points: Sequence[int], offset: int, size: int, segments: Sequence[int]
) -> NDArray[np.int64]:
    """This chunk's contribution to the first event's count on each prefix [0, m)."""
    cuts = _cuts(points, offset, size)
    cum = np.cumsum(np.asarray(segments, dtype=np.int64))  # cum[r] = count on [0, cuts[r]); cum[-1] total
    out = np.zeros(len(points), dtype=np.int64)
    for idx, m in enumerate(points):
        if m >= offset + size:
            out[idx] = cum[-1]
        elif m > offset:
            out[idx] = cum[cuts.index(m - offset)]
    return out


def _trajectory(
    sel: Selection, prefix: NDArray[np.int64], points: Sequence[int], beta_t: float, delta: float
) -> tuple[tuple[int, float], ...]:
    """Certified ε at `delta` of the pair's certified event on each prefix of the certification split.

    Each point uses the same one-sided Clopper–Pearson bounds as the pair's test (at β_t/(2k) when
    the test certified k events; `beta_t` here is that per-event level β_t/k), so each is valid on
    its own at the per-test failure probability; the points are not a joint (or
    sequential) confidence statement and take no part in the verdict: they are descriptive.
    """
    out = []
    for idx, m in enumerate(points):
        kp, kq = (prefix[0, idx], prefix[1, idx]) if sel.dataset_is_p else (prefix[1, idx], prefix[0, idx])
        p_lo = cp_lower(kp, m, beta_t / 2)
        q_hi = cp_upper(kq, m, beta_t / 2)
        out.append((int(m), float(epsilon_from_bounds(p_lo, q_hi, delta=delta))))
    return tuple(out)


def _claim_label(claim: PrivacyClaim) -> str:
    curve = f"{claim.curve.label()}, " if claim.curve is not None else ""
    return f"({curve}ε={claim.epsilon:.4g}, δ={claim.delta:g}; {claim.reference})"


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
    distinguishers: Sequence[Distinguisher] | None = None,
    parameters: Sequence[tuple[str, str]] = (),
    command: str = "",
    show_progress: bool | None = None,
    checkpoint_path: Path | None = None,
    resume: bool = False,
    selection_outputs: Sequence[tuple[NDArray[Any], NDArray[Any]]] | None = None,
) -> AuditResult:
    """Audit `mechanism` on `pairs`; see the module docstring for the procedure.

    With `checkpoint_path`, selections and certification chunks are recorded as they complete;
    `resume=True` continues from an earlier checkpoint of the same audit (same key) without
    redoing any recorded work, and the result equals that of an uninterrupted run.
    `distinguishers=None` means `distinguishers.DEFAULT_DISTINGUISHERS`.

    `selection_outputs` (one (dataset side, neighbour side) pair of output arrays per pair, e.g.
    a search's pilot samples) replaces the selection split: events are chosen on them and all
    `num_samples` are certification samples. Valid only if they are independent of the samples
    drawn at `config.seed` (the caller's responsibility: `audit.search` draws them at pilot seeds).
    """
    start = time.monotonic()
    dists = default_distinguishers() if distinguishers is None else tuple(distinguishers)
    plans = _plan(mechanism, pairs)
    claims = claims_of(mechanism)
    verdict_claim = applicable_claim(claims, mechanism.claim.relation) or mechanism.claim
    n_sel, n_cert = config.split()
    key_parameters = tuple(parameters)
    if selection_outputs is not None:
        if len(selection_outputs) != len(plans):
            raise AuditInputError(
                f"selection_outputs has {len(selection_outputs)} entries for {len(plans)} pairs"
            )
        n_sel = min(min(len(a), len(b)) for a, b in selection_outputs)
        n_cert = config.num_samples
        digest = hashlib.sha256()
        for arrays in selection_outputs:
            for x in arrays:
                digest.update(np.ascontiguousarray(x).tobytes())
        key_parameters += (("selection_outputs", digest.hexdigest()),)
    objectives_per_pair = [objectives_for(p.claim, config) for p in plans]
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
            checkpoint_path, audit_key(mechanism, plans, config, chunk, key_parameters), resume=resume
        )

    progress = Progress(mechanism.name, 2 * len(plans) * config.num_samples, enabled=show_progress)
    sizes = chunk_sizes(n_cert, chunk)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int).tolist() if sizes else []
    points = trajectory_points(n_cert)
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
                dists,
                progress,
                checkpoint,
                None if selection_outputs is None else selection_outputs[i],
            )
            for i, plan in enumerate(plans)
        ]
        # one row per certified event: each test's chosen event, then its runners-up (`Selection.also`)
        starts = [np.cumsum([0] + [len(sel.certified) for sel in sels]).tolist() for sels in selections]
        counts = [np.zeros((starts[i][-1], 2), dtype=np.int64) for i in range(len(plans))]
        # prefix counts (trajectory) of each event of the pair's primary test
        prefix = [np.zeros((starts[i][1], 2, len(points)), dtype=np.int64) for i in range(len(plans))]

        def add(i: int, s: int, j: int, k: list[int], segments: list[int]) -> None:
            counts[i][:, s] += np.asarray(k, dtype=np.int64)
            width = len(segments) // starts[i][1]
            for e in range(starts[i][1]):
                seg = segments[e * width : (e + 1) * width]
                prefix[i][e, s] += _prefix_counts(points, offsets[j], sizes[j], seg)

        tasks = []
        for i, (p, sels) in enumerate(zip(plans, selections, strict=True)):
            events = [e.event for sel in sels for e in sel.certified]
            for s in Side:
                for j, size in enumerate(sizes):
                    cuts = _cuts(points, offsets[j], size)
                    recorded = checkpoint.chunks.get((i, int(s), j)) if checkpoint else None
                    segs = checkpoint.segments.get((i, int(s), j)) if checkpoint else None
                    primary = starts[i][1]
                    if recorded is not None and segs is None and not cuts:
                        segs = list(recorded[:primary])
                    if recorded is not None and segs is not None and len(segs) == primary * (len(cuts) + 1):
                        add(i, int(s), j, recorded, segs)
                        progress.advance(size, f"pair {i + 1} certification (resumed)")
                        continue
                    dataset = (p.pair.dataset, p.pair.neighbor)[s]
                    chunk_key = (i, int(s), int(Phase.CERTIFICATION), j)
                    tasks.append(
                        Task(
                            count_events_segmented,
                            (mechanism, dataset, events, size, config.seed, chunk_key, cuts, starts[i][1]),
                            size,
                            (i, int(s), j),
                        )
                    )

        def done(task: Task, result: tuple[list[int], list[int]]) -> None:
            i, s, j = task.tag
            k, segments = result
            add(i, s, j, k, segments)
            if checkpoint is not None:
                checkpoint.record_chunk(i, s, j, k, segments)
            progress.advance(task.size, f"pair {i + 1} certification")

        run_tasks(tasks, jobs=config.jobs, backend=config.backend, on_done=done)
    finally:
        progress.close()
        if checkpoint is not None:
            checkpoint.close()

    pair_results = []
    intervals = []
    all_profile: list[ProfilePoint] = []
    findings: list[str] = []
    multi: list[dict[str, Any]] = []
    for i, (plan, sels) in enumerate(zip(plans, selections, strict=True)):
        c = plan.claim
        objectives = objectives_per_pair[i]
        rows = [counts[i][starts[i][k] : starts[i][k + 1]] for k in range(len(sels))]
        est, records, reported = _certify_test(sels[0], rows[0], n_cert, beta_t, c, objectives[0])
        if len(records) > 1:
            multi.append({"pair": i, "test": objectives[0].label(), "events": records})
        p_lo, q_hi = est.p_lower, est.q_upper
        intervals.append((p_lo, q_hi))
        profile = []
        exceeded_points: dict[int, list[str]] = {}
        for k in range(1, len(sels)):
            obj = objectives[k]
            extra, records, _ = _certify_test(sels[k], rows[k], n_cert, beta_t, c, obj)
            if len(records) > 1:
                multi.append({"pair": i, "test": obj.label(), "events": records})
            value = float(obj.score(extra.p_lower, extra.q_upper))
            claimed = claimed_value(c, obj)
            profile.append(
                ProfilePoint(
                    objective=obj.kind,
                    parameter=obj.parameter,
                    label=obj.label(),
                    value=value,
                    pair_index=i,
                    estimate=extra,
                    claimed=claimed,
                    exceeds_claim=claimed is not None and value > claimed,
                )
            )
            for kc, other in enumerate(claims):
                allowed = claimed_value(other, obj)
                if other.covers(plan.pair.relation) and allowed is not None and value > allowed:
                    exceeded_points.setdefault(kc, []).append(f"{obj.label()} = {value:.4g} > {allowed:.4g}")
        exceeded_here = set(exceeded_points)
        profile_violation = any(claims[kc].kind is ClaimKind.PROVED for kc in exceeded_here)
        for kc, points_text in exceeded_points.items():
            is_proved = claims[kc].kind is ClaimKind.PROVED
            findings.append(
                f"pair {i + 1} ({plan.pair.description}): the certified privacy profile exceeds the "
                f"{'proved' if is_proved else 'stated'} claim {_claim_label(claims[kc])} at "
                + "; ".join(points_text)
                + (
                    ": a violation"
                    if is_proved
                    else ": a finding about the paper's statement, not a violation"
                )
            )
        all_profile += profile
        exceeded = tuple(
            k
            for k, claim in enumerate(claims)
            if (
                claim.covers(plan.pair.relation)
                and float(delta_from_bounds(p_lo, q_hi, epsilon=claim.epsilon)) > claim.delta
            )
            or k in exceeded_here
        )
        reference = white_box_reference(mechanism, plan.pair, delta=c.delta)
        pair_results.append(
            PairResult(
                index=i,
                description=plan.pair.description,
                relation=plan.pair.relation,
                tags=plan.pair.tags,
                claim=c,
                estimate=est,
                violation=est.delta_lower_bound > c.delta or profile_violation,
                claims_exceeded=exceeded,
                profile=tuple(profile),
                event_spec=event_spec(sels[0].certified[reported].event),
                trajectory=_trajectory(
                    sels[0].certified[reported],
                    prefix[i][reported],
                    points,
                    beta_t / len(sels[0].certified),
                    c.delta,
                ),
                exact_epsilon=reference.epsilon,
                exact_epsilon_method=reference.method or reference.note,
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

    for check in checks:
        # the headline point itself (profile points above a stated claim have their own findings)
        headline = check.delta_lower_bound > check.claim.delta
        if check.claim.kind is ClaimKind.STATED and headline:
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
    selection_record = [
        [
            {"distinguisher": name, "projected": json_number(value), "chosen": name == sels[0].distinguisher}
            for name, value in sels[0].considered
        ]
        for sels in selections
    ]
    return AuditResult(
        mechanism=mechanism.name,
        claim=verdict_claim,
        claims=tuple(checks),
        epsilon_lower_bound=max(pr.estimate.epsilon_lower_bound for pr in primary),
        delta_lower_bound=max(pr.estimate.delta_lower_bound for pr in primary),
        failure_probability=config.failure_probability,
        per_test_failure_probability=beta_t,
        verdict=Verdict.VIOLATION_FOUND if violation else Verdict.NO_VIOLATION_FOUND,
        num_samples=n_sel + n_cert,
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
        extra={
            "chunk_size": chunk,
            "tests": num_tests,
            "selection": selection_record,
            "certified_events": multi,
        },
    )
