"""The verdict of an audit that found no violation: "no violation found at this power", or
"inconclusive" when the audit could not have judged the claim (issue 42, item 3).

Two cases, both decided from numbers the result already carries, never from a new test (so no
share of β is spent and every certificate keeps its confidence):

- no power: the claim allows an ε (at its δ) at or above the ceiling, the largest ε any outcome
  of this design or budget could certify (`bounds.epsilon_ceiling` for `run`; the one-run
  design's ceiling, unless the f-DP test could still reject the claim's trade-off curve). No
  outcome could have refuted the claim, so "no violation" says nothing about it;
- no evidence: no event certified any privacy loss (every pair's certified ε ≤ 0) and the
  certified ε is below `NO_EVIDENCE_SHARE` of the claimed one.

Exit codes do not change (0): an inconclusive audit is not a violation. The reason travels with
the result (`AuditResult.inconclusive_reason`) into every report.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..types import PrivacyClaim, Verdict

NO_EVIDENCE_SHARE = 0.1
"""A certified ε below this share of the claim, with no event certifying any loss: inconclusive."""


def inconclusive_reason(
    claim: PrivacyClaim,
    *,
    epsilon_lower_bound: float,
    ceiling: float,
    pair_bounds: Sequence[float],
    refutable: bool = False,
) -> str | None:
    """Why a no-violation audit of `claim` is inconclusive, or None when it is not (module
    docstring). `pair_bounds` are the pairs' certified ε; `refutable` is True when a test other
    than the ε bound (the one-run f-DP test) could still have rejected the claim."""
    allowed = claim.epsilon_at(claim.delta)
    if not math.isfinite(allowed):
        return None
    if ceiling <= allowed and not refutable:
        return (
            f"no power: the claim allows ε = {allowed:.4g} at δ = {claim.delta:g}, at or above "
            f"{ceiling:.4g}, the most any outcome of this design and budget could certify; no "
            "outcome could have refuted it"
        )
    if (
        allowed > 0
        and epsilon_lower_bound < NO_EVIDENCE_SHARE * allowed
        and max(pair_bounds, default=0.0) <= 0
    ):
        return (
            f"no evidence: no event certified any privacy loss (certified ε ≥ "
            f"{max(epsilon_lower_bound, 0.0):.4g}, below {NO_EVIDENCE_SHARE:.0%} of the claimed "
            f"{allowed:.4g})"
        )
    return None


def verdict_for(*, violation: bool, inconclusive_reason: str | None) -> Verdict:
    """The verdict: a violation, else inconclusive when there is a reason, else no violation."""
    if violation:
        return Verdict.VIOLATION_FOUND
    return Verdict.INCONCLUSIVE if inconclusive_reason else Verdict.NO_VIOLATION_FOUND
