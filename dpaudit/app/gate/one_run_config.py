"""One-run audits in the gate configuration: an `[[audit]]` table with `train` instead of `mechanism`.

    [[audit]]
    train = "mypkg.training:train"   # train(included, rng) -> one score per canary (as `dpaudit one-run`)
    canaries = 1000                  # m (required)
    epsilon = 1.0                    # the claim: epsilon (+ delta, default 0), or
    # accountant = "1.0,0.01,1000"   #   dp_accounting's ε(δ) for σ, q, T (δ: `delta`, default 1e-5), or
    # gdp = 2.0                      #   μ-GDP (headline point at `delta`, default 1e-5);
                                     #   none of them: the function's `claim` attribute
    claim_kind = "proved"            # or stated: still a failure when exceeded, worded as a stated claim
    relation = "add_remove_one"      # or replace_one (as `--relation`)
    method = "fdp"                   # fdp (default) | snj | both (as `--method`)
    k_plus = 50                      # optional, with k_minus: one fixed design (as `--k-plus/--k-minus`)
    k_minus = 50
    name = "sgd-canaries"            # plus the usual seed, failure_probability, timeout

The keys mirror `dpaudit one-run`'s options. Keys of mechanism audits (`params`, `num_samples`,
`pairs`, `witnesses`, `floating_point`, `sequential`) are rejected on a one-run audit and vice versa, and the
claim is built and the training function imported here, before any audit runs. This module does
not import `gate_config` (which imports it): errors are raised through the `error` callable the
caller hands in, which formats them as `<file>: [[audit]] #i: <problem>`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dpaudit.engine.one_run import DEFAULT_METHOD, METHODS, Design
from dpaudit.engine.types import PrivacyClaim
from dpaudit.mechanisms.base import ClaimKind
from dpaudit.mechanisms.registry import RegistryError, _import_user_module
from dpaudit.neighbors.base import Relation

from ..claim_text import ClaimText, parse_claim

ONE_RUN_KEYS = (
    "train",
    "canaries",
    "epsilon",
    "delta",
    "accountant",
    "gdp",
    "claim_kind",
    "relation",
    "method",
    "k_plus",
    "k_minus",
)
"""Keys only a one-run audit (`train`) takes."""
MECHANISM_KEYS = (
    "mechanism",
    "params",
    "num_samples",
    "pairs",
    "witnesses",
    "floating_point",
    "sequential",
)
"""Keys only a mechanism audit takes."""
CLAIM_KINDS = tuple(k.value for k in ClaimKind)
RELATIONS = tuple(r.value for r in (Relation.ADD_REMOVE_ONE, Relation.REPLACE_ONE))

Error = Callable[[str], Exception]


@dataclass(frozen=True, slots=True, kw_only=True)
class OneRunSpec:
    """One configured one-run audit, validated, with its training function imported and its claim built."""

    index: int
    """1-based position in the file (for messages)."""
    name: str
    train_spec: str
    """`package.module:attribute` of the training function."""
    train: Callable[..., Any]
    canaries: int
    claim: PrivacyClaim
    claim_flags: tuple[tuple[str, str], ...]
    """The claim as `dpaudit one-run` options, e.g. (("--epsilon", "1.0"), ("--relation", …))."""
    method: str
    designs: tuple[Design, ...] | None
    """One fixed design (`k_plus`/`k_minus`), or None for the default union bound over designs."""
    seed: int
    failure_probability: float
    timeout: float | None = None

    @property
    def mechanism_spec(self) -> str:
        """What the audit runs, where a mechanism audit shows its mechanism: the training function."""
        return self.train_spec


def _type_name(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", list: "array", dict: "table"}.get(
        type(value), type(value).__name__
    )


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def audit_kind(raw: dict[str, Any], error: Error) -> str:
    """ "train" (a one-run audit) or "mechanism", after checking that the table is one or the other."""
    has_mechanism, has_train = "mechanism" in raw, "train" in raw
    if has_mechanism and has_train:
        raise error("give 'mechanism' (a mechanism audit) or 'train' (a one-run audit), not both")
    if not has_mechanism and not has_train:
        raise error(
            "missing required key 'mechanism' (a registered name or package.module:attribute), "
            "or 'train' for a one-run audit"
        )
    for key in raw:
        if has_train and key in MECHANISM_KEYS:
            raise error(f"{key!r} applies to mechanism audits only, not to a one-run audit ('train')")
        if has_mechanism and key in ONE_RUN_KEYS:
            raise error(f"{key!r} applies to one-run audits ('train') only, not to a mechanism audit")
    return "train" if has_train else "mechanism"


def load_train(value: Any, error: Error) -> tuple[str, Callable[..., Any]]:
    """(the spec, the callable) of `train = "package.module:attribute"`, imported now."""
    if not isinstance(value, str) or not value.strip():
        raise error(f"'train' must be a non-empty string, got {_shown(value)} ({_type_name(value)})")
    spec = value.strip()
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise error(f"'train' must be package.module:attribute, got {spec!r}")
    try:
        train = getattr(_import_user_module(module_name), attr)
    except RegistryError as exc:
        raise error(str(exc).splitlines()[0]) from None
    except AttributeError:
        raise error(f"{module_name!r} has no attribute {attr!r}") from None
    if not callable(train):
        raise error(f"'train' {spec!r} is not callable: expected train(included, rng) -> scores")
    return spec, train


def default_name(train_spec: str) -> str:
    """An audit name from the training function's spec (`pkg.mod:train` → `pkg.mod.train`)."""
    return train_spec.replace(":", ".")


def _integer(raw: dict[str, Any], key: str, error: Error, *, minimum: int) -> int:
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise error(f"{key!r} must be an integer ≥ {minimum}, got {_shown(value)} ({_type_name(value)})")
    return value


def _number(raw: dict[str, Any], key: str, error: Error) -> float | None:
    if key not in raw:
        return None
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise error(f"{key!r} must be a finite number, got {_shown(value)} ({_type_name(value)})")
    return float(value)


def _choice(raw: dict[str, Any], key: str, choices: tuple[str, ...], default: str, error: Error) -> str:
    value = raw.get(key, default)
    if value not in choices:
        raise error(f"{key!r} must be one of {', '.join(choices)}, got {_shown(value)}")
    return str(value)


def _designs(raw: dict[str, Any], canaries: int, error: Error) -> tuple[Design, ...] | None:
    """`k_plus`/`k_minus` as one fixed design (as `--k-plus/--k-minus`), else None."""
    if "k_plus" not in raw and "k_minus" not in raw:
        return None
    k_plus = _integer(raw, "k_plus", error, minimum=0) if "k_plus" in raw else 0
    k_minus = _integer(raw, "k_minus", error, minimum=0) if "k_minus" in raw else 0
    if not 1 <= k_plus + k_minus <= canaries:
        raise error(f"'k_plus' + 'k_minus' must be between 1 and the {canaries} canaries")
    return (Design(k_plus=k_plus, k_minus=k_minus),)


@dataclass(frozen=True, slots=True, kw_only=True)
class _ClaimKeys:
    """The claim's keys of one audit, type-checked."""

    epsilon: float | None
    delta: float | None
    accountant: str | None
    gdp: float | None
    relation: Relation
    kind: str | None = None

    def flags(self, *, method: str, designs: tuple[Design, ...] | None) -> tuple[tuple[str, str], ...]:
        """These keys, the method and the design as `dpaudit one-run` options (its `_options` order)."""
        design = designs[0] if designs else None
        pairs = (
            ("--epsilon", self.epsilon),
            ("--delta", self.delta),
            ("--accountant", self.accountant),
            ("--gdp", self.gdp),
            ("--claim-kind", self.kind),
            ("--method", method),
            ("--k-plus", None if design is None else design.k_plus),
            ("--k-minus", None if design is None else design.k_minus),
        )
        given = tuple((flag, str(value)) for flag, value in pairs if value is not None)
        return (*given, ("--relation", self.relation.value))


def _claim_keys(raw: dict[str, Any], error: Error) -> _ClaimKeys:
    accountant = raw.get("accountant")
    if accountant is not None and not isinstance(accountant, str):
        raise error(f"'accountant' must be a string \"SIGMA,Q,T\", got {_shown(accountant)}")
    keys = _ClaimKeys(
        epsilon=_number(raw, "epsilon", error),
        delta=_number(raw, "delta", error),
        accountant=accountant,
        gdp=_number(raw, "gdp", error),
        relation=Relation(_choice(raw, "relation", RELATIONS, RELATIONS[0], error)),
        kind=_choice(raw, "claim_kind", CLAIM_KINDS, "proved", error) if "claim_kind" in raw else None,
    )
    if sum(x is not None for x in (keys.epsilon, keys.accountant, keys.gdp)) > 1:
        raise error("give the claim once: 'epsilon' (with 'delta'), 'accountant' or 'gdp'")
    return keys


def _claim(keys: _ClaimKeys, train: Callable[..., Any], where: str) -> PrivacyClaim:
    """The claim the keys state (ValueError on a bad value), else the function's `claim` attribute."""
    text = ClaimText(
        epsilon=keys.epsilon,
        delta=keys.delta,
        accountant=keys.accountant,
        gdp=keys.gdp,
        relation=keys.relation,
        kind=ClaimKind(keys.kind or "proved"),
    )
    return parse_claim(
        text, spelling=lambda key: f"'{key}'", where=f"in {where}", default=getattr(train, "claim", None)
    )


def one_run_spec(
    raw: dict[str, Any],
    *,
    error: Error,
    index: int,
    name: str,
    train_spec: str,
    train: Callable[..., Any],
    where: str,
    seed: int,
    failure_probability: float,
    timeout: float | None,
) -> OneRunSpec:
    """The one-run audit of table `raw` (its `train` already imported by `load_train`); `where` names
    the table in the claim's reference (e.g. "dpaudit.toml, [[audit]] #2")."""
    if "canaries" not in raw:
        raise error("missing required key 'canaries' (the number m of canaries, e.g. 1000)")
    canaries = _integer(raw, "canaries", error, minimum=1)
    method = _choice(raw, "method", METHODS, DEFAULT_METHOD, error)
    designs = _designs(raw, canaries, error)
    keys = _claim_keys(raw, error)
    try:
        claim = _claim(keys, train, where)
    except ValueError as exc:
        raise error(str(exc).splitlines()[0]) from None
    return OneRunSpec(
        index=index,
        name=name,
        train_spec=train_spec,
        train=train,
        canaries=canaries,
        claim=claim,
        claim_flags=keys.flags(method=method, designs=designs),
        method=method,
        designs=designs,
        seed=seed,
        failure_probability=failure_probability,
        timeout=timeout,
    )
