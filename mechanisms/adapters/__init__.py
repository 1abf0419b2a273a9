"""Generic adapters for the objects users import from DP libraries: scikit-learn-style estimators
(`from_estimator`), synthesizers and release-style calls fitted on a table (`from_synthesizer`,
`from_release`), published as the features an attack would read.

Entered through this `__init__`; nothing here imports a DP library (the user's `make` does)."""

from __future__ import annotations

from .estimator import EstimatorRelease, from_estimator
from .synthesizer import from_release, from_synthesizer

__all__ = ["EstimatorRelease", "from_estimator", "from_release", "from_synthesizer"]
