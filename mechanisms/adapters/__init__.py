"""Adapters for the objects users import from DP libraries: synthesizers (and release-style
objects) fitted on a table, published as the features an attack would read."""

from dpaudit.mechanisms.adapters.synthesizer import from_release, from_synthesizer

__all__ = ["from_release", "from_synthesizer"]
