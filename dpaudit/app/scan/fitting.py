"""A scan target's budget fitted to the per-target timeout (issue 44: an expensive export decides
instead of timing out).

Without `--budget`, before a target is audited its seconds per sample are measured
(`dpaudit.engine.runner.budget_from_cost`, the same timing `dpaudit run module:attr` uses: a few
draws at seed keys of their own, cached per mechanism object, part of no certificate). The
sampling estimate of a budget N per side is 2 · pairs · N · seconds per sample, on one worker
(each scanned audit runs with one job; `--jobs` scans exports side by side, one core each, and the
timing is taken under that same sharing), where pairs = `route.pairs_for(mechanism)`: the pairs
the registered route certifies, and the search's budget is N per such pair (a blind search
spends N per claimed relation, ≤ that count, so the estimate does not undercount it).

When that estimate for the stated budget exceeds `TIMEOUT_SHARE` of the timeout, the target is
audited at the largest budget that fits (rounded down to two significant digits), never below
`budget_from_cost`'s floor `MIN_BUDGET` (1,000 per side; nor above the stated one). When even
that does not fit, the target is still audited there, with the row saying so ("too slow for the
300 s timeout at …"): the estimate is a rough statement about wall time, and the user's
`--timeout` stays the hard stop (a row that does not finish is "timed out", as before).
The fitted number is what the row's reproduce command passes (`--budget N`): a measured time is
not reproducible, a printed budget is. With `--budget`, the budget is audited as given.

`TIMEOUT_SHARE` = 0.4, measured (2 cores, 2026-11-29, one scan row alone at 1,000 per side): a
blind scan audit draws 1.1–1.5 × 2N samples (the search's pilot, selection top-ups and
certification), fits on the search's larger candidate tables cost more than on the pair timed,
and selection and certification add their own time: diffprivlib's `RandomForestClassifier` took
6.6 s against 5.2 s estimated (2.6 ms per fit timed), the `LinearRegression` preset 10.5 s
against 9.7 s, and the cheap `DecisionTreeClassifier` 2.7 s against 1.5 s (fixed costs weigh
more where a fit is cheap, and cheap exports fit anyway). A fitted audit therefore takes up to
about twice its estimate, 0.8 of the timeout, leaving the rest for the build, the timing itself
and a loaded machine.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from dpaudit.engine.runner import CostBudget, budget_from_cost, duration
from dpaudit.mechanisms.base import Mechanism

from ..route import pairs_for

TIMEOUT_SHARE = 0.4
"""Share of the per-target timeout a budget's sampling estimate must fit (module docstring)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Fitted:
    """The budget a target is audited at, and the timing it rests on."""

    stated: int
    """The scan's budget per side (`--budget`, else the library's default)."""
    cost: CostBudget
    """The budget audited (`num_samples`: `stated`, or the largest that fits, ≥ `MIN_BUDGET` unless
    stated lower) with its measured cost, its pairs, one worker and the timeout's share."""
    timeout: float

    @property
    def num_samples(self) -> int:
        return self.cost.num_samples

    @property
    def seconds_per_sample(self) -> float:
        return self.cost.seconds_per_sample

    @property
    def lowered(self) -> bool:
        return self.num_samples < self.stated

    @property
    def over(self) -> bool:
        """Even the audited budget's estimate exceeds the timeout's share (too slow to fit)."""
        return self.cost.estimate_seconds > TIMEOUT_SHARE * self.timeout

    def note(self) -> str:
        """What the row says about its budget ("" when the stated budget fits)."""
        cost = f"{duration(self.seconds_per_sample)} per sample"
        if self.over:
            return (f"too slow for the {self.timeout:g} s timeout at {cost}: ≈ "
                    f"{duration(self.cost.estimate_seconds)} of sampling for {self.num_samples:,} of "
                    f"{self.stated:,} samples per side, audited anyway")
        if self.lowered:
            return (f"budget fitted to the {self.timeout:g} s timeout: {self.num_samples:,} of "
                    f"{self.stated:,} samples per side at {cost}")
        return ""


def fit_budget(mechanism: Mechanism, *, stated: int, timeout: float, seed: int) -> Fitted:
    """Time `mechanism` on its first pair's dataset and fit `stated` to `TIMEOUT_SHARE` of
    `timeout` (module docstring). Call it inside the target's audit session, so the timeout
    covers the timing too."""
    pairs = pairs_for(mechanism)
    cost = budget_from_cost(mechanism, pairs[0].dataset, pairs=len(pairs), workers=1,
                            time_budget=TIMEOUT_SHARE * timeout, seed=seed)
    audited = dataclasses.replace(cost, num_samples=min(stated, cost.num_samples))
    return Fitted(stated=stated, cost=audited, timeout=timeout)
