"""003 (Bun & Fang): private decision lists, DP-Winnow and private online decision lists."""

from __future__ import annotations

from mechanisms.decision_lists.buggy import (
    DPWinnowHalfCharge,
    DPWinnowNoCap,
    DPWinnowShadowRelease,
    PrivateDecisionListDeterministic,
    PrivateDecisionListEarlyStop,
    PrivateDecisionListNoHalf,
)
from mechanisms.decision_lists.rivest import PrivateDecisionList, evaluate_features, feature_class
from mechanisms.decision_lists.winnow import DPWinnow, OnlineDecisionList
from mechanisms.registry import RegistryEntry

FAMILY = "003"


def _twin(name: str, factory: type, of: str, bug: str, *, detectable: bool = True, n: int) -> RegistryEntry:
    return RegistryEntry(
        name=name,
        factory=factory,
        family=FAMILY,
        summary=bug,
        buggy=True,
        twin_of=of,
        bug=bug,
        detectable=detectable,
        default_num_samples=n,
    )


REGISTRY_ENTRIES: tuple[RegistryEntry, ...] = (
    RegistryEntry(
        name="private_decision_list",
        factory=PrivateDecisionList,
        family=FAMILY,
        summary="private Rivest: exponential-mechanism greedy cover, |F|+1 fixed steps (003 Thm 3.5)",
        default_num_samples=1_000_000,
    ),
    RegistryEntry(
        name="dp_winnow",
        factory=DPWinnow,
        family=FAMILY,
        summary="DP-Winnow: SVT-gated MW updates, released as m EM draws, update cap K (003 Alg. 4.2)",
        default_num_samples=500_000,
    ),
    RegistryEntry(
        name="online_decision_list",
        factory=OnlineDecisionList,
        family=FAMILY,
        summary="private online decision lists: DP-Winnow on φ(x) = (x, 1, −x, −1) (003 §4.3)",
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
        "exp(ε0·q) instead of exp(ε0·q/2) (missing factor 2); true ε stays below the basic-composition "
        "claim on the tiny preset (exact oracle), so undetectable black-box",
        detectable=False,
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
    "evaluate_features",
    "feature_class",
]
