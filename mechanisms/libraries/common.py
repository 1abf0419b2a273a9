"""Shared pieces of the `libraries` family: which DP libraries are usable, their versions,
neighbour pairs on one-column datasets, seeds for libraries that take a `random_state`, and
`LibraryMechanism`, which lets an adapter pickle.

Nothing here imports a DP library: availability is read from the installed distributions'
metadata (`importlib.metadata`), so building the registry stays cheap; the adapters import the
library inside their factories.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...neighbors.base import Dataset, NeighborPair, Relation
from ..versions import major_minor, version_of

INSTALL_HINT = (
    'the "DP libraries" family needs pip install "dpaudit[opendp]", "dpaudit[diffprivlib]" '
    'and/or "dpaudit[pydp]"'
)


def _installed(distribution: str, module: str, minimum: tuple[int, int]) -> bool:
    """`distribution` ≥ `minimum` is installed and `module` can be imported from it."""
    v = version_of(distribution)
    return v is not None and major_minor(v) >= minimum and importlib.util.find_spec(module) is not None


def opendp_available() -> bool:
    """OpenDP ≥ 0.10 is installed (its `prelude` API with `enable_features`)."""
    return _installed("opendp", "opendp", (0, 10))


def diffprivlib_available() -> bool:
    """diffprivlib ≥ 0.6 is installed with a scikit-learn it imports with (< 1.8: diffprivlib
    0.6.6 imports `DOUBLE` from `sklearn.tree._tree`, removed in scikit-learn 1.8)."""
    sk = version_of("scikit-learn")
    return _installed("diffprivlib", "diffprivlib", (0, 6)) and sk is not None and major_minor(sk) < (1, 8)


def pydp_available() -> bool:
    """Google's python-dp ≥ 1.1 is installed (distribution `python-dp`, import name `pydp`)."""
    return _installed("python-dp", "pydp", (1, 1))


def smartnoise_available() -> bool:
    """smartnoise-synth ≥ 1.0 is installed (import name `snsynth`)."""
    return _installed("smartnoise-synth", "snsynth", (1, 0))


def smartnoise_mwem_available() -> bool:
    """snsynth's MWEM runs: opendp < 0.13 (with 0.14 its Laplace helper raises on a NaN domain)."""
    odp = version_of("opendp")
    return smartnoise_available() and odp is not None and major_minor(odp) < (0, 13)


def library_label(distribution: str, title: str) -> str:
    """`"OpenDP 0.16.0"`: the name and installed version shown in every claim reference."""
    return f"{title} {version_of(distribution) or '(not installed)'}"


def column(values: Sequence[float]) -> Dataset:
    """A one-column dataset."""
    return Dataset(np.asarray(values, dtype=float).reshape(len(values), 1))


def pair(a: Sequence[float], b: Sequence[float], relation: Relation, description: str) -> NeighborPair:
    return NeighborPair(
        dataset=column(a), neighbor=column(b), relation=relation, description=description, tags=("extreme",)
    )


def int_seed(rng: np.random.Generator) -> int:
    """A 32-bit seed drawn from `rng`, for a library `random_state` (`numpy.random.RandomState`)."""
    return int(rng.integers(0, 2**32, dtype=np.uint64))


class LibraryMechanism:
    """A library adapter that pickles as the factory call that built it.

    The adapters close over library objects (OpenDP measurements, diffprivlib classes) that do
    not pickle, and joblib workers and checkpoints need the mechanism pickled: this proxy sends
    `factory(**kwargs)` instead and forwards every attribute to the built mechanism."""

    def __init__(self, factory: Callable[..., Any], kwargs: dict[str, Any]) -> None:
        self._factory = factory
        self._kwargs = dict(kwargs)
        self._inner = factory(**kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_inner", "_factory", "_kwargs"):
            raise AttributeError(name)
        return getattr(self._inner, name)

    def __reduce__(self) -> tuple[Any, ...]:
        return (LibraryMechanism, (self._factory, self._kwargs))

    def __repr__(self) -> str:
        return f"LibraryMechanism({self._inner!r})"


def pickled(factory: Callable[..., Any]) -> Callable[..., LibraryMechanism]:
    """`factory` as a registry factory whose mechanisms pickle (`LibraryMechanism`)."""

    @functools.wraps(factory)
    def build(**kwargs: Any) -> LibraryMechanism:
        return LibraryMechanism(factory, kwargs)

    return build
