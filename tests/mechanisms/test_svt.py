"""The sparse-vector family (Lyu, Su & Li 2017, Figure 1): exact oracles match sampling, SVT1
stays within its claim on every counting template, the twins break it, and a user mechanism
over counting queries with a declared one-hot / histogram domain and no registered pairs is
flagged by the blind search (templates only)."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import numpy as np
import pytest
from numpy.typing import NDArray

from dpaudit.engine.search.procedure import search_and_certify
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import PrivacyClaim, is_mechanism
from dpaudit.mechanisms.counting import (
    SparseVector,
    SparseVectorNoisyAnswers,
    SparseVectorNoQueryNoise,
    SparseVectorQuarterThreshold,
    SparseVectorUnbounded,
)
from dpaudit.mechanisms.registry import entries
from dpaudit.neighbors.base import Dataset, Domain, Relation
from dpaudit.neighbors.templates import WorstCasePairs

ORACLE = [SparseVector, SparseVectorQuarterThreshold, SparseVectorNoQueryNoise, SparseVectorUnbounded]


def test_registered_family() -> None:
    table = entries()
    assert table["svt1"].family == "svt" and not table["svt1"].buggy
    for name in ("svt3_noisy_answers", "svt4_small_query_noise", "svt5_no_query_noise", "svt6_unbounded"):
        assert table[name].buggy and table[name].twin_of == "svt1"
        assert table[name].build().claim.epsilon == 1.0


@pytest.mark.parametrize("cls", ORACLE)
def test_oracle_matches_sampling(cls: type) -> None:
    mech = cls(epsilon=0.5, num_queries=4, cutoff=2)
    data = Dataset(np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]]))
    out = mech.sample(data, 100_000, rng=np.random.default_rng(1))
    assert out.shape == (100_000, 4)
    keys, counts = np.unique(out, axis=0, return_counts=True)
    seen = {tuple(int(v) for v in k): c / out.shape[0] for k, c in zip(keys, counts, strict=True)}
    probs = mech.probabilities(data)
    assert probs.sum() == pytest.approx(1.0)
    for pattern, p in zip(mech.patterns(), probs, strict=True):
        assert abs(seen.get(pattern, 0.0) - p) < 5e-3


def test_noisy_answers_release_values_at_tops() -> None:
    mech = SparseVectorNoisyAnswers(num_queries=3)
    out = mech.sample(Dataset(np.ones((2, 3))), 1000, rng=np.random.default_rng(0))
    assert out.shape == (1000, 6)
    assert np.all((out[:, 3:] != 0) == (out[:, :3] == 1))
    with pytest.raises(NotImplementedError):
        mech.exact_epsilon(mech.neighbor_pairs()[0])


@pytest.mark.parametrize("records", ["binary", "one_hot", "histogram"])
@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0])
def test_svt1_within_claim_and_twins_break_it_on_templates(records: str, epsilon: float) -> None:
    worst: dict[str, float] = {}
    for cls in ORACLE:
        mech = cls(epsilon=epsilon, records=records)
        pairs = [p for r in Relation for p in WorstCasePairs(max_pairs=80).pairs(mech.domain, r)]
        worst[mech.name] = max(mech.exact_epsilon(p) for p in pairs)
    assert worst["svt1"] <= epsilon + 1e-9
    assert worst["svt4_small_query_noise"] > 1.2 * epsilon
    assert worst["svt5_no_query_noise"] == np.inf
    if records == "binary":  # one-hot / histogram records change two counts only: SVT6 holds there
        assert worst["svt6_unbounded"] > 1.5 * epsilon


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class UserCountingMechanism:
    """What a user would write: counting queries over a declared histogram / one-hot domain, an
    ε-DP claim, no registered pairs (it delegates to a sparse-vector variant)."""

    inner: Any
    name: str = "user_counting"
    seedable: ClassVar[bool] = True
    output_kind: ClassVar[str] = "discrete"

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(epsilon=self.inner.epsilon, relation=Relation.REPLACE_ONE, reference="user")

    @property
    def domain(self) -> Domain:
        return self.inner.domain

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> NDArray[Any]:
        return self.inner.sample(dataset, num_samples, rng=rng)


@pytest.mark.parametrize(
    ("inner", "broken"),
    [
        (SparseVectorQuarterThreshold(records="histogram"), True),
        (SparseVectorNoQueryNoise(records="one_hot"), True),
        (SparseVector(records="histogram"), False),
    ],
)
def test_blind_search_flags_a_broken_user_mechanism_over_counting_queries(inner: Any, broken: bool) -> None:
    mech = UserCountingMechanism(inner=inner)
    assert is_mechanism(mech)
    found = search_and_certify(mech, AuditConfig(num_samples=1_000_000, seed=0))
    assert found.certified.violation is broken
    if broken:
        assert all(s != "registered" for s in found.sources)
