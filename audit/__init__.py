"""The statistical engine (`dpaudit.engine`): bounds, events, sampling at the root; the
distinguishers, runner, search and one-run wings in their folders.

Old import paths (issue 43). The modules that moved into a wing keep their old names for one
release: `MOVED` maps each old path (relative to `dpaudit.engine`) to its new one, and the finder
below makes `import dpaudit.engine.<old>` return the moved module itself (the same object, so
classes, registries and `isinstance` are shared) with a `DeprecationWarning`. Nothing is left at
the old paths, so version control sees the moves as renames. The old paths go in the next release.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType

MOVED = {
    "estimators_base": "distinguishers.base",
    "estimators": "distinguishers.selection",
    "float_events": "distinguishers.floats",
    "statistic_events": "distinguishers.statistic",
    "output_width": "distinguishers.width",
    "objectives": "distinguishers.objectives",
    "learned": "distinguishers.learned",
    "learned.distinguishers": "distinguishers.learned.defaults",
    "plan": "runner.sizing",
    "whitebox": "runner.whitebox",
    "runner.checkpoint": "runner.resume",
    "search.sampling": "search.pilot_samples",
}
"""Old module path → new one, both relative to this package (`learned.<x>` → `distinguishers.learned.<x>`)."""


def moved_to(fullname: str) -> str | None:
    """The new absolute name of a moved module's old absolute name, else None."""
    prefix = __name__ + "."
    if not fullname.startswith(prefix):
        return None
    old = fullname[len(prefix) :]
    if old in MOVED:
        return prefix + MOVED[old]
    if old.startswith("learned."):
        return prefix + "distinguishers." + old
    return None


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves an old path to the moved module (warning once per old path and process)."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        return importlib.util.spec_from_loader(fullname, self) if moved_to(fullname) else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = moved_to(spec.name)
        assert new is not None
        warnings.warn(
            f"{spec.name} moved to {new} (issue 43); the old path is removed in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """The moved module is already executed."""


if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _MovedFinder())
