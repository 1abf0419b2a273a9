"""The DP-SGD family (Abadi et al., "Deep Learning with Differential Privacy", Alg. 1): shapes,
determinism, clipping, Poisson rate, noise scale, claims = dp_accounting, canary pairs, white-box
oracle, and that each buggy twin differs from its correct twin exactly where intended.

Statistical assertions: counts and sample moments are compared with their known sampling
sd; each tolerance is ≥ 5 sd (false-failure probability < 1e-6 per assertion).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from dpaudit.mechanisms.base import claims_of
from dpaudit.mechanisms.dpsgd import (
    DPSGD,
    ClipAfterSum,
    NoiseForMean,
    RealisedBatchNormaliser,
    SamplerRateMismatch,
    ShuffledBatches,
    StepsAsEpochs,
    TrueSizeNormaliser,
)
from dpaudit.mechanisms.dpsgd.exact import GaussianMixtureStep, monte_carlo_epsilon
from dpaudit.mechanisms.dpsgd.models import clip_rows
from dpaudit.mechanisms.registry import entries
from dpaudit.neighbors.base import Dataset, Relation, is_neighbor

AR, RO = Relation.ADD_REMOVE_ONE, Relation.REPLACE_ONE


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20260)


def test_output_shapes_per_view(rng: np.random.Generator) -> None:
    for view, width in (("all_iterates", 20), ("last_iterate", 2), ("score", 1)):
        m = DPSGD(view=view)
        out = m.sample(m.neighbor_pairs()[0].dataset, 50, rng=rng)
        assert out.shape == (50, width) and np.all(np.isfinite(out))
    for model in ("logistic", "linear"):
        for view, width in (("all_iterates", 20), ("last_iterate", 2), ("score", 1)):
            m = DPSGD(model=model, view=view, rest="data", rest_size=4)
            assert m.sample(m.neighbor_pairs()[1].dataset, 30, rng=rng).shape == (30, width)


def test_same_generator_same_output() -> None:
    for model in ("gradient", "logistic", "linear"):
        m = DPSGD(model=model, rest_size=3)
        ds = m.neighbor_pairs()[0].dataset
        a = m.sample(ds, 64, rng=np.random.default_rng(3))
        assert np.array_equal(a, m.sample(ds, 64, rng=np.random.default_rng(3)))
        assert not np.array_equal(a, m.sample(ds, 64, rng=np.random.default_rng(4)))


def test_clipping_scales_long_gradients_only() -> None:
    g = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    assert np.allclose(clip_rows(g, 1.0), [[0.6, 0.8], [0.3, 0.4], [0.0, 0.0]])
    # a 10C canary is clipped to C: without noise the update is C/B along e₁ whenever drawn
    m = DPSGD(noise_multiplier=1e-9, sample_rate=1.0, canary_scale=4.0)
    out = m.sample(m.neighbor_pairs()[0].dataset, 10, rng=np.random.default_rng(0)).reshape(10, -1, 2)
    assert np.allclose(out[..., 0], 1.0 / m.batch_size) and np.allclose(out[..., 1], 0.0, atol=1e-8)


def test_poisson_rate_and_noise_scale(rng: np.random.Generator) -> None:
    """Without noise, the canary coordinate of each step is C/B × Bernoulli(q); with it, the
    coordinate no record uses is N(0, (σC/B)²)."""
    m = DPSGD(noise_multiplier=1e-9, sample_rate=0.3, steps=5)
    n = 40_000
    y = m.sample(m.neighbor_pairs()[0].dataset, n, rng=rng).reshape(n, 5, 2)[..., 0] * m.batch_size
    rate, sd = y.mean(), math.sqrt(0.3 * 0.7 / y.size)
    assert abs(rate - 0.3) < 6 * sd
    noisy = DPSGD(noise_multiplier=1.5, clip_norm=2.0)
    z = noisy.sample(noisy.neighbor_pairs()[0].dataset, n, rng=rng).reshape(n, 10, 2)[..., 1].ravel()
    target = 1.5 * 2.0 / noisy.batch_size
    assert abs(z.std() / target - 1) < 6 / math.sqrt(2 * z.size)
    assert abs(z.mean()) < 6 * target / math.sqrt(z.size)


def test_last_iterate_and_score_follow_the_updates(rng: np.random.Generator) -> None:
    ds = DPSGD().neighbor_pairs()[0].dataset
    upd, last, score = (
        DPSGD(view=view, learning_rate=0.3, initial_point=0.5).sample(ds, 20, rng=np.random.default_rng(1))
        for view in ("all_iterates", "last_iterate", "score")
    )
    upd = upd.reshape(20, 10, 2)
    assert np.allclose(last, 0.5 - 0.3 * upd.sum(axis=1))
    assert np.allclose(score[:, 0], 4.0 * upd[..., 0].sum(axis=1))


def test_claims_are_dp_accounting_values() -> None:
    m = DPSGD()
    by_relation = {c.relation: c for c in m.claims}
    assert by_relation[AR].epsilon_at(1e-2) == pytest.approx(0.887, abs=5e-4)
    assert by_relation[RO].epsilon_at(1e-2) == pytest.approx(1.343, abs=5e-4)
    assert m.claim.delta == 1e-5 and "dp_accounting" in m.claim.reference
    for name, e in entries().items():
        if e.family == "dpsgd" and e.buggy:
            twin = e.build()
            correct = entries()[str(e.twin_of)].build()
            mine = {c.relation: c for c in claims_of(correct)}
            for c in claims_of(twin):
                if name == "dpsgd_shuffled_batches":  # the add/remove curve reported for replace-one
                    assert c.relation is RO and c.curve == mine[AR].curve
                else:
                    assert c == mine[c.relation], name


def test_dp_accounting_replace_one_is_the_opposite_canary_pair() -> None:
    """Monte Carlo over the exact loss (10⁵ draws per order, sd ≈ 0.01): dp_accounting's
    REPLACE_ONE ε(10⁻²) = 1.343 is the pair C·e₁ vs −C·e₁; C·e₁ vs a zero row gives the
    add/remove value 0.887 instead."""

    def law(shift: float) -> GaussianMixtureStep:
        return GaussianMixtureStep(weights=(0.9, 0.1), means=((0.0,), (shift,)), sds=(1.0, 1.0))

    gen = np.random.default_rng(5)
    opposite = monte_carlo_epsilon(law(1.0), law(-1.0), steps=10, runs=100_000, delta=1e-2, rng=gen)
    to_zero = monte_carlo_epsilon(law(1.0), law(0.0), steps=10, runs=100_000, delta=1e-2, rng=gen)
    assert opposite == pytest.approx(1.343, abs=0.06)
    assert to_zero == pytest.approx(0.887, abs=0.06)


def test_pairs_name_the_canary_and_hold() -> None:
    for name, e in entries().items():
        if e.family != "dpsgd":
            continue
        m = e.build()
        assert isinstance(m, DPSGD)
        for p in m.neighbor_pairs():
            assert is_neighbor(p) and m.domain.check(p.dataset) is None and m.domain.check(p.neighbor) is None
            assert any(t.startswith("canary:") for t in p.tags) and "canary" in p.description, name
            assert "rest:" in p.description.replace("rest: ", "rest:")


def test_exact_epsilon_is_the_accountant_on_the_worst_case_pair() -> None:
    m = DPSGD()
    ar, ro = m.neighbor_pairs()
    assert m.exact_epsilon(ar, delta=1e-2) == pytest.approx(0.887, abs=5e-4)
    assert m.exact_epsilon(ro, delta=1e-2) == pytest.approx(1.343, abs=5e-4)
    last = DPSGD(view="last_iterate")
    assert last.exact_epsilon(ar, delta=1e-2) < m.exact_epsilon(ar, delta=1e-2)
    with pytest.raises(NotImplementedError):
        DPSGD(model="logistic").exact_epsilon(DPSGD(model="logistic").neighbor_pairs()[0], delta=1e-2)
    with pytest.raises(NotImplementedError):  # a rest with gradients: the accountant is only a bound
        ClipAfterSum().exact_epsilon(ClipAfterSum().neighbor_pairs()[0], delta=1e-2)


def test_all_iterates_statistics_match_the_pairs() -> None:
    m = DPSGD()
    stats = {s.name: s for s in m.statistics}
    assert stats["canary_llr_add_remove"].shift_b == 0.0
    assert stats["canary_llr_replace_one"].shift_b == -stats["canary_llr_replace_one"].shift_a
    assert stats["canary_llr_add_remove"].noise_sd == pytest.approx(
        m.noise_multiplier * m.clip_norm / m.batch_size
    )
    assert DPSGD(view="last_iterate").statistics == ()


def _same_parts(twin: DPSGD) -> DPSGD:
    """The correct mechanism at the twin's parameters."""
    fields = {f.name: getattr(twin, f.name) for f in dataclasses.fields(DPSGD) if f.name != "name"}
    return DPSGD(**fields)


def test_each_twin_differs_only_where_intended() -> None:
    twins = [
        ShuffledBatches(),
        RealisedBatchNormaliser(),
        SamplerRateMismatch(),
        ClipAfterSum(),
        NoiseForMean(),
        StepsAsEpochs(),
        TrueSizeNormaliser(),
    ]
    for twin in twins:
        ref = _same_parts(twin)
        ds = twin.neighbor_pairs()[0].dataset
        changed = {
            "inclusion_rate": twin.inclusion_rate != ref.inclusion_rate,
            "noise_scale": twin.noise_scale != ref.noise_scale,
            "iterations": twin.iterations != ref.iterations,
        }
        mask = np.random.default_rng(0).random((6, ds.n)) < 0.5
        g = np.asarray(ds.X[None])
        changed["aggregate"] = not np.allclose(twin.aggregate(g, mask), ref.aggregate(g, mask))
        changed["normaliser"] = not np.allclose(twin.normaliser(mask, ds), ref.normaliser(mask, ds))
        a = list(twin.batch_masks(np.random.default_rng(1), 4, ds.n))
        b = list(ref.batch_masks(np.random.default_rng(1), 4, ds.n))
        changed["batch_masks"] = len(a) != len(b) or any(
            not np.array_equal(x, y) for x, y in zip(a, b, strict=False)
        )
        expected = {
            ShuffledBatches: {"batch_masks"},
            RealisedBatchNormaliser: {"normaliser"},
            SamplerRateMismatch: {"inclusion_rate", "batch_masks"},
            ClipAfterSum: {"aggregate"},
            NoiseForMean: {"noise_scale"},
            StepsAsEpochs: {"iterations", "batch_masks"},
            TrueSizeNormaliser: {"normaliser"},
        }[type(twin)]
        assert {k for k, v in changed.items() if v} == expected, type(twin).__name__


def test_shuffled_batches_draw_each_record_once_per_epoch() -> None:
    twin = ShuffledBatches()
    masks = np.stack(list(twin.batch_masks(np.random.default_rng(2), 100, 10)))  # (T, runs, n)
    per_epoch = masks.reshape(10, 10, 100, 10).sum(axis=1)
    assert np.all(per_epoch == 1) and np.all(masks.sum(axis=2) == 1)


def test_true_size_normaliser_scales_with_n() -> None:
    twin = TrueSizeNormaliser()
    small, big = Dataset(np.zeros((2, 2))), Dataset(np.zeros((3, 2)))
    mask = np.ones((1, 3), dtype=bool)
    assert twin.normaliser(mask, small) == pytest.approx(0.2)
    assert twin.normaliser(mask, big) == pytest.approx(0.3)


def test_throughput_reference_trainer() -> None:
    """≥ 10⁵ runs/s for T = 10, d = 2 on the worst-case pair (the target; this checks a tenth
    of it, so a loaded CI machine does not fail it)."""
    import time

    m = DPSGD()
    ds = m.neighbor_pairs()[0].dataset
    gen = np.random.default_rng(0)
    start = time.perf_counter()
    m.sample(ds, 1 << 16, rng=gen)
    assert (1 << 16) / (time.perf_counter() - start) > 1e4
