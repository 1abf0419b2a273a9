"""The distinguisher sets, each a query over the registry (`registry.py`): the base set (the
default members that need no fitting), the learned set, the default set (`BASE_DISTINGUISHERS`
plus the learned statistics for vector outputs), the float set (plus the floating-point events for
mechanisms whose claim is about their float implementation) and the search pilot's (the cheap
members of whatever set the audit certifies with).

The learned ones (`learned.py`: logistic regression on the coordinates, with and without squared
features, and fixed linear projections) return no candidates on 1-D outputs and when the
histogram already applies (at most `HistogramDistinguisher.max_bins` distinct outputs: every
event on such a support is a set of values, and the histogram's likelihood-ratio ordering
already ranks them), and fit on a capped subsample of the selection split
(`learned.DEFAULT_MAX_FIT` rows per side), so a scalar or small discrete audit pays nothing for
them. Every module of the wing is imported here (`import_members`: registration happens where each
class is defined), so a query sees the whole family, a new member's file included.

A mechanism that declares `statistics` (scalar statistics it knows to be its likelihood ratio,
e.g. DP-SGD's gradient-canary `MixtureLLR`) also gets `statistic_events.StatisticDistinguisher`.

`FLOAT_DISTINGUISHERS` adds `float_events.FloatDistinguisher` (lattice and ulp-residue events,
Mironov 2012). It is used for a mechanism that declares `floating_point = True`: its claim is
about the bits it releases (the `floats` and `libraries` families, `from_callable(...,
floating_point=True)`). The textbook mechanisms and the learners state claims about the
mechanism over the reals, which their float implementations only approximate: `laplace_sum` is
`x + rng.laplace(0, 1/ε)` over doubles, exactly Mironov's counterexample, and would be refuted
by an infinite witness that says nothing about the algorithm its claim is about. So an
undeclared mechanism keeps `DEFAULT_DISTINGUISHERS`, and every existing number is unchanged,
unless the user asks for the float events (`AuditConfig.floating_point`: `dpaudit run
--floating-point`, `dpaudit.audit(floating_point=True)`, the gate key `floating_point = true`),
which audits code they did not write (a library function through `module:attr`) without a wrapper.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Sequence
from typing import Any

from .base import Distinguisher
from .learned import default_learned_distinguishers
from .registry import CHEAP, DEFAULT, FLOAT, is_cheap, members
from .statistic import with_statistics


def import_members() -> None:
    """Import every module of the wing (`dpaudit.engine.distinguishers` and `learned/`): a class
    registers where it is defined, so a new member is one new file that nothing else imports."""
    wing = importlib.import_module(__name__.rsplit(".", 1)[0])
    for info in pkgutil.walk_packages(wing.__path__, wing.__name__ + "."):
        importlib.import_module(info.name)


import_members()


def base_distinguishers() -> tuple[Distinguisher, ...]:
    """The default set's members that need no fitting (histogram, thresholds)."""
    return members(DEFAULT, cost=CHEAP)


def learned_distinguishers() -> tuple[Distinguisher, ...]:
    """The default set's members that fit a statistic (`learned/`)."""
    return default_learned_distinguishers()


def float_distinguishers() -> tuple[Distinguisher, ...]:
    """The default set plus the floating-point events (`floats`), in rank order."""
    return members(DEFAULT, FLOAT)


def pilot_distinguishers(distinguishers: Sequence[Distinguisher]) -> list[Distinguisher]:
    """The search pilot's: those of `distinguishers` whose registered cost class is cheap (no
    fitting), or all of them when none is."""
    cheap = [d for d in distinguishers if is_cheap(d)]
    return cheap or list(distinguishers)


BASE_DISTINGUISHERS: tuple[Distinguisher, ...] = base_distinguishers()
"""The base set as registered when the wing was imported."""

DEFAULT_DISTINGUISHERS: tuple[Distinguisher, ...] = members(DEFAULT)
"""The default set as registered when the wing was imported (`default_distinguishers()` queries
the registry at each call)."""

FLOAT_DISTINGUISHERS: tuple[Distinguisher, ...] = float_distinguishers()
"""`DEFAULT_DISTINGUISHERS` plus the floating-point lattice events."""


def audits_float_bits(mechanism: Any, *, floating_point: bool = False) -> bool:
    """Whether to audit a mechanism's floating-point bits: it declares `floating_point` (its claim
    covers its float implementation), or the caller asks (`floating_point=True`: the user's
    `dpaudit run --floating-point`, `audit(floating_point=True)` or gate key, for code such as a
    library function whose author declared nothing)."""
    return floating_point or bool(getattr(mechanism, "floating_point", False))


def default_distinguishers(
    mechanism: Any = None, *, floating_point: bool = False
) -> tuple[Distinguisher, ...]:
    """The runner's default set: the float set for a mechanism declaring `floating_point = True`
    or with `floating_point=True` (`AuditConfig.floating_point`), else the default set; plus the
    Neyman–Pearson distinguisher on the mechanism's declared `statistics` (`statistic`), if any."""
    base = (
        float_distinguishers()
        if audits_float_bits(mechanism, floating_point=floating_point)
        else members(DEFAULT)
    )
    return with_statistics(base, mechanism)
