"""Buggy twins of the 003 learners (specs/seeds-003-004.md §2.1.7 and §2.3.7).

Each twin overrides one method and keeps its correct sibling's claim (the bug). True ε on
the registered pairs (tiny preset d = 3, ε0 = 1; DP-Winnow preset d = 2, K = 2, m = 8,
η = 0.05, ε0 = 0.5; claims: decision list 2.0 add/remove and 4.0 replace-one (basic
composition binds), DP-Winnow min(advanced 8.80, basic 4.2) = 4.2):

- private_decision_list_early_stop: stop when S_j = ∅ (B-DL1); uncovered probes show −1. True ε: ∞.
  Detectable: yes.
- private_decision_list_deterministic: deterministic Rivest, no EM noise (B-DL0). True ε: ∞.
  Detectable: yes.
- private_decision_list_no_half: exp(ε0·q) instead of exp(ε0·q/2) (B-DL5). True ε: ≤ 2× the correct
  one: exact oracle at δ = 1e-5: 1.58 (add/remove pair, claim 2.0), 2.60 (relabel pair, claim 4.0).
  Detectable: no: below the claims black-box (basic composition is loose here).
- dp_winnow_shadow_release: releases the private shadow weights w (B-W1). True ε: ∞ on the W1 pair.
  Detectable: yes.
- dp_winnow_no_cap: update cap K dropped (B-W2): dozens of updates × m draws. True ε: ≫ claim on W1
  (certified 4.84 > 4.2 at 2·10^5 samples). Detectable: yes.
- dp_winnow_half_charge: EM draws charged 2η instead of 4η (spec §2.3.4 open question); behaviour
  unchanged, claim from 2η. True ε: ≤ the correct mechanism's. Detectable: no (spec §2.3.4: advanced
  composition is loose).
"""

from __future__ import annotations

from dataclasses import dataclass

from mechanisms.decision_lists.rivest import PrivateDecisionList
from mechanisms.decision_lists.winnow import DPWinnow


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
class DPWinnowHalfCharge(DPWinnow):
    """Charges 2η per EM draw (the STATED reading) as its proved claim; behaviour unchanged."""

    name: str = "dp_winnow_half_charge"

    def draw_epsilon(self, score_range: float = 4.0) -> float:
        return self.learning_rate * 2.0
