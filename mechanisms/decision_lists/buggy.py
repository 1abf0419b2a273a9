"""Buggy twins: "Privately Learning Decision Lists and a Differentially Private Winnow", Thm 3.5, 4.4.

The catalogue of docs/specs/seeds-003-004.md §2.1.7 and §2.3.7.

Each twin overrides one method (or one accounting hook) and keeps its correct sibling's claim
(the bug). Presets: tiny decision list d = 3, ε0 = 1 (claims 2.0 add/remove and 4.0 replace-one:
basic composition binds); medium decision list |F| = 40, ε0 = 0.2 (claim 1.316 add/remove: the
cover bound binds); DP-Winnow d = 2, K = 2, m = 8, η = 0.05, ε0 = 0.5 (claim min(advanced 8.80,
basic 4.2) = 4.2). "Measured" numbers are certified lower bounds from `run_audit` (failure
probability 0.05) with the command in benchmarks/decision_lists.py.

Decision lists (twin → true ε on the registered pairs; detectable as measured):
- private_decision_list_early_stop (B-DL1): stop when S_j = ∅; uncovered probes show −1. ε = ∞. Yes.
- private_decision_list_deterministic (B-DL0): Rivest's greedy, no EM noise. ε = ∞. Yes.
- private_decision_list_no_half (B-DL5, tiny): exp(ε0·q) instead of exp(ε0·q/2). Exact oracle at
  δ = 1e-5: 1.58 (add/remove, claim 2.0), 2.60 (relabel, claim 4.0) on the registered pairs;
  the best add/remove pair found by an oracle hill-climb reaches 2.19 > 2.0, too thin to
  certify (see private_decision_list_no_half_wide). No (not at the audit's power).
- private_decision_list_no_half_wide (B-DL5, tiny features at ε0 = 2: sampler c = 2, claim
  4·1 = 4.0 add/remove): exact oracle 5.24 at δ = 1e-5 on its own oracle-searched add/remove
  pair (the correct learner: 2.19 there). Yes: certified 4.90 / 5.00 / 4.74 at seeds 0 / 1 / 2.
  At ε0 = 1 the margin is too thin: an oracle hill-climb finds add/remove pairs at 2.19 > 2.0
  (δ = 1e-5; e.g. S = {(000,0), (001,0)×2, (010,0), (011,0), (100,0), (110,0), (110,1)×3,
  (111,0)×2} + (001,1)), but the witness events have Pr ≈ 2e-4 vs 2e-3, too close to the claim
  to certify; at ε0 = 2 the per-step ratio e^{−2} compounds and the margin is ~1.2.
- private_decision_list_medium_no_half (B-DL5, medium): c = 0.2 instead of 0.1; true ε ≤ 2× the
  correct one and ≤ the c = 0.2 cover bound 2.77. See the registry entry for the measured bound.
- private_decision_list_medium_keep_misclassified (B-DL2, medium): only correctly classified
  covered points are dropped, so a misclassified point keeps influencing later steps (the cover
  lemma's condition "uncovered sets identical after x is covered" fails; basic composition 4.1
  still holds because every step's score keeps sensitivity 1).
- private_decision_list_medium_global_score (B-DL3, medium): errors are counted over the whole
  sample S instead of S_j (a global score), so candidates covering x keep x's vote after x is
  covered (condition (2) of Lemma A.1 fails; basic composition 4.1 holds).
- private_decision_list_data_features (B-DL4, tiny): F = the literals satisfied by at least one
  example (features "seen in the sample"). On the boundary pair (S has no x_1 = 1 example) the
  S list cannot separate e_1 from 0: ε = ∞. Yes.
- private_decision_list_no_group_privacy (B-DL6, own preset: one feature, ε0 = 2): the add/remove
  numbers are claimed for replace-one ((|F|+1)·c = 2.0 basic and (ε_cover, δ) cover) instead of
  (|F|+1)·2c = 4.0 and (2ε_cover, (1 + e^{ε_cover})δ). At the tiny preset (d = 3, ε0 = 1) no replace
  pair of ≤ 12 records found by an exact-oracle hill-climb exceeds 1.35 < 2.0 (4 steps dilute the
  non-monotone step); with one feature (2 steps) the exhaustive search finds a replace pair at exact
  2.338 > 2.0 (`no_group_privacy_pair`). Yes: certified 2.29 / 2.30 (seeds 0 / 1, 10^6 budget).

DP-Winnow (W1–W4 pairs of the correct mechanism unless stated):
- dp_winnow_shadow_release (B-W1): releases the private shadow w. ε = ∞ on W1. Yes.
- dp_winnow_no_cap (B-W2): update cap K dropped. Certified 4.84 > 4.2 at 2·10^5 samples. Yes.
- dp_winnow_cached_queries (B-W3): the SVT query is issued only on cached rounds (the schedule
  depends on the private record of the round). On W2 the S world (never cached) can never
  update, the S' world updates at t0 with probability ≈ 0.4: δ ≥ 0.4 at any ε, ε = ∞. Yes.
- dp_winnow_shadow_cache (B-W4): the cache test uses the private shadow w instead of w̃, so
  later epochs' queries depend on the changed record (pair W5 below, registered by this twin).
  Yes: certified 6.18 on W5 at 5·10^5 (the learned events see the later caches), above both the
  derived 2.14 and Thm 4.4's 4.2.
- dp_winnow_one_draw_charge (B-W5): each update charged as ONE EM draw instead of m (claim
  K·ε0 + K·ε_s basic); the spec's preset K = 4, m = 16, η = 0.1: exact W1 oracle ε(1e-5) = 7.36 against
  the claim 1.6.
- dp_winnow_reused_threshold (B-W6): the SVT is not re-initialised after ⊤: the threshold noise
  L̂ is drawn once and reused by all K epochs (cache and count are reset). True ε: within the
  claim. This is Lyu–Su–Li's Alg. 1 with c = K ⊤'s: threshold Lap(Δ/ε1) with ε1 = ε0/2 and
  query noise Lap(2cΔ/ε2) with ε2 = ε0 (c = 2, Δ = 1), so the SVT layer costs 1.5·ε0 ≤ the
  K·ε0 = 2·ε0 accounted. No: within Thm 4.4's accounting at K = 2; against the derived claim
  (ε0 for the one epoch a change reaches, winnow.py) the reused threshold couples the K epochs, so
  its SVT layer may cost up to 1.5·ε0 = 0.75: an excess ≤ 0.25 over 2.14 that needs the SVT and
  the EM layers at their extremes at once (certified 1.21 at 5·10^5; not measurable here).
- dp_winnow_utility_eta (B-W7): runs with ConfidentWinnow's utility rate η = (1 − c)ρ = 0.125
  while the claim is computed with η = 0.05. Yes: exact W1 3.89 > the derived 2.14 (< 4.2).
- dp_winnow_half_charge: EM draws charged 2η instead of 4η (docs/specs/seeds-003-004.md §2.3.4
  open question). True ε ≤ the correct mechanism's. No (advanced composition is loose).
The measured detectability of B-W4…B-W7 is recorded in the registry (`detectable`, `bug`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...neighbors.base import NeighborPair, Relation
from ..base import ClaimKind, PrivacyClaim
from .rivest import PAPER, PrivateDecisionList, PrivateDecisionListMedium
from .winnow import DPWinnow, _relabel_pair


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivateDecisionListEarlyStop(PrivateDecisionList):
    """B-DL1: the list stops once every training point is covered; its length leaks."""

    name: str = "private_decision_list_early_stop"
    stop_when_covered = True


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivateDecisionListDeterministic(PrivateDecisionList):
    """B-DL0: Rivest's greedy without noise (ties broken uniformly), claim kept."""

    name: str = "private_decision_list_deterministic"

    def weight(self) -> float:
        return 1e3


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivateDecisionListNoHalf(PrivateDecisionList):
    """B-DL5: EM weights exp(ε0·q) while the accounting assumes exp(ε0·q/2)."""

    name: str = "private_decision_list_no_half"

    def weight(self) -> float:
        return self.epsilon0


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivateDecisionListNoHalfWide(PrivateDecisionListNoHalf):
    """B-DL5 at ε0 = 2 (tiny features, d = 3, 4 steps): sampler c = 2, claims from c = 1.

    Claim (add/remove, basic composition binds): 4·1 = 4.0. The extra registered pair (found by
    hill-climbing the exact oracle over multisets of ≤ 11 records on {0,1}^3, objective ε at
    δ = 1e-3) realises exact ε = 5.24 at δ = 1e-5 (5.07 at δ = 1e-3, 2.03 at δ = 1e-2); the
    correct learner (c = 1) on the same pair: 2.19. Witness: outputs with h(e_3) = 0 and the
    e_1 / (1,1,0) rows predicted 1, 0 (Pr 3.4e-5 under S, 6.5e-3 under S ∪ {(e_3, 0)}): the
    added record lowers every b = 1 rule covering e_3 (x_3, TRUE) by e^{−2} at each step while
    e_3 stays uncovered, so the ratio compounds over the steps before x_3 / TRUE is drawn.
    Audit (`python3 -W ignore -m dpaudit run private_decision_list_no_half_wide`, 10^6 budget):
    see the registry entry."""

    epsilon0: float = 2.0
    max_size: int = 12
    name: str = "private_decision_list_no_half_wide"

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return (*PrivateDecisionList.neighbor_pairs(self), no_half_wide_pair())


def no_half_wide_pair() -> NeighborPair:
    """Add/remove pair that realises B-DL5's violation at ε0 = 2 (exact oracle 4.99 > 4.0)."""
    from .rivest import _pair

    X = [*[(0, 0, 1)] * 2, *[(1, 0, 0)] * 2, *[(1, 0, 1)] * 2, *[(1, 1, 0)] * 5]
    y = [1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 1]
    return _pair(
        X,
        y,
        [*X, (0, 0, 1)],
        [*y, 0],
        Relation.ADD_REMOVE_ONE,
        "add (e_3, 0) next to two copies of (e_3, 1); e_1-, (1,1,0)-points carry mixed labels "
        "(exact-oracle hill-climb witness for B-DL5 at ε0 = 2)",
        "conflicting-labels",
        "oracle-search",
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivateDecisionListMediumNoHalf(PrivateDecisionListMedium):
    """B-DL5 on the medium preset (the cover bound binds there)."""

    name: str = "private_decision_list_medium_no_half"

    def weight(self) -> float:
        return self.epsilon0


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivateDecisionListKeepMisclassified(PrivateDecisionListMedium):
    """B-DL2: after choosing (f, b) only the covered points with label b are dropped."""

    name: str = "private_decision_list_medium_keep_misclassified"

    def removed(
        self, covers: NDArray[np.bool_], b: NDArray[Any], y_pos: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        correct = y_pos[None, :] == (np.asarray(b)[:, None] > 0)
        return covers & correct


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivateDecisionListGlobalScore(PrivateDecisionListMedium):
    """B-DL3: the score counts errors over the whole sample S, not the remaining S_j."""

    name: str = "private_decision_list_medium_global_score"

    def score_mask(self, mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
        return np.ones_like(mask)


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivateDecisionListDataFeatures(PrivateDecisionList):
    """B-DL4: F = the literals (conjunctions) satisfied by at least one example of the sample."""

    name: str = "private_decision_list_data_features"

    def features_for(self, dataset: Any) -> tuple[tuple[tuple[int, bool], ...], ...]:
        from .rivest import evaluate_features

        feats = self.features
        if dataset.n == 0:
            return ()
        seen = evaluate_features(feats, dataset.X)[:, :-1].any(axis=0)
        return tuple(f for f, s in zip(feats, np.asarray(seen, dtype=bool).ravel(), strict=True) if s)


@dataclass(frozen=True, slots=True, kw_only=True)
class PrivateDecisionListNoGroupPrivacy(PrivateDecisionList):
    """B-DL6: the add/remove ε is reported for replace-one neighbours (group privacy forgotten).

    Own preset (one feature, ε0 = 2): F = {x_1}, two steps (x_1, TRUE), sampler and accounting
    c = 1, so the buggy replace-one claim is (|F|+1)·c = 2.0 where the correct learner claims
    (|F|+1)·2c = 4.0 (the cover bound (e − 1)·ln(e/δ) = 21.5 does not bind). At the tiny preset
    (d = 3, ε0 = 1, claim 2.0) an exact-oracle hill-climb over replace pairs of ≤ 12 records
    reaches only 1.35 (ε0 = 2: 3.09 vs 4.0; ε0 = 4: 7.09 vs 8.0): four steps dilute the one-step
    effect. With one feature the exhaustive search over replace pairs of ≤ 12 records finds
    `no_group_privacy_pair`: 4 × (x=0, y=1), 7 × (x=1, y=1), and (x=0, y=0) replaced by (x=0, y=1).
    The record's relabel moves the x_1-rule's score of the two bits in opposite directions (range
    2c, non-monotone), and the output "x_1 = 0 → 0, else 1" has probability 0.0346 vs 0.00334
    (ln 2.338 = the pair's exact ε(0)) > 2.0; the best pair overall (smaller outputs) reaches 2.374.
    The correct learner on the same pair: the same 2.338, below its 4.0. Measured: see the
    registry entry."""

    epsilon0: float = 2.0
    num_features: int = 1
    name: str = "private_decision_list_no_group_privacy"

    @property
    def all_claims(self) -> tuple[PrivacyClaim, ...]:
        c, steps, cover = self.accounted_weight(), self.num_steps, self.cover_epsilon()
        inherited = PrivateDecisionList.all_claims.fget(self)  # type: ignore[attr-defined]
        ar = [cl for cl in inherited if cl.relation is Relation.ADD_REMOVE_ONE]
        ro = [
            PrivacyClaim(
                epsilon=steps * c,
                relation=Relation.REPLACE_ONE,
                reference=f"{PAPER}, Prop. 2.1 + basic composition (BUG: add/remove cost)",
                note="(|F|+1)·c claimed for replace-one (should be (|F|+1)·2c)",
            ),
            PrivacyClaim(
                epsilon=cover,
                delta=self.delta,
                relation=Relation.REPLACE_ONE,
                reference=f"{PAPER}, Lemma A.1 (BUG: no group privacy)",
                kind=ClaimKind.PROVED,
                note="(ε_cover, δ) claimed for replace-one (should be (2ε_cover, (1 + e^ε_cover)δ))",
            ),
        ]
        return (*ar, *ro)

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        return (*PrivateDecisionList.neighbor_pairs(self)[:2], no_group_privacy_pair())


def no_group_privacy_pair() -> NeighborPair:
    """Replace-one pair on one feature where B-DL6's replace claim (|F|+1)·c = 2.0 fails (exact 2.338)."""
    from .rivest import _pair

    X = [*[(0,)] * 4, *[(1,)] * 7]
    y = [1] * 11
    return _pair(
        [*X, (0,)],
        [*y, 0],
        [*X, (0,)],
        [*y, 1],
        Relation.REPLACE_ONE,
        "replace (x=0, y=0) by (x=0, y=1) next to 4 × (0, 1) and 7 × (1, 1), one feature "
        "(exhaustive exact-oracle search over ≤ 12 records)",
        "relabelled-minority",
        "oracle-search",
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class DPWinnowShadowRelease(DPWinnow):
    """B-W1: also releases the private shadow weights w = softmax(s) at every update."""

    name: str = "dp_winnow_shadow_release"
    release_shadow = True


@dataclass(frozen=True, slots=True, kw_only=True)
class DPWinnowNoCap(DPWinnow):
    """B-W2: the k < K check is dropped (updates continue for the whole stream).

    The release needs T slots (one per possible update), so audits are slower (about 0.4 s
    per 10^4 samples per side). Measured: certified 4.56 at 10^5 and 4.84 at 2·10^5 samples
    (claim 4.2): detectable, with a thin margin."""

    name: str = "dp_winnow_no_cap"

    def _cap(self) -> int:
        return self.horizon


@dataclass(frozen=True, slots=True, kw_only=True)
class DPWinnowCachedQueries(DPWinnow):
    """B-W3: the SVT query is issued only on rounds whose record was cached."""

    name: str = "dp_winnow_cached_queries"

    def _queried(self, cached: NDArray[np.bool_]) -> NDArray[np.bool_]:
        return cached


@dataclass(frozen=True, slots=True, kw_only=True)
class DPWinnowShadowCache(DPWinnow):
    """B-W4: the cache test y⟨·, x⟩ < θ uses the private shadow w instead of the released w̃."""

    name: str = "dp_winnow_shadow_cache"
    cache_on_shadow = True

    def neighbor_pairs(self) -> tuple[NeighborPair, ...]:
        T, d = self.horizon, self.num_features
        X = np.zeros((T, d))
        X[0, 0], X[0, 1 % d] = 1.0, -1.0
        X[1:, 0], X[1:, 1 % d] = 1.0, -0.5  # uniform margin exactly θ = 0.25: cached iff w_1 < 1/2
        return (
            *DPWinnow.neighbor_pairs(self),
            _relabel_pair(
                X,
                np.ones(T),
                0,
                "W5 (shadow-cache test): relabel x_1 = (1, −1); later x = (1, −½), y = +1 sit at the "
                "caching threshold, so the shadow after the first update decides every later cache",
                "shadow-state",
            ),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class DPWinnowOneDrawCharge(DPWinnow):
    """B-W5: each update is charged as one EM draw instead of m (composition term forgotten).

    docs/specs/seeds-003-004.md §2.3.7 preset: K = 4, m = 16, η = 0.1."""

    max_updates: int = 4
    num_draws: int = 16
    learning_rate: float = 0.1
    name: str = "dp_winnow_one_draw_charge"

    def accounted_draws(self) -> int:
        return 1


@dataclass(frozen=True, slots=True, kw_only=True)
class DPWinnowReusedThreshold(DPWinnow):
    """B-W6: the SVT threshold noise L̂ is drawn once and reused after every ⊤."""

    name: str = "dp_winnow_reused_threshold"
    reinitialise_svt = False


@dataclass(frozen=True, slots=True, kw_only=True)
class DPWinnowUtilityEta(DPWinnow):
    """B-W7: runs with η = (1 − c)ρ = 0.125 (ConfidentWinnow tuning, c = 3/4, ρ = 0.5) while the
    claim is computed from `learning_rate` = 0.05."""

    name: str = "dp_winnow_utility_eta"

    def run_learning_rate(self) -> float:
        return 0.25 * self.margin


@dataclass(frozen=True, slots=True, kw_only=True)
class DPWinnowHalfCharge(DPWinnow):
    """Charges 2η per EM draw (the STATED reading) as its proved claim; behaviour unchanged."""

    name: str = "dp_winnow_half_charge"

    def draw_epsilon(self, score_range: float = 4.0) -> float:
        return self.learning_rate * 2.0
