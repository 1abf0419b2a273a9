"""Unit tests for mechanisms.boosting (004: LazyBregBoost / HS-StL)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.mechanisms.analytic import gaussian_epsilon
from dpaudit.mechanisms.boosting import REGISTRY_ENTRIES, HSStL, paper_parameters, project_dense
from dpaudit.neighbors.base import Dataset, is_neighbor

NAMES = [e.name for e in REGISTRY_ENTRIES]


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(40404)


def test_claims_follow_the_paper_and_the_gdp_derivation() -> None:
    m = HSStL()
    rho = 8 * 8 / (0.25 * 40 * 1.5) ** 2
    paper = rho + 2 * math.sqrt(rho * math.log(1e5))
    tight = gaussian_epsilon(1e-5, 2 * math.sqrt(8) / (0.25 * 40 * 1.5))
    assert {round(c.epsilon, 9) for c in m.claims} == {round(paper, 9), round(tight, 9)}
    assert paper == pytest.approx(3.90, abs=0.01) and tight == pytest.approx(1.46, abs=0.01)  # spec table
    assert m.claim.epsilon == pytest.approx(tight)
    big = HSStL(n=100, kappa=0.5, rounds=10, sigma=0.5)
    assert big.paper_epsilon() == pytest.approx(2.56, abs=0.01)


@pytest.mark.parametrize("name", NAMES)
def test_pairs_and_seeded_sampling(name: str) -> None:
    m = next(e for e in REGISTRY_ENTRIES if e.name == name).build()
    for p in m.neighbor_pairs():
        assert is_neighbor(p)
        assert m.domain.check(p.dataset) is None and m.domain.check(p.neighbor) is None
    d = m.neighbor_pairs()[0].dataset
    a = m.sample(d, 30, rng=np.random.default_rng(3))
    assert a.shape[0] == 30 and np.array_equal(a, m.sample(d, 30, rng=np.random.default_rng(3)))


def test_projection_is_the_kl_projection(rng: np.random.Generator) -> None:
    kappa, n = 0.25, 40
    log_mu = math.log(kappa) - rng.exponential(2.0, size=(200, n))
    mu = project_dense(log_mu, kappa)
    assert np.allclose(mu.sum(axis=1), kappa * n)  # density exactly κ
    assert np.all(mu <= 1 + 1e-12)
    # Lemma 9: μ = min(1, c μ̃) with one c ≥ 1 per row
    raw = np.exp(log_mu)
    free = mu < 1 - 1e-9
    c = np.where(free, mu / raw, np.nan)
    assert np.all(np.nanmax(c, axis=1) - np.nanmin(c, axis=1) < 1e-8 * np.nanmax(c, axis=1))
    assert np.all(np.nanmin(c, axis=1) >= 1 - 1e-9)
    # capped entries are exactly those with c μ̃ ≥ 1
    cc = np.nanmax(c, axis=1)[:, None]
    assert np.all((cc * raw >= 1 - 1e-9) == ~free)
    # already-dense input (t = 1) is returned unchanged
    assert np.allclose(project_dense(np.full((1, n), math.log(kappa)), kappa), kappa)


def test_smoothness_and_slickness_lemma_25(rng: np.random.Generator) -> None:
    """Thm 24: μ̂ ≤ 1/(κn); Lemma 25: TV(μ̂, μ̂') ≤ 1/(κn) when one example's cumulative loss changes;
    spec §3.3: ‖Δz‖ ≤ 2/(κn) for unit-norm data with the same hypothesis history."""
    kappa, n, lam = 0.25, 40, 2.0
    L = rng.uniform(0, 8, size=(500, n))
    L2 = L.copy()
    L2[:, 0] = rng.uniform(0, 8, size=500)
    m1 = project_dense(math.log(kappa) - lam * L, kappa) / (kappa * n)
    m2 = project_dense(math.log(kappa) - lam * L2, kappa) / (kappa * n)
    assert np.all(m1 <= 1 / (kappa * n) + 1e-12)
    tv = 0.5 * np.abs(m1 - m2).sum(axis=1)
    assert tv.max() <= 1 / (kappa * n) + 1e-12
    yx = rng.choice([-1.0, 1.0], size=n)
    yx2 = yx.copy()
    yx2[0] = -yx[0]
    dz = np.abs(m1 @ yx - m2 @ yx2)
    assert dz.max() <= 2 / (kappa * n) + 1e-12


def test_utility_theorem_24_margin_on_training_set(rng: np.random.Generator) -> None:
    """004 Thm 24 / Thm 30 at Alg. 5's settings (τ = 0.8, α = 0.4, β = 0.1, c = 2, λ = τ/32): the
    final hypothesis errs on < κn training points w.p. ≥ 1 − β; generalisation checked on fresh
    points drawn from the same τ-margin distribution (population error ≤ α)."""
    tau, alpha, beta = 0.8, 0.4, 0.1
    pp = paper_parameters(alpha=alpha, beta=beta, tau=tau)
    n, d, reps = 200, 2, 10
    m = HSStL(
        n=n,
        num_features=d,
        kappa=pp["kappa"],
        rounds=int(pp["rounds"]),
        learning_rate=pp["learning_rate"],
        sigma=pp["sigma"],
    )
    u = np.array([1.0, 0.0])

    def draw(k: int) -> tuple[np.ndarray, np.ndarray]:
        a = rng.uniform(-1, 1, size=k)
        a = np.sign(a) * np.maximum(np.abs(a), tau)  # margin τ along u, unit ball
        b = rng.uniform(-1, 1, size=k) * np.sqrt(np.maximum(0, 1 - a**2))
        X = np.column_stack([a, b])
        return X, np.sign(X @ u)

    X, y = draw(n)
    out = m.sample(Dataset(X, y), reps, rng=rng)
    train_err = np.mean(HSStL.predict(out, X, d) != y[None, :], axis=1)
    Xt, yt = draw(5000)
    test_err = np.mean(HSStL.predict(out, Xt, d) != yt[None, :], axis=1)
    # each run fails w.p. ≤ β = 0.1; P[Bin(10, 0.1) > 4] ≈ 1.6e-3
    assert np.sum(train_err >= pp["kappa"]) <= 4
    assert np.sum(test_err > alpha) <= 4


def test_twin_hooks(rng: np.random.Generator) -> None:
    """B-B5 lets μ̂ exceed the 1/(κn) smoothness cap; B-B2 differs from the lazy update only after a
    projection that capped something; B-B8 feeds the pre-noise z to the losses."""
    from dpaudit.mechanisms.boosting.buggy import HSStLNonLazy, HSStLPreNoiseLoss, HSStLUnclippedLoss

    kappa, n = 0.25, 40
    log_mu = np.full((1, n), math.log(kappa))
    log_mu[0, 0] = 3.0  # μ̃ > 1 (possible once ℓ < 0) and |μ̃| ≥ κn: no cap applied
    w = HSStLUnclippedLoss()._weights(log_mu)
    assert w[0, 0] > 1 / (kappa * n) and w.sum() == pytest.approx(1.0)
    assert HSStLUnclippedLoss()._hypothesis(np.array([3.0]))[0] == 3.0
    loss = rng.uniform(0, 1, size=(3, n))
    lazy, eager = HSStL(), HSStLNonLazy()
    lm = math.log(kappa) - 2.0 * rng.exponential(1.0, size=(3, n))
    mh = project_dense(lm, kappa) / (kappa * n)
    assert np.allclose(lazy._next_log_mu(lm, mh, loss), lm - 2.0 * loss)
    assert np.allclose(np.exp(eager._next_log_mu(lm, mh, loss)), mh * kappa * n * np.exp(-2.0 * loss))
    z_pre, z = np.ones((2, 1)), np.zeros((2, 1))
    assert np.array_equal(HSStLPreNoiseLoss()._loss_direction(z_pre, z), z_pre)
