"""The distinguisher registry: each distinguisher registers itself where it is defined.

`@distinguisher(...)` on a distinguisher class records its `Capabilities` (does it fit a statistic
on the selection split, its cost class, the `type` keys of the events it proposes, the sets it
belongs to and its rank in them) and, for a set member, the configured instances the set holds.
The default, float, learned and pilot sets (`sets.py`) are queries over this registry, so a new
distinguisher is one module with one decorator: nothing else lists it. The decorator also sets
the class attribute `capabilities`, so any instance (and any subclass) carries them.

Order matters: `selection.choose_events` breaks a tie between candidates in the order the
distinguishers are tried, so a set is sorted by `rank` (then by registration), and the ranks of
the built-in members reproduce the order the hand-kept lists had.

Validity does not depend on the registry: every distinguisher only *proposes* events, chosen on
the selection split and certified on fresh samples (docs/DESIGN.md, "Statistics").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from ..events import EVENT_TYPES

CHEAP = "cheap"
"""Cost class of a distinguisher that needs no fitting: the search's pilot uses it."""
FITTED = "fitted"
"""Cost class of a distinguisher that fits a statistic: certification only."""

DEFAULT = "default"
"""The runner's default set."""
FLOAT = "float"
"""Added to the default set for a mechanism whose claim covers its floating-point bits."""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a distinguisher is, for the sets and the pilot (see the module docstring)."""

    cost: str
    event_types: tuple[str, ...]
    sets: tuple[str, ...] = ()
    rank: int = 1000
    fits: bool = False

    def __post_init__(self) -> None:
        if self.cost not in (CHEAP, FITTED):
            raise ValueError(f"cost must be {CHEAP!r} or {FITTED!r}, got {self.cost!r}")
        if self.fits and self.cost == CHEAP:
            raise ValueError("a distinguisher that fits a statistic is not cheap")


@dataclass(frozen=True, slots=True)
class Registered:
    """One registered class: its capabilities and the instances its sets hold."""

    cls: type
    capabilities: Capabilities
    instances: Callable[[], tuple[Any, ...]]
    order: int


_REGISTRY: dict[str, Registered] = {}
"""Keyed by the class's qualified name (a module imported twice registers once)."""

T = TypeVar("T", bound=type)


def distinguisher(
    *,
    cost: str,
    event_types: Sequence[str],
    sets: Sequence[str] = (),
    rank: int = 1000,
    fits: bool = False,
    instances: Callable[[], Sequence[Any]] | None = None,
) -> Callable[[T], T]:
    """Register a distinguisher class (see the module docstring). `instances` builds the
    configured instances its sets hold (default: one instance with the class defaults)."""
    caps = Capabilities(cost=cost, event_types=tuple(event_types), sets=tuple(sets), rank=rank, fits=fits)

    def register(cls: T) -> T:
        cls.capabilities = caps  # type: ignore[attr-defined]
        key = f"{cls.__module__}.{cls.__qualname__}"
        make = instances if instances is not None else (lambda: (cls(),))
        order = _REGISTRY[key].order if key in _REGISTRY else len(_REGISTRY)
        _REGISTRY[key] = Registered(cls, caps, lambda: tuple(make()), order)
        return cls

    return register


def capabilities_of(d: Any) -> Capabilities | None:
    """The capabilities a distinguisher (instance or class) carries; None if unregistered."""
    caps = getattr(d if isinstance(d, type) else type(d), "capabilities", None)
    return caps if isinstance(caps, Capabilities) else None


def registered() -> tuple[Registered, ...]:
    """Every registered class, in rank order (then registration order)."""
    return tuple(sorted(_REGISTRY.values(), key=lambda r: (r.capabilities.rank, r.order)))


def members(*set_names: str, cost: str | None = None) -> tuple[Any, ...]:
    """The configured instances of every class in any of `set_names` (of cost class `cost`, if
    given), in rank order."""
    wanted = set(set_names)
    return tuple(
        d
        for r in registered()
        if wanted & set(r.capabilities.sets) and cost in (None, r.capabilities.cost)
        for d in r.instances()
    )


def is_cheap(d: Any) -> bool:
    """Whether `d` needs no fitting (the pilot's criterion); unregistered ones are not cheap."""
    caps = capabilities_of(d)
    return caps is not None and caps.cost == CHEAP


@contextmanager
def scratch() -> Iterator[None]:
    """Registrations made inside (distinguishers and event types) are undone on exit (tests and
    worked examples)."""
    saved, saved_events = dict(_REGISTRY), dict(EVENT_TYPES)
    try:
        yield
    finally:
        _REGISTRY.clear()
        _REGISTRY.update(saved)
        EVENT_TYPES.clear()
        EVENT_TYPES.update(saved_events)
