"""Where each kind of declared statistic is built from its spec: the families' side of the
engine's `Statistic` protocol (`dpaudit.engine.distinguishers.statistic`).

A mechanism family that declares `statistics` (DP-SGD's `MixtureLLR`, the likelihood ratio of its
gradient canary: Nasr et al., "Tight Auditing of Differentially Private Machine Learning", USENIX
Security 2023) names its kind here, so a result, checkpoint or baseline that stores a statistic's
spec can rebuild it. The engine imports this module and no family: the family module is loaded
on demand, when a spec names its kind.
"""

from __future__ import annotations

import importlib
from typing import Any

STATISTIC_KINDS: dict[str, str] = {"mixture_llr": "dpaudit.mechanisms.dpsgd.statistic:MixtureLLR"}
"""A spec's `type` → "module:class" whose `from_spec(spec)` rebuilds the statistic."""


def statistic_from_spec(spec: dict[str, Any]) -> Any:
    """The statistic a spec names (`ValueError` for a kind no family declares)."""
    target = STATISTIC_KINDS.get(str(spec.get("type")))
    if target is None:
        raise ValueError(f"unknown statistic type {spec.get('type')!r}")
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name).from_spec(spec)
