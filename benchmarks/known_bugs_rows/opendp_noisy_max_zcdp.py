"""OpenDP make_noisy_max under zCDP: a negative control. opendp/opendp#2911 reported it spends 4x
its budget; the report did not reproduce (the zCDP path is the Gumbel / exponential mechanism).
Built through `from_callable`: the records are categories 0..3, the scores are their counts
(add/remove one record moves one count by 1: d_in = 1 under the L∞ metric), the release is the
index of the noisy maximum, and the claim is read from the measurement's own privacy map."""

from __future__ import annotations

from typing import Any

PACKAGE = "opendp"
ISSUE = "opendp/opendp#2911"
VERSIONS = {"0.16.0": "no violation"}
REQUIREMENTS = {"0.16.0": ["opendp==0.16.0"]}
NUM_SAMPLES = 20000
NOTE = "negative control: the zCDP claim must not be flagged"
CATEGORIES = 4
SCALE = 1.0
_CACHE: dict[str, Any] = {}


def _measurement() -> Any:
    if "m" not in _CACHE:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        space = (dp.vector_domain(dp.atom_domain(T=int)), dp.linf_distance(T=int))
        _CACHE["m"] = dp.m.make_noisy_max(*space, dp.zero_concentrated_divergence(), scale=SCALE)
    return _CACHE["m"]


def _release(dataset: Any, rng: Any) -> float:
    import numpy as np

    cats = np.clip(np.rint(dataset.X[:, 0]), 0, CATEGORIES - 1).astype(int)
    counts = np.bincount(cats, minlength=CATEGORIES)
    return float(_measurement()([int(c) for c in counts]))


def mechanism() -> Any:
    from importlib.metadata import version

    import dpaudit
    from dpaudit import Domain, PrivacyClaim, Relation
    from dpaudit.mechanisms.base import ClaimCurve, CurveKind

    rho = float(_measurement().map(1))
    ref = f"OpenDP {version('opendp')} make_noisy_max(scale={SCALE:g}, zCDP).map(d_in=1) = {rho:g}"
    claim = PrivacyClaim(
        epsilon=rho + 2 * (rho * 13.815510557964274) ** 0.5,  # the zCDP profile at δ = 1e-6
        delta=1e-6,
        relation=Relation.ADD_REMOVE_ONE,
        reference=ref,
        note=f"{rho:g}-zCDP (Bun & Steinke 2016, Prop 1.3 at δ = 1e-6)",
        curve=ClaimCurve(kind=CurveKind.ZCDP, parameter=rho),
    )
    return dpaudit.from_callable(
        _release,
        name="opendp_noisy_max_zcdp",
        claim=claim,
        domain=Domain(num_features=1, feature_low=0.0, feature_high=CATEGORIES - 1.0, integer_features=True),
        seedable=False,  # OpenDP draws from its own system RNG
    )
