"""dpaudit: certified lower bounds on the realised (ε, δ) of differentially private learners.

    import dpaudit
    result = dpaudit.audit("laplace_sum", num_samples=200_000, seed=1)
    print(result.verdict, result.epsilon_lower_bound)

The repository's folders are subpackages of this one import name, without links: the folder
`audit/` is imported as `dpaudit.engine` (the statistics); `mechanisms/`, `neighbors/` and
`reports/` as `dpaudit.<same name>` (`dpaudit/_folders.py`); `dpaudit.app` holds the command line,
the gate and the pytest plugin. Names are imported on first use, so `import dpaudit` stays cheap.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _folders

_folders.install(Path(__file__).parent)

__version__ = "0.1.0"

_EXPORTS = {
    "audit": "dpaudit.api",
    "gate": "dpaudit.api",
    "AuditConfig": "dpaudit.engine.types",
    "AuditResult": "dpaudit.engine.types",
    "Verdict": "dpaudit.engine.types",
    "PrivacyClaim": "dpaudit.mechanisms.base",
    "ClaimKind": "dpaudit.mechanisms.base",
    "Mechanism": "dpaudit.mechanisms.base",
    "MechanismError": "dpaudit.mechanisms.base",
    "from_callable": "dpaudit.mechanisms.base",
    "from_estimator": "dpaudit.mechanisms.adapters",
    "from_synthesizer": "dpaudit.mechanisms.adapters",
    "from_release": "dpaudit.mechanisms.adapters",
    "TabularSpace": "dpaudit.neighbors.tabular",
    "NumericColumn": "dpaudit.neighbors.tabular",
    "CategoricalColumn": "dpaudit.neighbors.tabular",
    "accountant_claim": "dpaudit.mechanisms.accountants",
    "MixtureLLR": "dpaudit.mechanisms.dpsgd.statistic",
    "Dataset": "dpaudit.neighbors.base",
    "Domain": "dpaudit.neighbors.base",
    "NeighborPair": "dpaudit.neighbors.base",
    "Relation": "dpaudit.neighbors.base",
    "run_audit": "dpaudit.engine.runner",
    "one_run": "dpaudit.engine.one_run",
    "check_sampler": "dpaudit.engine.one_run",
}

__all__ = [
    "AuditConfig",
    "AuditResult",
    "CategoricalColumn",
    "ClaimKind",
    "Dataset",
    "Domain",
    "Mechanism",
    "MechanismError",
    "MixtureLLR",
    "NeighborPair",
    "NumericColumn",
    "PrivacyClaim",
    "Relation",
    "TabularSpace",
    "Verdict",
    "accountant_claim",
    "audit",
    "check_sampler",
    "from_callable",
    "from_estimator",
    "from_release",
    "from_synthesizer",
    "gate",
    "one_run",
    "run_audit",
]

if TYPE_CHECKING:
    from dpaudit.engine.one_run import check_sampler, one_run
    from dpaudit.engine.runner import run_audit
    from dpaudit.engine.types import AuditConfig, AuditResult, Verdict
    from dpaudit.mechanisms.accountants import accountant_claim
    from dpaudit.mechanisms.adapters import from_estimator, from_release, from_synthesizer
    from dpaudit.mechanisms.base import ClaimKind, Mechanism, MechanismError, PrivacyClaim, from_callable
    from dpaudit.mechanisms.dpsgd.statistic import MixtureLLR
    from dpaudit.neighbors.base import Dataset, Domain, NeighborPair, Relation
    from dpaudit.neighbors.tabular import CategoricalColumn, NumericColumn, TabularSpace

    from .api import audit, gate


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'dpaudit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
