"""`from_synthesizer` / `from_release` on small fake synthesizers (no library needed), and
against smartnoise-synth when it is installed."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import dpaudit
from dpaudit import CategoricalColumn, ClaimKind, NumericColumn, PrivacyClaim, Relation
from dpaudit.mechanisms.adapters.synthesizer import synthetic_features
from dpaudit.neighbors.base import Dataset
from dpaudit.neighbors.tabular import TabularSpace
from tests.mechanisms import fake_synthesizers as fs

COLUMNS = (
    CategoricalColumn(name="colour", categories=fs.CATS),
    NumericColumn(name="size", low=0.0, high=1.0),
)
CLAIM = PrivacyClaim(
    epsilon=1.0, relation=Relation.REPLACE_ONE, reference="a fake synthesizer", kind=ClaimKind.PROVED
)


def _mech(make: object) -> dpaudit.Mechanism:
    return dpaudit.from_synthesizer(make, columns=COLUMNS, rows=20, claim=CLAIM, name="fake", max_size=16)  # type: ignore[arg-type]


@pytest.mark.parametrize("make", [fs.leaks_category, fs.leaks_outlier])
def test_a_synthesizer_copying_from_the_data_is_flagged_blind(make: object) -> None:
    mech = _mech(make)
    assert not mech.neighbor_pairs()  # blind: no registered pair
    result = dpaudit.audit(mech, num_samples=4000, seed=0)
    assert result.verdict is dpaudit.Verdict.VIOLATION_FOUND
    assert result.epsilon_lower_bound > CLAIM.epsilon


def test_a_correct_synthesizer_is_not_flagged() -> None:
    result = dpaudit.audit(_mech(fs.correct), num_samples=4000, seed=0)
    assert result.verdict is dpaudit.Verdict.NO_VIOLATION_FOUND
    assert result.epsilon_lower_bound <= CLAIM.epsilon


def test_support_of_an_undeclared_category_is_a_zero_one_feature() -> None:
    space = TabularSpace(columns=COLUMNS)
    seen = synthetic_features(
        space, {"colour": np.array(["a", "b"], dtype=object), "size": np.array([0.5, 0.2])}
    )
    unseen = synthetic_features(
        space, {"colour": np.array(["a", "zz"], dtype=object), "size": np.array([0.5, 9.0])}
    )
    assert seen.shape == unseen.shape  # fixed width for a space
    diff = np.flatnonzero(seen != unseen)
    assert diff.size > 0
    # an "other" support bit goes 0 -> 1, and one value above the bound is counted
    assert np.any((seen[diff] == 0) & (unseen[diff] == 1))


def test_release_adapter_flattens_and_pickles() -> None:
    mech = dpaudit.from_release(_column_sum, columns=COLUMNS, claim=CLAIM, name="sum")
    data = Dataset(np.array([[0.0, 0.5], [2.0, 0.25]]))
    out = mech.sample(data, 3, rng=np.random.default_rng(0))
    assert out.shape == (3, 1) and np.allclose(out, 0.75)
    again = pickle.loads(pickle.dumps(mech))
    assert np.array_equal(again.sample(data, 3, rng=np.random.default_rng(0)), out)


def _column_sum(table: object, rng: np.random.Generator) -> list[float]:
    return [float(np.sum(np.asarray(table["size"])))]  # type: ignore[index]


def test_unknown_feature_is_refused() -> None:
    with pytest.raises(ValueError, match="features"):
        dpaudit.from_synthesizer(
            fs.correct, columns=COLUMNS, rows=5, claim=CLAIM, name="x", features=("nope",)
        )


# --- against the real library (run when smartnoise-synth is installed) -------------------------


def _snsynth_version() -> tuple[int, ...]:
    pytest.importorskip("snsynth")
    from dpaudit.mechanisms.libraries.common import version_of

    return tuple(int(p) for p in (version_of("smartnoise-synth") or "0").split(".")[:3])


def test_dpcovariance_release_through_the_adapter() -> None:
    _snsynth_version()
    from dpaudit.mechanisms.libraries.smartnoise_adapters import smartnoise_dpcovariance

    mech = smartnoise_dpcovariance(epsilon=1.0)
    data = Dataset(np.array([[0.1, 0.2], [0.5, 0.9], [0.7, 0.3]]))
    out = mech.sample(data, 4, rng=np.random.default_rng(0))
    assert out.shape == (4, 3)  # var_a, cov_ab, var_b
    assert not mech.seedable


def test_dpcovariance_out_of_bounds_row_is_flagged_only_before_the_fix() -> None:
    version = _snsynth_version()
    from dpaudit.mechanisms.libraries.smartnoise_adapters import smartnoise_dpcovariance
    from dpaudit.neighbors.tabular import TabularSpace, tabular_pairs

    space = TabularSpace(columns=tuple(NumericColumn(name=c, low=0.0, high=1.0) for c in ("x0", "x1")))
    pair = next(p for p in tabular_pairs(space, Relation.REPLACE_ONE, n=4) if "outside" in p.description)
    result = dpaudit.audit(smartnoise_dpcovariance(epsilon=1.0), num_samples=2000, pairs=[pair], seed=0)
    buggy = version <= (1, 0, 5)  # opendp/smartnoise-sdk#622, fixed by #624 in 1.0.6
    assert (result.verdict is dpaudit.Verdict.VIOLATION_FOUND) is buggy


def test_mwem_preset_samples_a_fixed_width_feature_vector() -> None:
    _snsynth_version()
    from dpaudit.mechanisms.libraries.common import smartnoise_mwem_available

    if not smartnoise_mwem_available():
        pytest.skip("snsynth's MWEM needs opendp < 0.13")
    from dpaudit.mechanisms.libraries.smartnoise_adapters import smartnoise_mwem

    mech = smartnoise_mwem(epsilon=1.0, rows=10)
    a = mech.sample(Dataset(np.array([[0.0, 1.0], [2.0, 0.0], [1.0, 1.0]])), 2, rng=np.random.default_rng(0))
    b = mech.sample(Dataset(np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])), 2, rng=np.random.default_rng(0))
    assert a.shape == b.shape and a.shape[0] == 2
    assert np.all(a[:, 0] == 10)  # the first feature is the number of synthetic rows
