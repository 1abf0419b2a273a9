"""Privacy profile tests: configured grids, the GDP μ test, and curve claims compared point by
point (issue 7). Every certified value holds jointly with probability ≥ 1 − failure_probability
(0.05), so each "below the truth / not exceeded" assertion on a correct mechanism fails with
probability ≤ 0.05 at a fixed seed (seeds fixed: reproducible)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import pytest

from dpaudit.engine.distinguishers.objectives import DeltaAt, EpsilonAt, GaussianMu
from dpaudit.engine.runner.procedure import CURVE_PROFILE_DELTAS, claimed_value, objectives_for, run_audit
from dpaudit.engine.types import AuditConfig, Verdict
from dpaudit.mechanisms.analytic import gaussian_delta, gaussian_epsilon
from dpaudit.mechanisms.base import ClaimCurve, ClaimKind, CurveKind, PrivacyClaim
from dpaudit.mechanisms.reference import GaussianSum, LaplaceSum
from dpaudit.mechanisms.registry import entries
from dpaudit.neighbors.base import Relation


def test_profile_and_gdp_tests_are_valid_and_split_the_budget() -> None:
    m = GaussianSum()
    pair = m.neighbor_pairs()[0]
    mu = m.mu(pair)
    cfg = AuditConfig(num_samples=200_000, seed=2, profile_deltas=(1e-2,), profile_epsilons=(0.25,), gdp=True)
    r = run_audit(m, [pair], cfg)
    assert r.test_level == pytest.approx(0.05 / 4)
    by_kind = {p.objective: p for p in r.profile}
    assert set(by_kind) == {"epsilon", "delta", "gdp_mu"}
    # every certified value is below the truth (each holds at the shared confidence)
    assert by_kind["epsilon"].value <= m.exact_epsilon(pair, delta=1e-2)
    assert by_kind["delta"].value <= gaussian_delta(0.25, mu)
    assert 0 < by_kind["gdp_mu"].value <= mu
    # the GDP route is sharper than the direct ε test for a Gaussian mechanism
    assert by_kind["gdp_mu"].value > 0.5 * mu


MU = 1.0
EPS_AT_1E5 = gaussian_epsilon(1e-5, MU)  # 4.377: the 1-GDP curve's ε at δ = 1e-5


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LaplaceUnderGdpClaim(LaplaceSum):
    """Laplace noise with ε_L = 2.5 claimed as 1-GDP through (4.377, 1e-5).

    The headline point holds (pure 2.5-DP implies (4.377, 1e-5)), but the curve does not: at
    δ = 0.1 the Laplace profile has ε = 2.5 + 2 ln 0.9 = 2.29 while 1-GDP allows 1.16, and its
    central events give μ ≈ 2.1 > 1. `curve_kind` STATED makes the GDP claim a statement next
    to a proved pure-ε claim."""

    epsilon: float = 2.5
    name: str = "laplace_under_gdp_claim"
    curve_kind: ClaimKind = ClaimKind.PROVED
    seedable: ClassVar[bool] = True

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        gdp = PrivacyClaim(
            epsilon=EPS_AT_1E5,
            delta=1e-5,
            relation=Relation.REPLACE_ONE,
            reference="test: 1-GDP",
            kind=self.curve_kind,
            curve=ClaimCurve(kind=CurveKind.GDP, parameter=MU),
        )
        if self.curve_kind is ClaimKind.PROVED:
            return (gdp,)
        return (PrivacyClaim(epsilon=self.epsilon, relation=Relation.REPLACE_ONE, reference="proof"), gdp)

    @property
    def claim(self) -> PrivacyClaim:
        return self.claims[0]

    def neighbor_pairs(self) -> Any:
        return LaplaceSum.neighbor_pairs(self)[:1]


def test_curve_claim_gets_the_default_grid_and_gdp_objective() -> None:
    m = GaussianSum()
    claim = m.claim
    assert claim.curve is not None and claim.curve.kind is CurveKind.GDP
    objs = objectives_for(claim, AuditConfig())
    assert [o.kind for o in objs] == ["epsilon"] * (1 + len(CURVE_PROFILE_DELTAS)) + ["gdp_mu"]
    # a configured grid replaces the default one
    objs = objectives_for(claim, AuditConfig(profile_deltas=(0.05,)))
    assert [(o.kind, o.parameter) for o in objs] == [("epsilon", claim.delta), ("epsilon", 0.05)]
    # point claims get no default grid
    assert len(objectives_for(LaplaceSum().claim, AuditConfig())) == 1


def test_gaussian_sum_profile_points_compared_with_its_curve() -> None:
    m = GaussianSum()
    pair = m.neighbor_pairs()[0]
    r = run_audit(m, [pair], AuditConfig(num_samples=100_000, seed=4))
    pr = r.pairs[0]
    assert r.test_level == pytest.approx(0.05 / (2 + len(CURVE_PROFILE_DELTAS)))
    assert [p.label for p in pr.profile][-1].startswith("Gaussian-DP")
    for p in pr.profile:
        assert p.claimed is not None
        if p.objective == "epsilon":
            assert p.claimed == pytest.approx(m.claim.epsilon_at(p.parameter))
            assert p.claimed == pytest.approx(m.exact_epsilon(pair, delta=p.parameter))  # exact curve
        else:
            assert p.claimed == pytest.approx(m.mu(pair))
        assert p.exceeds_claim is (p.value > p.claimed)
        assert p.estimate.assumption
    gdp = next(p for p in pr.profile if p.objective == "gdp_mu")
    assert "μ-GDP" in gdp.estimate.assumption
    # exact curve, valid certificates: nothing exceeds it (probability ≥ 0.95 jointly)
    assert r.verdict is Verdict.NO_VIOLATION_FOUND and not r.findings


def test_proved_curve_point_exceeded_is_a_violation_with_a_finding() -> None:
    """Measured at seeds 5–7: certified ε(0.1) ≈ 2.24 (allowed 1.16) and μ ≈ 2.1 (allowed 1); the
    margins are > 30 standard deviations of the bounds, so a miss has negligible probability."""
    m = LaplaceUnderGdpClaim()
    r = run_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=100_000, seed=5))
    pr = r.pairs[0]
    # the headline (ε, δ) point is not exceeded: true ε is 2.5 < 4.377
    assert pr.estimate.delta_lower_bound <= m.claim.delta
    assert r.verdict is Verdict.VIOLATION_FOUND and pr.violation
    exceeded = [p for p in pr.profile if p.exceeds_claim]
    labels = {p.label for p in exceeded}
    # δ = 0.1: Laplace ε(0.1) = 2.29 vs 1.16 allowed; μ ≈ 2.1 vs 1 (see the class docstring)
    assert "ε at δ=0.1" in labels and any(p.objective == "gdp_mu" for p in exceeded)
    assert r.claims[0].exceeded
    assert any("ε at δ=0.1" in f and "proved" in f and "violation" in f for f in r.findings)


def test_stated_curve_point_exceeded_is_a_finding_only() -> None:
    m = LaplaceUnderGdpClaim(curve_kind=ClaimKind.STATED)
    cfg = AuditConfig(num_samples=100_000, seed=6, profile_deltas=(0.1,))
    r = run_audit(m, m.neighbor_pairs(), cfg)
    pr = r.pairs[0]
    assert pr.claim.kind is ClaimKind.PROVED and pr.claim.curve is None
    (point,) = pr.profile
    # compared with the proved pure 2.5-DP claim's privacy region at δ = 0.1 (2.5 + ln 0.9·… ≥ 2.29)
    assert point.claimed == pytest.approx(m.claim.epsilon_at(0.1))
    assert not point.exceeds_claim
    assert r.verdict is Verdict.NO_VIOLATION_FOUND
    stated = next(c for c in r.claims if c.claim.kind is ClaimKind.STATED)
    assert stated.exceeded
    assert any("stated" in f and "not a violation" in f for f in r.findings)


def test_claimed_value_per_objective() -> None:
    point = PrivacyClaim(epsilon=1.0, delta=1e-5, relation=Relation.REPLACE_ONE, reference="t")
    assert claimed_value(point, EpsilonAt(1e-2)) == pytest.approx(point.epsilon_at(1e-2))
    assert claimed_value(point, EpsilonAt(1e-6)) == math.inf  # below δ a point claim allows anything
    assert claimed_value(point, DeltaAt(0.5)) == pytest.approx(point.delta_at(0.5))
    assert claimed_value(point, GaussianMu()) is None
    zcdp = dataclasses.replace(point, epsilon=3.0, curve=ClaimCurve(kind=CurveKind.ZCDP, parameter=0.2))
    assert claimed_value(zcdp, GaussianMu()) is None
    assert claimed_value(zcdp, EpsilonAt(1e-2)) == pytest.approx(0.2 + 2 * math.sqrt(0.2 * math.log(100)))
    gdp = dataclasses.replace(point, curve=ClaimCurve(kind=CurveKind.GDP, parameter=0.3))
    assert claimed_value(gdp, GaussianMu()) == 0.3


def test_the_run_level_profile_is_the_verdict_relations() -> None:
    """Issue 42: DP-SGD's replace-one pair certifies more than the add/remove pair at every δ, but the
    run-level profile holds only the pairs the verdict claim (add/remove) decides; each pair keeps its
    own points, each against its own relation's claim."""
    mech = entries()["dpsgd_canary_t10"].build()
    r = run_audit(mech, mech.neighbor_pairs(), AuditConfig(num_samples=20_000, seed=1))
    verdict_pairs = {p.index for p in r.pairs if p.claim == r.claim}
    assert r.claim.relation is Relation.ADD_REMOVE_ONE and verdict_pairs == {0}
    assert {pt.parameter for pt in r.profile} == {1e-3, 1e-2, 1e-1}
    assert all(pt.pair_index in verdict_pairs for pt in r.profile)
    other = r.pairs[1]
    assert other.relation is Relation.REPLACE_ONE and len(other.profile) == 3
    assert max(pt.value for pt in other.profile) > max(pt.value for pt in r.profile)  # the case that mattered
    for p in r.pairs:
        for pt in p.profile:
            assert pt.claimed == p.claim.epsilon_at(pt.parameter or 0.0)
