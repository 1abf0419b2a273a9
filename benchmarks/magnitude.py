"""The magnitude distinguisher on a diverging fit and its twin (issue 44, item 6).

`python benchmarks/magnitude.py` (`PYTHONPATH=.` from a checkout: the tree's dpaudit) audits, on one
registered pair, at 1,000 / 2,000 / 4,000 samples per side and seeds 1–3, with the default
distinguishers and with the defaults minus the magnitude family:

- `diverging`: on the degenerate design D the fitted slope is 1/Z (Z standard normal: heavy tails
  of either sign, almost never near zero); on D′ a Cauchy-noised slope (density 1/π at zero);
- `twin`: Cauchy noise on both sides, the slope shifted by 1 (claim ε = 1 ≥ its true ε ≈ 0.96).

It prints one line per audit: mechanism, samples per side, distinguisher set, seed, certified ε,
verdict, event. Measured (2026-11-29): `diverging` without the family ≤ 0.07 / 0.18 / 0.22, with it
1.9–2.8 / 3.1–3.5 / 4.5–4.8; `twin` never flagged (≤ 0.13).
"""

from __future__ import annotations

import numpy as np

from dpaudit.engine.distinguishers import DEFAULT_DISTINGUISHERS
from dpaudit.engine.runner import run_audit
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.base import ClaimKind, PrivacyClaim, from_callable
from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation

WITHOUT = tuple(d for d in DEFAULT_DISTINGUISHERS if d.name != "magnitude")
CLAIM = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="benchmark", kind=ClaimKind.PROVED)
DOMAIN = Domain(num_features=1, feature_low=(0.0,), feature_high=(2.0,))
PAIR = NeighborPair(
    dataset=Dataset(np.array([[0.5], [0.5], [0.5]])),
    neighbor=Dataset(np.array([[0.5], [0.5], [1.5]])),
    relation=Relation.REPLACE_ONE,
    description="a degenerate design against a spread one",
)


def diverging(ds: Dataset, rng: np.random.Generator) -> np.ndarray:
    if ds.X[:, 0].std() == 0:  # a degenerate design: the fitted slope is noise / noise
        return np.array([1.0 / rng.standard_normal()])
    return np.array([rng.standard_cauchy()])


def twin(ds: Dataset, rng: np.random.Generator) -> np.ndarray:
    return np.array([ds.X[:, 0].mean() + rng.standard_cauchy()])


def main() -> None:
    for fn in (diverging, twin):
        mech = from_callable(fn, name=fn.__name__, claim=CLAIM, domain=DOMAIN)
        for n in (1000, 2000, 4000):
            for label, dists in (("without", WITHOUT), ("with", DEFAULT_DISTINGUISHERS)):
                for seed in (1, 2, 3):
                    r = run_audit(mech, [PAIR], AuditConfig(num_samples=n, seed=seed), distinguishers=dists)
                    e = r.pairs[0].estimate
                    print(
                        f"{fn.__name__} {n} {label} seed={seed} ε≥{r.epsilon_lower_bound:.3f} "
                        f"{r.verdict.value} {e.event}"
                    )


if __name__ == "__main__":
    main()
