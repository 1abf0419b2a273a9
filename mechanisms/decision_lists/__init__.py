"""Bun & Fang, "Privately Learning Decision Lists and a Differentially Private Winnow": Thm 3.5, 4.4, 4.11.

Private decision lists, DP-Winnow and private online decision lists (paper 003).
"""

from __future__ import annotations

from ..registry import RegistryEntry
from .buggy import (
    DPWinnowCachedQueries,
    DPWinnowHalfCharge,
    DPWinnowNoCap,
    DPWinnowOneDrawCharge,
    DPWinnowReusedThreshold,
    DPWinnowShadowCache,
    DPWinnowShadowRelease,
    DPWinnowUtilityEta,
    PrivateDecisionListDataFeatures,
    PrivateDecisionListDeterministic,
    PrivateDecisionListEarlyStop,
    PrivateDecisionListGlobalScore,
    PrivateDecisionListKeepMisclassified,
    PrivateDecisionListMediumNoHalf,
    PrivateDecisionListNoGroupPrivacy,
    PrivateDecisionListNoHalf,
    PrivateDecisionListNoHalfWide,
)
from .rivest import (
    PrivateDecisionList,
    PrivateDecisionListMedium,
    evaluate_features,
    feature_class,
)
from .winnow import DPWinnow, OnlineDecisionList

FAMILY = "003"
MEDIUM_N = 100_000


def _twin(name: str, factory: type, of: str, bug: str, *, detectable: bool = True, n: int) -> RegistryEntry:
    return RegistryEntry.twin(
        name, factory, family=FAMILY, of=of, bug=bug, num_samples=n, detectable=detectable
    )


REGISTRY_ENTRIES: tuple[RegistryEntry, ...] = (
    RegistryEntry(
        name="private_decision_list",
        factory=PrivateDecisionList,
        family=FAMILY,
        summary="private Rivest: exponential-mechanism greedy cover, |F|+1 fixed steps (Thm 3.5)",
        default_num_samples=1_000_000,
    ),
    RegistryEntry(
        name="private_decision_list_medium",
        factory=PrivateDecisionListMedium,
        family=FAMILY,
        summary="private Rivest, DL-med preset: |F| = 40, ε0 = 0.2, n ≤ 100 (cover bound 1.316 binds)",
        default_num_samples=MEDIUM_N,
    ),
    RegistryEntry(
        name="dp_winnow",
        factory=DPWinnow,
        family=FAMILY,
        summary="DP-Winnow: SVT-gated MW updates, released as m EM draws, update cap K (Alg. 4.2, Thm 4.4)",
        default_num_samples=500_000,
    ),
    RegistryEntry(
        name="online_decision_list",
        factory=OnlineDecisionList,
        family=FAMILY,
        summary="private online decision lists: DP-Winnow on φ(x) = (x, 1, −x, −1) (Section 4.3, Thm 4.11)",
        default_num_samples=200_000,
    ),
    _twin(
        "private_decision_list_early_stop",
        PrivateDecisionListEarlyStop,
        "private_decision_list",
        "stops when every training point is covered (data-dependent length, ε = ∞)",
        n=200_000,
    ),
    _twin(
        "private_decision_list_deterministic",
        PrivateDecisionListDeterministic,
        "private_decision_list",
        "deterministic Rivest greedy, no exponential-mechanism noise (ε = ∞)",
        n=200_000,
    ),
    _twin(
        "private_decision_list_no_half",
        PrivateDecisionListNoHalf,
        "private_decision_list",
        "exp(ε0·q) instead of exp(ε0·q/2) (missing factor 2): exact oracle 1.58 on the registered pairs; "
        "an oracle-searched pair reaches 2.19 vs the 2.0 claim, too thin to certify black-box "
        "(the ε0 = 2 preset private_decision_list_no_half_wide is detectable)",
        detectable=False,
        n=1_000_000,
    ),
    _twin(
        "private_decision_list_no_half_wide",
        PrivateDecisionListNoHalfWide,
        "private_decision_list",
        "exp(ε0·q) instead of exp(ε0·q/2) at ε0 = 2 (tiny features, 4 steps): exact oracle 5.24 (δ = 1e-5) "
        "on its registered add/remove pair vs the basic-composition claim 4.0 (correct learner on the same "
        "pair: 2.19); certified 4.90 / 5.00 / 4.74 (seeds 0 / 1 / 2), exit 1",
        n=1_000_000,
    ),
    _twin(
        "private_decision_list_medium_no_half",
        PrivateDecisionListMediumNoHalf,
        "private_decision_list_medium",
        "exp(ε0·q) instead of exp(ε0·q/2) on the medium preset: measured certified 0.245 at 3·10^4 "
        "(claims 1.316 / 2.632): every per-step effect is ≤ c, far below the cover bound",
        detectable=False,
        n=MEDIUM_N,
    ),
    _twin(
        "private_decision_list_medium_keep_misclassified",
        PrivateDecisionListKeepMisclassified,
        "private_decision_list_medium",
        "drops only correctly classified covered points: a misclassified point is dropped at its "
        "first correct-bit rule, so its influence lasts ~2 steps; measured 0.036 at 3·10^4 (claim 1.316)",
        detectable=False,
        n=MEDIUM_N,
    ),
    _twin(
        "private_decision_list_medium_global_score",
        PrivateDecisionListGlobalScore,
        "private_decision_list_medium",
        "score counts errors on the whole sample, not the uncovered set: per-step bias ≤ c = 0.1 "
        "spread over 41 bits; measured 0.079 at 3·10^4 (claim 1.316)",
        detectable=False,
        n=MEDIUM_N,
    ),
    _twin(
        "private_decision_list_data_features",
        PrivateDecisionListDataFeatures,
        "private_decision_list",
        "feature class built from the literals seen in the sample (ε = ∞)",
        n=200_000,
    ),
    _twin(
        "private_decision_list_no_group_privacy",
        PrivateDecisionListNoGroupPrivacy,
        "private_decision_list",
        "add/remove ε claimed for replace-one, own preset one feature, ε0 = 2 (claim 2.0, correct 4.0): "
        "exact 2.338 on its oracle-searched replace pair (tiny preset: ≤ 1.35 vs 2.0 over ≤ 12 records); "
        "certified 2.29 / 2.30 (seeds 0 / 1), exit 1",
        n=1_000_000,
    ),
    _twin(
        "dp_winnow_shadow_release",
        DPWinnowShadowRelease,
        "dp_winnow",
        "releases the private shadow weights (ε = ∞ on W1)",
        n=200_000,
    ),
    _twin(
        "dp_winnow_no_cap",
        DPWinnowNoCap,
        "dp_winnow",
        "update cap K dropped: unboundedly many EM draws",
        n=300_000,
    ),
    _twin(
        "dp_winnow_cached_queries",
        DPWinnowCachedQueries,
        "dp_winnow",
        "SVT query issued only on cached rounds: data-dependent query schedule, ε = ∞ on W2",
        n=200_000,
    ),
    _twin(
        "dp_winnow_shadow_cache",
        DPWinnowShadowCache,
        "dp_winnow",
        "cache test on the private shadow w instead of w̃: later epochs' caches follow the changed "
        "record; certified 6.18 on its W5 pair at 5·10^5 (claim 2.14, derived)",
        n=500_000,
    ),
    _twin(
        "dp_winnow_one_draw_charge",
        DPWinnowOneDrawCharge,
        "dp_winnow",
        "each update charged as one EM draw instead of m (K = 4, m = 16, η = 0.1): exact W1 "
        "oracle 7.36 vs claim 3.6; certified 4.04 at 2·10^5",
        n=300_000,
    ),
    _twin(
        "dp_winnow_reused_threshold",
        DPWinnowReusedThreshold,
        "dp_winnow",
        "SVT threshold noise not redrawn after ⊤: the SVT layer costs 1.5ε0, within the 2ε0 of "
        "Thm 4.4's accounting; against the derived 2.14 (one epoch, ε0) its excess is at most 0.5ε0 "
        "= 0.25, reached only with both layers at their extremes (certified 1.21 at 5·10^5)",
        detectable=False,
        n=500_000,
    ),
    _twin(
        "dp_winnow_utility_eta",
        DPWinnowUtilityEta,
        "dp_winnow",
        "runs with the utility-tuned η = 0.125, claim from η = 0.05: exact W1 oracle 3.89 > 2.14 "
        "(the derived claim; < 4.2, Thm 4.4's basic composition)",
        n=500_000,
    ),
    _twin(
        "dp_winnow_half_charge",
        DPWinnowHalfCharge,
        "dp_winnow",
        "EM draws charged 2η instead of 4η: accounting under-charge within advanced composition's slack",
        detectable=False,
        n=500_000,
    ),
)

__all__ = [
    "REGISTRY_ENTRIES",
    "DPWinnow",
    "OnlineDecisionList",
    "PrivateDecisionList",
    "PrivateDecisionListMedium",
    "evaluate_features",
    "feature_class",
]
