"""dpaudit's JSON: non-finite floats in strict JSON (written as the strings "inf", "-inf", "nan",
read back), and the result file's writer (`to_json_dict`, `dumps`: `AuditResult.to_json()`).

JSON (RFC 8259) has no infinity or NaN, and `json.dumps(..., allow_nan=False)` refuses them, but
certified bounds are often ±∞ (e.g. an ε lower bound of +∞ when the neighbour side never hits
the event). Every dpaudit file (result JSON, baselines) therefore encodes each float through
`json_number` and decodes it through `parse_number`, so files are strict JSON and round-trip
exactly (finite floats are written by `json` with `repr`, which round-trips).

The result writer lives in the engine so that `AuditResult.to_json()` is a method of the result
while the engine imports no report module (`reports/schema.py` reads the file back and
re-exports these names). It takes its objects by their attributes (typed `Any`): importing
`types` here would be an import cycle (`types` → `jsonnum` → `types`). Fields are added, and
renamed only with a new `SCHEMA_VERSION` whose note lists the old keys: the reader
(`reports/schema.py`, `RENAMED`) keeps reading them.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["SCHEMA_VERSION", "claim_to_dict", "dumps", "json_number", "parse_number", "to_json_dict"]


def json_number(x: float) -> float | str:
    """`x` as a JSON value: a float if finite, else "inf", "-inf" or "nan"."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


def parse_number(x: Any) -> float:
    """The float a `json_number` value stands for (also accepts plain JSON numbers)."""
    if isinstance(x, str):
        return float(x)  # "inf", "-inf", "nan"
    return float(x)


SCHEMA_VERSION = 4
"""3: the verdict "inconclusive" and its `inconclusive_reason` (issue 42); older files read as before.
4: one word per concept (issue 43; ARCHITECTURE.md, "Glossary"): the result's
`test_level` (β_t) is `test_level` and each estimate's `failure_probability`
(β_t/k, the level of that one bound) is `bound_level`; `failure_probability` is β only. Files of
schema ≤ 3 are read with their old keys (`reports/schema.py`, `RENAMED`)."""


def claim_to_dict(c: Any) -> dict[str, Any]:
    return c.to_dict()


def _estimate_to_dict(e: Any) -> dict[str, Any]:
    return {
        "epsilon_lower_bound": json_number(e.epsilon_lower_bound),
        "delta_lower_bound": json_number(e.delta_lower_bound),
        "p_count": e.p_count,
        "p_total": e.p_total,
        "q_count": e.q_count,
        "q_total": e.q_total,
        "p_lower": json_number(e.p_lower),
        "q_upper": json_number(e.q_upper),
        "bound_level": e.bound_level,
        "infinite_witness": e.infinite_witness,
        "direction": e.direction,
        "event": e.event,
        "distinguisher": e.distinguisher,
        "selection_epsilon": json_number(e.selection_epsilon),
        "assumption": e.assumption,
    }


def _profile_to_dict(p: Any) -> dict[str, Any]:
    return {
        "objective": p.objective,
        "parameter": None if p.parameter is None else json_number(p.parameter),
        "label": p.label,
        "value": json_number(p.value),
        "pair_index": p.pair_index,
        "estimate": _estimate_to_dict(p.estimate),
        "claimed": None if p.claimed is None else json_number(p.claimed),
        "exceeds_claim": p.exceeds_claim,
    }


def to_json_dict(r: Any) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "mechanism": r.mechanism,
        "parameters": dict(r.parameters),
        "command": r.command,
        "claim": claim_to_dict(r.claim),
        "claims": [
            {
                **claim_to_dict(c.claim),
                "epsilon_lower_bound": json_number(c.epsilon_lower_bound),
                "delta_lower_bound": json_number(c.delta_lower_bound),
                "exceeded": c.exceeded,
                "pairs_checked": c.pairs_checked,
            }
            for c in r.claims
        ],
        "epsilon_lower_bound": json_number(r.epsilon_lower_bound),
        "delta_lower_bound": json_number(r.delta_lower_bound),
        "failure_probability": r.failure_probability,
        "test_level": r.test_level,
        "verdict": r.verdict.value,
        "num_samples": r.num_samples,
        "selection_samples": r.selection_samples,
        "certification_samples": r.certification_samples,
        "seed": r.seed,
        "seedable": r.seedable,
        "epsilon_ceiling": json_number(r.epsilon_ceiling),
        "pairs": [
            {
                "index": p.index,
                "description": p.description,
                "relation": p.relation.value,
                "tags": list(p.tags),
                "claim": claim_to_dict(p.claim),
                "violation": p.violation,
                "claims_exceeded": list(p.claims_exceeded),
                "epsilon_lower_bound": json_number(p.estimate.epsilon_lower_bound),
                "delta_lower_bound": json_number(p.estimate.delta_lower_bound),
                "estimate": _estimate_to_dict(p.estimate),
                "event_spec": p.event_spec,
                "trajectory": [[n, json_number(e)] for n, e in p.trajectory],
                "profile": [_profile_to_dict(x) for x in p.profile],
                "exact_epsilon": None if p.exact_epsilon is None else json_number(p.exact_epsilon),
                "exact_epsilon_method": p.exact_epsilon_method,
                "canary": p.canary,
            }
            for p in r.pairs
        ],
        "profile": [_profile_to_dict(x) for x in r.profile],
        "warnings": list(r.warnings),
        "findings": list(r.findings),
        "elapsed_seconds": r.elapsed_seconds,
        "package_version": r.package_version,
        "extra": _strict(r.extra),
        "threat_model": r.threat_model,
        **({"inconclusive_reason": r.inconclusive_reason} if r.inconclusive_reason is not None else {}),
    }


def _strict(x: Any) -> Any:
    """Free-form `extra` data as strict JSON: every non-finite float through `json_number`
    (a report must never fail to write because a diagnostic figure is ±∞)."""
    if isinstance(x, dict):
        return {k: _strict(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_strict(v) for v in x]
    if isinstance(x, float):
        return json_number(x)
    return x


def dumps(r: Any) -> str:
    return json.dumps(to_json_dict(r), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
