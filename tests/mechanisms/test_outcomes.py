"""Exceptions declared as outputs (issue 34, item 4): a raise of a declared type is an output
category certified like any event; undeclared exceptions stay "the mechanism failed" (exit 2).

A mechanism that raises on one-class data and returns on two-class data has an outcome of
probability 1 on one side and 0 on the other: its certified bound is the infinite-witness bound,
far above ε = 1 at the budgets used, for every seed. The negative control raises with the same
probability on every dataset, so its outcome column carries no signal and an ε = 5 claim (above
the infinite-witness ceiling at 2 000 samples, ln(2000/ln 40) ≈ 6.3 only just) is never exceeded
by the certified bound except with the audit's failure probability."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.types import AuditConfig, Verdict
from dpaudit.mechanisms.base import MechanismError, PrivacyClaim, from_callable
from dpaudit.mechanisms.outcomes import encode_outcome, run_coded
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

CLAIM = PrivacyClaim(epsilon=1.0, relation=Relation.ADD_REMOVE_ONE, reference="test fixture")
DOMAIN = Domain(num_features=1, labels=(0.0, 1.0))
TWO = Dataset(np.array([[0.2], [0.8]]), np.array([0.0, 1.0]))
ONE = Dataset(np.array([[0.2]]), np.array([0.0]))
PAIR = NeighborPair(
    dataset=TWO, neighbor=ONE, relation=Relation.ADD_REMOVE_ONE, description="remove the class-1 record"
)


def _needs_two_classes(ds: Dataset, rng: np.random.Generator) -> np.ndarray:
    if ds.y is None or len(np.unique(ds.y)) < 2:
        raise ValueError("This solver needs samples of at least 2 classes")
    return ds.X.mean(axis=0) + rng.laplace(0.0, 1.0, 1)


def _coin_raise(ds: Dataset, rng: np.random.Generator) -> np.ndarray:
    if rng.random() < 0.5:
        raise ArithmeticError("a coin")
    return rng.laplace(0.0, 1.0, 1)


def test_encoding_is_fixed_width_and_names_the_type() -> None:
    types = (KeyError, ValueError)
    raised = encode_outcome(None, ValueError("x"), types, 4)
    returned = encode_outcome(np.arange(6.0).reshape(2, 3), None, types, 4)
    assert raised.tolist() == [2.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert returned.tolist() == [0.0, 6.0, 0.0, 1.0, 2.0, 3.0]  # truncated to 4 values, size 6 kept


def test_undeclared_exception_propagates() -> None:
    def boom() -> None:
        raise TypeError("not declared")

    with pytest.raises(TypeError):
        run_coded(boom, (ValueError,), 2)


def test_raise_on_one_side_is_certified_as_a_violation() -> None:
    mech = from_callable(_needs_two_classes, name="t", claim=CLAIM, domain=DOMAIN, exceptions=(ValueError,))
    out = mech.sample(ONE, 3, rng=np.random.default_rng(0))
    assert out.shape == (3, 2 + 64) and set(out[:, 0]) == {1.0}
    result = run_audit(mech, [PAIR], AuditConfig(num_samples=2000, seed=3))
    assert result.verdict is Verdict.VIOLATION_FOUND
    assert result.epsilon_lower_bound > 4.0


def test_same_raise_probability_on_both_sides_is_no_violation() -> None:
    claim = PrivacyClaim(epsilon=5.0, relation=Relation.ADD_REMOVE_ONE, reference="test fixture")
    mech = from_callable(_coin_raise, name="coin", claim=claim, domain=DOMAIN, exceptions=(ArithmeticError,))
    result = run_audit(mech, [PAIR], AuditConfig(num_samples=2000, seed=4))
    # no event certifies any loss: not a violation, and inconclusive (issue 42: no evidence)
    assert result.verdict is Verdict.INCONCLUSIVE and result.inconclusive_reason.startswith("no evidence")


def test_without_declaration_a_raise_is_a_mechanism_failure() -> None:
    mech = from_callable(_needs_two_classes, name="t", claim=CLAIM, domain=DOMAIN)
    with pytest.raises(MechanismError, match=r"ValueError.*declare it an output.*exceptions=\(ValueError,\)"):
        run_audit(mech, [PAIR], AuditConfig(num_samples=200, seed=0))


def test_exceptions_need_a_per_release_function() -> None:
    with pytest.raises(ValueError, match="batch_fn"):
        from_callable(
            batch_fn=lambda ds, n, rng: np.zeros(n),
            name="b",
            claim=CLAIM,
            domain=DOMAIN,
            exceptions=(ValueError,),
        )
    with pytest.raises(ValueError, match="Exception classes"):
        from_callable(_coin_raise, name="c", claim=CLAIM, domain=DOMAIN, exceptions=(int,))  # type: ignore[arg-type]
