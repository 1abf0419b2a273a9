"""The gate wing: `dpaudit gate`, CI gating on privacy regressions.

`config` reads the TOML configuration (`one_run_config` its one-run entries), `procedure` runs
every audit and the regression tests against the baseline, `one_run` runs a one-run entry,
`report` writes the gate's files, `types` holds its options and outcomes. This module is the
wing's only door.
"""

from .config import GateConfigError, find_config, load_config
from .procedure import run_gate
from .types import VIOLATION_SHARE, AuditOutcome, GateIO, GateOptions, GateOutcome

__all__ = [
    "VIOLATION_SHARE",
    "AuditOutcome",
    "GateConfigError",
    "GateIO",
    "GateOptions",
    "GateOutcome",
    "find_config",
    "load_config",
    "run_gate",
]
