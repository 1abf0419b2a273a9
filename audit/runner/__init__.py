"""The runner wing: `run_audit`, the audit of given neighbour pairs (ARCHITECTURE.md, "Data flow").

Stages, one module each: `plan` (pairs, claims, tests, the Bonferroni split), `procedure` (probe,
select, the orchestrator), `certificates` (Clopper–Pearson certificates per test), `assemble`
(the `AuditResult`), `resume` (the runner's checkpoint records), `whitebox` (the true-ε reference shown
beside the bound) and `sizing` (`dpaudit plan`: the certification size a pilot audit predicts for a
target ε). This module is the wing's only door.
"""

from dpaudit.engine.runner.plan import AuditInputError, objectives_for
from dpaudit.engine.runner.procedure import CHECKED_FROM, check_budget, probe_chunk, run_audit
from dpaudit.engine.runner.resume import package_version
from dpaudit.engine.runner.sizing import plan as sample_size_plan
from dpaudit.engine.runner.whitebox import WhiteBoxReference, white_box_reference

__all__ = [
    "CHECKED_FROM",
    "AuditInputError",
    "WhiteBoxReference",
    "check_budget",
    "objectives_for",
    "package_version",
    "probe_chunk",
    "run_audit",
    "sample_size_plan",
    "white_box_reference",
]
