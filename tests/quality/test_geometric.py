"""Quality tier for mechanisms.geometric: correct learners show no violation on their registered
pairs, detectable buggy twins are flagged, certified bounds never exceed the white-box oracle, and
the keep-pos-hunt twin is reported as a finding about the paper's statement, never a violation.

Budgets are the smallest measured to be reliable (see benchmarks/geometric.py for the full
≥ 10⁵-per-side runs): each twin here is flagged with a certified bound well above its claim
at this budget (margins in mechanisms/geometric/buggy.py). A correct mechanism is wrongly
flagged with probability ≤ failure_probability = 0.05 per audit (the runner's
Clopper–Pearson/Bonferroni guarantee); the oracle checks share that guarantee.
"""

from __future__ import annotations

from typing import Any

import pytest

from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig, AuditResult
from dpaudit.mechanisms.base import ClaimKind
from dpaudit.mechanisms.geometric import REGISTRY_ENTRIES
from dpaudit.mechanisms.registry import resolve

pytestmark = pytest.mark.slow

CORRECT = {e.name: e for e in REGISTRY_ENTRIES if not e.buggy}
DEFAULT_ROUTE_ONLY = {"geo_select_triangle_independent"}
"""Twins whose excess the default route's search finds on a pair that is not registered."""
DETECTABLE = {
    e.name: e for e in REGISTRY_ENTRIES if e.buggy and e.detectable and e.name not in DEFAULT_ROUTE_ONLY
}
# per-side budgets for the quality tier (scl learners ≈ 10 pairs each; standalone ones are cheap)
BUDGET = {
    "geo_select_halfplane": 1_000_000,
    "geo_select_halfplane_continuous": 200_000,
    "geo_select_triangle": 1_000_000,
    "geo_select_halfplane_eps_label": 1_000_000,
    "geo_select_halfplane_drop_small_cells": 1_000_000,
    # exact 5.8 / 4.9 vs claim 2; certified ≈ 3.3 / 3.1 at 10⁶, ≈ 2.9 / 2.7 at 2·10⁵
    "geo_select_triangle_count_weight": 200_000,
    "geo_select_triangle_sum_area": 200_000,
    # exact 1.113 vs claim 1: expected certified 1.089 at 3.8·10⁶ (thin margin, registered default)
    "geo_select_triangle_eps_label": 4_000_000,
    # correct long-T / large-d presets: "no violation" holds at any budget w.p. ≥ 0.95 (runner
    # guarantee); the ≥ 10⁵ runs are in benchmarks/geometric.py
    "geo_amplified": 4_000,  # T = 86
    "geo_keep_pos_hunt": 4_000,  # T = 171
    "geo_convex_probe": 5_000,
    # B1 on halfplane-grid4: ≈ 4.1 (white-box) vs 1.8, measured flagged at 2·10⁴
    "geo_halfplane_grid4_no_eps_split": 20_000,
    # B1 on union-grid3, flanked-cluster pair: exact ε(0) ≥ 2.45 vs the pure composition claim 0.683
    "geo_union_grid3_no_eps_split": 50_000,
    # every step at the full ε: certified 2.1 vs (0.9, 1e-3) at its registered default 10⁵;
    # 1.13 / 1.16 at 3·10⁴ (seeds 202 / 203)
    "geo_conj_composition_no_split": 30_000,
}
# Correct SCL learners: same runner guarantee. Detectable SCL twins not listed above have ε = ∞
# witnessed by an event of probability ≈ 1 on one side and 0 on the other (output length, a
# deterministic choice, a hypothesis outside the other side's support), certified at ≈ ln(n/6) ≫ 3.6.
DEFAULT_QUALITY_SAMPLES = 5_000


def _audit(name: str, seed: int) -> tuple[Any, AuditResult]:
    m: Any = resolve(name)[0]
    n = BUDGET.get(name, DEFAULT_QUALITY_SAMPLES)
    return m, run_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=n, seed=seed), show_progress=False)


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_mechanism_no_violation(name: str) -> None:
    m, r = _audit(name, seed=101)
    assert not r.violation, (name, r.epsilon_lower_bound)
    if name.startswith("geo_select"):
        # exact oracle: every pair's certified bound ≤ exact ε (pure claims, δ = 0)
        for pr, pair in zip(r.pairs, m.neighbor_pairs(), strict=True):
            assert pr.estimate.epsilon_lower_bound <= m.exact_epsilon(pair, 0.0) + 1e-9


@pytest.mark.parametrize("name", sorted(DETECTABLE))
def test_detectable_twin_flagged(name: str) -> None:
    _, r = _audit(name, seed=202)
    assert r.violation, (name, r.epsilon_lower_bound)


@pytest.mark.parametrize("name", sorted(DEFAULT_ROUTE_ONLY))
def test_twin_flagged_by_the_default_route(name: str) -> None:
    from dpaudit.api import audit

    r = audit(name, seed=202)
    assert r.violation, (name, r.epsilon_lower_bound)


def test_scl_bound_below_privacy_loss_oracle() -> None:
    # halfplane-grid4 "single pos vs ∅": oracle ε(δ = 1e-3) ≈ 0.12 (Monte Carlo, 2000 paths, sd ≈ 0.01);
    # the certified bound at δ = 1e-3 must not exceed it (with a 0.05 Monte Carlo allowance, > 5 sd).
    # The pair's primary test is at δ = 0 (the pure composition claim decides), so δ = 1e-3 is a
    # profile point.
    m: Any = resolve("geo_halfplane_grid4")[0]
    pair = m.neighbor_pairs()[0]
    cfg = AuditConfig(num_samples=50_000, seed=7, profile_deltas=(1e-3,))
    r = run_audit(m, [pair], cfg, show_progress=False)
    oracle = m.exact_epsilon(pair, 1e-3, num_paths=2000, seed=1)
    point = [p for p in r.profile if p.objective == "epsilon" and p.parameter == 1e-3]
    assert len(point) == 1
    assert point[0].value <= oracle + 0.05


def test_flanked_pair_oracle_separates_union_twin_from_correct() -> None:
    # The flanked-cluster pair (learners.flanked_pair) against the tightest proved claim (pure
    # composition, T·ε̂ = 0.683): B1 exceeds it, the correct learner stays below (Monte Carlo
    # oracle; measured 2.17 / 0.12 at δ = 1e-3 with 4000 paths, 2.45 / 0.27 at δ = 0).
    from dpaudit.mechanisms.base import applicable_claim, claims_of

    ok: Any = resolve("geo_union_grid3")[0]
    twin: Any = resolve("geo_union_grid3_no_eps_split")[0]
    pair = next(p for p in ok.neighbor_pairs() if "flanked" in p.tags)
    claim = applicable_claim(claims_of(ok), pair.relation)
    assert claim is not None and claim.delta == 0.0
    assert claim.epsilon == pytest.approx(0.6829, abs=1e-4)
    assert twin.exact_epsilon(pair, 1e-3, num_paths=1000, seed=3) > 1.5 > claim.epsilon
    assert ok.exact_epsilon(pair, 0.0, num_paths=1000, seed=3) < claim.epsilon


def test_keep_pos_hunt_twin_is_a_statement_finding_not_a_violation() -> None:
    # True δ(0.99) = 0.067 > 0.05 (stated claim), ε(0.05) ≈ 1.12 < 1.98 (proved claim): the audit must
    # never report a violation (that would be a false positive, probability ≤ 0.05) and, at the
    # registered default budget, certifies the stated claim exceeded (measured in buggy.py's table).
    built, entry = resolve("geo_keep_pos_hunt_keep_positives")
    m: Any = built
    assert entry is not None and not entry.detectable
    cfg = AuditConfig(num_samples=entry.default_num_samples, seed=303)
    r = run_audit(m, m.neighbor_pairs(), cfg, show_progress=False)
    assert not r.violation, r.epsilon_lower_bound
    exceeded = [c for c in r.claims if c.exceeded]
    assert exceeded and all(c.claim.kind is ClaimKind.STATED for c in exceeded)
    assert any("not the proved claim" in f for f in r.findings)
