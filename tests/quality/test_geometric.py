"""Quality tier for mechanisms.geometric: correct learners show no violation on their registered
pairs, detectable buggy twins are flagged, certified bounds never exceed the white-box oracle.

Budgets are the smallest measured to be reliable (see benchmarks/geometric.py for the full
≥ 10⁵-per-side runs): each twin here is flagged with a certified bound several times its claim.
A correct mechanism is wrongly flagged with probability ≤ failure_probability = 0.05 per audit
(the runner's Clopper–Pearson/Bonferroni guarantee); the oracle checks share that guarantee.
"""

from __future__ import annotations

import pytest

from audit.runner import run_audit
from audit.types import AuditConfig
from mechanisms.geometric import REGISTRY_ENTRIES
from mechanisms.registry import resolve

pytestmark = pytest.mark.slow

CORRECT = {e.name: e for e in REGISTRY_ENTRIES if not e.buggy}
DETECTABLE = {e.name: e for e in REGISTRY_ENTRIES if e.buggy and e.detectable}
# per-side budgets for the quality tier (scl learners ≈ 10 pairs each; standalone ones are cheap)
BUDGET = {
    "geo_select_halfplane": 1_000_000,
    "geo_select_halfplane_continuous": 200_000,
    "geo_select_triangle": 1_000_000,
    "geo_select_halfplane_eps_label": 1_000_000,
    "geo_select_halfplane_drop_small_cells": 1_000_000,
}
DEFAULT_QUALITY_SAMPLES = 20_000


def _audit(name: str, seed: int):  # type: ignore[no-untyped-def]
    m, _ = resolve(name)
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


def test_scl_bound_below_privacy_loss_oracle() -> None:
    # halfplane-grid4 "single pos vs ∅": oracle ε(δ = 1e-3) ≈ 0.12 (Monte Carlo, 2000 paths, sd ≈ 0.01);
    # the certified bound at δ = 1e-3 must not exceed it (with a 0.05 Monte Carlo allowance, > 5 sd).
    m, _ = resolve("geo_halfplane_grid4")
    pair = m.neighbor_pairs()[0]
    r = run_audit(m, [pair], AuditConfig(num_samples=50_000, seed=7), show_progress=False)
    oracle = m.exact_epsilon(pair, 1e-3, num_paths=2000, seed=1)  # type: ignore[attr-defined]
    assert r.pairs[0].estimate.epsilon_lower_bound <= oracle + 0.05
