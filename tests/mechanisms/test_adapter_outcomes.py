"""The adapters' edges (issue 44, item 6): `exceptions=` and `no_answer=` on every adapter, and a
witness on the outcome column said as what it is ("raised ValueError: … on D in 150 of 150,
never on D′").

Fakes only. A release that raises when a value lies outside the declared bounds (the library
routine of the issue that raises on out-of-range values inside an ordinary table) raises on one
side of the out-of-bounds pair with probability 1 and never on the other: the infinite-witness
bound at 1,000 samples per side, far above ε = 1. The negative controls raise (or give no
answer) with the same probability on both sides, so the outcome column carries no signal."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import dpaudit
from dpaudit import CategoricalColumn, ClaimKind, NumericColumn, PrivacyClaim, Relation
from dpaudit.engine.events import SetEvent, ThresholdEvent
from dpaudit.engine.runner.outcome_witness import outcome_codes
from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig, Verdict
from dpaudit.mechanisms.base import MechanismError, from_callable
from dpaudit.mechanisms.outcomes import NO_ANSWER, OutcomeCoding, encode_outcome
from dpaudit.neighbors.base import Dataset, NeighborPair
from dpaudit.neighbors.tabular import TabularSpace
from dpaudit.reports.html import render_html
from dpaudit.reports.markdown import render_markdown

COLUMNS = (
    CategoricalColumn(name="colour", categories=("a", "b")),
    NumericColumn(name="size", low=0.0, high=1.0),
)
SPACE = TabularSpace(columns=COLUMNS)
CLAIM = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="fake", kind=ClaimKind.PROVED)
INSIDE = SPACE.encode({"colour": ["a", "b", "a"], "size": [0.2, 0.5, 0.9]})
OUTSIDE = SPACE.encode({"colour": ["a", "b", "a"], "size": [0.2, 0.5, 40.0]})
PAIR = NeighborPair(dataset=INSIDE, neighbor=OUTSIDE, relation=Relation.REPLACE_ONE, description="an outlier")
LONG = "a value lies outside the bounds declared for this column; " * 4


def _checks_bounds(table: Any, rng: np.random.Generator) -> np.ndarray:
    size = np.asarray(table["size"], dtype=np.float64)
    if np.any(size > 1.0):
        raise ValueError(LONG)
    return np.array([np.clip(size, 0, 1).mean() + rng.laplace(0, 1.0)])


def _coin_no_answer(table: object, rng: np.random.Generator) -> np.ndarray | None:
    return None if rng.random() < 0.5 else np.array([rng.laplace(0, 1.0)])


class _Synth:
    """A fake synthesizer whose `fit` raises on out-of-range values (input validation)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def fit(self, table: Any) -> None:
        if np.any(np.asarray(table["size"], dtype=np.float64) > 1.0):
            raise ValueError("size out of range")

    def sample(self, k: int) -> dict[str, np.ndarray]:
        return {"colour": np.array(["a"] * k, dtype=object), "size": self.rng.uniform(0, 1, k)}


def test_from_release_declared_raise_is_a_witness_said_as_a_raise() -> None:
    mech = dpaudit.from_release(
        _checks_bounds, columns=COLUMNS, claim=CLAIM, name="r", exceptions=(ValueError,)
    )
    result = run_audit(mech, [PAIR], AuditConfig(num_samples=2000, seed=1))
    assert result.verdict is Verdict.VIOLATION_FOUND
    text = result.pairs[0].estimate.event
    assert text.startswith("raised ValueError: a value lies outside the bounds")
    assert text.endswith("on D′ in 1,000 of 1,000, never on D")
    assert "…" in text and len(text) < 160  # the message is truncated
    for rendered in (render_markdown(result), render_html(result)):  # every report says it
        assert "raised ValueError: a value lies outside the bounds" in rendered


def test_from_release_without_declaration_fails() -> None:
    mech = dpaudit.from_release(_checks_bounds, columns=COLUMNS, claim=CLAIM, name="r")
    with pytest.raises(MechanismError, match="ValueError"):
        run_audit(mech, [PAIR], AuditConfig(num_samples=200, seed=1))


def test_from_synthesizer_declared_raise_is_flagged() -> None:
    mech = dpaudit.from_synthesizer(
        _Synth, columns=COLUMNS, rows=5, claim=CLAIM, name="s", exceptions=(ValueError,)
    )
    result = run_audit(mech, [PAIR], AuditConfig(num_samples=1000, seed=2))
    assert result.verdict is Verdict.VIOLATION_FOUND
    assert result.pairs[0].estimate.event.startswith("raised ValueError: size out of range on D′")


def test_no_answer_undeclared_fails_with_the_hint() -> None:
    mech = from_callable(lambda ds, rng: None, name="n", claim=CLAIM, domain=SPACE.domain())
    with pytest.raises(MechanismError, match=r"returned None.*no_answer=True"):
        run_audit(mech, [PAIR], AuditConfig(num_samples=200, seed=0))
    coded = from_callable(
        lambda ds, rng: None, name="n", claim=CLAIM, domain=SPACE.domain(), exceptions=(KeyError,)
    )
    with pytest.raises(MechanismError, match=r"returned None.*no_answer=True"):
        run_audit(coded, [PAIR], AuditConfig(num_samples=200, seed=0))


def _none_on_outliers(ds: Dataset, rng: np.random.Generator) -> np.ndarray | None:
    if np.any(ds.X[:, 1] > 1.0):
        return None
    return np.array([rng.laplace(0, 1.0)])


def test_declared_no_answer_is_an_outcome_category() -> None:
    mech = from_callable(_none_on_outliers, name="n", claim=CLAIM, domain=SPACE.domain(), no_answer=True)
    out = mech.sample(OUTSIDE, 2, rng=np.random.default_rng(0))
    assert out[:, 0].tolist() == [NO_ANSWER, NO_ANSWER] and out.shape == (2, 66)
    result = run_audit(mech, [PAIR], AuditConfig(num_samples=2000, seed=3))
    assert result.verdict is Verdict.VIOLATION_FOUND
    assert result.pairs[0].estimate.event == "returned no answer (None) on D′ in 1,000 of 1,000, never on D"


def test_nan_is_no_answer_and_the_same_rate_on_both_sides_is_clean() -> None:
    nan = encode_outcome(np.array([1.0, np.nan]), None, (), 4, no_answer=True)
    assert nan.tolist() == [NO_ANSWER, 2.0, 0.0, 0.0, 0.0, 0.0]
    claim = PrivacyClaim(epsilon=5.0, relation=Relation.REPLACE_ONE, reference="fake", kind=ClaimKind.PROVED)
    mech = dpaudit.from_release(_coin_no_answer, columns=COLUMNS, claim=claim, name="c", no_answer=True)
    result = run_audit(mech, [PAIR], AuditConfig(num_samples=2000, seed=4))
    assert result.verdict is not Verdict.VIOLATION_FOUND


def test_estimator_adapter_takes_no_answer() -> None:
    class Diverges:
        def fit(self, X: np.ndarray, y: np.ndarray) -> Diverges:
            self.coef_ = np.array([np.nan]) if np.any(X > 1.0) else np.array([float(X.mean())])
            return self

    mech = dpaudit.from_estimator(
        lambda rng: Diverges(), output="coef_", claim=CLAIM, domain=SPACE.domain(), name="e", no_answer=True
    )
    labelled = NeighborPair(
        dataset=Dataset(INSIDE.X, np.zeros(3)),
        neighbor=Dataset(OUTSIDE.X, np.zeros(3)),
        relation=Relation.REPLACE_ONE,
        description="outlier",
    )
    rows = mech.sample(labelled.neighbor, 2, rng=np.random.default_rng(0))
    assert rows[:, 0].tolist() == [NO_ANSWER, NO_ANSWER]
    fitted = mech.sample(labelled.dataset, 1, rng=np.random.default_rng(0))[0]
    assert fitted[:3].tolist() == [0.0, 1.0, float(INSIDE.X.mean())]


def test_outcome_codes_of_events() -> None:
    coding = OutcomeCoding((KeyError, ValueError), True, 4)
    assert outcome_codes(ThresholdEvent(threshold=0.5, upper=True), coding) == (1, 2)
    assert outcome_codes(ThresholdEvent(threshold=-0.5, upper=False), coding) == (NO_ANSWER,)
    assert outcome_codes(ThresholdEvent(threshold=0.5, upper=True, coordinate=2), coding) is None
    assert outcome_codes(SetEvent(((2.0, 0, 0, 0, 0, 0),)), coding) == (2,)
    assert outcome_codes(SetEvent(((0.0, 1, 3, 0, 0, 0),)), coding) is None  # reads the payload


def _dpl_mean(table: Any, rng: np.random.Generator) -> np.ndarray:
    from diffprivlib.tools import mean

    v = np.asarray(table["v"], dtype=np.float64)
    return np.array([mean(v, epsilon=1.0, bounds=(0.0, 1.0), random_state=int(rng.integers(2**31)))])


def test_real_diffprivlib_mean_gives_no_answer_on_a_nan_record() -> None:
    """diffprivlib's `tools.mean` clips to its bounds (np.clip keeps a NaN), so one NaN record
    makes the release NaN with probability 1: declared `no_answer`, that is an outcome on one side
    only, found blind once NaN is a declared record value; over numbers only, nothing is found."""
    pytest.importorskip("diffprivlib")
    claim = PrivacyClaim(
        epsilon=1.0, relation=Relation.REPLACE_ONE, reference="diffprivlib", kind=ClaimKind.STATED
    )
    with_nan = (NumericColumn(name="v", low=0.0, high=1.0, specials=(float("nan"),)),)
    mech = dpaudit.from_release(
        _dpl_mean, columns=with_nan, claim=claim, name="dpl", max_size=8, no_answer=True
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = dpaudit.audit(mech, num_samples=1000, seed=0)
        assert result.verdict is Verdict.VIOLATION_FOUND
        assert "returned no answer (NaN)" in result.pairs[0].estimate.event
        numbers = (NumericColumn(name="v", low=0.0, high=1.0),)
        clean = dpaudit.from_release(
            _dpl_mean, columns=numbers, claim=claim, name="dpl", max_size=8, no_answer=True
        )
        assert dpaudit.audit(clean, num_samples=1000, seed=0).verdict is not Verdict.VIOLATION_FOUND


def test_the_console_witness_says_an_outcome_witness_counts_once() -> None:
    """The console's witness line (`summary.witness_lines`) prints an outcome witness's text, which
    already carries its counts, without appending them a second time."""
    from dpaudit.app.summary import witness_lines

    mech = dpaudit.from_release(
        _checks_bounds, columns=COLUMNS, claim=CLAIM, name="r", exceptions=(ValueError,)
    )
    result = run_audit(mech, [PAIR], AuditConfig(num_samples=2000, seed=1))
    event_line = witness_lines(result)[1]
    assert "raised ValueError" in event_line and event_line.count("1,000") == 2, event_line
    assert " vs " not in event_line  # not the generic "k/n on D (f) vs k′/n′ on D′ (f′)" again
