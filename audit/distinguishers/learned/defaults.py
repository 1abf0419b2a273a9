"""Learned statistic distinguishers for vector outputs (docs/DESIGN.md, "Statistics"; issue 7).

The threshold distinguisher looks at one coordinate at a time (plus one standardised
mean-difference projection). When the privacy loss is spread over many coordinates no single
coordinate carries it, and the best event is a threshold on a *learned* statistic. Two
distinguishers here implement the `audit.estimators.Distinguisher` protocol:

- `LogisticDistinguisher`: logistic regression of the side label (1 = dataset, 0 = neighbour)
  on the output features φ(x) (standardised coordinates, optionally with their squares).
  For two Gaussians with a shared covariance the log-likelihood ratio is linear in x, so the
  fitted statistic w·φ(x) estimates the optimal (Neyman–Pearson) statistic; with squared features
  it also captures a change of scale per coordinate.
- `ProjectionDistinguisher`: thresholds on a few fixed linear projections: the raw
  difference of means, the Fisher (LDA) direction Σ⁻¹Δμ, and the top principal direction of
  the pooled outputs. (Each single coordinate is already covered by
  `ThresholdDistinguisher`.)

Held-out counts (the contract with the runner). The logistic statistic is *fitted* on one half of
the selection split and the candidate counts are computed on the *other* half, so the
runner's choice among thresholds is not made on the samples that trained the statistic (a statistic
fitted on a sample looks better on that sample than on fresh ones). `choose_event` treats the
totals of the counts as `a.shape[0]` and `b.shape[0]`, so `propose` returns the held-out
counts **rescaled to the full selection size** (multiplied by n_a / h_a ≈ 2 on side a and
n_b / h_b ≈ 2 on side b, where h is the held-out size). The rescaled counts are real-valued;
`bounds.projected_epsilon` accepts that. The rescaling makes the projection's pessimism
shading slightly optimistic (it believes in twice as many samples as there are); it affects
only which event is chosen, never the validity of the certified bound, which is computed by
the runner on fresh certification samples.

Layout: `learned_statistics` (statistic events, held-out counts, applicability), `learned_logistic`,
`learned_projection`; this module holds the runner's defaults and re-exports the rest.

Events (`FittedEvent`) are frozen dataclasses holding only tuples, floats and flags, so they
pickle to worker processes. `propose` never raises on well-formed input: if statsmodels
fails (no convergence, singular design, perfect separation), a few ridge-damped Newton/IRLS
steps in numpy take over, and if even those fail the standardised mean difference is used.
It returns None when not applicable: 1-D outputs (use `ThresholdDistinguisher`), all
features constant, or too few samples.

In the runner's defaults (`default_learned_distinguishers`, part of
`audit.estimators.DEFAULT_DISTINGUISHERS`). Logistic (linear), logistic (squared features) and
the projections are proposed next to the histogram and threshold candidates, and the runner
certifies whichever has the best projected bound. Cost caps: fits use ≤ `DEFAULT_MAX_FIT` rows
per side and ≤ `DEFAULT_MAX_FEATURES` coordinates (screened by standardised mean difference),
statsmodels' Newton stops after `NEWTON_MAX_ITER` steps (then the ridge IRLS takes over), and
the dense algebra runs on one BLAS thread (`single_threaded_blas`). They stay silent on 1-D
outputs and in the histogram's case (`few_distinct`: at most `max_bins` distinct outputs, each
seen ≥ `MIN_REPEATS` times on average), so scalar and small discrete audits pay nothing.
"""

from __future__ import annotations

from ..base import Distinguisher
from ..registry import DEFAULT, capabilities_of, members
from .fitted import (
    DEFAULT_MAX_FEATURES,
    DEFAULT_MAX_FIT,
    MIN_REPEATS,
    MIN_SAMPLES_PER_SIDE,
    FittedEvent,
    Floats,
    applicable,
    few_distinct,
    guarded_propose,
    single_threaded_blas,
    top_columns,
)
from .logistic import (
    IRLS_MAX_ITER,
    NEWTON_MAX_ITER,
    LogisticDistinguisher,
    fit_logistic,
    irls_logistic,
)
from .projection import ProjectionDistinguisher, projection_directions
from .quadratic import QuadraticDistinguisher
from .support import SupportDistinguisher
from .trajectory import TrajectoryDistinguisher

__all__ = [  # the runner's defaults; the distinguishers and their parts are re-exported
    "DEFAULT_MAX_FEATURES",
    "DEFAULT_MAX_FIT",
    "IRLS_MAX_ITER",
    "LEARNED_DISTINGUISHERS",
    "MIN_REPEATS",
    "MIN_SAMPLES_PER_SIDE",
    "NEWTON_MAX_ITER",
    "FittedEvent",
    "Floats",
    "LogisticDistinguisher",
    "ProjectionDistinguisher",
    "QuadraticDistinguisher",
    "SupportDistinguisher",
    "TrajectoryDistinguisher",
    "applicable",
    "default_learned_distinguishers",
    "few_distinct",
    "fit_logistic",
    "guarded_propose",
    "irls_logistic",
    "projection_directions",
    "single_threaded_blas",
    "top_columns",
]

LEARNED_DISTINGUISHERS: tuple[LogisticDistinguisher | ProjectionDistinguisher, ...] = (
    LogisticDistinguisher(),
    LogisticDistinguisher(name="logistic-squared", squared=True),
    ProjectionDistinguisher(),
)
"""The learned distinguishers with their class defaults (no distinct-value gate)."""


def default_learned_distinguishers() -> tuple[Distinguisher, ...]:
    """The learned part of `sets.DEFAULT_DISTINGUISHERS`: the registered default-set members that
    fit a statistic (`registry`), in rank order: logistic (linear and squared features), fixed
    projections, the trajectory mixture log-likelihood ratio (`learned.trajectory`), the
    thin-support residual events (`learned.support`) and the diagonal-Gaussian quadratic
    discriminant (`learned.quadratic`; the last three issue 35; the quadratic one cost 0.99× the
    main job's CPU), each fitted on ≤ `DEFAULT_MAX_FIT` rows per side and silent when the histogram
    applies (≤ its `max_bins` distinct outputs) or outputs are 1-D.
    """
    return tuple(d for d in members(DEFAULT) if (c := capabilities_of(d)) is not None and c.fits)
