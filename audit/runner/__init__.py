"""The runner wing: `run_audit`, the audit of given neighbour pairs (ARCHITECTURE.md, "Data flow").

Stages, one module each: `plan` (pairs, claims, tests, the Bonferroni split), `procedure` (probe,
select, the orchestrator), `certificates` (Clopper–Pearson certificates per test), `assemble`
(the `AuditResult`), `resume` (the runner's checkpoint records), `whitebox` (the true-ε reference shown
beside the bound), `sizing` (`dpaudit plan`: the certification size a pilot audit predicts for a
target ε), `verdict` (when a verdict without a violation is inconclusive, shared with the one-run
wing), `sequence` (the anytime-valid confidence sequence), `stopping` and `certify` (the certify
stage, fixed-n or look by look), `budget` (a budget fitted to a mechanism's measured cost),
`rounds` (a sequential audit's selection in doubling rounds), `selection_split` (the selection
samples' tasks and seed keys, for every caller that draws them). This module is the wing's only door.
"""

from .budget import DEFAULT_TIME_BUDGET, CostBudget, budget_from_cost, duration, measured_chunk
from .plan import AuditInputError, objectives_for, plan_audit
from .procedure import CHECKED_FROM, check_budget, probe_chunk, run_audit
from .resume import package_version
from .rounds import round_levels, round_schedule
from .selection_split import selection_tasks
from .sequence import OPTIMISM, LookSchedule, look_schedule, optimistic_counts, sequence_bounds
from .sizing import plan as sample_size_plan
from .stopping import FUTILITY
from .verdict import NO_EVIDENCE_SHARE, inconclusive_reason, verdict_for
from .whitebox import WhiteBoxReference, white_box_reference

__all__ = [
    "CHECKED_FROM",
    "DEFAULT_TIME_BUDGET",
    "FUTILITY",
    "NO_EVIDENCE_SHARE",
    "OPTIMISM",
    "AuditInputError",
    "CostBudget",
    "LookSchedule",
    "WhiteBoxReference",
    "budget_from_cost",
    "check_budget",
    "duration",
    "inconclusive_reason",
    "look_schedule",
    "measured_chunk",
    "objectives_for",
    "optimistic_counts",
    "package_version",
    "plan_audit",
    "probe_chunk",
    "round_levels",
    "round_schedule",
    "run_audit",
    "sample_size_plan",
    "selection_tasks",
    "sequence_bounds",
    "verdict_for",
    "white_box_reference",
]
