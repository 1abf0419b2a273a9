"""Slow tier for the 000/001 learners: audits at the registered budgets.

- every correct mechanism: no violation at ≥ 10^5 samples per side on its registered pairs,
  and every pair's certified bound ≤ the exact oracle ε where one exists;
- every detectable twin: violation found at its default budget (release twins at a smaller
  budget: their witness is infinite);
- the correct learner above the nominal ε: no finding (no STATED claim; Lemma 3.1 states O(ε)).
Each audit holds with probability ≥ 0.95 (failure_probability = 0.05, the runner's Bonferroni
split); the seeds are fixed, so the tier is deterministic.
"""

from __future__ import annotations

import math

import pytest

from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig, Verdict
from dpaudit.mechanisms.agnostic import REGISTRY_ENTRIES

pytestmark = pytest.mark.slow

ENTRIES = {e.name: e for e in REGISTRY_ENTRIES}
CORRECT = sorted(n for n, e in ENTRIES.items() if not e.buggy)
DETECTABLE = sorted(n for n, e in ENTRIES.items() if e.buggy and e.detectable)
SMALL_BUDGET = {
    "agnostic_learner_release_relabelled": 20_000,
    "relabel_and_learn_release": 20_000,
    "auxiliary_learner_hbar_from_t": 20_000,
}


@pytest.mark.parametrize("name", CORRECT)
def test_correct_mechanism_no_violation(name: str) -> None:
    entry = ENTRIES[name]
    m = entry.build()
    pairs = m.neighbor_pairs()  # type: ignore[attr-defined]
    n = max(entry.default_num_samples, 100_000)
    r = run_audit(m, pairs, AuditConfig(num_samples=n, seed=11))
    # never a violation; "inconclusive" where no event certifies any loss (issue 42:
    # agnostic_learner_amplified's "0 (no evidence)")
    assert r.verdict in {Verdict.NO_VIOLATION_FOUND, Verdict.INCONCLUSIVE}
    oracle = getattr(m, "exact_epsilon", None)
    if oracle is None:
        return
    for pr, pair in zip(r.pairs, pairs, strict=True):
        exact = oracle(pair)
        assert pr.estimate.epsilon_lower_bound <= exact + 1e-9, (pair.description, exact)


@pytest.mark.parametrize("name", DETECTABLE)
def test_detectable_twin_flagged(name: str) -> None:
    entry = ENTRIES[name]
    m = entry.build()
    n = SMALL_BUDGET.get(name, entry.default_num_samples)
    r = run_audit(m, m.neighbor_pairs(), AuditConfig(num_samples=n, seed=12))  # type: ignore[attr-defined]
    assert r.verdict is Verdict.VIOLATION_FOUND
    assert r.epsilon_lower_bound > m.claim.epsilon


def test_correct_learner_has_no_nominal_finding() -> None:
    """The correct A_Agnostic at n = 13 (exact 0.424 > 1/3) used to be reported as exceeding
    the paper's statement (nominal ε); Lemma 3.1 states O(ε) for the algorithm built, so it
    carries the PROVED claim only and yields neither a violation nor a finding."""
    m = ENTRIES["agnostic_learner"].build()
    pairs = [p for p in m.neighbor_pairs() if p.description.startswith("n=13")][:2]  # type: ignore[attr-defined]
    r = run_audit(m, pairs, AuditConfig(num_samples=100_000, seed=13))
    assert r.verdict is Verdict.NO_VIOLATION_FOUND
    assert all(c.claim.kind.value == "proved" for c in r.claims)
    assert not r.findings
    assert math.isfinite(r.epsilon_lower_bound) and r.epsilon_lower_bound < m.claim.epsilon
