"""benchmarks/diffprivlib_kmeans.py: the variants of diffprivlib's KMeans it audits are what they
say. With no fix the subclass releases the library's centres bit for bit; with fix (a) an empty
cluster's centre is a noisy update, not its initial value; with fix (b) the count's noise is
calibrated to sensitivity 2."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dpaudit.mechanisms.libraries.common import diffprivlib_available

pytestmark = pytest.mark.skipif(
    not diffprivlib_available(), reason="needs diffprivlib 0.6 with scikit-learn < 1.8"
)

ONE_POINT = np.full((64, 2), -1.0)  # every record at (-1, -1): one cluster is empty at every iteration


def _fit(fix: str, seed: int) -> Any:
    from benchmarks.diffprivlib_kmeans import Make

    return Make(fix)(np.random.default_rng(seed)).fit(ONE_POINT)


def _initial_centres(seed: int) -> Any:
    """The centres the library draws before any update (from the bounds and the seed alone)."""
    from diffprivlib.utils import check_random_state

    km = _fit("as-released", seed)
    km.bounds_processed = None
    return km._init_centers(2, random_state=check_random_state(km.random_state))


def test_the_unfixed_subclass_draws_what_the_library_draws() -> None:
    from benchmarks.diffprivlib_kmeans import same_draws

    assert same_draws(range(5))


def test_fix_a_noises_the_empty_cluster_and_the_library_does_not() -> None:
    for seed in range(5):
        init = _initial_centres(seed)
        released = _fit("as-released", seed).cluster_centers_
        fixed = _fit("a", seed).cluster_centers_
        # the library: the empty cluster's centre is exactly its initial one
        assert any(np.array_equal(released[j], init[j]) for j in range(2))
        # fix (a): no centre is left at its initial value
        assert not any(np.array_equal(fixed[j], init[j]) for j in range(2))


def test_fix_b_calibrates_the_count_to_two(monkeypatch: pytest.MonkeyPatch) -> None:
    import diffprivlib.mechanisms as mechanisms

    from benchmarks.diffprivlib_kmeans import update_centers

    seen: list[float] = []
    real = mechanisms.GeometricFolded

    def spy(**kwargs: Any) -> Any:
        seen.append(kwargs["sensitivity"])
        return real(**kwargs)

    monkeypatch.setattr(mechanisms, "GeometricFolded", spy)
    km = _fit("as-released", 0)
    labels = np.zeros(64, dtype=int)
    for fix, want in (("", 1), ("b", 2)):
        seen.clear()
        update_centers(km, ONE_POINT, np.zeros((2, 2)), labels, 2, 2, np.random.RandomState(0), fix=fix)
        assert seen == [want]
