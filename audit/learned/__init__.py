"""The learned wing: distinguishers whose statistic is fitted on the selection split.

`fitted` is the shared machinery (a fitted statistic w·φ(x), its threshold events, the held-out
half), `logistic` and `projection` the two fits, `distinguishers` their default set. This module
is the wing's only door.
"""

from dpaudit.engine.learned.distinguishers import default_learned_distinguishers
from dpaudit.engine.learned.logistic import LogisticDistinguisher
from dpaudit.engine.learned.projection import ProjectionDistinguisher

__all__ = ["LogisticDistinguisher", "ProjectionDistinguisher", "default_learned_distinguishers"]
