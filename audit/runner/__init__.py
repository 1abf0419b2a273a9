"""The runner wing: `run_audit`, the audit of given neighbour pairs (ARCHITECTURE.md, "Data flow").

Stages, one module each: `plan` (pairs, claims, tests, the Bonferroni split), `procedure` (probe,
select, the orchestrator), `certificates` (Clopper–Pearson certificates per test), `assemble`
(the `AuditResult`) and `checkpoint` (resume). This module is the wing's only door.
"""

from dpaudit.engine.runner.checkpoint import package_version
from dpaudit.engine.runner.plan import AuditInputError, objectives_for
from dpaudit.engine.runner.procedure import CHECKED_FROM, check_budget, probe_chunk, run_audit

__all__ = [
    "CHECKED_FROM",
    "AuditInputError",
    "check_budget",
    "objectives_for",
    "package_version",
    "probe_chunk",
    "run_audit",
]
