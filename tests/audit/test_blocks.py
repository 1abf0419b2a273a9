"""`max_block`: a mechanism with wide working arrays is sampled in blocks within a chunk."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from dpaudit.engine.sampling import chunk_rng, draw
from dpaudit.mechanisms.base import MechanismError, PrivacyClaim, block_sizes
from dpaudit.neighbors.base import Dataset, Domain, Relation

CLAIM = PrivacyClaim(epsilon=1.0, delta=0.0, relation=Relation.REPLACE_ONE, reference="test")


@dataclass
class Recorder:
    """Laplace noise on the data sum; records the size of every `sample` call."""

    max_block: int | None = None
    calls: list[int] = field(default_factory=list)
    name: str = "recorder"
    seedable: bool = True
    claim: PrivacyClaim = field(default_factory=lambda: CLAIM)
    domain: Domain = field(default_factory=lambda: Domain(num_features=1, feature_low=0.0, feature_high=1.0))

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> Any:
        self.calls.append(num_samples)
        return float(np.sum(dataset.X)) + rng.laplace(size=num_samples)


DATA = Dataset(np.array([[0.5], [1.0]]))


def test_without_max_block_one_call_per_chunk() -> None:
    m = Recorder()
    out = draw(m, DATA, 1050, 3, (0, 1, 2))
    assert m.calls == [1050] and out.shape == (1050,)


def test_blocks_are_successive_calls_on_the_chunk_generator() -> None:
    m = Recorder(max_block=100)
    out = draw(m, DATA, 1050, 3, (0, 1, 2))
    assert m.calls == [100] * 10 + [50]
    rng = chunk_rng(3, (0, 1, 2))
    expected = np.concatenate([1.5 + rng.laplace(size=k) for k in m.calls])
    np.testing.assert_array_equal(out, expected)
    # reproducible: a pure function of (seed, key)
    np.testing.assert_array_equal(draw(Recorder(max_block=100), DATA, 1050, 3, (0, 1, 2)), out)


def test_block_sizes_cover_the_chunk_exactly() -> None:
    assert block_sizes(Recorder(max_block=7), 20) == [7, 7, 6]
    assert block_sizes(Recorder(max_block=7), 7) == [7]
    assert block_sizes(Recorder(), 10**6) == [10**6]


def test_invalid_max_block_is_a_mechanism_error() -> None:
    with pytest.raises(MechanismError, match="max_block"):
        draw(Recorder(max_block=0), DATA, 10, 0, (0,))


def test_hs_stl_declares_a_block_below_the_chunk() -> None:
    from dpaudit.mechanisms.registry import entries

    block = getattr(entries()["hs_stl"].build(), "max_block", None)
    assert block is not None and 1024 <= block < 1 << 18
