"""Releases whose length varies between calls (`variable_length=True`, issue 44 item 6): coded
[0, length, first W values], the length a coordinate like any other, its witness said as "the
release has ≥ t values". Fakes only: a threshold release (noisy values that pass a noisy cut)
whose number of released values depends on how many records are large. With noise of scale 1 on
each count it is (roughly) private at ε = 1 but not at a claim of 0.05; a release of random length
that does not depend on the data is clean."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dpaudit
from dpaudit import ClaimKind, NumericColumn, PrivacyClaim, Relation
from dpaudit.engine.events import SetEvent, ThresholdEvent
from dpaudit.engine.runner.outcome_witness import size_text
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.sampling import OutputShapeError
from dpaudit.engine.types import AuditConfig, Verdict
from dpaudit.mechanisms.base import MechanismError
from dpaudit.neighbors.base import NeighborPair
from dpaudit.neighbors.tabular import TabularSpace

COLUMNS = (NumericColumn(name="v", low=0.0, high=1.0),)
SPACE = TabularSpace(columns=COLUMNS)
SMALL = SPACE.encode({"v": [0.1] * 6})
LARGE = SPACE.encode({"v": [0.1] * 5 + [0.9]})
PAIR = NeighborPair(dataset=SMALL, neighbor=LARGE, relation=Relation.REPLACE_ONE, description="one large")


def _claim(epsilon: float) -> PrivacyClaim:
    return PrivacyClaim(
        epsilon=epsilon, relation=Relation.REPLACE_ONE, reference="fake", kind=ClaimKind.PROVED
    )


def _large_values(table: Any, rng: np.random.Generator) -> np.ndarray:
    """Every value above 0.5 (no noise on which pass: the count of them leaks outright)."""
    v = np.asarray(table["v"], dtype=np.float64)
    kept = v[v > 0.5]
    return kept + rng.laplace(0, 1.0, kept.size)


def _random_length(table: Any, rng: np.random.Generator) -> np.ndarray:
    return rng.normal(size=int(rng.integers(0, 4)))


def test_undeclared_varying_length_fails_with_the_hint() -> None:
    mech = dpaudit.from_release(_random_length, columns=COLUMNS, claim=_claim(1.0), name="r")
    with pytest.raises((MechanismError, OutputShapeError), match="variable_length=True"):
        run_audit(mech, [PAIR], AuditConfig(num_samples=200, seed=0))


def test_declared_length_is_a_coordinate_and_its_witness_is_said() -> None:
    mech = dpaudit.from_release(
        _large_values, columns=COLUMNS, claim=_claim(1.0), name="v", variable_length=True, payload_width=4
    )
    out = mech.sample(LARGE, 3, rng=np.random.default_rng(0))
    assert out.shape == (3, 6) and out[:, :2].tolist() == [[0.0, 1.0]] * 3
    assert np.all(mech.sample(SMALL, 3, rng=np.random.default_rng(0))[:, 1] == 0.0)
    result = run_audit(mech, [PAIR], AuditConfig(num_samples=2000, seed=1))
    assert result.verdict is Verdict.VIOLATION_FOUND
    event = result.pairs[0].estimate.event
    said = (
        "the release is empty on D in 1,000 of 1,000",
        "the release has ≥ 1 values on D′ in 1,000 of 1,000",
    )
    assert event.startswith(said) and event.endswith("never on D′" if "empty" in event else "never on D"), (
        event
    )


def test_a_random_length_that_ignores_the_data_is_clean() -> None:
    mech = dpaudit.from_release(
        _random_length, columns=COLUMNS, claim=_claim(0.3), name="r", variable_length=True
    )
    result = run_audit(mech, [PAIR], AuditConfig(num_samples=4000, seed=2))
    assert result.verdict is not Verdict.VIOLATION_FOUND


def test_size_text_reads_the_size_column_only() -> None:
    assert size_text(ThresholdEvent(threshold=2.5, upper=True, coordinate=1)) == "the release has ≥ 3 values"
    assert size_text(ThresholdEvent(threshold=2.5, upper=False, coordinate=1)) == "the release has ≤ 2 values"
    assert size_text(ThresholdEvent(threshold=2.5, upper=True, coordinate=2)) is None
    assert size_text(ThresholdEvent(threshold=2.5, upper=True, coordinate=None)) is None
    assert size_text(SetEvent(values=((0.0, 0.0, 0.0),))) == "the release is empty"
    assert size_text(SetEvent(values=((0.0, 1.0, 0.3),))) is None


def test_variable_length_needs_one_release_per_call() -> None:
    with pytest.raises(ValueError, match="variable_length"):
        dpaudit.from_callable(
            None,
            batch_fn=lambda ds, n, rng: np.zeros(n),
            name="b",
            claim=_claim(1.0),
            domain=SPACE.domain(),
            variable_length=True,
        )
