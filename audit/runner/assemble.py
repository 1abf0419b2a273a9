"""The runner's *assemble* stage: certified counts → pair results, claim checks, verdict.

Every certified statement assembled here (each pair's ε and δ bounds, every profile point, every
claim check) is a function of the tests' one-sided Clopper–Pearson intervals (`runner_certificates`),
each test at failure probability β_t = failure_probability / (number of tests). By the union bound
over all certified tests (Bonferroni), all of them hold simultaneously with probability at least
1 − failure_probability, so the verdict (a violation when a pair's certified δ at the claim's ε, or
a profile point, exceeds a PROVED claim) is wrong with at most that probability. Points above only
a STATED claim are reported as findings, not violations.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...mechanisms.base import ClaimKind, Mechanism, PrivacyClaim, applicable_claim, decides_verdict
from ...neighbors.base import NeighborPair
from ..bounds import delta_from_bounds, epsilon_from_bounds
from ..distinguishers import Objective, Selection, event_spec
from ..jsonnum import json_number
from ..types import (
    AuditConfig,
    AuditResult,
    ClaimCheck,
    PairResult,
    ProfilePoint,
    canary_of,
)
from .certificates import (
    CertifiedCounts,
    ChunkLayout,
    Selected,
    certify_test,
    trajectory,
)
from .outcome_witness import with_outcome_text
from .plan import AuditPlan, PlannedPair, claimed_value
from .resume import package_version
from .verdict import inconclusive_reason, verdict_for
from .whitebox import white_box_reference


@dataclass(frozen=True, slots=True, kw_only=True)
class PairOutcome:
    """One pair's assembled result, with what the audit-level result collects from it."""

    result: PairResult
    interval: tuple[float, float]
    """(p_lower, q_upper) of the primary test's reported event."""
    findings: tuple[str, ...]
    certified_events: tuple[dict[str, Any], ...]
    """Records of the pair's tests that certified more than one event."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfileOutcome:
    """A pair's profile tests: the points, and per exceeded claim (index) what exceeded it."""

    points: tuple[ProfilePoint, ...]
    exceeded: dict[int, list[str]]
    certified_events: tuple[dict[str, Any], ...]


def claim_label(claim: PrivacyClaim) -> str:
    curve = f"{claim.curve.label()}, " if claim.curve is not None else ""
    return f"({curve}ε={claim.epsilon:.4g}, δ={claim.delta:g}; {claim.reference})"


def profile_tests(
    plan: AuditPlan, counts: CertifiedCounts, selected: Selected, *, index: int, mechanism: Any = None
) -> ProfileOutcome:
    """Certify pair `index`'s profile tests (every test after the primary) and compare each
    point with every claim covering the pair."""
    planned, sels = plan.pairs[index], selected.selections[index]
    starts = selected.starts(index)
    points, multi = [], []
    exceeded: dict[int, list[str]] = {}
    for k in range(1, len(sels)):
        obj = plan.objectives[index][k]
        rows = counts.counts[index][starts[k] : starts[k + 1]]
        extra, records, shown = certify_test(
            sels[k], rows, plan.certification_samples, plan.test_level, planned.claim, obj
        )
        extra = with_outcome_text(mechanism, sels[k].certified[shown].event, planned.pair, extra)
        if len(records) > 1:
            multi.append({"pair": index, "test": obj.label(), "events": records})
        value = float(obj.value(extra.p_lower, extra.q_upper))
        claimed = claimed_value(planned.claim, obj)
        points.append(
            ProfilePoint(
                objective=obj.kind,
                parameter=obj.parameter,
                label=obj.label(),
                value=value,
                pair_index=index,
                estimate=extra,
                claimed=claimed,
                exceeds_claim=claimed is not None and value > claimed,
            )
        )
        for kc, other in enumerate(plan.claims):
            allowed = claimed_value(other, obj)
            if other.covers(planned.pair.relation) and allowed is not None and value > allowed:
                exceeded.setdefault(kc, []).append(f"{obj.label()} = {value:.4g} > {allowed:.4g}")
    return ProfileOutcome(points=tuple(points), exceeded=exceeded, certified_events=tuple(multi))


def profile_findings(
    claims: Sequence[PrivacyClaim], exceeded: dict[int, list[str]], *, index: int, pair: NeighborPair
) -> list[str]:
    """One finding per claim the pair's certified profile exceeds (a violation if it is proved)."""
    findings = []
    for kc, points_text in exceeded.items():
        decides = decides_verdict(claims[kc], claims, pair.relation)
        findings.append(
            f"pair {index + 1} ({pair.description}): the certified privacy profile exceeds the "
            f"{claims[kc].kind.value} claim {claim_label(claims[kc])} at "
            + "; ".join(points_text)
            + (": a violation" if decides else ": a finding about the paper's statement, not a violation")
        )
    return findings


def claims_exceeded(
    claims: Sequence[PrivacyClaim], planned: PlannedPair, interval: tuple[float, float], profile: set[int]
) -> tuple[int, ...]:
    """Indices of the claims covering the pair whose δ the primary interval exceeds, or that a
    profile point exceeds."""
    return tuple(
        k
        for k, claim in enumerate(claims)
        if (
            claim.covers(planned.pair.relation)
            and float(delta_from_bounds(*interval, epsilon=claim.epsilon)) > claim.delta
        )
        or k in profile
    )


def assemble_pair(
    mechanism: Mechanism,
    plan: AuditPlan,
    layout: ChunkLayout,
    selected: Selected,
    counts: CertifiedCounts,
    *,
    index: int,
) -> PairOutcome:
    """Pair `index`'s result: its primary certificate, profile, trajectory and white-box reference."""
    planned, sels, c = plan.pairs[index], selected.selections[index], plan.pairs[index].claim
    primary = counts.counts[index][: selected.starts(index)[1]]
    obj: Objective = plan.objectives[index][0]
    est, records, reported = certify_test(
        sels[0], primary, plan.certification_samples, plan.test_level, c, obj
    )
    est = with_outcome_text(mechanism, sels[0].certified[reported].event, planned.pair, est)
    primary_test = {"pair": index, "test": obj.label(), "primary": True, "events": records}
    multi = [primary_test] if len(records) > 1 else []
    interval = (est.p_lower, est.q_upper)
    prof = profile_tests(plan, counts, selected, index=index, mechanism=mechanism)
    findings = profile_findings(plan.claims, prof.exceeded, index=index, pair=planned.pair)
    profile_violation = any(
        decides_verdict(plan.claims[kc], plan.claims, planned.pair.relation) for kc in prof.exceeded
    )
    reference = white_box_reference(mechanism, planned.pair, delta=c.delta)
    event: Selection = sels[0].certified[reported]
    result = PairResult(
        index=index,
        description=planned.pair.description,
        relation=planned.pair.relation,
        tags=planned.pair.tags,
        claim=c,
        estimate=est,
        violation=est.delta_lower_bound > c.delta or profile_violation,
        claims_exceeded=claims_exceeded(plan.claims, planned, interval, set(prof.exceeded)),
        profile=prof.points,
        event_spec=event_spec(event.event),
        trajectory=trajectory(
            event,
            counts.prefix[index][reported],
            layout.points,
            plan.test_level / len(sels[0].certified),
            c.delta,
        ),
        exact_epsilon=reference.epsilon,
        exact_epsilon_method=reference.method or reference.note,
        canary=canary_of(planned.pair.tags),
    )
    return PairOutcome(
        result=result,
        interval=interval,
        findings=tuple(findings),
        certified_events=(*multi, *prof.certified_events),
    )


def claim_checks(plan: AuditPlan, outcomes: Sequence[PairOutcome]) -> list[ClaimCheck]:
    """Each claim checked against the primary intervals of every pair it covers."""
    checks = []
    for k, claim in enumerate(plan.claims):
        covered = [j for j, p in enumerate(plan.pairs) if claim.covers(p.pair.relation)]
        eps = [float(epsilon_from_bounds(*outcomes[j].interval, delta=claim.delta)) for j in covered]
        dels = [float(delta_from_bounds(*outcomes[j].interval, epsilon=claim.epsilon)) for j in covered]
        checks.append(
            ClaimCheck(
                claim=claim,
                epsilon_lower_bound=max(eps, default=-math.inf),
                delta_lower_bound=max(dels, default=0.0),
                exceeded=any(k in outcomes[j].result.claims_exceeded for j in covered),
                pairs_checked=len(covered),
            )
        )
    return checks


def stated_findings(
    checks: Sequence[ClaimCheck], claims: Sequence[PrivacyClaim], pair_results: Sequence[PairResult]
) -> list[str]:
    """Findings for a STATED claim whose headline point is exceeded while the proved claim is not."""
    findings = []
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
    return findings


def best_profile(pair_results: Sequence[PairResult]) -> tuple[ProfilePoint, ...]:
    """The highest certified value of each profile test over `pair_results` (first pair on ties).

    `assemble` passes the pairs the verdict claim decides, so the run-level profile compares like
    with like: a point of a pair under another relation is a point of another claim's profile and
    stays with its pair (`PairResult.profile`)."""
    best: dict[tuple[str, float | None], ProfilePoint] = {}
    for pt in (pt for pr in pair_results for pt in pr.profile):
        key = (pt.objective, pt.parameter)
        if key not in best or pt.value > best[key].value:
            best[key] = pt
    return tuple(best.values())


def selection_summary(selected: Selected) -> list[list[dict[str, Any]]]:
    """Per pair, each distinguisher's best projected value for the primary test (and the winner)."""
    return [
        [
            {"distinguisher": name, "projected": json_number(value), "chosen": name == sels[0].distinguisher}
            for name, value in sels[0].considered
        ]
        for sels in selected.selections
    ]


def assemble(
    mechanism: Mechanism,
    plan: AuditPlan,
    config: AuditConfig,
    layout: ChunkLayout,
    selected: Selected,
    counts: CertifiedCounts,
    *,
    started: float,
    parameters: Sequence[tuple[str, str]],
    command: str,
    notes: Sequence[str] = (),
) -> AuditResult:
    """The assemble stage: every pair's result, the claim checks and the verdict; `notes` (e.g. a
    discarded checkpoint's) join the plan's warnings."""
    outcomes = [
        assemble_pair(mechanism, plan, layout, selected, counts, index=i) for i in range(len(plan.pairs))
    ]
    pair_results = [o.result for o in outcomes]
    checks = claim_checks(plan, outcomes)
    findings = [f for o in outcomes for f in o.findings] + stated_findings(checks, plan.claims, pair_results)
    primary = [pr for pr in pair_results if pr.claim == plan.verdict_claim] or pair_results
    violation = any(pr.violation for pr in pair_results)
    n_sel, n_cert = plan.selection_samples, plan.certification_samples
    eps = max(pr.estimate.epsilon_lower_bound for pr in primary)
    reason = None
    if not violation:
        reason = inconclusive_reason(
            plan.verdict_claim,
            epsilon_lower_bound=eps,
            ceiling=plan.epsilon_ceiling,
            pair_bounds=[pr.estimate.epsilon_lower_bound for pr in pair_results],
        )
    return AuditResult(
        mechanism=mechanism.name,
        claim=plan.verdict_claim,
        claims=tuple(checks),
        epsilon_lower_bound=eps,
        delta_lower_bound=max(pr.estimate.delta_lower_bound for pr in primary),
        failure_probability=config.failure_probability,
        test_level=plan.test_level,
        verdict=verdict_for(violation=violation, inconclusive_reason=reason),
        inconclusive_reason=reason,
        num_samples=n_sel + n_cert,
        selection_samples=n_sel,
        certification_samples=n_cert,
        seed=config.seed,
        pairs=tuple(pair_results),
        elapsed_seconds=time.monotonic() - started,
        package_version=package_version(),
        epsilon_ceiling=plan.epsilon_ceiling,
        warnings=(*plan.warnings, *notes),
        findings=tuple(findings),
        parameters=tuple(parameters),
        command=command,
        seedable=mechanism.seedable,
        profile=best_profile([pr for pr in pair_results if pr.claim == plan.verdict_claim]),
        threat_model=str(getattr(mechanism, "threat_model", "") or ""),
        extra={
            "chunk_size": layout.chunk,
            "tests": plan.num_tests,
            "selection": selection_summary(selected),
            "certified_events": [r for o in outcomes for r in o.certified_events],
        },
    )
