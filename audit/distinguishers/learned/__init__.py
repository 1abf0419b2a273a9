"""The learned wing: distinguishers whose statistic is fitted on the selection split.

`fitted` is the shared machinery (a fitted statistic w·φ(x), its threshold events, the held-out
half), `logistic` and `projection` the two fits, `trajectory` the learned mixture likelihood
ratio of a training trajectory, `quadratic` the learned diagonal-Gaussian
log-likelihood ratio, `support` the thin-support residual events, `distinguishers`
their default set. This module is the wing's only door.
"""

from .defaults import default_learned_distinguishers
from .logistic import LogisticDistinguisher
from .projection import ProjectionDistinguisher
from .quadratic import QuadraticDistinguisher, QuadraticEvent
from .support import ResidualEvent, SupportDistinguisher
from .trajectory import TrajectoryDistinguisher, TrajectoryEvent

__all__ = [
    "LogisticDistinguisher",
    "ProjectionDistinguisher",
    "QuadraticDistinguisher",
    "QuadraticEvent",
    "ResidualEvent",
    "SupportDistinguisher",
    "TrajectoryDistinguisher",
    "TrajectoryEvent",
    "default_learned_distinguishers",
]
