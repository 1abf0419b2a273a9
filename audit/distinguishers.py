"""The default distinguisher set: `BASE_DISTINGUISHERS` plus the learned scores for vector outputs.

The learned ones (`learned.py`: logistic regression on the coordinates, with and without squared
features, and fixed linear projections) return no candidates on 1-D outputs and when the
histogram already applies (at most `HistogramDistinguisher.max_bins` distinct outputs: every
event on such a support is a set of values, and the histogram's likelihood-ratio ordering
already ranks them), and fit on a capped subsample of the selection split
(`learned.DEFAULT_MAX_FIT` rows per side), so a scalar or small discrete audit pays nothing for
them. This module exists so that `estimators` (the event types and base distinguishers) and
`learned` (which builds on them) do not import each other.
"""

from __future__ import annotations

from dpaudit.engine.estimators import BASE_DISTINGUISHERS, Distinguisher
from dpaudit.engine.learned import default_learned_distinguishers

DEFAULT_DISTINGUISHERS: tuple[Distinguisher, ...] = (*BASE_DISTINGUISHERS, *default_learned_distinguishers())


def default_distinguishers() -> tuple[Distinguisher, ...]:
    """The runner's default set (`DEFAULT_DISTINGUISHERS`)."""
    return DEFAULT_DISTINGUISHERS
