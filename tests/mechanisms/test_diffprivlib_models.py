"""diffprivlib model presets through `from_estimator` (issue 34, item 6): registered in the
libraries family (out of `run --all`) with a STATED claim, seeded, picklable. Run only when
diffprivlib is installed."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

pytest.importorskip("diffprivlib")

from dpaudit.mechanisms import registry
from dpaudit.neighbors.base import Dataset

NAMES = [n for n in registry.entries() if n.startswith("diffprivlib_model_")]


def test_six_models_are_registered_out_of_run_all() -> None:
    assert len(NAMES) == 6
    assert {registry.entries()[n].family for n in NAMES} == {"libraries"}


@pytest.mark.parametrize("name", NAMES)
def test_preset_is_seeded_stated_and_picklable(name: str) -> None:
    mech = registry.entries()[name].factory()
    assert mech.claim.kind.value == "stated" and mech.claim.epsilon == 1.0
    X = np.random.default_rng(0).uniform(-1.0, 1.0, (12, 2))
    y = np.repeat([-1.0, 0.0, 1.0], 4) if mech.domain.labels else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = mech.sample(Dataset(X, y), 3, rng=np.random.default_rng(1))
        b = pickle.loads(pickle.dumps(mech)).sample(Dataset(X, y), 3, rng=np.random.default_rng(1))
    assert a.shape[0] == 3 and np.array_equal(a, b)
