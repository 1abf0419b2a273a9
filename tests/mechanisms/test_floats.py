"""The `floats` family: naive float twins are flagged, exact counterparts are not."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dpaudit.engine.runner.procedure import run_audit
from dpaudit.engine.search.procedure import search_and_certify
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import from_callable
from dpaudit.mechanisms.floats import (
    DiscreteGaussianSum,
    DiscreteLaplaceSum,
    NaiveFloatGaussian,
    NaiveFloatLaplace,
    RoundedSumDiscreteLaplace,
    SnappingLaplace,
)
from dpaudit.mechanisms.floats.samplers import discrete_gaussian, discrete_laplace, full_precision_uniform
from dpaudit.mechanisms.registry import entries
from dpaudit.neighbors.base import Relation
from dpaudit.neighbors.templates import WorstCasePairs


def _audit(mech: Any, n: int = 200_000) -> float:
    config = AuditConfig(num_samples=n, seed=0)
    return run_audit(mech, mech.neighbor_pairs(), config, show_progress=False).epsilon_lower_bound


@pytest.mark.parametrize("cls", [NaiveFloatLaplace, NaiveFloatGaussian])
def test_naive_twins_flagged(cls: type) -> None:
    assert _audit(cls()) >= 5


@pytest.mark.parametrize("cls", [SnappingLaplace, DiscreteLaplaceSum, DiscreteGaussianSum])
def test_exact_counterparts_not_flagged(cls: type) -> None:
    assert _audit(cls()) <= 1.0


def test_rounding_twin_found_on_a_template_pair() -> None:
    mech = RoundedSumDiscreteLaplace()
    assert mech.neighbor_pairs() == ()
    pairs = list(WorstCasePairs().pairs(mech.domain, Relation.REPLACE_ONE))
    assert any(mech.exact_epsilon(p) == 2.0 for p in pairs if "float" in p.tags)
    found = search_and_certify(mech, AuditConfig(num_samples=300_000, seed=0), show_progress=False)
    assert found.certified.epsilon_lower_bound > 1.2


def test_samplers() -> None:
    rng = np.random.default_rng(0)
    k = discrete_laplace(2.0, 200_000, rng=rng)
    assert abs(np.mean(k == 0) - np.tanh(0.25)) < 0.01  # P(0) = (1 − e^{-1/2}) / (1 + e^{-1/2})
    g = discrete_gaussian(3.0, 200_000, rng=rng)
    assert g.dtype == np.int64 and abs(g.var() - 9.0) < 0.2
    u = full_precision_uniform(100_000, rng=rng)
    assert np.all((u > 0) & (u < 1)) and abs(u.mean() - 0.5) < 0.01


def test_registry_and_declarations() -> None:
    fam = [e for e in entries().values() if e.family == "floats"]
    assert {e.name for e in fam if e.buggy} == {
        "float_laplace_naive",
        "float_gaussian_naive",
        "float_sum_rounding",
    }
    for e in fam:
        assert e.build().floating_point is True  # type: ignore[attr-defined]


def test_from_callable_chunks_reproducible() -> None:
    mech = NaiveFloatLaplace()
    pair = mech.neighbor_pairs()[0]
    kw = dict(name="c", claim=mech.claim, domain=mech.domain, chunk_size=100)
    per_call = from_callable(lambda d, r: float(d.X.sum() + r.laplace()), **kw)  # type: ignore[arg-type]
    a = per_call.sample(pair.dataset, 1000, rng=np.random.default_rng(3))
    b = per_call.sample(pair.dataset, 1000, rng=np.random.default_rng(3))
    assert a.shape == (1000,) and np.array_equal(a, b)
    batch = from_callable(
        batch_fn=lambda d, n, r: d.X.sum() + r.laplace(size=n),
        **kw,  # type: ignore[arg-type]
    )
    assert batch.sample(pair.dataset, 1000, rng=np.random.default_rng(3)).shape == (1000,)
    with pytest.raises(ValueError):
        from_callable(name="x", claim=mech.claim, domain=mech.domain)


def test_the_default_route_flags_the_rounding_sum_on_a_template_pair() -> None:
    """The registered pair of float_sum_rounding shows no excess (its sum is exact); the rounding
    templates do. The challenge tops the template survivor up until the pilot separates it from
    the registered champion, so `dpaudit run`'s default route certifies it (true ε = 2)."""
    from dpaudit.api import audit

    result = audit("float_sum_rounding", seed=0)
    assert result.violation and result.epsilon_lower_bound > 1.5
    search = result.extra["search"]
    assert any(not d.startswith("replace the last record") for d in search["certified_pairs"])  # type: ignore[union-attr]


FLOAT_CLASSES = (
    SnappingLaplace,
    DiscreteLaplaceSum,
    DiscreteGaussianSum,
    NaiveFloatLaplace,
    NaiveFloatGaussian,
    RoundedSumDiscreteLaplace,
)


@pytest.mark.parametrize("cls", FLOAT_CLASSES)
@pytest.mark.parametrize(("low", "high"), [(1.0, 2.0), (-3.0, -1.0), (0.5, 1.0)])
def test_a_box_without_zero_refuses_to_build(cls: type, low: float, high: float) -> None:
    """Every claim of the family, add/remove included, is calibrated to high − low; adding a record
    moves the sum by up to max(|low|, |high|) > high − low when 0 ∉ [low, high], so such a preset
    would carry an invalid add/remove claim: it is refused instead (exit 2 on the CLI)."""
    assert any(c.relation is Relation.ADD_REMOVE_ONE for c in cls().claims)
    with pytest.raises(ValueError, match=r"does not contain 0: adding a record moves the sum by up to"):
        cls(low=low, high=high)


@pytest.mark.parametrize("cls", FLOAT_CLASSES)
def test_boxes_with_zero_build_and_their_add_remove_claim_holds(cls: type) -> None:
    """0 ∈ [low, high]: |added record| ≤ max(|low|, |high|) ≤ high − low, within the calibration."""
    for low, high in ((0.0, 1.0), (-1.0, 1.0), (-2.0, 0.0)):
        m = cls(low=low, high=high)
        assert max(abs(low), abs(high)) <= high - low
        assert m.domain.feature_low == low and m.domain.feature_high == high


def test_cli_refuses_a_float_preset_without_zero(capsys: pytest.CaptureFixture[str]) -> None:
    from dpaudit.app.cli.entry import main

    code = main(["run", "float_discrete_laplace", "--param", "low=1", "--param", "high=2"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "[1, 2] does not contain 0" in err
