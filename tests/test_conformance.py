"""`dpaudit.testing` over every registered mechanism and distinguisher (issue 43), and the checks
catching what they are for."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from dpaudit.engine.distinguishers import Candidates, ThresholdEvent, registry
from dpaudit.mechanisms.base import PrivacyClaim
from dpaudit.mechanisms.reference import LaplaceSum
from dpaudit.mechanisms.registry import entries
from dpaudit.neighbors.base import Relation
from dpaudit.testing import check_distinguisher, check_mechanism

REGISTERED = sorted(entries())


@pytest.mark.parametrize("name", REGISTERED)
def test_every_registered_mechanism_conforms(name: str) -> None:
    check_mechanism(entries()[name].build())


def _thin(n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Side a on the plane x₀ = x₁, side b spread over R³ (for the thin-support events)."""
    rng = np.random.default_rng(3)
    a = rng.normal(size=(n, 3))
    a[:, 1] = a[:, 0]
    return a, rng.normal(size=(n, 3))


def _statistic_case() -> tuple[Any, list[tuple[NDArray[Any], NDArray[Any]]]]:
    """A DP-SGD preset's declared statistic, on outputs of its registered pair."""
    from dpaudit.engine.distinguishers import StatisticDistinguisher

    m = entries()["dpsgd_canary_t10"].build()
    pair = m.neighbor_pairs()[0]
    a = m.sample(pair.dataset, 300, rng=np.random.default_rng(0))
    b = m.sample(pair.neighbor, 300, rng=np.random.default_rng(1))
    return StatisticDistinguisher(tuple(m.statistics)), [(a, b)]


def _cases() -> list[tuple[str, Any, Any]]:
    """(label, distinguisher, samples or None) for every registered class."""
    cases: list[tuple[str, Any, Any]] = []
    for entry in registry.registered():
        name = entry.cls.__name__
        if name == "StatisticDistinguisher":
            d, samples = _statistic_case()
            cases.append((name, d, samples))
            continue
        if name == "WidthDistinguisher":
            rng = np.random.default_rng(0)
            cases.append((name, entry.cls(), [(rng.normal(size=(50, 1)), rng.normal(size=(50, 2)))]))
            continue
        samples = [_thin(400)] if name == "SupportDistinguisher" else None
        if name == "MagnitudeDistinguisher":  # heavy tails of both signs (a diverging fit's 1/Z)
            rng = np.random.default_rng(0)
            samples = [(1.0 / rng.normal(size=(400, 2)), rng.standard_cauchy((400, 2)))]
        for d in entry.instances() or (entry.cls(),):
            cases.append((f"{name}:{d.name}", d, samples))
    return cases


def test_every_registered_distinguisher_conforms_and_proposes() -> None:
    cases = _cases()
    assert {c[0].split(":")[0] for c in cases} == {r.cls.__name__ for r in registry.registered()}
    for label, d, samples in cases:
        assert check_distinguisher(d, samples=samples) >= 1, f"{label} proposed nothing"


@dataclass(frozen=True)
class _Drifting(LaplaceSum):
    """Claims to be seedable but draws from its own global state: not a function of the seed."""

    def sample(self, dataset: Any, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        return super().sample(dataset, num_samples, rng=rng) + np.random.default_rng().normal(
            size=num_samples
        )


def test_check_mechanism_catches_a_seed_that_does_not_determine_the_outputs() -> None:
    check_mechanism(LaplaceSum())
    with pytest.raises(AssertionError, match="same seed"):
        check_mechanism(_Drifting())


def test_check_mechanism_catches_a_mechanism_that_cannot_travel() -> None:
    @dataclass(frozen=True)
    class Locked(LaplaceSum):
        lock: Any = field(default_factory=threading.Lock)

    with pytest.raises(AssertionError, match="does not pickle"):
        check_mechanism(Locked())


def test_check_mechanism_catches_a_broken_claim_and_shape() -> None:
    @dataclass(frozen=True)
    class NoClaim(LaplaceSum):
        @property
        def claims(self) -> tuple[PrivacyClaim, ...]:
            return ("ε = 1",)  # type: ignore[return-value]

    with pytest.raises(AssertionError, match="PrivacyClaim"):
        check_mechanism(NoClaim())

    @dataclass(frozen=True)
    class OneShort(LaplaceSum):
        def sample(self, dataset: Any, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
            return super().sample(dataset, max(num_samples - 1, 1), rng=rng)

    with pytest.raises(AssertionError, match="shape"):
        check_mechanism(OneShort())
    assert PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="x").epsilon == 1.0


@dataclass(frozen=True)
class _Overcounting:
    name: str = "overcounting"

    def propose(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Candidates:
        event = ThresholdEvent(threshold=0.0, upper=True)
        return Candidates(np.array([2.0 * a.shape[0]]), np.array([0.0]), lambda i: event)


@dataclass(frozen=True)
class _UnregisteredEvent:
    value: float

    def indicator(self, outputs: NDArray[Any]) -> NDArray[np.bool_]:
        return np.asarray(outputs)[:, 0] >= self.value

    def describe(self) -> str:
        return "x ≥ v"

    def to_spec(self) -> dict[str, Any]:
        return {"type": "nobody-registered-this", "value": self.value}


@dataclass(frozen=True)
class _ProposesUnregistered:
    name: str = "unregistered-events"

    def propose(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Candidates:
        return Candidates(np.array([1.0]), np.array([1.0]), lambda i: _UnregisteredEvent(0.0))


def test_check_distinguisher_catches_bad_counts_and_unregistered_events() -> None:
    with pytest.raises(AssertionError, match="exceed"):
        check_distinguisher(_Overcounting())
    with pytest.raises(AssertionError, match="not registered"):
        check_distinguisher(_ProposesUnregistered())
