"""The `dpaudit gate` configuration: `[tool.dpaudit]` in pyproject.toml, or a `dpaudit.toml`.

Format (in `dpaudit.toml` the keys sit at the top level and the audits are `[[audit]]`; in
`pyproject.toml` the same keys live under `[tool.dpaudit]` and the audits are
`[[tool.dpaudit.audit]]`)::

    num_samples = 200_000          # defaults for every audit (all optional)
    seed = 0
    failure_probability = 0.05     # per audit: violation tests + regression tests (see audit/gate.py)
    pairs = "registered"           # registered | search | all | templates (as `dpaudit run --pairs`)
    timeout = 600                  # seconds one audit may take (as `dpaudit run --timeout`; default none)
    witnesses = "reported"         # baseline witnesses per pair: reported | certified (every
                                   # event the pair's test certified; β_reg split across them)
    floating_point = false         # also test the bits of float outputs (`dpaudit run --floating-point`)
    sequential = true              # stop each audit once decided, num_samples a cap (default true;
                                   # false: the fixed-n audit, `dpaudit run` without --sequential)
    baseline = "dpaudit-baseline.json"   # default for --baseline, relative to this file

    [[audit]]
    mechanism = "laplace_sum"      # registered name or package.module:attribute (required)
    name = "laplace-eps1"          # optional id (file names, baseline key); default: the mechanism's name
    params = { epsilon = 1.0 }     # mechanism parameters (as `dpaudit run --param`)
    num_samples = 100_000          # optional overrides of the defaults above
    failure_probability = 0.05
    seed = 1
    pairs = "registered"
    timeout = 60
    floating_point = true          # e.g. a library's float Laplace audited through module:attr

    [[audit]]                      # a one-run audit: `train` instead of `mechanism` (gate_one_run_config.py)
    train = "mypkg.training:train" # train(included, rng) -> scores, as `dpaudit one-run module:attr`
    canaries = 1000                # required; the claim: epsilon (+ delta), accountant = "σ,q,T" or gdp = μ
    epsilon = 1.0
    method = "snj"                 # snj | fdp | both

Discovery when no file is given: `dpaudit.toml` in the working directory, else
`pyproject.toml` there if it has a `[tool.dpaudit]` table. A file given explicitly is read as
pyproject-style when it is named `pyproject.toml` (or its only top-level table is `tool`).

Everything is validated before any audit runs (unknown keys with a did-you-mean, types and
ranges, the mechanism resolves and accepts its parameters, a one-run audit's training function
imports and is callable and its claim builds, unique audit names), so a typo in
the last audit never wastes the first ones. Every problem is a `GateConfigError` whose
one-line message starts with the file name, e.g.
``dpaudit.toml: [[audit]] #2: unknown key 'num_sample' (did you mean 'num_samples'?)``.
"""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpaudit.mechanisms.base import Mechanism, MechanismError
from dpaudit.mechanisms.registry import RegistryError, resolve

from ..baseline import WITNESS_CHOICES
from .one_run_config import (
    ONE_RUN_KEYS,
    OneRunSpec,
    audit_kind,
    default_name,
    load_train,
    one_run_spec,
)

DEFAULT_FAILURE_PROBABILITY = 0.05
FALLBACK_NUM_SAMPLES = 1_000_000
PAIR_MODES = ("registered", "search", "all", "templates")
DEFAULT_KEYS = (
    "num_samples",
    "seed",
    "failure_probability",
    "pairs",
    "timeout",
    "witnesses",
    "floating_point",
    "sequential",
)
TOP_KEYS = (*DEFAULT_KEYS, "baseline", "audit")
AUDIT_KEYS = ("mechanism", "name", "params", *DEFAULT_KEYS, *ONE_RUN_KEYS)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


class GateConfigError(ValueError):
    """A gate configuration that cannot be used (one line, starting with the file name)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditSpec:
    """One configured audit, validated and with its mechanism built."""

    index: int
    """1-based position in the file (for messages)."""
    name: str
    mechanism_spec: str
    params: tuple[tuple[str, str], ...]
    num_samples: int
    seed: int
    failure_probability: float
    pairs: str
    mechanism: Mechanism
    timeout: float | None = None
    """Wall-clock seconds the audit may take (None: unlimited); past it the gate exits 2."""
    witnesses: str = "reported"
    """What `--update-baseline` stores per pair (`baseline_format.WITNESS_CHOICES`)."""
    floating_point: bool = False
    """Also propose the floating-point lattice events (`AuditConfig.floating_point`)."""
    sequential: bool = True
    """Certify on the confidence sequence and stop once decided (`AuditConfig.sequential`): a
    passing gate spends what it needs, num_samples is a cap."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GateConfig:
    path: Path
    audits: tuple[AuditSpec | OneRunSpec, ...]
    """Mechanism audits and one-run audits (`train`), in file order."""
    baseline: Path | None
    """The `baseline` key, resolved relative to the config file (None if absent)."""


def _suggest(key: str, known: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else f" (known keys: {', '.join(known)})"


def _type_name(value: Any) -> str:
    return {
        bool: "boolean",
        int: "integer",
        float: "float",
        str: "string",
        list: "array",
        dict: "table",
    }.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class _Ctx:
    """Formats errors as `<file>: <where>: <problem>`."""

    def __init__(self, path: Path, where: str) -> None:
        self.path = path
        self.where = where

    def error(self, problem: str) -> GateConfigError:
        where = f"{self.where}: " if self.where else ""
        return GateConfigError(f"{self.path}: {where}{problem}")

    def check_keys(self, table: dict[str, Any], known: tuple[str, ...]) -> None:
        for key in table:
            if key not in known:
                raise self.error(f"unknown key {key!r}{_suggest(key, known)}")

    def num_samples(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 200:
            raise self.error(
                f"'num_samples' must be an integer ≥ 200, got {_shown(value)} ({_type_name(value)})"
            )
        return value

    def seed(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.error(
                f"'seed' must be a non-negative integer, got {_shown(value)} ({_type_name(value)})"
            )
        return value

    def probability(self, value: Any) -> float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or not (math.isfinite(value) and 0 < value < 1):
            raise self.error(
                f"'failure_probability' must be a number in (0, 1), got {_shown(value)} ({_type_name(value)})"
            )
        return float(value)

    def timeout(self, value: Any) -> float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or not (math.isfinite(value) and value > 0):
            raise self.error(
                f"'timeout' must be a positive number of seconds, got {_shown(value)} ({_type_name(value)})"
            )
        return float(value)

    def flag(self, key: str, value: Any) -> bool:
        if not isinstance(value, bool):
            raise self.error(f"{key!r} must be true or false, got {_shown(value)} ({_type_name(value)})")
        return value

    def witnesses(self, value: Any) -> str:
        if value not in WITNESS_CHOICES:
            raise self.error(f"'witnesses' must be one of {', '.join(WITNESS_CHOICES)}, got {_shown(value)}")
        return str(value)

    def pairs(self, value: Any) -> str:
        if value not in PAIR_MODES:
            raise self.error(f"'pairs' must be one of {', '.join(PAIR_MODES)}, got {_shown(value)}")
        return str(value)


def _param_text(value: Any) -> str:
    """A TOML value as the text `--param k=v` would carry (registry.coerce parses it back)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _layout(path: Path, data: dict[str, Any]) -> tuple[dict[str, Any], str, str]:
    """(the dpaudit table, its label in messages, the label of an audit table)."""
    pyproject_style = path.name == "pyproject.toml" or (
        set(data) == {"tool"} and isinstance(data["tool"], dict)
    )
    if not pyproject_style:
        return data, "", "[[audit]]"
    tool = data.get("tool")
    table = tool.get("dpaudit") if isinstance(tool, dict) else None
    if table is None:
        raise GateConfigError(f"{path}: no [tool.dpaudit] table (see `dpaudit gate --help`)")
    if not isinstance(table, dict):
        raise GateConfigError(f"{path}: [tool.dpaudit] must be a table, got {_type_name(table)}")
    return table, "[tool.dpaudit]", "[[tool.dpaudit.audit]]"


def find_config(explicit: Path | None, cwd: Path | None = None) -> Path:
    """The config file to use: `explicit`, else dpaudit.toml, else pyproject.toml with [tool.dpaudit]."""
    if explicit is not None:
        return explicit
    base = cwd or Path()
    candidate = base / "dpaudit.toml"
    if candidate.is_file():
        return candidate
    pyproject = base / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return pyproject  # load_config reports the problem
        if isinstance(data.get("tool"), dict) and "dpaudit" in data["tool"]:
            return pyproject
    raise GateConfigError(
        "no gate configuration: create dpaudit.toml or a [tool.dpaudit] table in pyproject.toml "
        "(or pass --config FILE)"
    )


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GateConfigError(f"{path}: cannot read: no such file") from None
    except IsADirectoryError:
        raise GateConfigError(f"{path}: cannot read: is a directory") from None
    except OSError as exc:
        raise GateConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise GateConfigError(f"{path}: cannot read: not UTF-8 text") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GateConfigError(f"{path}: invalid TOML: {str(exc).splitlines()[0]}") from None


def _build(ctx: _Ctx, spec: str, params: tuple[tuple[str, str], ...]) -> Mechanism:
    if ":" not in spec:
        from dpaudit.mechanisms.registry import entries

        names = list(entries())
        if spec not in names:
            close = difflib.get_close_matches(spec, names, n=3, cutoff=0.6)
            hint = f"did you mean {', '.join(repr(c) for c in close)}?" if close else "see `dpaudit list`"
            raise ctx.error(f"unknown mechanism {spec!r} ({hint})")
    try:
        mechanism, _ = resolve(spec, dict(params))
    except (RegistryError, MechanismError, ValueError, TypeError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ctx.error(message) from None
    return mechanism


def _default_samples(spec: str) -> int:
    from dpaudit.mechanisms.registry import entries

    entry = entries().get(spec)
    return entry.default_num_samples if entry is not None else FALLBACK_NUM_SAMPLES


def _defaults(top: _Ctx, table: dict[str, Any]) -> dict[str, Any]:
    """The top-level defaults of every audit, validated."""
    defaults: dict[str, Any] = {
        "seed": top.seed(table.get("seed", 0)),
        "failure_probability": top.probability(table.get("failure_probability", DEFAULT_FAILURE_PROBABILITY)),
        "pairs": top.pairs(table.get("pairs", "registered")),
        "timeout": top.timeout(table["timeout"]) if "timeout" in table else None,
        "witnesses": top.witnesses(table.get("witnesses", "reported")),
        "floating_point": top.flag("floating_point", table.get("floating_point", False)),
        "sequential": top.flag("sequential", table.get("sequential", True)),
    }
    if "num_samples" in table:
        defaults["num_samples"] = top.num_samples(table["num_samples"])
    return defaults


def load_config(path: Path) -> GateConfig:
    """Read and validate a gate configuration (raises GateConfigError naming the file)."""
    data = _read_toml(path)
    table, label, audit_label = _layout(path, data)
    top = _Ctx(path, label)
    top.check_keys(table, TOP_KEYS)
    defaults = _defaults(top, table)
    baseline = None
    if "baseline" in table:
        if not isinstance(table["baseline"], str) or not table["baseline"]:
            raise top.error(f"'baseline' must be a file name (string), got {_shown(table['baseline'])}")
        baseline = path.parent / table["baseline"]

    raw_audits = table.get("audit")
    if raw_audits is None:
        raise top.error(f"no audits configured (add an {audit_label} table with a 'mechanism')")
    if not isinstance(raw_audits, list) or not all(isinstance(a, dict) for a in raw_audits):
        raise top.error(f"'audit' must be an array of tables ({audit_label}), got {_type_name(raw_audits)}")
    if not raw_audits:
        raise top.error(f"no audits configured (add an {audit_label} table with a 'mechanism')")

    audits: list[AuditSpec | OneRunSpec] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(raw_audits, 1):
        ctx = _Ctx(path, f"{audit_label} #{i}")
        ctx.check_keys(raw, AUDIT_KEYS)
        spec = _audit(ctx, raw, i, defaults)
        if spec.name in seen:
            raise ctx.error(
                f"duplicate audit name {spec.name!r} (also audit #{seen[spec.name]}); "
                "give one of them a distinct 'name'"
            )
        seen[spec.name] = i
        audits.append(spec)
    return GateConfig(path=path, audits=tuple(audits), baseline=baseline)


def _audit(ctx: _Ctx, raw: dict[str, Any], i: int, defaults: dict[str, Any]) -> AuditSpec | OneRunSpec:
    """A mechanism audit, or a one-run audit when the table names `train` (never both)."""
    if audit_kind(raw, ctx.error) == "train":
        return _one_run(ctx, raw, i, defaults)
    return _mechanism_audit(ctx, raw, i, defaults)


def _checked_name(ctx: _Ctx, name: Any) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise ctx.error(
            f"'name' must be a non-empty string of letters, digits and _ . + - "
            f"(it names output files), got {_shown(name)}"
        )
    return name


def _mechanism_audit(ctx: _Ctx, raw: dict[str, Any], i: int, defaults: dict[str, Any]) -> AuditSpec:
    """The mechanism audit of table `raw` (its mechanism built with its parameters)."""
    spec = raw["mechanism"]
    if not isinstance(spec, str) or not spec.strip():
        raise ctx.error(f"'mechanism' must be a non-empty string, got {_shown(spec)} ({_type_name(spec)})")
    raw_params = raw.get("params", {})
    if not isinstance(raw_params, dict):
        raise ctx.error(f"'params' must be a table, got {_shown(raw_params)} ({_type_name(raw_params)})")
    for k, v in raw_params.items():
        if not isinstance(v, str | int | float | bool):
            raise ctx.error(f"params: {k!r} must be a string, number or boolean, got {_type_name(v)}")
    params = tuple((str(k), _param_text(v)) for k, v in raw_params.items())
    mechanism = _build(ctx, spec.strip(), params)
    return AuditSpec(
        index=i,
        name=_checked_name(ctx, raw.get("name", mechanism.name)),
        mechanism_spec=spec.strip(),
        params=params,
        mechanism=mechanism,
        **_settings(ctx, raw, defaults, spec.strip()),
    )


def _one_run(ctx: _Ctx, raw: dict[str, Any], i: int, defaults: dict[str, Any]) -> OneRunSpec:
    """The one-run audit of table `raw` (`train` instead of `mechanism`; gate_one_run_config.py)."""
    train_spec, train = load_train(raw["train"], ctx.error)
    return one_run_spec(
        raw,
        error=ctx.error,
        index=i,
        name=_checked_name(ctx, raw.get("name", default_name(train_spec))),
        train_spec=train_spec,
        train=train,
        where=f"{ctx.path.name}, {ctx.where}",
        seed=ctx.seed(raw["seed"]) if "seed" in raw else defaults["seed"],
        failure_probability=(
            ctx.probability(raw["failure_probability"])
            if "failure_probability" in raw
            else defaults["failure_probability"]
        ),
        timeout=ctx.timeout(raw["timeout"]) if "timeout" in raw else defaults["timeout"],
    )


def _settings(ctx: _Ctx, raw: dict[str, Any], defaults: dict[str, Any], spec: str) -> dict[str, Any]:
    """One audit's settings: its own keys, validated, else the file's defaults."""
    n = ctx.num_samples(raw["num_samples"]) if "num_samples" in raw else None
    return {
        "num_samples": n or defaults.get("num_samples") or _default_samples(spec),
        "seed": ctx.seed(raw["seed"]) if "seed" in raw else defaults["seed"],
        "failure_probability": (
            ctx.probability(raw["failure_probability"])
            if "failure_probability" in raw
            else defaults["failure_probability"]
        ),
        "pairs": ctx.pairs(raw["pairs"]) if "pairs" in raw else defaults["pairs"],
        "timeout": ctx.timeout(raw["timeout"]) if "timeout" in raw else defaults["timeout"],
        "witnesses": ctx.witnesses(raw["witnesses"]) if "witnesses" in raw else defaults["witnesses"],
        "floating_point": (
            ctx.flag("floating_point", raw["floating_point"])
            if "floating_point" in raw
            else defaults["floating_point"]
        ),
        "sequential": (
            ctx.flag("sequential", raw["sequential"]) if "sequential" in raw else defaults["sequential"]
        ),
    }
