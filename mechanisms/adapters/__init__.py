"""Generic adapters for what users import: scikit-learn-style estimators (`from_estimator`).

Entered through this `__init__`; nothing here imports a DP library (the user's `make` does)."""

from __future__ import annotations

from dpaudit.mechanisms.adapters.estimator import EstimatorRelease, from_estimator

__all__ = ["EstimatorRelease", "from_estimator"]
