"""What `dpaudit scan` audits: one `Target` per export of the installed library.

A target is an export (a model, a synthesizer, a mechanism, a tool) with the builder that wraps
it through dpaudit's generic adapters, or the reason it could not be built. Builders run in the
worker that audits them, so a library is imported only there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dpaudit.mechanisms.base import Mechanism


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """One export of a library: `build()` wraps it as a mechanism, or `reason` says why not."""

    library: str
    export: str
    """What the library exports, as a user imports it (`models.LogisticRegression`)."""
    kind: str
    """model, synthesizer, mechanism or tool."""
    build: Callable[[], Mechanism] | None = None
    reason: str = ""
    """Why no mechanism is built (`build` is None)."""

    @property
    def name(self) -> str:
        return f"{self.library}.{self.export}"


def preset(name: str) -> Mechanism:
    """The registered preset `name` (a library export dpaudit already wraps), built."""
    from dpaudit.mechanisms.registry import entries

    return entries()[name].build()


class LibraryNotInstalledError(ValueError):
    """The scanned library cannot be imported here (an input error: exit 2)."""
