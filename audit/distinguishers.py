"""The default distinguisher set: `BASE_DISTINGUISHERS` plus the learned scores for vector outputs,
and the floating-point events for mechanisms whose claim is about their float implementation.

The learned ones (`learned.py`: logistic regression on the coordinates, with and without squared
features, and fixed linear projections) return no candidates on 1-D outputs and when the
histogram already applies (at most `HistogramDistinguisher.max_bins` distinct outputs: every
event on such a support is a set of values, and the histogram's likelihood-ratio ordering
already ranks them), and fit on a capped subsample of the selection split
(`learned.DEFAULT_MAX_FIT` rows per side), so a scalar or small discrete audit pays nothing for
them. This module exists so that `estimators` (the event types and base distinguishers) and
`learned` (which builds on them) do not import each other.

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

from typing import Any

from dpaudit.engine.estimators import BASE_DISTINGUISHERS, Distinguisher
from dpaudit.engine.float_events import FloatDistinguisher
from dpaudit.engine.learned import default_learned_distinguishers
from dpaudit.engine.magnitude import MagnitudeDistinguisher
from dpaudit.engine.statistic_events import with_statistics

DEFAULT_DISTINGUISHERS: tuple[Distinguisher, ...] = (
    *BASE_DISTINGUISHERS,
    *default_learned_distinguishers(),
    MagnitudeDistinguisher(),  # heavy-tailed outputs: tails of log |x_j|, max / min_j |x_j| (magnitude.py)
)

FLOAT_DISTINGUISHERS: tuple[Distinguisher, ...] = (*DEFAULT_DISTINGUISHERS, FloatDistinguisher())
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
    """The runner's default set: `FLOAT_DISTINGUISHERS` for a mechanism declaring
    `floating_point = True` or with `floating_point=True` (`AuditConfig.floating_point`), else
    `DEFAULT_DISTINGUISHERS`; plus the Neyman–Pearson
    distinguisher on the mechanism's declared `statistics` (`statistic_events`), if any."""
    base = (
        FLOAT_DISTINGUISHERS
        if audits_float_bits(mechanism, floating_point=floating_point)
        else DEFAULT_DISTINGUISHERS
    )
    return with_statistics(base, mechanism)
