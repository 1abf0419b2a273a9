"""The baseline wing: the gate's stored baselines and its regression tests against them.

`format` reads and writes the baseline file, `core` builds baselines from results and runs the
regression tests, `marginals` and `recount` re-count stored events, `stale` says when a baseline
no longer describes the code. This module is the wing's only door.
"""

from .core import (
    RegressionCheck,
    RegressionReport,
    baseline_audit_from_result,
    entry_detectable_increase,
    recount_samples,
    regression_checks,
)
from .format import (
    WITNESS_CHOICES,
    Baseline,
    BaselineAudit,
    BaselineError,
    read_baseline,
    write_baseline,
)
from .stale import DETECTION_POWER, stale_message

__all__ = [
    "DETECTION_POWER",
    "WITNESS_CHOICES",
    "Baseline",
    "BaselineAudit",
    "BaselineError",
    "RegressionCheck",
    "RegressionReport",
    "baseline_audit_from_result",
    "entry_detectable_increase",
    "read_baseline",
    "recount_samples",
    "regression_checks",
    "stale_message",
    "write_baseline",
]
