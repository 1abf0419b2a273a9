from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpaudit.mechanisms import buggy, reference
from dpaudit.mechanisms.analytic import discrete_epsilon, gaussian_delta, gaussian_epsilon, gaussian_mu_for


def test_gaussian_profile_balle_wang() -> None:
    # μ = 1 has ε(1e-5) = 4.377 (Balle–Wang); calibration inverts the profile exactly
    assert gaussian_epsilon(1e-5, 1.0) == pytest.approx(4.3772, abs=1e-4)
    mu = gaussian_mu_for(1.0, 1e-5)
    assert gaussian_delta(1.0, mu) == pytest.approx(1e-5, rel=1e-9)
    assert gaussian_delta(1.0, 0.9 * mu) < 1e-5 < gaussian_delta(1.0, 1.1 * mu)


def test_discrete_epsilon() -> None:
    assert discrete_epsilon([0.5, 0.5], [0.25, 0.75]) == pytest.approx(math.log(2))
    assert discrete_epsilon([1.0, 0.0], [0.5, 0.5]) == math.inf
    assert discrete_epsilon([1.0, 0.0], [0.5, 0.5], delta=0.25) == math.inf  # Q has 0.5 where P has 0
    assert discrete_epsilon([0.75, 0.25], [0.25, 0.75], delta=0.25) == pytest.approx(math.log(2))


@pytest.mark.parametrize(
    "mech",
    [
        reference.ExponentialMechanism(),
        reference.ReportNoisyMax(),
        reference.AboveThreshold(),
        buggy.ExponentialMechanismNoHalf(),
        buggy.ReportNoisyMaxHalfScale(),
        buggy.AboveThresholdNoQueryNoise(),
    ],
    ids=lambda m: m.name,
)
def test_exact_distributions_match_sampling(mech: object, rng: np.random.Generator) -> None:
    """The white-box oracle's output distribution agrees with 200k samples (chi-square, level 1e-4)."""
    for pair in mech.neighbor_pairs():  # type: ignore[attr-defined]
        for ds in (pair.dataset, pair.neighbor):
            probs = mech.probabilities(ds)  # type: ignore[attr-defined]
            assert probs.sum() == pytest.approx(1.0, abs=1e-9)
            out = mech.sample(ds, 200_000, rng=rng)  # type: ignore[attr-defined]
            counts = np.bincount(out.astype(int), minlength=probs.size)
            keep = probs > 0
            assert counts[~keep].sum() == 0
            chi2 = float(np.sum((counts[keep] - 200_000 * probs[keep]) ** 2 / (200_000 * probs[keep])))
            assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-4


@pytest.mark.parametrize(
    ("twin", "claim_eps", "true_eps"),
    [
        (buggy.LaplaceSumRangeBug(), 1.0, 2.0),
        (buggy.RandomizedResponseHalfFlip(), 1.0, math.log(1 + 2 * math.e)),
        (buggy.ExponentialMechanismNoHalf(), 1.0, 1.958),
        (buggy.ReportNoisyMaxHalfScale(), 1.0, 1.5945),
        (buggy.AboveThresholdNoQueryNoise(), 1.0, math.inf),
        (buggy.GaussianSumRangeBug(), 1.0, 2.1547),
    ],
    ids=lambda x: getattr(x, "name", str(x)),
)
def test_twins_true_epsilon_documented(twin: object, claim_eps: float, true_eps: float) -> None:
    assert twin.claim.epsilon == claim_eps  # type: ignore[attr-defined]
    exact = max(twin.exact_epsilon(p) for p in twin.neighbor_pairs())  # type: ignore[attr-defined]
    if math.isinf(true_eps):
        assert math.isinf(exact)
    else:
        assert exact == pytest.approx(true_eps, abs=2e-3)


def test_correct_mechanisms_within_claim_on_their_pairs() -> None:
    for m in (
        reference.LaplaceSum(),
        reference.GaussianSum(),
        reference.RandomizedResponse(),
        reference.ExponentialMechanism(),
        reference.ReportNoisyMax(),
        reference.AboveThreshold(),
    ):
        for p in m.neighbor_pairs():
            assert m.exact_epsilon(p) <= m.claim.epsilon + 1e-9, (m.name, p.description)
