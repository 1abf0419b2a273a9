"""The search wing: `search_and_certify`, the default route's pair search (ARCHITECTURE.md).

Stages, one module each: `pilot_samples` (pilot samples), `candidates` and `sweeps` (the pairs
proposed), `ranking` (the pilot's cross-fitted rank of a pair; nothing it computes is
certified), `pilot` (successive halving over the candidates), `certify` (the chosen pairs on
fresh samples), `result`, and `procedure` (the orchestrator). This module is the wing's only door.
"""

from .procedure import search_and_certify
from .result import SearchBudgetError, SearchUnsupportedError

__all__ = ["SearchBudgetError", "SearchUnsupportedError", "search_and_certify"]
