"""`benchmarks/futility_bet.py`: the futility projection's γ set for a block only, and the samples
a sequential route drew counted from its result."""

from __future__ import annotations

from benchmarks.futility_bet import audit, optimism
from dpaudit.engine.runner import OPTIMISM, optimistic_counts


def test_optimism_is_set_inside_the_block_and_restored_after() -> None:
    defaults = optimistic_counts.__kwdefaults__
    assert defaults is not None and defaults["optimism"] == OPTIMISM
    with optimism(0.3):
        assert defaults["optimism"] == 0.3
    assert defaults["optimism"] == OPTIMISM


def test_a_larger_gamma_stops_an_exact_claim_sooner_and_a_clear_violation_is_flagged() -> None:
    flagged, strict = audit(1.0, 1e-4, 0)
    lax_flagged, lax = audit(1.0, 0.3, 0)
    assert not flagged and not lax_flagged
    assert lax < strict <= 1_100_000
    assert audit(0.9, 1e-4, 0)[0]  # a 10 % violation: decided by the first round
