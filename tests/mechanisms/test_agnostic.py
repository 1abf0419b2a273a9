"""Unit tests for the 000/001 learners (mechanisms/agnostic): claims, pairs, sampling, oracles,
utility. Statistical assertions state their false-failure probability."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.mechanisms.agnostic import REGISTRY_ENTRIES
from dpaudit.mechanisms.agnostic._common import ceil_fraction, concept_class, labelled, subset_distribution
from dpaudit.mechanisms.agnostic.abms import ClosureLearn, PrivateAgnosticABMS, RelabelAndLearn
from dpaudit.mechanisms.agnostic.buggy_abms import EMLearnerNoHalf
from dpaudit.mechanisms.agnostic.em import EMLearner
from dpaudit.mechanisms.agnostic.lwy import AgnosticLearner, PrivatePrediction
from dpaudit.mechanisms.base import ClaimKind
from dpaudit.neighbors.base import is_neighbor

ENTRIES = {e.name: e for e in REGISTRY_ENTRIES}


# --------------------------------------------------------------------------- claims (F6, F7)
def test_ceil_is_exact() -> None:
    # ERRATA F7: 0.083·24 = 1.992 → 2; (1/6)·12 = 2 → 2; 0.1·30 = 3 → 3 (exact binary 0.1 gives 3+1e-16)
    assert ceil_fraction(0.083, 24) == 2
    assert ceil_fraction(1 / 6, 12) == 2
    assert ceil_fraction(0.1, 30) == 3
    assert ceil_fraction(1 / 3, 13) == 5


@pytest.mark.parametrize(
    ("eps", "n", "k", "bound"),
    [
        (1 / 3, 30, 10, 2.783),
        (0.1, 100, 10, 1.479),
        (0.05, 200, 10, 0.958),
        (0.01, 1000, 10, 0.269),
        (0.083, 24, 2, 1.328),
        (1 / 6, 12, 2, 1.959),
    ],
)
def test_agnostic_claim_matches_spec_table(eps: float, n: int, k: int, bound: float) -> None:
    m = AgnosticLearner(epsilon=eps, min_n=n, max_n=n)
    assert m.subset_size(n) == k
    assert m.claim.epsilon == pytest.approx(math.log(math.exp(eps) + 4 * math.e**2 * k / (n - k)))
    assert m.claim.epsilon == pytest.approx(bound, abs=1e-3)
    assert m.claim.kind is ClaimKind.PROVED
    # no STATED claim: Lemma 3.1 states O(ε) for the algorithm built (lwy.py docstring)
    assert m.claims == (m.claim,)


def test_claim_is_max_over_size_range() -> None:
    m = AgnosticLearner()
    assert m.claim.epsilon == pytest.approx(max(m.claim_epsilon(n) for n in range(m.min_n, m.max_n + 1)))


def test_prediction_and_abms_claims() -> None:
    p = PrivatePrediction()
    assert p.num_portions == 17  # ⌈6 ln 16⌉
    k, n = p.subset_size(102), 102
    assert p.claim_epsilon(102) == pytest.approx(math.log(math.exp(1 / 3) + 4 * math.e**2 * k / (n - k)))
    for m in (RelabelAndLearn(), PrivateAgnosticABMS(), ClosureLearn()):
        assert m.claim.epsilon == pytest.approx(2 + 2 * math.log(2))  # 3.386
        assert m.claim.delta == 0.0


# --------------------------------------------------------------------------- pairs and sampling
@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_pairs_are_neighbours_in_domain(name: str) -> None:
    m = ENTRIES[name].build()
    pairs = m.neighbor_pairs()  # type: ignore[attr-defined]
    assert pairs
    for p in pairs:
        assert is_neighbor(p), p.description
        assert m.domain.check(p.dataset) is None and m.domain.check(p.neighbor) is None


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_sample_shape_and_determinism(name: str) -> None:
    m = ENTRIES[name].build()
    ds = m.neighbor_pairs()[0].dataset  # type: ignore[attr-defined]
    a = m.sample(ds, 300, rng=np.random.default_rng(7))
    b = m.sample(ds, 300, rng=np.random.default_rng(7))
    assert a.shape[0] == 300 and np.array_equal(a, b)
    assert np.all(np.isfinite(a))


def test_subset_law_sums_to_one_and_has_size_k() -> None:
    cells = np.array([0, 0, 3, 5, 5, 5, 9])
    w, c = subset_distribution(cells, 5, 3)
    assert w.sum() == pytest.approx(1.0)
    assert np.all(c.sum(axis=(1, 2)) == 3)


def test_domain_declares_subsampling() -> None:
    dom = AgnosticLearner().domain
    assert dom.subsampling.kind.value == "without_replacement"
    assert dom.subsampling.size is not None and dom.subsampling.size(13) == 5


# --------------------------------------------------------------------------- oracles
def test_exact_values_from_spec() -> None:
    em = EMLearner()
    assert em.exact_epsilon(em.neighbor_pairs()[0]) == pytest.approx(0.984, abs=1e-3)  # spec §B1
    nh = EMLearnerNoHalf()
    assert nh.exact_epsilon(nh.neighbor_pairs()[0]) == pytest.approx(1.964, abs=1e-3)
    rl = RelabelAndLearn()
    assert rl.exact_epsilon(rl.neighbor_pairs()[0]) == pytest.approx(1.961, abs=1e-3)  # spec §2.3


@pytest.mark.parametrize(
    "mech",
    [AgnosticLearner(), PrivateAgnosticABMS(), ClosureLearn(), RelabelAndLearn()],
    ids=lambda m: m.name,
)
def test_exact_pmf_matches_sampling(mech: object, rng: np.random.Generator) -> None:
    m = mech
    ds = m.neighbor_pairs()[0].dataset  # type: ignore[attr-defined]
    P = m.probabilities(ds)  # type: ignore[attr-defined]
    N = 40_000
    out = m.sample(ds, N, rng=rng)  # type: ignore[attr-defined]
    idx = out if out.ndim == 1 else out[:, 0] * (m.d + 1) + out[:, 1]  # type: ignore[attr-defined]
    emp = np.bincount(idx, minlength=P.size) / N
    sd = np.sqrt(P * (1 - P) / N)
    # 5σ per cell, ≤ 289 cells: false-failure probability ≤ 289 · 5.7e-7 < 2e-4
    assert np.all(np.abs(emp - P) <= 5 * sd + 1e-12)


def test_exact_epsilon_below_proved_claim() -> None:
    for m in (AgnosticLearner(), RelabelAndLearn(), PrivateAgnosticABMS(), ClosureLearn(), EMLearner()):
        for p in m.neighbor_pairs():
            assert m.exact_epsilon(p) <= m.claim.epsilon + 1e-9, (m.name, p.description)


# --------------------------------------------------------------------------- utility
def test_em_learner_tail_bound(rng: np.random.Generator) -> None:
    # [ABMS] Prop. 3.13(ii): Pr[q(h) ≥ min q + t] ≤ |C| exp(−εt/2), checked exactly
    m = EMLearner(d=16)
    x = rng.integers(0, 16, 60)
    ds = labelled(x, (x >= 7).astype(int) ^ (rng.random(60) < 0.1))
    C = concept_class("thr", 16)
    q = (C[:, x] != ds.y[None, :]).sum(1)  # type: ignore[index]
    p = m.probabilities(ds)
    for t in (2, 5, 10):
        assert p[q >= q.min() + t].sum() <= C.shape[0] * math.exp(-t / 2) + 1e-12


def _excess(C: np.ndarray, rows: np.ndarray, d: int, tstar: int, eta: float) -> np.ndarray:
    truth = (np.arange(d) >= tstar).astype(int)
    err = eta + (1 - 2 * eta) * (C[rows] != truth[None]).mean(1)
    best = eta + (1 - 2 * eta) * (truth[None] != C).mean(1).min()
    return np.asarray(err - best)


def test_agnostic_learner_utility(rng: np.random.Generator) -> None:
    """THR_16, uniform x, 10% label noise, n = 300, ε = 1/3: excess error ≤ α = 0.1.

    Measured failure rate Pr[excess > 0.1] ≈ 0.015 (200 seeded repetitions). We assert at most
    20/200: if the true rate were 0.03, P[Bin(200, 0.03) > 20] < 1e-5 (false-failure bound).
    """
    d, n, eta, tstar = 16, 300, 0.1, 6
    m = AgnosticLearner(epsilon=1 / 3, d=d, min_n=n, max_n=n)
    C = m.matrix
    fails = 0
    for _ in range(200):
        x = rng.integers(0, d, n)
        y = (x >= tstar).astype(int) ^ (rng.random(n) < eta)
        out = m.sample(labelled(x, y), 1, rng=rng)
        fails += int(_excess(C, out, d, tstar, eta)[0] > 0.1)
    assert fails <= 20


def test_private_prediction_utility(rng: np.random.Generator) -> None:
    """Thm 4.2 (α = 0.25): err ≤ inf_c err + 2α w.p. ≥ 1 − 2β. Noisy THR_16 (η = 0.1), n = 102.

    Measured: mean excess 0.19, 95% quantile 0.30 < 2α = 0.5. Assert ≥ 90/100 repetitions
    within 2α; with a true rate ≥ 0.99, P[Bin(100, 0.01) ≥ 11] < 1e-8.
    """
    p = PrivatePrediction()
    d, eta, tstar = p.d, 0.1, 6
    truth = (np.arange(d) >= tstar).astype(int)
    ok = 0
    for _ in range(100):
        x = rng.integers(0, d, 102)
        y = (x >= tstar).astype(int) ^ (rng.random(102) < eta)
        votes = p.run(labelled(x, y), 1, rng)[0]
        bits = p.aggregate(np.tile(votes, (200, 1)), rng)
        excess = (1 - 2 * eta) * (bits != truth[None]).mean()  # best threshold has error η
        ok += int(excess <= 2 * p.alpha)
    assert ok >= 90


def test_aggregator_promise() -> None:
    # Lemma 4.1 with the EM aggregator: ≤ r/3 wrong votes ⇒ error prob ≤ e^{−r/6} ≤ α/4
    p = PrivatePrediction()
    r = p.num_portions
    z = p.aggregator_epsilon() * (r - r // 3 - r / 2)
    assert 1 / (1 + math.exp(z)) <= p.alpha / 4


# --------------------------------------------------------------------------- A_Auxiliary (001 Alg. 3)
def test_auxiliary_claim_is_claim_3_5() -> None:
    from dpaudit.mechanisms.agnostic.auxiliary import AuxiliaryLearner

    m = AuxiliaryLearner()
    # Claim 3.5: (2 + 2 ln 2, 4eδ) with a (1, δ)-DP 𝒜; pure 𝒜 ⇒ δ = 0
    assert m.claim.epsilon == pytest.approx(2 + 2 * math.log(2))
    assert m.claim.delta == 0.0 and m.claim.kind is ClaimKind.PROVED
    assert "Claim 3.5" in m.claim.reference
    # the proof's precondition |W|/|T| ≤ (1−ε)/ε is enforced (16/8 = 2 = (2/3)/(1/3) is allowed)
    with pytest.raises(ValueError):
        AuxiliaryLearner(size_w=17)


def test_auxiliary_pairs_change_only_u() -> None:
    from dpaudit.mechanisms.agnostic.auxiliary import AuxiliaryHbarFromT, AuxiliaryLearner

    for m in (AuxiliaryLearner(), AuxiliaryHbarFromT()):
        for p in m.neighbor_pairs():
            a, b = p.dataset, p.neighbor
            diff = np.flatnonzero((a.X[:, 0] != b.X[:, 0]) | (a.y != b.y))  # type: ignore[operator]
            assert diff.tolist() and diff.max() < m.size_u, p.description


def test_auxiliary_oracle_and_structure(rng: np.random.Generator) -> None:
    from dpaudit.mechanisms.agnostic._common import replace_pair
    from dpaudit.mechanisms.agnostic.auxiliary import AuxiliaryHbarFromT, AuxiliaryLearner

    m = AuxiliaryLearner()
    pairs = m.neighbor_pairs()
    exact = [m.exact_epsilon(p) for p in pairs]
    assert max(exact) == pytest.approx(1.904, abs=1e-3)  # the white-box search's pair
    assert all(e <= m.claim.epsilon for e in exact)
    assert all(math.isinf(AuxiliaryHbarFromT().exact_epsilon(p)) for p in pairs)
    # T's labels are never read (A_Relabel uses T_X only, 𝒜 reads T^h): relabelling a U record
    # leaves the output law unchanged
    ds = pairs[2].dataset
    xs = ds.X[:, 0].astype(int).tolist()
    ys = ds.y.astype(int).tolist()  # type: ignore[union-attr]
    assert m.exact_epsilon(replace_pair(xs, ys, 0, (xs[0], 1 - ys[0]), "relabel U")) == pytest.approx(0.0)
    # h̄ agrees with h on V_X, so whenever 𝒜 returns h itself the predicate is 0 on V_X
    C = m.matrix
    xU, xV, _, _ = m.parts(ds)
    hb = m.hbar(xU, xV)
    assert np.all(C[hb][:, xV] == C[:, xV])
    # exact law vs sampling: 5σ per cell over ≤ 81 cells, false-failure probability < 5e-5
    law = m.law(ds)
    N = 40_000
    out = m.sample(ds, N, rng=rng)
    keys, counts = np.unique(out, axis=0, return_counts=True)
    emp = {tuple(int(v) for v in k): c / N for k, c in zip(keys, counts, strict=True)}
    for key, p in law.items():
        assert abs(emp.get(key, 0.0) - p) <= 5 * math.sqrt(p * (1 - p) / N) + 1e-12
    assert set(emp) <= set(law)


# --------------------------------------------------------------------------- private prediction oracle
def test_prediction_oracle_matches_sampling(rng: np.random.Generator) -> None:
    p = PrivatePrediction()
    # a registered pair plus a 3-value dataset whose n = 103 leaves a remainder record
    x = [3] * 30 + [8] * 40 + [12] * 33
    y = [0] * 30 + [1] * 40 + [1] * 33
    datasets = [q.dataset for q in p.neighbor_pairs()[:1]] + [p.neighbor_pairs()[0].neighbor]
    datasets.append(labelled(x, y))
    N = 40_000
    for ds in datasets:
        P = p.probabilities(ds)
        assert P.sum() == pytest.approx(1.0) and np.all(P > 0)
        emp = p.sample(ds, N, rng=rng).mean()
        # 5σ on a Bernoulli mean, 3 datasets: false-failure probability < 2e-6
        assert abs(emp - P[1]) <= 5 * math.sqrt(P[0] * P[1] / N)


def test_prediction_oracle_below_claim() -> None:
    p = PrivatePrediction()
    for q in p.neighbor_pairs():
        e = p.exact_epsilon(q)
        assert 0 < e <= p.claim.epsilon, q.description
