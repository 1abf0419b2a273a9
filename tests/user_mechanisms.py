"""Third-party style mechanisms used by the CLI and runner tests (`tests.user_mechanisms:…`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dpaudit.mechanisms.base import PrivacyClaim, from_callable
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

CLAIM = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="test fixture")
DOMAIN = Domain(num_features=1, feature_low=0.0, feature_high=1.0)


def _laplace(ds: Dataset, rng: np.random.Generator) -> float:
    return float(ds.X.sum() + rng.laplace(0.0, 1.0))


def _nan(ds: Dataset, rng: np.random.Generator) -> float:
    return float("nan")


def _boom(ds: Dataset, rng: np.random.Generator) -> float:
    raise RuntimeError("kaboom")


laplace_callable = from_callable(_laplace, name="user_laplace", claim=CLAIM, domain=DOMAIN)
nan_mech = from_callable(_nan, name="user_nan", claim=CLAIM, domain=DOMAIN)
raising_mech = from_callable(_boom, name="user_raises", claim=CLAIM, domain=DOMAIN)


class WrongShape:
    name = "user_wrong_shape"
    claim = CLAIM
    domain = DOMAIN
    seedable = True

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> np.ndarray:
        return np.zeros(num_samples + 1)


wrong_shape = WrongShape()


def add_remove_only() -> object:
    """A factory: a mechanism whose only claim is add/remove, with a replace-one pair."""
    return from_callable(
        _laplace,
        name="user_add_remove",
        claim=PrivacyClaim(epsilon=1.0, relation=Relation.ADD_REMOVE_ONE, reference="test fixture"),
        domain=DOMAIN,
        pairs=(
            __import__("dpaudit.neighbors.base", fromlist=["NeighborPair"]).NeighborPair(
                dataset=Dataset([[0.0]]),
                neighbor=Dataset([[1.0]]),
                relation=Relation.REPLACE_ONE,
                description="replace",
            ),
        ),
    )


def _exits(ds: Dataset, rng: np.random.Generator) -> float:
    import sys

    sys.exit(3)


def _silent(ds: Dataset, rng: np.random.Generator) -> float:
    raise ValueError("")


exiting_mech = from_callable(_exits, name="user_exits", claim=CLAIM, domain=DOMAIN)
silent_error_mech = from_callable(_silent, name="user_silent_error", claim=CLAIM, domain=DOMAIN)


escaping_mech = from_callable(_laplace, name="../../escaped", claim=CLAIM, domain=DOMAIN)
slashed_mech = from_callable(_laplace, name="team/laplace\nv2", claim=CLAIM, domain=DOMAIN)


class PickyLaplace:
    """Laplace sum that raises on any dataset holding the record 0.0: the search's corner
    candidates fail while the registered pair samples fine."""

    name = "user_picky"
    claim = CLAIM
    domain = DOMAIN
    seedable = True

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> np.ndarray:
        if dataset.n and np.any(dataset.X == 0.0):
            raise ValueError("cannot handle a zero record")
        return dataset.X.sum() + rng.laplace(0.0, 1.0, size=num_samples)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        a = Dataset(np.array([[0.5], [0.5]]))
        b = Dataset(np.array([[0.5], [1.0]]))
        return (NeighborPair(dataset=a, neighbor=b, relation=Relation.REPLACE_ONE, description="0.5 → 1"),)


picky_mech = PickyLaplace()


HANG_MARKER = "DPAUDIT_TEST_HANG_MARKER"
"""Environment variable: a file `SleepsInSample` creates when its sample() starts hanging."""


class SleepsInSample:
    """A mechanism whose sample() hangs on the neighbour side of pair 1's certification (after
    the probe and the selection split went through): tests of `--timeout`."""

    name = "user_sleeps"
    claim = CLAIM
    domain = DOMAIN
    seedable = True
    pairs = (
        NeighborPair(
            dataset=Dataset([[0.0]]),
            neighbor=Dataset([[1.0]]),
            relation=Relation.REPLACE_ONE,
            description="0 vs 1",
        ),
    )

    def __init__(self) -> None:
        self.calls = 0

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return self.pairs

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> np.ndarray:
        if num_samples > 2000 and float(dataset.X.sum()) > 0.5:  # a certification chunk, neighbour side
            import os
            import time

            if os.environ.get(HANG_MARKER):  # tell the test the hang was reached (also from a worker)
                Path(os.environ[HANG_MARKER]).touch()
            while True:
                time.sleep(0.05)
        return dataset.X.sum() + rng.laplace(0.0, 1.0, size=num_samples)


sleeps_mech = SleepsInSample()


class ShapeShifter:
    """sample() returns (n, 3) int64 for a call of at most 2 samples (the probe) and (n,) float64
    otherwise, on the same dataset."""

    name = "user_shape_shifter"
    claim = CLAIM
    domain = DOMAIN
    seedable = True

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return SleepsInSample.pairs

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> np.ndarray:
        if num_samples > 2:
            return rng.laplace(1.0, 1.0, size=num_samples)
        return rng.integers(0, 3, size=(num_samples, 3), dtype=np.int64)


shape_shifter = ShapeShifter()


class DictClaim:
    """A user mechanism whose claim is a dict, not a PrivacyClaim."""

    name = "user_dict_claim"
    claim = {"epsilon": 1.0}  # noqa: RUF012 (the mistake under test)
    domain = DOMAIN
    seedable = True

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> np.ndarray:
        return rng.laplace(0.0, 1.0, size=num_samples)


dict_claim = DictClaim()


class Delegating:
    """A wrapper that delegates attributes with `__getattr__` (as users write them): it pickles,
    but unpickling recurses (`__getattr__` runs before `inner` exists), so it cannot go to a worker."""

    def __init__(self, inner: object) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


delegating = Delegating(from_callable(_laplace, name="user_delegating", claim=CLAIM, domain=DOMAIN))
