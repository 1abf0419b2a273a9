"""The result file's JSON Schema (draft 2020-12), generated from the result dataclasses.

Each dataclass (`AuditResult`, `PairResult`, `EpsilonEstimate`, `ProfilePoint`, `ClaimCheck`,
`PrivacyClaim`, `ClaimCurve`) becomes an object schema from its type hints: floats may be
written as "inf", "-inf" or "nan" (`engine.jsonnum`), enums as their values, tuples as arrays.
`SHAPE` lists where `reports.schema.to_json_dict` writes something other than the dataclass
field (flattened claims, counts per pair, the schema version). The shipped file
`dpaudit/result.schema.json` is this module's output; a test regenerates and compares it.

    python -m dpaudit.app.result_schema > dpaudit/result.schema.json
"""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
import types
import typing
from pathlib import Path
from typing import Any

from dpaudit.engine.types import (
    AuditResult,
    ClaimCheck,
    ClaimCurve,
    EpsilonEstimate,
    PairResult,
    PrivacyClaim,
    ProfilePoint,
)
from dpaudit.reports.schema import REQUIRED_KEYS, SCHEMA_VERSION

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "result.schema.json"

NUMBER: dict[str, Any] = {"anyOf": [{"type": "number"}, {"enum": ["inf", "-inf", "nan"]}]}
PRIMITIVE: dict[Any, dict[str, Any]] = {
    float: NUMBER,
    int: {"type": "integer"},
    bool: {"type": "boolean"},
    str: {"type": "string"},
    object: {},
}


def type_schema(hint: Any) -> dict[str, Any]:
    """The schema of one type hint (dataclasses by reference to `$defs`)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint in PRIMITIVE:
        return PRIMITIVE[hint]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return {"enum": [m.value for m in hint]}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return {"$ref": f"#/$defs/{hint.__name__}"}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [type_schema(a) for a in args]}
    if hint is type(None):
        return {"type": "null"}
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return {"type": "array", "items": type_schema(args[0])}
    if origin is tuple:
        return {"type": "array", "prefixItems": [type_schema(a) for a in args], "items": False}
    if origin is dict:
        return {"type": "object", "additionalProperties": type_schema(args[1])}
    raise TypeError(f"no JSON Schema for {hint!r}")


def dataclass_schema(
    cls: type, *, drop: tuple[str, ...] = (), add: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An object schema from `cls`'s fields, every field required (the writer writes them all)."""
    hints = typing.get_type_hints(cls)
    props = {f.name: type_schema(hints[f.name]) for f in dataclasses.fields(cls) if f.name not in drop}
    props |= add or {}
    return {"type": "object", "properties": props, "required": sorted(props)}


def _pair_trajectory() -> dict[str, Any]:
    return {"type": "array", "items": type_schema(tuple[int, float])}


SHAPE: dict[str, dict[str, Any]] = {
    "PrivacyClaim": {"optional": ("curve",)},
    "ClaimCurve": {"optional": ("points", "source")},
    "ClaimCheck": {"drop": ("claim",), "flatten": "PrivacyClaim"},
    "PairResult": {
        "drop": ("estimate",),
        "optional": ("canary",),
        "add": {
            "estimate": {"$ref": "#/$defs/EpsilonEstimate"},
            "epsilon_lower_bound": NUMBER,
            "delta_lower_bound": NUMBER,
            "trajectory": _pair_trajectory(),
            "event_spec": {"anyOf": [{"type": "object"}, {"type": "null"}]},
        },
    },
    "AuditResult": {
        "add": {
            "schema_version": {"type": "integer", "minimum": 1, "maximum": SCHEMA_VERSION},
            "parameters": {"type": "object", "additionalProperties": {"type": "string"}},
            "extra": {"type": "object"},
            "inconclusive_reason": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "description": 'Why the verdict is "inconclusive" (no power: the claim is at or above '
                "the most this design and budget could certify; or no evidence: no event certified "
                "any loss and the bound is below 10% of the claim). Written only then (schema 3).",
            },
        },
    },
}
"""Where the written JSON departs from the dataclass: fields dropped, added or replaced, and
ClaimCheck written as its claim's fields plus its own (`reports.schema.to_json_dict`); a
point claim is written without `curve`."""


def _definition(cls: type) -> dict[str, Any]:
    shape = SHAPE.get(cls.__name__, {})
    schema = dataclass_schema(cls, drop=shape.get("drop", ()), add=shape.get("add"))
    if "flatten" in shape:
        inner = _definition(PrivacyClaim)
        schema["properties"] = inner["properties"] | schema["properties"]
        schema["required"] = sorted({*inner["required"], *schema["required"]})
    schema["required"] = [k for k in schema["required"] if k not in shape.get("optional", ())]
    if cls is AuditResult:  # older readers' required keys; the rest may be absent in old files
        schema["required"] = sorted(REQUIRED_KEYS)
    return schema


def result_schema() -> dict[str, Any]:
    """The whole schema: `AuditResult` at the top, the nested dataclasses in `$defs`."""
    nested = (PairResult, EpsilonEstimate, ProfilePoint, ClaimCheck, PrivacyClaim, ClaimCurve)
    top = _definition(AuditResult)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://dpaudit.invalid/result.schema.json",
        "title": f"dpaudit audit result (schema_version {SCHEMA_VERSION})",
        "description": "Written by `dpaudit run --json` and `dpaudit.audit(...)`; fields are only added.",
        **top,
        "$defs": {cls.__name__: _definition(cls) for cls in nested},
    }


def main() -> int:
    json.dump(result_schema(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
