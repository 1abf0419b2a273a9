"""Unit tests for mechanisms.geometric (002_f29981ba9423ff4d.txt learners)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from mechanisms.base import ClaimKind, claims_of
from mechanisms.geometric import REGISTRY_ENTRIES
from mechanisms.geometric.arrangement import halfplane_cells, triangle_patterns
from mechanisms.geometric.learners import (
    ConjunctionLearner,
    ConvexKGonLearner,
    CorrectedConvexKGonLearner,
    UnionOfPolygonsLearner,
)
from mechanisms.geometric.scl import categorical
from mechanisms.geometric.select import SelectHalfplane, SelectTriangle
from neighbors.base import Dataset, Relation, is_neighbor


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240502)


def test_preset_constants_match_spec() -> None:
    m = ConvexKGonLearner()
    assert (m.T, round(m.noise_scale, 2), round(m.Delta, 1), round(m.eps_hat, 4)) == (12, 13.33, 63.8, 0.0569)
    assert ConjunctionLearner().T == math.ceil(6 * math.log2(20)) == 26
    c = CorrectedConvexKGonLearner()
    assert c.noise_scale == pytest.approx(2 * 12 / 0.9)
    assert c.eps_hat == pytest.approx(0.9 / (4 * math.log(math.e / 1e-3)))


def test_claims_follow_errata() -> None:
    m = ConvexKGonLearner()
    by = {(c.relation, c.kind): c for c in m.claims}
    assert m.claim.kind is ClaimKind.PROVED and m.claim.epsilon == pytest.approx(1.8)
    assert by[(Relation.ADD_REMOVE_ONE, ClaimKind.STATED)].epsilon == pytest.approx(0.9)
    rep = by[(Relation.REPLACE_ONE, ClaimKind.PROVED)]
    assert rep.epsilon == pytest.approx(3.6) and rep.delta == pytest.approx((1 + math.exp(1.8)) * 1e-3)
    assert by[(Relation.RELABEL_ONE, ClaimKind.PROVED)].epsilon == pytest.approx(1.8)
    c = CorrectedConvexKGonLearner()
    assert c.claim.epsilon == pytest.approx(0.9) and all(x.kind is ClaimKind.PROVED for x in c.claims)
    s = SelectHalfplane()
    assert {x.epsilon for x in s.claims} == {2.0} and {x.delta for x in s.claims} == {0.0}


def test_registered_pairs_are_neighbours_in_domain() -> None:
    for e in REGISTRY_ENTRIES:
        m = e.build()
        claims = claims_of(m)
        for p in m.neighbor_pairs():
            assert is_neighbor(p), (e.name, p.description)
            assert m.domain.check(p.dataset) is None and m.domain.check(p.neighbor) is None
            assert any(c.covers(p.relation) for c in claims)


def test_sample_shapes_and_determinism() -> None:
    for e in REGISTRY_ENTRIES:
        m = e.build()
        ds = m.neighbor_pairs()[0].dataset
        a = m.sample(ds, 50, rng=np.random.default_rng(7))
        b = m.sample(ds, 50, rng=np.random.default_rng(7))
        assert a.shape[0] == 50 and np.all(np.isfinite(a))
        np.testing.assert_array_equal(a, b)


def test_cell_table_geometry() -> None:
    c = halfplane_cells(4)
    assert c.num_cells == 412 and min(c.areas) == Fraction(1, 24)
    assert sum(c.areas[:206], Fraction(0)) == 16 * 4**4
    assert np.all(c.labels[:206] + c.labels[206:] == 1)
    assert len(triangle_patterns(2).labels) == 213 and len(triangle_patterns(3).labels) == 2733


def test_exact_areas_at_large_d() -> None:
    # d = 256: box area 16 d⁴ ≈ 6.9e10, cells down to ~1e-9; exact fractions keep every area > 0
    pts = ((0, 0), (1, 0), (255, 256), (256, 255), (128, 128), (128, 129))
    c = halfplane_cells(256, pts)
    half = c.num_cells // 2
    assert sum(c.areas[:half], Fraction(0)) == 16 * 256**4
    assert all(a > 0 for a in c.areas) and np.all(np.isfinite(c.log_area))
    assert (
        len({tuple(r) for r in c.labels[:half]}) == half
    )  # faces of a line arrangement: distinct sign vectors


def test_uniform_point_lies_in_its_cell(rng: np.random.Generator) -> None:
    c = halfplane_cells(4)
    cells = rng.integers(0, c.num_cells, size=2000)
    ab = c.sample_points(cells, rng)
    d2 = 2 * 16
    z = ab[:, 0] > d2
    a = np.where(z, ab[:, 0] - 4 * 16, ab[:, 0])
    pts = np.asarray(c.points, float)
    below = ab[:, 1][:, None] <= pts[:, 1][None, :] - pts[:, 0][None, :] * a[:, None]
    lab = np.where(z[:, None], ~below, below)
    np.testing.assert_array_equal(lab, c.labels[cells].astype(bool))


def test_select_halfplane_oracle_matches_spec() -> None:
    m = SelectHalfplane()
    eps = [m.exact_epsilon(p) for p in m.neighbor_pairs()]
    assert eps[0] == pytest.approx(0.620, abs=5e-3)
    assert eps[1] == pytest.approx(1.0, abs=1e-9)
    assert eps[2] == pytest.approx(1.546, abs=5e-3)
    assert max(SelectTriangle().exact_epsilon(p) for p in SelectTriangle().neighbor_pairs()) <= 2.0


def test_select_halfplane_sampler_matches_exact(rng: np.random.Generator) -> None:
    m = SelectHalfplane(output="cell")
    ds = m.neighbor_pairs()[2].dataset
    p = m.probabilities(ds)
    n = 200_000
    counts = np.bincount(m.sample(ds, n, rng=rng).astype(int), minlength=p.size)
    top = np.argsort(-p)[:20]
    # each of 20 binomial counts within 5 sd: false-failure probability < 20 · 6e-7
    assert np.all(np.abs(counts[top] - n * p[top]) <= 5 * np.sqrt(n * p[top] * (1 - p[top])))


def test_categorical_matches_softmax(rng: np.random.Generator) -> None:
    logits = np.array([[0.0, 1.0, -np.inf, 2.0]] * 100_000)
    draws = np.bincount(categorical(logits, rng), minlength=4) / 100_000
    p = np.exp([0, 1, 0, 2]) * [1, 1, 0, 1]
    p = p / p.sum()
    # 5 sd per coordinate (sd ≤ 0.0016): false-failure probability < 1e-5
    assert draws[2] == 0 and np.all(np.abs(draws - p) < 5 * 0.0016)


def test_first_step_exclusion_probability(rng: np.random.Generator) -> None:
    # single positive x*: h_1 excludes x* w.p. A_ex·e^{−ε̂}/(A_ex·e^{−ε̂} + A_in) with the cell areas
    m = ConvexKGonLearner()
    pair = m.neighbor_pairs()[0]
    out = m.sample(pair.dataset, 100_000, rng=rng)
    c = halfplane_cells(4)
    xi = c.index_of((4, 4))
    area = np.exp(c.log_area)
    ex = c.labels[:, xi] == 0
    p = area[ex].sum() * math.exp(-m.eps_hat) / (area[ex].sum() * math.exp(-m.eps_hat) + area[~ex].sum())
    got = np.mean(c.labels[out[:, 0].astype(int), xi] == 0)
    assert abs(got - p) < 5 * math.sqrt(p * (1 - p) / 100_000)  # 5 sd: false-failure < 1e-6


def test_scl_privacy_loss_oracle(rng: np.random.Generator) -> None:
    m = ConvexKGonLearner()
    e = m.exact_epsilon(m.neighbor_pairs()[0], 1e-3, num_paths=2000, seed=3)
    # spec §12: 0.12 on "single pos vs ∅"; Monte Carlo spread of the estimate at 2000 paths ≈ 0.01
    assert 0.08 < e < 0.16 < m.claim.epsilon


def _grid_utility(
    m: ConvexKGonLearner, table: np.ndarray, n: int, reps: int, seed: int, form: str
) -> np.ndarray:
    r = np.random.default_rng(seed)
    pts = np.asarray(m.probe_points())
    errs = []
    for _ in range(reps):
        ids = r.choice(len(table), size=m.k, replace=False)
        tgt = table[ids].min(0) if form == "and" else table[ids].max(0)
        idx = r.integers(0, len(pts), size=n)
        out = m.sample(Dataset(pts[idx], tgt[idx].astype(float)), 1, rng=r)[0]
        errs.append(np.mean(out[m.T :] != tgt))  # exact test error under the uniform grid distribution
    return np.array(errs)


def test_utility_convex_kgon_and_union_of_triangles() -> None:
    # Thm 4.8 / 5.1 give no constants: we test (α, β)-PAC at n = 5000 with α = 0.25, β = 0.1.
    # If the failure probability were ≤ β, P[Binomial(50, 0.1) ≥ 12] ≈ 0.006 is the false-failure rate.
    kg = _grid_utility(ConvexKGonLearner(), halfplane_cells(4).labels, 5000, 50, 11, "and")
    un = _grid_utility(UnionOfPolygonsLearner(), triangle_patterns(3).labels, 5000, 50, 12, "or")
    assert np.sum(kg > 0.25) < 12 and np.sum(un > 0.25) < 12


def test_utility_conjunctions() -> None:
    m = ConjunctionLearner()
    r = np.random.default_rng(5)
    allx = ((np.arange(2**16)[:, None] >> np.arange(16)) & 1).astype(float)
    L = m.hypothesis_labels(allx)
    eh = m.eps_hat
    lam = math.log(32 * 4 * m.k * math.log2(2 / m.alpha) / m.beta) / eh
    for n, reps in ((2000, 5), (20000, 3)):
        for _ in range(reps):
            tgt = L[r.choice(32, 3, replace=False)].min(0)
            idx = r.integers(0, 2**16, size=n)
            out = m.sample(Dataset(allx[idx], tgt[idx].astype(float)), 1, rng=r)[0]
            fin = L[out[: m.T].astype(int)].min(0)
            train_err = int(np.sum(fin[idx] != tgt[idx]))
            # Claim 3.1 (holds w.p. ≥ 1 − β − T·selection failure, here ≥ 0.8 per run; the bound is
            # loose by ~100×, so a failure would indicate a bug rather than chance)
            assert train_err <= max(m.alpha * n / 2, 4 * m.Delta) + 4 * m.k * lam * math.log2(2 / m.alpha)
            if n == 20000:
                assert np.mean(fin != tgt) <= m.alpha  # measured: 0 errors in 10/10 runs at n = 20000
