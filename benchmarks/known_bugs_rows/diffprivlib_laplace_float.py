"""diffprivlib `mechanisms.Laplace` on doubles: the set of doubles it can release depends on the
input (Mironov, "On significance of the least significant bits for differential privacy", CCS
2012), reported as IBM/differential-privacy-library#19. 0.4.1 draws the noise the textbook way,
`value − b·sign(u)·log(1 − 2|u|)` from one uniform u; PR #47 (0.5.0, "secure random sampling",
Holohan & Braghin, ESORICS 2021) combines several uniforms per draw, which issue #94 (open) reports
still leaves outputs whose precision depends on the value (precision-based attacks, Haney et al.
2022): from 0 the outputs in (−1/2, 1/2) take every double, from 1 only multiples of 2^-53. So
both versions are expected to be flagged; no release is known to fix it.

The row is what a user calls: `Laplace(epsilon=1, sensitivity=1).randomise(value)` on one value in
[0, 1], wrapped with `dpaudit.from_callable` with `floating_point=True` (the mechanism releases a
double, so the audit may read its bits: the float events); no pair, no statistic. The library
draws from the system's random source (`secrets.SystemRandom` in 0.4.1): not seedable.
"""

from __future__ import annotations

from typing import Any

PACKAGE = "diffprivlib"
ISSUE = "IBM/differential-privacy-library#19 (PR #47 in 0.5.0; still open as #94)"
VERSIONS = {"0.4.1": "violation", "0.6.6": "violation"}
REQUIREMENTS = {
    "0.4.1": ["diffprivlib==0.4.1", "scikit-learn<1.8"],
    "0.6.6": ["diffprivlib==0.6.6", "scikit-learn<1.8"],
}
NUM_SAMPLES = 20_000
FAST_NUM_SAMPLES = 2000
FAST_ARGS = ["--sequential"]
NOTE = (
    "0.6.6 has PR #47's sampler and is still flagged: #94 (open) reports it vulnerable to "
    "precision-based attacks; the witness is the same float event in both versions"
)
EPSILON = 1.0


def _laplace() -> Any:
    """`diffprivlib.mechanisms.Laplace`. 0.4.1's package `__init__` also imports its models, which
    need a scikit-learn older than any built for Python 3.11 (`_logistic_loss_and_grad`, gone
    since 1.1); the mechanisms need none of it. A failed import of the package leaves its
    already-imported `diffprivlib.mechanisms` in `sys.modules`, from where it is taken."""
    import importlib
    import sys

    try:
        importlib.import_module("diffprivlib.mechanisms")
    except ImportError:
        if "diffprivlib.mechanisms" not in sys.modules:
            raise
    return sys.modules["diffprivlib.mechanisms"].Laplace


def _randomise(dataset: Any, num_samples: int, rng: Any) -> Any:
    """`randomise(value)` num_samples times on the dataset's one value, as a user calls it."""
    import numpy as np

    mech = _laplace()(epsilon=EPSILON, sensitivity=1.0)
    value = float(dataset.X[0, 0])
    return np.array([float(mech.randomise(value)) for _ in range(num_samples)], dtype=np.float64)


def mechanism() -> Any:
    from importlib.metadata import version

    _laplace()  # imported once here, so that no release meets 0.4.1's import failure

    import dpaudit
    from dpaudit import Domain, PrivacyClaim, Relation

    claim = PrivacyClaim(
        epsilon=EPSILON,
        relation=Relation.REPLACE_ONE,
        reference=f"diffprivlib {version('diffprivlib')} Laplace(epsilon={EPSILON:g}, sensitivity=1)",
        note="the mechanism's ε at sensitivity 1: one value in [0, 1] replaced",
    )
    return dpaudit.from_callable(
        name="diffprivlib_laplace_float",
        claim=claim,
        domain=Domain(num_features=1, feature_low=0.0, feature_high=1.0, min_size=1, max_size=1),
        batch_fn=_randomise,
        output_kind="continuous",
        floating_point=True,
        seedable=False,
    )
