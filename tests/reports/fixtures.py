"""Hand-built AuditResult objects for renderer tests.

Renderers never recompute statistics, so their tests can use results built directly, with every
optional field set or left empty, instead of running audits. The numbers are made up but
internally consistent (certified ε = ln((P lower − δ)/Q upper) to the digits shown).
"""

from __future__ import annotations

import dataclasses
import math

from dpaudit.engine.types import (
    AuditResult,
    ClaimCheck,
    ClaimCurve,
    ClaimKind,
    CurveKind,
    EpsilonEstimate,
    PairResult,
    PrivacyClaim,
    ProfilePoint,
    Relation,
    Verdict,
)

REF = "004_d2450801cba57aea.txt, Thm 30"


def estimate(
    *,
    p_count: int,
    q_count: int,
    total: int = 90_000,
    delta: float = 0.0,
    bound_level: float = 0.01,
    assumption: str = "none: i.i.d. samples, event fixed before certification",
    distinguisher: str = "threshold",
) -> EpsilonEstimate:
    # crude stand-ins for the Clopper–Pearson bounds: enough for rendering tests
    p_lower = max(p_count / total - 3 * math.sqrt(p_count) / total, 0.0)
    q_upper = (q_count + 3 * math.sqrt(q_count + 1) + 3) / total
    eps = math.log((p_lower - delta) / q_upper) if p_lower > delta else -math.inf
    return EpsilonEstimate(
        epsilon_lower_bound=eps,
        delta_lower_bound=max(p_lower - math.exp(1.0) * q_upper, 0.0),
        p_count=p_count,
        p_total=total,
        q_count=q_count,
        q_total=total,
        p_lower=p_lower,
        q_upper=q_upper,
        bound_level=bound_level,
        infinite_witness=q_count == 0,
        direction="dataset>neighbor",
        event="x ≥ 3.2",
        distinguisher=distinguisher,
        selection_epsilon=eps + 0.05,
        assumption=assumption,
    )


def make_result(
    *,
    mechanism: str = "fixture_mech",
    violation: bool = False,
    stated_exceeded: bool = False,
    with_profile: bool = False,
    with_trajectory: bool = False,
    with_selection: bool = False,
    curve: bool = False,
    num_pairs: int = 2,
) -> AuditResult:
    proved = PrivacyClaim(
        epsilon=1.0,
        delta=1e-5,
        relation=Relation.REPLACE_ONE,
        reference=REF,
        kind=ClaimKind.PROVED,
        curve=ClaimCurve(kind=CurveKind.GDP, parameter=0.5) if curve else None,
    )
    stated = PrivacyClaim(
        epsilon=0.5,
        delta=1e-5,
        relation=Relation.REPLACE_ONE,
        reference=REF + " (statement)",
        kind=ClaimKind.STATED,
        note="the theorem states ε/2",
    )
    pairs = []
    for i in range(num_pairs):
        bad = violation and i == 0
        mid = stated_exceeded and i == 0 and not bad
        est = estimate(
            p_count=9000 if bad else (3500 if mid else 2000 + 10 * i),
            q_count=900 if bad else (1500 if mid else 1500 + 10 * i),
            distinguisher="threshold" if i % 2 == 0 else "histogram",
        )
        traj: tuple[tuple[int, float], ...] = ()
        if with_trajectory:
            traj = tuple(
                (n, est.epsilon_lower_bound - 1.5 / math.sqrt(n / 1000)) for n in (1000, 4000, 16000, 90_000)
            )
        prof: tuple[ProfilePoint, ...] = ()
        if with_profile:
            prof = profile_points(i, est, exceeds=bad)
        pairs.append(
            PairResult(
                index=i,
                description=f"replace record {i} low → high",
                relation=Relation.REPLACE_ONE,
                tags=("extreme", f"tag{i}"),
                claim=proved,
                estimate=est,
                violation=bad,
                claims_exceeded=tuple(k for k, flag in ((0, bad), (1, bad or mid)) if flag),
                profile=prof,
                trajectory=traj,
            )
        )
    best = max(pairs, key=lambda p: p.estimate.epsilon_lower_bound)
    eps_lb = best.estimate.epsilon_lower_bound
    claims = (
        ClaimCheck(
            claim=proved,
            epsilon_lower_bound=eps_lb,
            delta_lower_bound=best.estimate.delta_lower_bound,
            exceeded=eps_lb > proved.epsilon,
            pairs_checked=num_pairs,
        ),
        ClaimCheck(
            claim=stated,
            epsilon_lower_bound=eps_lb,
            delta_lower_bound=best.estimate.delta_lower_bound,
            exceeded=eps_lb > stated.epsilon,
            pairs_checked=num_pairs,
        ),
    )
    extra: dict[str, object] = {"chunk_size": 262144}
    if with_selection:
        # the runner's format: per pair, the candidates with a "chosen" flag; odd pairs leave the
        # flag out (an older layout) so the renderer falls back to the estimate's distinguisher
        extra["selection"] = [
            [
                {"distinguisher": name, "projected": value}
                | ({"chosen": name == p.estimate.distinguisher} if p.index % 2 == 0 else {})
                for name, value in (
                    ("threshold", p.estimate.selection_epsilon),
                    ("histogram", p.estimate.selection_epsilon - 0.1),
                    ("logistic", None),
                )
            ]
            for p in pairs
        ]
    findings: tuple[str, ...] = ()
    if stated_exceeded:
        findings = (f"certified ε ≥ {eps_lb:.3g} exceeds the paper's stated ε = 0.5 ({REF})",)
    return AuditResult(
        mechanism=mechanism,
        claim=proved,
        claims=claims,
        epsilon_lower_bound=eps_lb,
        delta_lower_bound=best.estimate.delta_lower_bound,
        failure_probability=0.05,
        test_level=0.05 / (2 * num_pairs),
        verdict=Verdict.VIOLATION_FOUND if pairs[0].violation else Verdict.NO_VIOLATION_FOUND,
        num_samples=100_000,
        selection_samples=10_000,
        certification_samples=90_000,
        seed=7,
        pairs=tuple(pairs),
        elapsed_seconds=1.5,
        package_version="0.0.test",
        epsilon_ceiling=9.1,
        warnings=("a warning",),
        findings=findings,
        command=f"dpaudit run {mechanism} --num-samples 100000 --seed 7",
        profile=tuple(pt for p in pairs[:1] for pt in p.profile),
        extra=extra,
    )


def profile_points(pair_index: int, est: EpsilonEstimate, *, exceeds: bool) -> tuple[ProfilePoint, ...]:
    pts = []
    for delta, value, claimed in (
        (1e-5, 1.2 if exceeds else 0.4, 1.0),
        (1e-3, 1.1 if exceeds else 0.35, 0.99),
    ):
        pts.append(
            ProfilePoint(
                objective="epsilon",
                parameter=delta,
                label=f"ε at δ={delta:g}",
                value=value,
                pair_index=pair_index,
                estimate=est,
                claimed=claimed,
                exceeds_claim=value > claimed,
            )
        )
    pts.append(
        ProfilePoint(
            objective="delta",
            parameter=0.5,
            label="δ at ε=0.5",
            value=0.02,
            pair_index=pair_index,
            estimate=est,
            claimed=0.03,
            exceeds_claim=False,
        )
    )
    pts.append(
        ProfilePoint(
            objective="gdp_mu",
            parameter=None,
            label="Gaussian-DP μ (refutes μ-GDP claims only)",
            value=0.3,
            pair_index=pair_index,
            estimate=est,
            claimed=None,
        )
    )
    return tuple(pts)


def older(r: AuditResult) -> AuditResult:
    """The same result as an older JSON would give: no assumption, trajectory, profile, selection."""
    pairs = tuple(
        dataclasses.replace(
            p, trajectory=(), profile=(), estimate=dataclasses.replace(p.estimate, assumption="")
        )
        for p in r.pairs
    )
    extra = {k: v for k, v in r.extra.items() if k != "selection"}
    return dataclasses.replace(r, pairs=pairs, profile=(), extra=extra)


def accountant_claim(relation: Relation, scale: float) -> PrivacyClaim:
    """A made-up accountant curve claim, tabulated at three δ per decade: ε(δ) = scale·0.1·L·(1 + 0.1·L)
    with L = −log10 δ (non-increasing in δ, as a privacy profile is)."""
    deltas = [m * 10.0**k for k in range(-7, 0) for m in (1.0, 2.0, 5.0)]
    points = tuple((d, scale * max(0.1 * -math.log10(d) * (1 + 0.1 * -math.log10(d)), 0.0)) for d in deltas)
    return PrivacyClaim(
        epsilon=scale * 0.1 * 5 * 1.5,
        delta=1e-5,
        relation=relation,
        reference=f"made-up accountant, {relation.value}",
        kind=ClaimKind.PROVED,
        curve=ClaimCurve(
            kind=CurveKind.ACCOUNTANT, points=points, source=f"made-up accountant, {relation.value}"
        ),
    )


def two_relation_result(*, violation: bool = False) -> AuditResult:
    """DP-SGD's shape: the verdict claim under add/remove (pair 1), a looser replace-one claim (pair 2)
    whose certified profile is above the add/remove claim's curve but below its own. With
    `violation`, pair 1's profile point at δ = 10⁻² exceeds its own (add/remove) claim."""
    add = accountant_claim(Relation.ADD_REMOVE_ONE, 1.0)
    rep = accountant_claim(Relation.REPLACE_ONE, 2.0)
    pairs = []
    for i, (claim, relation, fraction) in enumerate(
        ((add, Relation.ADD_REMOVE_ONE, 0.5), (rep, Relation.REPLACE_ONE, 0.8))
    ):
        est = estimate(p_count=3000 + 900 * i, q_count=1500, delta=1e-5)
        points = tuple(
            ProfilePoint(
                objective="epsilon",
                parameter=d,
                label=f"ε at δ={d:g}",
                value=(1.3 if violation and i == 0 and d == 1e-2 else fraction) * claim.epsilon_at(d),
                pair_index=i,
                estimate=est,
                claimed=claim.epsilon_at(d),
                exceeds_claim=violation and i == 0 and d == 1e-2,
            )
            for d in (1e-3, 1e-2, 1e-1)
        )
        pairs.append(
            PairResult(
                index=i,
                description=f"canary pair {i + 1}, {relation.value}",
                relation=relation,
                tags=("canary:gradient",),
                claim=claim,
                estimate=est,
                violation=violation and i == 0,
                profile=points,
                exact_epsilon=claim.epsilon,
                exact_epsilon_method="accountant",
                trajectory=((1000, est.epsilon_lower_bound - 1.0), (90_000, est.epsilon_lower_bound)),
            )
        )
    checks = tuple(
        ClaimCheck(
            claim=p.claim,
            epsilon_lower_bound=p.estimate.epsilon_lower_bound,
            delta_lower_bound=p.estimate.delta_lower_bound,
            exceeded=p.violation,
            pairs_checked=1,
        )
        for p in pairs
    )
    return AuditResult(
        mechanism="two_relations",
        claim=add,
        claims=checks,
        epsilon_lower_bound=pairs[0].estimate.epsilon_lower_bound,
        delta_lower_bound=pairs[0].estimate.delta_lower_bound,
        failure_probability=0.05,
        test_level=0.05 / 8,
        verdict=Verdict.VIOLATION_FOUND if violation else Verdict.NO_VIOLATION_FOUND,
        num_samples=100_000,
        selection_samples=10_000,
        certification_samples=90_000,
        seed=3,
        pairs=tuple(pairs),
        elapsed_seconds=2.0,
        package_version="0.0.test",
        epsilon_ceiling=9.1,
        command="dpaudit run two_relations --seed 3",
        profile=pairs[0].profile,
    )
