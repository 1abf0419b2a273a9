"""One-run bound (audit/one_run/bound.py), its AuditResult (audit/one_run/procedure.py), the multi-run score
route (audit/one_run/score_split.py) and the sampler check (audit/one_run/sampler_check.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpaudit.engine.one_run.bound as o
from dpaudit.engine.one_run.procedure import inclusion_bits, one_run, train_rng
from dpaudit.engine.one_run.sampler_check import check_sampler, lag_pmf
from dpaudit.engine.one_run.score_split import certify_in_out
from dpaudit.mechanisms.base import MechanismError, PrivacyClaim
from dpaudit.neighbors.base import Relation
from dpaudit.reports.schema import dumps, read_json


def paper_tail(m: int, r: int, v: int, eps: float, delta: float) -> float:
    """Theorem 5.2's f_ε(v), written as a plain loop from the statement."""
    q = 1 / (1 + math.exp(-eps))
    tail = stats.binom.sf(v - 1, r, q)
    alpha, window = 0.0, 0.0
    for i in range(1, v + 1):
        window += stats.binom.pmf(v - i, r, q)
        alpha = max(alpha, window / i)
    return min(1.0, tail + 2 * m * delta * alpha)


@pytest.mark.parametrize(
    ("m", "r", "v", "delta"),
    [
        (1000, 100, 90, 0.0),
        (1000, 100, 90, 1e-5),
        (1000, 1000, 700, 1e-5),
        (1000, 50, 50, 1e-5),
        (200, 40, 33, 1e-3),
    ],
)
def test_bound_is_the_largest_grid_point_the_paper_rejects(m: int, r: int, v: int, delta: float) -> None:
    eps = o.epsilon_bound(m=m, r=r, v=v, delta=delta, bound_level=0.05)
    assert paper_tail(m, r, v, eps, delta) < 0.05 or eps == 0.0
    step = 1e-9 if delta == 0 else o.GRID_STEP
    above = np.arange(eps + step, eps + 0.5, step if delta else 1e-3)
    assert all(paper_tail(m, r, v, float(e), delta) >= 0.05 for e in above[:: max(1, above.size // 12)])


def test_tail_bound_matches_the_loop() -> None:
    eps = np.array([0.0, 0.5, 1.3, 3.0])
    got = o.tail_bound(m=500, r=120, v=95, epsilon=eps, delta=1e-4)
    want = [paper_tail(500, 120, 95, float(e), 1e-4) for e in eps]
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_ceiling_matches_closed_form_with_1000_canaries() -> None:
    m, beta = 1000, 0.05
    scores = np.arange(m, dtype=float)
    bits = scores >= m / 2  # perfect guesses
    one = (o.Design(k_plus=500, k_minus=500),)
    cert = o.certify(scores, bits, delta=0.0, failure_probability=beta, designs=one)
    assert cert.best.correct == m
    assert cert.ceiling == pytest.approx(o.pure_ceiling(r=m, bound_level=beta), abs=1e-6)
    assert cert.epsilon_lower_bound == pytest.approx(cert.ceiling, abs=1e-12)
    grid = o.default_design(m)
    want = max(o.pure_ceiling(r=d.guesses, bound_level=beta / len(grid)) for d in grid)
    assert o.ceiling(m=m, delta=0.0, failure_probability=beta) == pytest.approx(want, abs=1e-6)
    # δ > 0 can only lower it
    assert o.ceiling(m=m, delta=1e-5, failure_probability=beta) <= want


def test_null_scores_certify_nothing_exactly() -> None:
    """No signal: each of the r guesses is right with probability ½ independently, so
    P[ε̂ > 0] = P[Bin(r, ½) ∈ {v : ε̂(v) > 0}], computed exactly; it must be ≤ β."""
    m, beta = 1000, 0.05
    for d in (o.Design(k_plus=500, k_minus=500), o.Design(k_plus=50, k_minus=50)):
        v = np.arange(d.guesses // 2, d.guesses + 1)  # below r/2 the binomial tail alone is ≥ ½ > β
        positive = np.array(
            [o.epsilon_bound(m=m, r=d.guesses, v=int(x), delta=1e-5, bound_level=beta) > 0 for x in v]
        )
        assert stats.binom.pmf(v, d.guesses, 0.5)[positive].sum() <= beta


def test_null_scores_seeded() -> None:
    """40 seeds of null scores; each certifies > 0 with probability ≤ 0.05, so ≥ 7 certify with
    probability ≤ P[Bin(40, 0.05) ≥ 7] < 0.006 (the false-failure probability of this test)."""
    hits = 0
    for s in range(40):
        bits = inclusion_bits(500, s)
        cert = o.certify(train_rng(s).standard_normal(500), bits, delta=1e-5, failure_probability=0.05)
        hits += cert.epsilon_lower_bound > 0
    assert hits < 7


def test_randomised_response_coverage() -> None:
    """ε-RR per canary is the worst case of the bound: 60 seeds at ε = 2, each exceeding 2 with
    probability ≤ 0.05; ≥ 10 exceedances has probability < 0.003 under a valid bound."""
    over = 0
    for s in range(60):
        bits = inclusion_bits(400, s)
        flip = train_rng(s).random(400) < 1 / (1 + math.exp(2.0))
        cert = o.certify((bits ^ flip).astype(float), bits, delta=0.0, failure_probability=0.05)
        over += cert.epsilon_lower_bound > 2.0
    assert over < 10


def test_guesses_ties_by_index_and_validation() -> None:
    ins, outs = o.guess_sets(np.array([1.0, 1.0, 0.0, 1.0]), o.Design(k_plus=2, k_minus=1))
    assert list(ins) == [0, 1] and list(outs) == [2]
    with pytest.raises(ValueError, match="finite"):
        o.certify([0.0, np.nan], [1, 0], delta=0.0, failure_probability=0.05)
    with pytest.raises(ValueError, match="shape"):
        o.certify([0.0, 1.0], [1, 0, 1], delta=0.0, failure_probability=0.05)
    with pytest.raises(ValueError, match="design"):
        o.certify([0.0, 1.0], [1, 0], delta=0.0, failure_probability=0.05, designs=(o.Design(2, 1),))


def _rr(eps: float):
    def train(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return (included ^ (rng.random(included.size) < 1 / (1 + math.exp(eps)))).astype(float)

    return train


def test_one_run_result_and_json_round_trip() -> None:
    claim = PrivacyClaim(epsilon=1.0, delta=0.0, relation=Relation.ADD_REMOVE_ONE, reference="test claim")
    r = one_run(_rr(4.0), num_canaries=1000, claim=claim, seed=3)
    assert r.violation and r.epsilon_lower_bound > 1.0
    extra = r.extra["one_run"]
    assert isinstance(extra, dict) and extra["m"] == 1000 and extra["ceiling"] == r.epsilon_ceiling
    back = read_json_text(dumps(r))
    assert (
        back.epsilon_lower_bound == r.epsilon_lower_bound
        and back.extra["one_run"]["k_plus"] == extra["k_plus"]
    )
    big = PrivacyClaim(epsilon=5.0, delta=0.0, relation=Relation.ADD_REMOVE_ONE, reference="test claim")
    assert not one_run(_rr(4.0), num_canaries=1000, claim=big, seed=3).violation


def read_json_text(text: str):
    import pathlib
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = pathlib.Path(d) / "r.json"
        p.write_text(text, encoding="utf-8")
        return read_json(p)


def test_one_run_user_failures_are_mechanism_errors() -> None:
    claim = PrivacyClaim(epsilon=1.0, delta=0.0, relation=Relation.ADD_REMOVE_ONE, reference="test claim")

    def boom(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        raise RuntimeError("nope")

    with pytest.raises(MechanismError, match="raised RuntimeError"):
        one_run(boom, num_canaries=10, claim=claim)
    with pytest.raises(MechanismError, match="shape"):
        one_run(lambda inc, rng: np.zeros(3), num_canaries=10, claim=claim)
    with pytest.raises(MechanismError, match="finite"):
        one_run(lambda inc, rng: np.full(10, np.inf), num_canaries=10, claim=claim)


def test_in_out_split_route() -> None:
    rng = np.random.default_rng(0)
    strong = certify_in_out(
        rng.normal(3.0, 1.0, 4000), rng.normal(0.0, 1.0, 4000), delta=0.0, failure_probability=0.05
    )
    assert 0.5 < strong.estimate.epsilon_lower_bound <= strong.ceiling
    # no signal: 30 seeds, each certifying > 0 with probability ≤ 0.05; ≥ 6 has probability < 0.02
    hits = sum(
        certify_in_out(
            rng.normal(size=400), rng.normal(size=400), delta=0.0, failure_probability=0.05, seed=s
        ).estimate.epsilon_lower_bound
        > 0
        for s in range(30)
    )
    assert hits < 6
    with pytest.raises(ValueError, match="finite"):
        certify_in_out([1.0, np.nan, 2.0, 3.0], [0.0] * 5, delta=0.0, failure_probability=0.05)


def _poisson(n: int, q: float, steps: int, rng: np.random.Generator):
    for _ in range(steps):
        yield rng.random(n) < q


def _shuffler(n: int, q: float, steps: int, rng: np.random.Generator):
    b = round(n * q)
    while True:
        perm = rng.permutation(n)
        for s in range(0, n - b + 1, b):
            yield perm[s : s + b]


def test_sampler_check_flags_bad_samplers_and_not_poisson() -> None:
    n, steps, q = 400, 200, 0.05
    kw = dict(num_examples=n, steps=steps, sample_rate=q, null_draws=399)
    # the Poisson sampler is flagged with probability ≤ 0.05 (the test's false-failure probability)
    assert not check_sampler(_poisson(n, q, steps, np.random.default_rng(5)), **kw).departure_found  # type: ignore[arg-type]
    assert check_sampler(_shuffler(n, q, steps, np.random.default_rng(5)), **kw).departure_found  # type: ignore[arg-type]
    fixed = (np.random.default_rng(t).choice(n, size=20, replace=False) for t in range(steps))
    assert check_sampler(fixed, **kw).departure_found  # type: ignore[arg-type]
    rates = np.where(np.arange(n) < n // 2, 1.5 * q, 0.5 * q)
    rng = np.random.default_rng(1)
    heavy = (rng.random(n) < rates for _ in range(steps))
    assert check_sampler(heavy, **kw).departure_found  # type: ignore[arg-type]
    dup = check_sampler((np.array([1, 1, 2]) for _ in range(steps)), **kw)  # type: ignore[arg-type]
    assert dup.defects and dup.departure_found
    with pytest.raises(ValueError, match="batches"):
        check_sampler(iter([np.array([1])]), **kw)  # type: ignore[arg-type]


def test_lag_pmf_moments() -> None:
    steps, q = 30, 0.3
    p = lag_pmf(steps, q)
    k = np.arange(steps)
    mean = float((k * p).sum())
    var = float((k * k * p).sum()) - mean**2
    assert mean == pytest.approx((steps - 1) * q * q)
    assert var == pytest.approx((steps - 1) * q * q * (1 - q * q) + 2 * (steps - 2) * (q**3 - q**4))
