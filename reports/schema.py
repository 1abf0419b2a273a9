"""The versioned result JSON (docs/DESIGN.md, "CLI and JSON contract").

`to_json_dict(result)` (the writer, in the engine's `jsonnum` so that `AuditResult.to_json()`
needs no report module) and `from_json_dict(data)` round-trip an `AuditResult`. Fields are added,
and renamed only with a new `SCHEMA_VERSION`; the reader keeps reading the old keys (`RENAMED`).
Non-finite floats are written as the strings "inf" / "-inf" so the file is strict JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dpaudit.engine.jsonnum import SCHEMA_VERSION, claim_to_dict, dumps, parse_number, to_json_dict
from dpaudit.engine.types import (
    AuditResult,
    ClaimCheck,
    ClaimCurve,
    ClaimKind,
    EpsilonEstimate,
    PairResult,
    PrivacyClaim,
    ProfilePoint,
    Relation,
    Verdict,
)

__all__ = [  # the writer is the engine's (`jsonnum`, for AuditResult.to_json), re-exported here
    "SCHEMA_VERSION",
    "SchemaError",
    "claim_from_dict",
    "claim_to_dict",
    "dumps",
    "from_json_dict",
    "read_json",
    "to_json_dict",
]

REQUIRED_KEYS = (
    "schema_version",
    "mechanism",
    "claim",
    "claims",
    "epsilon_lower_bound",
    "delta_lower_bound",
    "failure_probability",
    "verdict",
    "num_samples",
    "seed",
    "pairs",
    "elapsed_seconds",
    "package_version",
)


RENAMED = {  # legacy keys, schema ≤ 3 (jsonnum.SCHEMA_VERSION's note): old key -> current key
    "per_test_failure_probability": "test_level",  # legacy: of the result (β_t)
}
RENAMED_IN_ESTIMATE = {"failure_probability": "bound_level"}  # legacy: of each estimate (β_t/k)


def current_keys(d: dict[str, Any], renamed: dict[str, str]) -> dict[str, Any]:
    """`d` with the keys an older schema used under their current names (a current key wins)."""
    out = dict(d)
    for old, new in renamed.items():
        if old in out and new not in out:
            out[new] = out.pop(old)
    return out


class SchemaError(ValueError):
    """A result file that is not a dpaudit result (one-line message)."""


def claim_from_dict(d: dict[str, Any]) -> PrivacyClaim:
    return PrivacyClaim(
        epsilon=parse_number(d["epsilon"]),
        delta=parse_number(d["delta"]),
        relation=Relation(d["relation"]),
        reference=d["reference"],
        kind=ClaimKind(d.get("kind", "proved")),
        note=d.get("note", ""),
        curve=None if d.get("curve") is None else ClaimCurve.from_dict(d["curve"], parse_number),
    )


def _estimate_from_dict(d: dict[str, Any]) -> EpsilonEstimate:
    d = current_keys(d, RENAMED_IN_ESTIMATE)
    return EpsilonEstimate(
        epsilon_lower_bound=parse_number(d["epsilon_lower_bound"]),
        delta_lower_bound=parse_number(d["delta_lower_bound"]),
        p_count=int(d["p_count"]),
        p_total=int(d["p_total"]),
        q_count=int(d["q_count"]),
        q_total=int(d["q_total"]),
        p_lower=parse_number(d["p_lower"]),
        q_upper=parse_number(d["q_upper"]),
        bound_level=parse_number(d["bound_level"]),
        infinite_witness=bool(d["infinite_witness"]),
        direction=d["direction"],
        event=d["event"],
        distinguisher=d["distinguisher"],
        selection_epsilon=parse_number(d["selection_epsilon"]),
        assumption=d.get("assumption", ""),
    )


def _profile_from_dict(d: dict[str, Any]) -> ProfilePoint:
    return ProfilePoint(
        objective=d["objective"],
        parameter=None if d.get("parameter") is None else parse_number(d["parameter"]),
        label=d["label"],
        value=parse_number(d["value"]),
        pair_index=int(d["pair_index"]),
        estimate=_estimate_from_dict(d["estimate"]),
        claimed=None if d.get("claimed") is None else parse_number(d["claimed"]),
        exceeds_claim=bool(d.get("exceeds_claim", False)),
    )


def _optional_text(value: Any) -> str | None:
    return None if value is None else str(value)


def _optional_number(value: Any) -> float | None:
    return None if value is None else parse_number(value)


def from_json_dict(d: dict[str, Any]) -> AuditResult:
    d = current_keys(d, RENAMED)
    missing = [k for k in REQUIRED_KEYS if k not in d]
    if missing:
        raise SchemaError(f"not a dpaudit result: missing {', '.join(missing)}")
    if int(d["schema_version"]) > SCHEMA_VERSION:
        raise SchemaError(
            f"result schema_version {d['schema_version']} is newer than this dpaudit ({SCHEMA_VERSION})"
        )
    try:
        return AuditResult(
            mechanism=d["mechanism"],
            claim=claim_from_dict(d["claim"]),
            claims=tuple(
                ClaimCheck(
                    claim=claim_from_dict(c),
                    epsilon_lower_bound=parse_number(c["epsilon_lower_bound"]),
                    delta_lower_bound=parse_number(c["delta_lower_bound"]),
                    exceeded=bool(c["exceeded"]),
                    pairs_checked=int(c["pairs_checked"]),
                )
                for c in d["claims"]
            ),
            epsilon_lower_bound=parse_number(d["epsilon_lower_bound"]),
            delta_lower_bound=parse_number(d["delta_lower_bound"]),
            failure_probability=parse_number(d["failure_probability"]),
            test_level=parse_number(d.get("test_level", d["failure_probability"])),
            verdict=Verdict(d["verdict"]),
            num_samples=int(d["num_samples"]),
            selection_samples=int(d.get("selection_samples", 0)),
            certification_samples=int(d.get("certification_samples", d["num_samples"])),
            seed=int(d["seed"]),
            pairs=tuple(
                PairResult(
                    index=int(p["index"]),
                    description=p["description"],
                    relation=Relation(p["relation"]),
                    tags=tuple(p.get("tags", ())),
                    claim=claim_from_dict(p["claim"]),
                    estimate=_estimate_from_dict(p["estimate"]),
                    violation=bool(p["violation"]),
                    claims_exceeded=tuple(int(i) for i in p.get("claims_exceeded", ())),
                    profile=tuple(_profile_from_dict(x) for x in p.get("profile", ())),
                    event_spec=p.get("event_spec"),
                    trajectory=tuple((int(n), parse_number(e)) for n, e in p.get("trajectory", ())),
                    exact_epsilon=_optional_number(p.get("exact_epsilon")),
                    exact_epsilon_method=str(p.get("exact_epsilon_method", "")),
                    canary=str(p.get("canary", "")),
                )
                for p in d["pairs"]
            ),
            elapsed_seconds=parse_number(d["elapsed_seconds"]),
            package_version=d["package_version"],
            epsilon_ceiling=parse_number(d.get("epsilon_ceiling", "inf")),
            warnings=tuple(d.get("warnings", ())),
            findings=tuple(d.get("findings", ())),
            parameters=tuple((str(k), str(v)) for k, v in d.get("parameters", {}).items()),
            command=d.get("command", ""),
            seedable=bool(d.get("seedable", True)),
            profile=tuple(_profile_from_dict(x) for x in d.get("profile", ())),
            extra=dict(d.get("extra", {})),
            threat_model=str(d.get("threat_model", "")),
            inconclusive_reason=_optional_text(d.get("inconclusive_reason")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SchemaError(f"malformed dpaudit result: {type(exc).__name__}: {exc}") from None


def read_json(path: Path) -> AuditResult:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SchemaError(f"cannot read {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise SchemaError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict):
        raise SchemaError(f"{path} is not a dpaudit result (top level is not an object)")
    return from_json_dict(data)
