"""The f-DP one-run bound (audit/one_run/fdp.py: Mahloujifar, Melis & Chaudhuri 2024) and its
integration (`dpaudit.one_run(method=...)`, `dpaudit one-run/scores --method`)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, special, stats

import dpaudit.engine.one_run.fdp as f
from dpaudit.app.cli.entry import main
from dpaudit.engine.one_run.bound import Design, certify, default_design
from dpaudit.engine.one_run.procedure import inclusion_bits, one_run
from dpaudit.mechanisms.base import ClaimCurve, CurveKind, PrivacyClaim
from dpaudit.neighbors.base import Relation
from dpaudit.reports.schema import REQUIRED_KEYS

HERE = "tests.test_one_run_fdp"


def gauss2(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Score μ·S_i + N(0, 1) with μ = 2: each canary 2-GDP."""
    return 2.0 * included + rng.standard_normal(included.size)


gauss2.num_canaries = 1000  # type: ignore[attr-defined]


def greedy_total(g, *, m: int, k: int, c: int, tau: float) -> float:  # type: ignore[no-untyped-def]
    """G(τ) of the module docstring written as a plain loop, no slack (exact g given)."""
    r, h = c * tau / m, (k - c) * tau / m
    for j in range(c - 1, -1, -1):
        new_h = max(h, g(r))
        r, h = r + j / (k - j) * (new_h - h), new_h
    return r + h


def lp_max_tail(*, m: int, k: int, c: int, eps: float, delta: float) -> float:
    """max P[W ≥ c] over laws of W on {0..k} meeting Lemma 1 for f_{ε,δ} (f̄ is piecewise linear,
    so this linear programme is the exact optimum of Lemma 1's constraints)."""
    w = np.arange(k + 1)
    rows, rhs = [], []
    for i in range(1, k + 1):
        big_r, big_h = np.where(w >= i, w, 0) / m, np.where(w >= i - 1, k - w, 0) / m
        rows += [big_r - math.exp(eps) * big_h, big_r - math.exp(-eps) * big_h]
        rhs += [delta, 1 - math.exp(-eps) * (1 - delta)]
    res = optimize.linprog(
        -(w >= c).astype(float),
        A_ub=np.array(rows),
        b_ub=rhs,
        A_eq=np.ones((1, k + 1)),
        b_eq=[1.0],
        bounds=(0, None),
        method="highs",
    )
    return float(-res.fun)


# ---------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0, 6.0])
def test_one_canary_one_guess_is_randomised_response(eps: float) -> None:
    """m = k = 1: P[right] ≤ f̄(P[wrong]) gives exactly e^ε/(1+e^ε) under ε-DP and Φ(μ/2) under μ-GDP."""
    q = float(special.expit(eps))
    assert f.tail_bound(f.approx_dp(eps, 0.0), m=1, k=1, v=1, rel=1e-6) == pytest.approx(q, rel=2e-6)
    assert f.tail_bound(f.gdp(eps), m=1, k=1, v=1, rel=1e-6) == pytest.approx(
        float(special.ndtr(eps / 2)), rel=2e-6
    )


def test_conservative_rounding_at_the_exact_boundary() -> None:
    """At m = k = c = 1 and ε-DP, G(τ) = τ + e^ε τ − (e^ε − 1) exceeds 1 iff τ > q: the computed
    test must not reject at τ = q (the slack rounds towards "not rejected") and must just above."""
    for eps in (0.3, 1.0, 3.0):
        q = math.exp(eps) / (1 + math.exp(eps))
        tf = f.approx_dp(eps, 0.0)
        assert not f.rejects(tf, m=1, k=1, c=1, tau=q)
        assert not f.rejects(tf, m=1, k=1, c=1, tau=q * (1 - 1e-9))
        assert f.rejects(tf, m=1, k=1, c=1, tau=min(1.0, q * (1 + 1e-9)))
    for mu in (0.5, 2.0):  # μ-GDP: τ + Φ(Φ⁻¹(τ) − μ) = 1 at τ = Φ(μ/2)
        p = float(special.ndtr(mu / 2))
        assert not f.rejects(f.gdp(mu), m=1, k=1, c=1, tau=p)
        assert f.rejects(f.gdp(mu), m=1, k=1, c=1, tau=p * (1 + 1e-8))


def test_matches_the_plain_recursion_away_from_the_boundary(rng: np.random.Generator) -> None:
    for _ in range(60):
        k = int(rng.integers(1, 60))
        m, c = int(rng.integers(k, 200)), int(rng.integers(0, k + 1))
        mu, tau = float(rng.uniform(0, 4)), float(rng.uniform(0.001, 1))
        total = greedy_total(
            lambda y, mu=mu: special.ndtr(special.ndtri(min(y, 1.0)) - mu), m=m, k=k, c=c, tau=tau
        )
        if abs(total - k / m) > 1e-6 * k / m:
            assert f.rejects(f.gdp(mu), m=m, k=k, c=c, tau=tau) == (total > k / m), (m, k, c, mu, tau)


def test_no_evidence_never_rejects() -> None:
    assert not f.rejects(f.gdp(0.5), m=10, k=10, c=0, tau=1e-9)
    assert f.tail_bound(f.gdp(0.5), m=10, k=10, v=0) == 1.0
    # half right is what blind guessing gets: μ = 0 (perfect privacy) is not rejected
    assert f.mu_bound(m=1000, k=100, c=50, tau=0.05) == 0.0
    assert f.epsilon_bound(m=1000, k=100, c=50, delta=0.0, tau=0.05) == 0.0


# ---------------------------------------------------------------------- soundness
@pytest.mark.parametrize(("m", "k", "c", "eps", "delta"), [(6, 4, 3, 1.0, 0.0), (30, 12, 11, 2.0, 1e-3)])
def test_bound_is_the_exact_optimum_of_lemma_1(m: int, k: int, c: int, eps: float, delta: float) -> None:
    """The recursion's bound equals the linear programme's optimum (never below it: sound)."""
    lp = lp_max_tail(m=m, k=k, c=c, eps=eps, delta=delta)
    bound = f.tail_bound(f.approx_dp(eps, delta), m=m, k=k, v=c, rel=1e-5)
    assert lp - 1e-9 <= bound <= lp * (1 + 2e-5) + 1e-9


@pytest.mark.parametrize(("m", "k", "v", "eps"), [(1000, 100, 80, 1.0), (50, 10, 9, 1.0), (300, 40, 40, 2.0)])
def test_pure_dp_bound_covers_randomised_response(m: int, k: int, v: int, eps: float) -> None:
    """k canaries under ε-randomised response, guessed from their bits: W ~ Bin(k, e^ε/(1+e^ε)),
    an ε-DP law, so any sound bound is ≥ its tail; SNJ's bound is that tail (exact at δ = 0), the
    f-DP one is looser there but not by much."""
    exact = float(stats.binom.sf(v - 1, k, special.expit(eps)))
    bound = f.tail_bound(f.approx_dp(eps, 0.0), m=m, k=k, v=v, rel=1e-4)
    assert exact <= bound <= 1.25 * exact


def test_gdp_bound_covers_the_gaussian_mechanism(rng: np.random.Generator) -> None:
    """Simulated W of the Gaussian mechanism (score 2·S_i + N(0, 1), 2-GDP per canary), m = 200,
    5 + 5 guesses: the bound at μ = 2 is above the empirical tail's 10⁻⁶ Clopper–Pearson lower
    bound (false failure ≤ 10⁻⁶ per v) and within 2% of the tail (near tight for few guesses)."""
    m, n = 200, 4000
    bits = rng.random((n, m)) < 0.5
    order = np.argsort(-(2.0 * bits + rng.standard_normal((n, m))), axis=1, kind="stable")
    w = np.take_along_axis(bits, order[:, :5], 1).sum(1) + (~np.take_along_axis(bits, order[:, -5:], 1)).sum(
        1
    )
    for v in (9, 10):
        hits = int((w >= v).sum())
        low = stats.beta.ppf(1e-6, hits, n - hits + 1)
        bound = f.tail_bound(f.gdp(2.0), m=m, k=10, v=v)
        assert low <= bound <= 1.02 * hits / n + 0.01, (v, hits, bound)


def test_monotone_in_level_and_parameter() -> None:
    m, k, c = 500, 50, 45
    taus = np.geomspace(1e-6, 1, 25)
    for tf in (f.gdp(1.0), f.approx_dp(1.5, 1e-5), f.zcdp(0.3)):
        verdicts = [f.rejects(tf, m=m, k=k, c=c, tau=float(t)) for t in taus]
        assert verdicts == sorted(verdicts)  # not rejected below a threshold, rejected above
    for family in (f.gdp, lambda e: f.approx_dp(e, 1e-5)):
        verdicts = [f.rejects(family(float(p)), m=m, k=k, c=c, tau=0.01) for p in np.linspace(0, 5, 26)]
        assert verdicts == sorted(verdicts, reverse=True)
    mu = f.mu_bound(m=m, k=k, c=c, tau=0.01)
    assert mu > 0 and f.rejects(f.gdp(mu), m=m, k=k, c=c, tau=0.01)
    assert not f.rejects(f.gdp(mu + 2 * f.TOLERANCE * max(1, mu)), m=m, k=k, c=c, tau=0.01)


def test_claim_tradeoffs() -> None:
    gdp_claim = PrivacyClaim(
        epsilon=4.4,
        delta=1e-5,
        relation=Relation.ADD_REMOVE_ONE,
        reference="r",
        curve=ClaimCurve(kind=CurveKind.GDP, parameter=1.0),
    )
    t = f.from_claim(gdp_claim)
    assert t.gdp_mu == 1.0 and t.points == ((4.4, 1e-5),) and t.describe() == "1-GDP"
    y = 0.3
    assert t.blow_up_inverse(y) == pytest.approx(
        max(special.ndtr(special.ndtri(y) - 1.0), math.exp(-4.4) * (y - 1e-5)), rel=1e-8
    )
    table = ((1e-6, 3.0), (1e-3, 2.0))
    acc = PrivacyClaim(
        epsilon=2.5,
        delta=1e-5,
        relation=Relation.ADD_REMOVE_ONE,
        reference="r",
        curve=ClaimCurve(kind=CurveKind.ACCOUNTANT, points=table, source="test accountant"),
    )
    ta = f.from_claim(acc)
    assert ta.points == ((2.5, 1e-5), (3.0, 1e-6), (2.0, 1e-3))
    singles = [f.approx_dp(e, d).blow_up_inverse(0.9) for e, d in ta.points]
    assert ta.blow_up_inverse(0.9) == pytest.approx(max(singles), abs=1e-12)
    z = f.from_claim(
        PrivacyClaim(
            epsilon=3.0,
            delta=1e-5,
            relation=Relation.ADD_REMOVE_ONE,
            reference="r",
            curve=ClaimCurve(kind=CurveKind.ZCDP, parameter=0.5),
        )
    )
    assert len(z.points) == 1 + len(f.ZCDP_DELTAS)
    for bad in (
        lambda: f.TradeOff(),
        lambda: f.gdp(-1.0),
        lambda: f.approx_dp(math.inf, 0.0),
        lambda: f.approx_dp(1.0, 1.0),
        lambda: f.zcdp(0.0),
    ):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(ValueError, match="k ≤ m"):
        f.rejects(f.gdp(1.0), m=5, k=6, c=1, tau=0.1)
    with pytest.raises(ValueError, match="τ"):
        f.rejects(f.gdp(1.0), m=5, k=5, c=1, tau=0.0)


# ---------------------------------------------------------------------- certificates
def test_certificate_against_snj() -> None:
    """Same scores, designs and β: at δ = 10⁻⁵ the f-DP ε bound beats SNJ's (whose δ term is
    2mδ); at δ = 0 SNJ's is exact and the f-DP one is within 0.02 below it."""
    m = 2000
    bits = inclusion_bits(m, 3)
    scores = 2.0 * bits + np.random.default_rng(4).standard_normal(m)
    fd = f.certify_fdp(scores, bits, claim=f.gdp(1.0), delta=1e-5, failure_probability=0.05)
    snj = certify(scores, bits, delta=1e-5, failure_probability=0.05)
    assert fd.test_level == snj.test_level == 0.05 / 7
    assert fd.epsilon_lower_bound > snj.epsilon_lower_bound > 0
    assert fd.claim_rejected and fd.claim_tail_bound < 0.05 / 7 and 1.0 < fd.mu_lower_bound < 2.0
    assert fd.ceiling >= fd.epsilon_lower_bound and fd.mu_ceiling >= fd.mu_lower_bound
    pure = f.certify_fdp(scores, bits, claim=f.gdp(1.0), delta=0.0, failure_probability=0.05)
    snj0 = certify(scores, bits, delta=0.0, failure_probability=0.05)
    assert snj0.epsilon_lower_bound - 0.02 <= pure.epsilon_lower_bound <= snj0.epsilon_lower_bound
    assert not f.certify_fdp(
        scores, bits, claim=f.gdp(2.0), delta=1e-5, failure_probability=0.05
    ).claim_rejected


def test_ceiling_is_every_guess_right() -> None:
    m = 500
    bits = inclusion_bits(m, 1)
    one = (Design(k_plus=100, k_minus=100),)
    fd = f.certify_fdp(
        bits.astype(float), bits, claim=f.gdp(1.0), delta=1e-5, failure_probability=0.05, designs=one
    )
    assert fd.best.correct == 200 and fd.test_level == 0.05
    ceiling = f.fdp_ceiling(m=m, delta=1e-5, failure_probability=0.05, designs=one)
    assert fd.epsilon_lower_bound == fd.ceiling == ceiling > 0
    full = f.certify_fdp(bits.astype(float), bits, claim=f.gdp(1.0), delta=1e-5, failure_probability=0.05)
    for o in full.outcomes:
        assert o.epsilon <= o.epsilon_ceiling and o.mu <= o.mu_ceiling
        assert (o.epsilon == o.epsilon_ceiling) == (o.correct == o.design.guesses)
    assert full.ceiling == f.fdp_ceiling(m=m, delta=1e-5, failure_probability=0.05)
    with pytest.raises(ValueError, match="failure probability"):
        f.certify_fdp(bits.astype(float), bits, claim=f.gdp(1.0), delta=0.0, failure_probability=1.0)


# ---------------------------------------------------------------------- API and CLI
def test_api_methods() -> None:
    claim = PrivacyClaim(
        epsilon=4.38,
        delta=1e-5,
        relation=Relation.ADD_REMOVE_ONE,
        reference="1-GDP",
        curve=ClaimCurve(kind=CurveKind.GDP, parameter=1.0),
    )
    snj = one_run(gauss2, num_canaries=1000, claim=claim, seed=0, method="snj")
    fdp = one_run(gauss2, num_canaries=1000, claim=claim, seed=0)  # the default (issue 37)
    both = one_run(gauss2, num_canaries=1000, claim=claim, seed=0, method="both")
    assert "fdp" not in snj.extra["one_run"] and not snj.violation  # type: ignore[operator]
    info = fdp.extra["one_run"]
    assert isinstance(info, dict) and info["methods"] == "fdp" and info["fdp"]["claim_rejected"]
    assert fdp.violation and fdp.findings and fdp.epsilon_lower_bound < 4.38  # rejected by the curve
    assert fdp.test_level == pytest.approx(0.05 / 7)
    binfo = both.extra["one_run"]
    assert isinstance(binfo, dict) and binfo["test_level"] == pytest.approx(0.025 / 7)
    assert binfo["fdp"]["test_level"] == pytest.approx(0.025 / 7)
    assert both.epsilon_lower_bound == max(
        binfo["fdp"]["epsilon_lower_bound"], *(d["epsilon_lower_bound"] for d in binfo["designs"])
    )
    with pytest.raises(ValueError, match="method"):
        one_run(gauss2, num_canaries=100, claim=(1.0, 0.0), method="fdpx")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_method_flag(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "one-run", f"{HERE}:gauss2", "--gdp", "1", "--method", "fdp")
    assert code == 1 and "f-DP test" in out and "REJECTED" in out
    code, out, _ = run(capsys, "one-run", f"{HERE}:gauss2", "--gdp", "1", "--method", "snj")
    assert code == 0 and "f-DP" not in out
    code, out, _ = run(capsys, "one-run", f"{HERE}:gauss2", "--gdp", "1")  # the default is fdp (issue 37)
    assert code == 1 and "f-DP test" in out and "REJECTED" in out
    code, out, _ = run(capsys, "one-run", f"{HERE}:gauss2", "--gdp", "3", "--method", "both", "--json")
    data = json.loads(out)
    assert code == 0 and all(k in data for k in REQUIRED_KEYS)
    assert data["extra"]["one_run"]["methods"] == "both" and "--method both" in data["command"]
    bits = inclusion_bits(1000, 2)
    np.savez(
        tmp_path / "s.npz", scores=2.0 * bits + np.random.default_rng(0).standard_normal(1000), included=bits
    )
    code, out, _ = run(capsys, "scores", str(tmp_path / "s.npz"), "--gdp", "1", "--method", "fdp", "--json")
    assert code == 1 and json.loads(out)["extra"]["one_run"]["fdp"]["claim_rejected"]
    (tmp_path / "io.json").write_text(json.dumps({"in_scores": [1.0] * 50, "out_scores": [0.0] * 50}))
    for argv, words in (
        (["one-run", f"{HERE}:gauss2", "--gdp", "1", "--method", "fdpx"], "--method"),
        (["one-run", f"{HERE}:gauss2", "--gdp", "1", "--epsilon", "1"], "give the claim once"),
        (["one-run", f"{HERE}:gauss2", "--gdp", "0", "--method", "fdp"], "--gdp"),
        (["scores", str(tmp_path / "io.json"), "--epsilon", "1", "--method", "fdp"], "--method"),
    ):
        code, _, err = run(capsys, *argv)
        assert code == 2 and words in err and len(err.strip().splitlines()) == 1, (argv, err)


def test_default_designs_unchanged() -> None:
    """The f-DP route reuses SNJ's designs, so `both` is one union bound over 2K fixed tests."""
    assert len(default_design(1000)) == 7
