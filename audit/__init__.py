"""The audit engine: bounds, estimators, sampling, runner and CLI."""
