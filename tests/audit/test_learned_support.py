"""Thin-support residual events (`engine.learned.support`, issue 35 item 3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dpaudit
from dpaudit.engine.distinguishers.learned import ResidualEvent, SupportDistinguisher
from dpaudit.engine.distinguishers.learned.support import thin_direction
from dpaudit.engine.events import event_from_spec

Thin = Callable[[np.ndarray], np.ndarray]


def _repeat(z: np.ndarray) -> np.ndarray:  # exact repeats: one output row
    return np.zeros_like(z) + 0.5


def _constant_difference(z: np.ndarray) -> np.ndarray:  # x₁ − x₀ = 1 exactly
    return np.column_stack([z[:, 0], z[:, 0] + 1.0, z[:, 2]])


def _linear_fit(z: np.ndarray) -> np.ndarray:  # x₂ = 2x₀ − x₁ + 3 exactly
    return np.column_stack([z[:, 0], z[:, 1], 2.0 * z[:, 0] - z[:, 1] + 3.0])


KINDS = {"repeats": _repeat, "constant difference": _constant_difference, "linear fit": _linear_fit}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_thin_side_gives_an_event_with_probability_one_there_and_zero_elsewhere(kind: str) -> None:
    rng = np.random.default_rng(0)
    a = KINDS[kind](rng.normal(size=(4000, 3)))
    b = rng.normal(size=(4000, 3))
    cands = SupportDistinguisher().propose(a, b)
    assert cands is not None
    i = int(np.argmax(cands.counts_a - 10 * cands.counts_b))
    assert cands.counts_a[i] == 4000 and cands.counts_b[i] == 0
    event = cands.make_event(i)
    assert isinstance(event, ResidualEvent) and event_from_spec(event.to_spec()) == event
    fresh = KINDS[kind](rng.normal(size=(1000, 3)))
    assert event.indicator(fresh).all() and not event.indicator(rng.normal(size=(1000, 3))).any()


def test_full_dimensional_sides_propose_nothing() -> None:
    rng = np.random.default_rng(1)
    assert SupportDistinguisher().propose(rng.normal(size=(3000, 4)), rng.normal(size=(3000, 4))) is None
    assert thin_direction(rng.normal(size=(5, 4))) is None  # too few rows to tell


def _leaky(thin: Thin) -> Any:
    def batch(ds: dpaudit.Dataset, m: int, rng: np.random.Generator) -> Any:
        z = rng.normal(size=(m, 3))
        return thin(z) if ds.X[:, 0].sum() > 0.5 else z

    return batch


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_thin_support_leak_certifies_far_above_the_claim(kind: str) -> None:
    pair = dpaudit.NeighborPair(
        dataset=dpaudit.Dataset(X=np.ones((1, 1))),
        neighbor=dpaudit.Dataset(X=np.zeros((1, 1))),
        relation=dpaudit.Relation.REPLACE_ONE,
        description="1 vs 0",
    )
    mech = dpaudit.from_callable(
        batch_fn=_leaky(KINDS[kind]),
        name=f"thin_{kind.replace(' ', '_')}",
        claim=dpaudit.PrivacyClaim(
            epsilon=1.0, delta=1e-5, relation=dpaudit.Relation.REPLACE_ONE, reference="test"
        ),
        domain=dpaudit.Domain(num_features=1, feature_low=0.0, feature_high=1.0),
        pairs=[pair],
    )
    r = dpaudit.audit(mech, pairs="registered", num_samples=20_000, seed=0)
    assert r.violation and r.epsilon_lower_bound > 5.0
