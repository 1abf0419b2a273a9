"""The mechanism registry: name → factory, plus `package.module:attribute` for user code.

Reference mechanisms and their twins are listed here. Each learner family lives in its own
module that exposes `REGISTRY_ENTRIES: tuple[RegistryEntry, ...]`; add the module's dotted
path to `FAMILY_MODULES` to register it (see ARCHITECTURE.md, "Adding a mechanism").
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from . import buggy, reference
from .base import Mechanism, is_mechanism

FAMILY_MODULES: tuple[str, ...] = (
    "dpaudit.mechanisms.agnostic",  # 000 / 001: realizable-to-agnostic, private prediction
    "dpaudit.mechanisms.geometric",  # 002: set cover, conjunctions, k-gons, unions of polygons
    "dpaudit.mechanisms.decision_lists",  # 003: private decision lists, DP-Winnow
    "dpaudit.mechanisms.boosting",  # 004: LazyBregBoost, private halfspaces
    "dpaudit.mechanisms.counting",  # svt: sparse vector technique (Lyu, Su & Li 2017)
    "dpaudit.mechanisms.floats",  # floats: floating-point twins (Mironov 2012) and exact samplers
    "dpaudit.mechanisms.dpsgd",  # dpsgd: DP-SGD with canaries and accountant claims (Abadi et al. 2016)
    "dpaudit.mechanisms.libraries",  # libraries: OpenDP and diffprivlib (only when installed)
    "dpaudit.mechanisms.opacus",  # opacus: Opacus (PyTorch) DP-SGD with canaries (only when installed)
)


FAMILY_TITLES: Mapping[str, str] = {
    "reference": "textbook",
    "000,001": "agnostic learning (000, 001)",
    "002": "geometric concepts (002)",
    "003": "decision lists, Winnow (003)",
    "004": "boosting halfspaces (004)",
    "svt": "sparse vector technique (Lyu, Su & Li 2017)",
    "floats": "floating point (Mironov 2012)",
    "libraries": "DP libraries",
    "dpsgd": "DP-SGD (Abadi et al. 2016)",
    "opacus": "Opacus (PyTorch DP-SGD)",
}
"""What a reader sees for a family code (the codes stay the filter keys, e.g. `--family 002`).
000: Alon, Beimel, Moran, Stemmer, "Closure Properties for Private Classification and Online
Prediction"; 001: Li, Wang, Ye, "Private Realizable-to-Agnostic Transformation with Near-Optimal
Sample Complexity"; 002: Kaplan, Mansour, Matias, Stemmer, "Differentially Private Learning of
Geometric Concepts"; 003: Bun, Fang, "Privately Learning Decision Lists and a Differentially
Private Winnow"; 004: Bun, Carmosino, Sorrell, "Efficient, Noise-Tolerant, and Private Learning
via Boosting"; svt: Lyu, Su, Li, "Understanding the Sparse Vector Technique for Differential
Privacy"."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RegistryEntry:
    """How to build a registered mechanism and what the catalogue knows about it."""

    name: str
    factory: Callable[..., Mechanism]
    family: str
    summary: str
    buggy: bool = False
    twin_of: str | None = None
    bug: str = ""
    detectable: bool = True
    """False for a twin the spec finds undetectable black-box (listed, not silently dropped)."""
    default_num_samples: int = 1_000_000

    @classmethod
    def twin(
        cls,
        name: str,
        factory: Callable[..., Mechanism],
        *,
        family: str,
        of: str,
        bug: str,
        num_samples: int = 1_000_000,
        detectable: bool = True,
    ) -> RegistryEntry:
        """The entry of a buggy twin of `of`: its bug is its summary (every family's twins)."""
        return cls(
            name=name,
            factory=factory,
            family=family,
            summary=bug,
            buggy=True,
            twin_of=of,
            bug=bug,
            detectable=detectable,
            default_num_samples=num_samples,
        )

    def __post_init__(self) -> None:
        if self.buggy and not self.twin_of:
            raise ValueError(f"buggy entry {self.name!r} must name its correct twin")

    @property
    def family_title(self) -> str:
        """The family in words, for listings and reports."""
        return FAMILY_TITLES.get(self.family, self.family)

    def build(self, **params: Any) -> Mechanism:
        mech = self.factory(**params)
        if mech.name != self.name:
            raise ValueError(f"factory of {self.name!r} built a mechanism named {mech.name!r}")
        return mech


def _ref(name: str, cls: Callable[..., Mechanism], summary: str) -> RegistryEntry:
    return RegistryEntry(name=name, factory=cls, family="reference", summary=summary)


def _twin(name: str, cls: Callable[..., Mechanism], of: str, bug: str) -> RegistryEntry:
    return RegistryEntry.twin(name, cls, family="reference", of=of, bug=bug)


REFERENCE_ENTRIES: tuple[RegistryEntry, ...] = (
    _ref("laplace_sum", reference.LaplaceSum, "bounded sum + Laplace noise (ε-DP)"),
    _ref("gaussian_sum", reference.GaussianSum, "bounded sum + analytic Gaussian noise ((ε, δ)-DP)"),
    _ref("randomized_response", reference.RandomizedResponse, "per-record randomized response"),
    _ref("exponential_mechanism", reference.ExponentialMechanism, "exponential mechanism on counts"),
    _ref("report_noisy_max", reference.ReportNoisyMax, "report noisy max, Laplace(2/ε)"),
    _ref("above_threshold", reference.AboveThreshold, "sparse vector, one ⊤"),
    _twin(
        "laplace_sum_range_bug",
        buggy.LaplaceSumRangeBug,
        "laplace_sum",
        "replace-one sensitivity max|x| instead of the range (true ε = 2ε)",
    ),
    _twin(
        "gaussian_sum_range_bug",
        buggy.GaussianSumRangeBug,
        "gaussian_sum",
        "replace-one sensitivity max|x| instead of the range (μ doubled)",
    ),
    _twin(
        "randomized_response_half_flip",
        buggy.RandomizedResponseHalfFlip,
        "randomized_response",
        "randomisation probability missing its factor 2 (true ε = ln(1 + 2e^ε))",
    ),
    _twin(
        "exponential_mechanism_no_half",
        buggy.ExponentialMechanismNoHalf,
        "exponential_mechanism",
        "exp(ε·u) instead of exp(ε·u/2) (true ε up to 2ε)",
    ),
    _twin(
        "report_noisy_max_half_scale",
        buggy.ReportNoisyMaxHalfScale,
        "report_noisy_max",
        "Laplace(1/ε) on a non-monotone histogram (true ε up to 2ε)",
    ),
    _twin(
        "above_threshold_no_query_noise",
        buggy.AboveThresholdNoQueryNoise,
        "above_threshold",
        "no noise on query answers (true ε = ∞)",
    ),
)


@cache
def entries() -> Mapping[str, RegistryEntry]:
    """Every registered mechanism, reference first, then each installed learner family."""
    found: dict[str, RegistryEntry] = {}
    groups: list[tuple[RegistryEntry, ...]] = [REFERENCE_ENTRIES]
    for module_name in FAMILY_MODULES:
        if importlib.util.find_spec(module_name) is None:
            continue
        module = importlib.import_module(module_name)
        groups.append(tuple(getattr(module, "REGISTRY_ENTRIES", ())))
    for group in groups:
        for e in group:
            if e.name in found:
                raise ValueError(f"mechanism name {e.name!r} registered twice")
            found[e.name] = e
    for e in found.values():
        if e.twin_of is not None and e.twin_of not in found:
            raise ValueError(f"{e.name!r} is a twin of unknown mechanism {e.twin_of!r}")
    return found


@cache
def unavailable() -> Mapping[str, str]:
    """Names a family knows but cannot build here (an optional extra is missing) → the one-line
    reason (a family module's `UNAVAILABLE`); `resolve` answers those names with it."""
    found: dict[str, str] = {}
    for module_name in FAMILY_MODULES:
        if importlib.util.find_spec(module_name) is None:
            continue
        found.update(getattr(importlib.import_module(module_name), "UNAVAILABLE", {}))
    return found


class RegistryError(LookupError):
    """Unknown mechanism or bad parameters (one-line message)."""


def factory_parameters(factory: Callable[..., Any]) -> dict[str, Any]:
    """Settable keyword parameters of a factory and their defaults (`name` excluded)."""
    if dataclasses.is_dataclass(factory):
        return {
            f.name: f.default
            for f in dataclasses.fields(factory)
            if f.init and f.name != "name" and f.default is not dataclasses.MISSING
        }
    sig = inspect.signature(factory)
    return {
        p.name: p.default
        for p in sig.parameters.values()
        if p.default is not inspect.Parameter.empty and p.name != "name"
    }


def coerce(value: str, default: Any) -> Any:
    """Parse a `--param k=v` value to the type of the parameter's default."""
    if isinstance(default, bool):
        if value.lower() in {"1", "true", "yes", "on"}:
            return True
        if value.lower() in {"0", "false", "no", "off"}:
            return False
        raise ValueError(f"expected true/false, got {value!r}")
    if isinstance(default, int):
        return int(value)
    if isinstance(default, float):
        return float(value)
    if isinstance(default, str):
        return value
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value


def parse_params(factory: Callable[..., Any], raw: Mapping[str, str]) -> dict[str, Any]:
    known = factory_parameters(factory)
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            valid = ", ".join(sorted(known)) or "none"
            raise RegistryError(f"unknown parameter {key!r} (valid: {valid})")
        try:
            out[key] = coerce(value, known[key])
        except ValueError as exc:
            raise RegistryError(f"bad value for parameter {key!r}: {exc}") from None
    return out


def _import_user_module(module_name: str) -> Any:
    """Import a user's module the way `python -m` would: the working directory is on the path.
    Any failure at import (a missing module, a syntax error, an exception in its top level) is
    the user's code failing: one RegistryError line, never a traceback."""
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:
        raise RegistryError(f"cannot import {module_name!r}: {exc}") from None
    except SyntaxError as exc:
        raise RegistryError(
            f"cannot import {module_name!r}: syntax error in {exc.filename}, line {exc.lineno}: {exc.msg}"
        ) from None
    except Exception as exc:
        message = " ".join(str(exc).split())
        raise RegistryError(f"importing {module_name!r} raised {type(exc).__name__}: {message}") from None


def resolve(spec: str, raw_params: Mapping[str, str] | None = None) -> tuple[Mechanism, RegistryEntry | None]:
    """A registered name, or `package.module:attribute` (a Mechanism or a factory for one)."""
    raw_params = dict(raw_params or {})
    table = entries()
    if spec in table:
        entry = table[spec]
        params = parse_params(entry.factory, raw_params)
        try:
            return entry.build(**params), entry
        except (ValueError, TypeError) as exc:
            raise RegistryError(f"cannot build {spec!r}: {exc}") from None
    if spec in unavailable():
        raise RegistryError(f"{spec} {unavailable()[spec]}")
    if ":" not in spec:
        close = [n for n in table if spec.lower() in n.lower()]
        hint = f" (did you mean {', '.join(close[:3])}?)" if close else " (see `dpaudit list`)"
        raise RegistryError(f"unknown mechanism {spec!r}{hint}")
    module_name, _, attr = spec.partition(":")
    module = _import_user_module(module_name)
    try:
        obj = getattr(module, attr)
    except AttributeError:
        raise RegistryError(f"{module_name!r} has no attribute {attr!r}") from None
    if is_mechanism(obj) and not isinstance(obj, type):
        if raw_params:
            raise RegistryError(f"{spec!r} is a mechanism instance; it takes no --param")
        return obj, None
    if callable(obj):
        params = parse_params(obj, raw_params)
        try:
            mech = obj(**params)
        except Exception as exc:
            raise RegistryError(f"cannot build {spec!r}: {type(exc).__name__}: {exc}") from None
        if not is_mechanism(mech):
            raise RegistryError(f"{spec!r} did not produce a Mechanism (got {type(mech).__name__})")
        return mech, None
    raise RegistryError(f"{spec!r} is neither a Mechanism nor a factory for one")
