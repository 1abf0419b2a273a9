"""Example 3.3 of "Differentially Private Learning of Geometric Concepts": conjunctions by composition.

Kaplan, Mansour, Matias & Stemmer, §3.1 and Example 3.3: SetCoverLearner (AND form) over the
2d_b literals where every iteration is made differentially private on its own (the exponential
mechanism with ε̂ ≈ ε/√k) and the iterations are combined by composition (Thm 2.10), the
k^{1.5} learner the paper improves on with Claim 3.4. The paper leaves the constants
approximate ("ε̂ ≈ ε/√k"); this is the concrete version of docs/specs/seed-002.md §4.4 (a
reconstructed statement: the privacy argument below is derived here, the paper gives only the
sketch "each application of the exponential mechanism satisfies ε/√k-DP, see Theorem 2.10"):

    ε_L = ε/2;  scale = T/ε_L;  Δ = scale·ln(T/β)
    ε_0 solves  sqrt(2T ln(1/δ))·ε_0 + 2T·ε_0² = ε − ε_L           (Thm 2.10 part 2)
    for j in 1..T:  w_j = ⌊Lap(scale)⌋;  b_j = |S0| + w_j − Δ
                    q(h) = min(#_{h→0}(S0) − b_j/k, −#_{h→0}(S1))
                    h_j ∝ exp(ε_0·q(h)/2)                            (textbook EM, Prop 2.15)
                    delete every example with h_j(x) = 0

Privacy (derived). Fix the public past h_1..h_{j−1}: for neighbours D, D' (add/remove, relabel
or replace one record) the remaining sets are neighbours or equal (a replaced record may be
deleted on one side only: add/remove then). So |S0| changes by ≤ 1, and b_j = ⌊|S0| + L⌋ − Δ is a
post-processing of a Laplace mechanism of sensitivity 1 and scale T/ε_L: (ε_L/T, 0) per draw.
Given b_j, each term of the min changes by ≤ 1, so q has sensitivity 1 and exp(ε_0 q/2) is
(ε_0, 0)-DP (Prop 2.15). The 2T steps compose adaptively: the T Laplace draws cost ε_L in total
(their losses are bounded by ε_L/T each, always); the T selections are ε_0-DP each, so their
summed privacy loss exceeds T·ε_0(e^{ε_0} − 1) + ε_0·sqrt(2T ln(1/δ)) with probability ≤ δ
(Azuma, the advanced composition theorem, Dwork & Roth 2014 Thm 3.20; 002 Thm 2.10 part 2
writes 2Tε_0² ≥ Tε_0(e^{ε_0} − 1) for ε_0 ≤ 1). Hence PROVED (ε, δ) for all three relations,
and by basic composition PROVED (ε_L + T·ε_0, 0) for all three. The released output is a
function of h⃗ (ids, h_fin on the probe set, first removal steps), post-processing.

Tighter pure claims (the base class's `composition_claims`, derived in scl.py). With each step's
Laplace draw w_j fixed, q changes over all h within an interval of length r (1 add/remove,
1 + 1/k relabel, 2 replace), so step j is (ε̂·r, 0)-DP for every w_j, hence for the mixture, and
the T steps compose to (T·ε̂·r, 0) with ε̂ = ε_0/2 (the Laplace draws cost nothing on top: the
bound holds given them). These are PROVED and registered too; the runner uses the tightest at
the audited δ (`applicable_claim`), so the verdict claim is the pure add-remove one.

Preset (conj-small): d_b = 16, k = 3, α = 0.1 (T = 26), ε = 0.9, δ = 10⁻³: ε_0 ≈ 0.0224,
basic-composition pure claim ≈ 1.03; plain composition over the steps 0.291 / 0.388 / 0.582
(add-remove / relabel / replace-one), the verdict claim 0.291 (add-remove).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from ...neighbors.base import Relation
from ..base import ClaimKind, PrivacyClaim
from .learners import ConjunctionLearner
from .scl import PAPER, SetCoverLearner


def advanced_step_epsilon(*, total: float, steps: int, delta: float) -> float:
    """The ε_0 with sqrt(2·steps·ln(1/δ))·ε_0 + 2·steps·ε_0² = total (002 Thm 2.10 part 2)."""
    a, b = 2.0 * steps, math.sqrt(2.0 * steps * math.log(1.0 / delta))
    return (-b + math.sqrt(b * b + 4.0 * a * total)) / (2.0 * a)


@dataclass(frozen=True, slots=True, kw_only=True)
class CompositionConjunctionLearner(ConjunctionLearner):
    """Example 3.3: per-iteration private SCL(AND) over literals, accounted by composition."""

    name: str = "geo_conj_composition"
    first_removal_features: ClassVar[bool] = True
    reference: ClassVar[str] = PAPER + ", Section 3.1 / Example 3.3 with Thm 2.10"

    @property
    def laplace_epsilon(self) -> float:
        return self.epsilon / 2

    @property
    def step_epsilon(self) -> float:
        """ε_0 of each exponential-mechanism step (the accounted value; twins keep it)."""
        return advanced_step_epsilon(
            total=self.epsilon - self.laplace_epsilon, steps=self.T, delta=self.delta
        )

    @property
    def noise_scale(self) -> float:
        return self.T / self.laplace_epsilon

    @property
    def eps_hat(self) -> float:
        """The exponent coefficient: textbook EM exp(ε_0·q/2)."""
        return self.step_epsilon / 2

    def basic_epsilon(self) -> float:
        return self.laplace_epsilon + self.T * self.step_epsilon

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        out = []
        e0 = self.step_epsilon
        for rel in (Relation.ADD_REMOVE_ONE, Relation.RELABEL_ONE, Relation.REPLACE_ONE):
            out.append(
                PrivacyClaim(
                    epsilon=self.epsilon,
                    delta=self.delta,
                    relation=rel,
                    reference=self.reference + " (advanced composition; constants derived here: "
                    "reconstructed statement)",
                    kind=ClaimKind.PROVED,
                    note=f"T = {self.T} Laplace draws at ε_L/T (ε_L = {self.laplace_epsilon:g}) + T "
                    f"exponential-mechanism steps at ε_0 = {e0:.4g} (sensitivity 1 given b_j)",
                )
            )
            out.append(
                PrivacyClaim(
                    epsilon=self.basic_epsilon(),
                    delta=0.0,
                    relation=rel,
                    reference=self.reference + " (basic composition, derived here)",
                    kind=ClaimKind.PROVED,
                    note=f"ε_L + T·ε_0 = {self.laplace_epsilon:g} + {self.T}·{e0:.4g}",
                )
            )
        return (*out, *self.composition_claims())

    def composition_claims(self) -> list[PrivacyClaim]:
        """The base class's pure claims by plain composition over the T selection steps
        (`SetCoverLearner.composition_claims`: T·ε̂·r with ε̂ = ε_0/2 the exponent coefficient and
        r = 1, 1 + 1/k, 2 under add-remove, relabel, replace-one), all of them: its derivation
        fixes each step's Laplace draw, so it holds here unchanged, and T·ε̂·r ≤ T·ε_0 is always
        below the basic-composition claim ε_L + T·ε_0 (and at conj-small below the advanced
        (ε, δ) one, so the smallest of them, add-remove, decides the verdict)."""
        return [c for c in SetCoverLearner.composition_claims(self) if c.epsilon < self.basic_epsilon()]


@dataclass(frozen=True, slots=True, kw_only=True)
class CompositionNoSplit(CompositionConjunctionLearner):
    """Twin: every exponential-mechanism step runs at the total ε (exp(ε·q/2): neither the
    Laplace share nor the composition over the T steps is split off), while the claims keep the
    accounted ε_0."""

    name: str = "geo_conj_composition_no_split"

    def selection_eps(self) -> float:
        return self.epsilon / 2
