"""The scan wing: `dpaudit scan LIBRARY` audits every export of an installed DP library.

targets (what an export is) → <library>_targets (what the installed version exports, built through
the generic adapters) → procedure (one blind audit per export, β split over them; fitting: its
budget lowered to what fits the timeout at its measured cost) → table.
"""

from __future__ import annotations

from collections.abc import Callable

from .fitting import TIMEOUT_SHARE
from .procedure import ScanConfig, ScanRow, row_seed, scan
from .table import render, to_json
from .targets import LibraryNotInstalledError, Target

__all__ = ["ALIASES", "DEFAULT_BUDGET", "LIBRARIES", "LIBRARY_BUDGETS", "TIMEOUT_SHARE",
           "LibraryNotInstalledError", "ScanConfig", "ScanRow", "Target", "canonical", "default_budget",
           "library_targets", "render", "row_seed", "scan", "to_json"]


def _diffprivlib() -> list[Target]:
    from . import diffprivlib_targets

    return diffprivlib_targets.targets()


def _opendp() -> list[Target]:
    from . import opendp_targets

    return opendp_targets.targets()


def _smartnoise() -> list[Target]:
    from . import smartnoise_targets

    return smartnoise_targets.targets()


LIBRARIES: dict[str, Callable[[], list[Target]]] = {
    "diffprivlib": _diffprivlib,
    "opendp": _opendp,
    "smartnoise-synth": _smartnoise,
}
"""Library name (its distribution name, as pip installs it) → its targets."""
ALIASES = {"smartnoise": "smartnoise-synth", "snsynth": "smartnoise-synth"}
"""Other names a user types for a library (its import name, its family's name)."""


DEFAULT_BUDGET = 1000
"""Samples per side for each export when `--budget` is not given: about what one library model
fit per second allows in a few minutes (smartnoise-synth's MWEM: 176 s at 1,000)."""
LIBRARY_BUDGETS = {"diffprivlib": 4000}
"""Libraries whose exports are cheap enough for more: a diffprivlib model fit takes ~0.01 s, so
4,000 per side is ~50 s CPU for its slowest export and the whole library (36 audits) fits in
minutes on 2 cores; at 1,000 the blind search cannot certify the rare event of
IBM/differential-privacy-library#104 (`LinearRegression`: ε ≥ 0 at 1,000, ≥ 1.47 at 4,000, its
scan seed and β share; ≥ 1.33 at 4,000 with its seed drawn from its name, `row_seed`)."""


def default_budget(library: str) -> int:
    """The per-side budget `dpaudit scan LIBRARY` uses without `--budget`."""
    return LIBRARY_BUDGETS.get(canonical(library), DEFAULT_BUDGET)


def canonical(library: str) -> str:
    """The distribution name of `library` (an alias resolved)."""
    return ALIASES.get(library, library)


def library_targets(library: str, only: tuple[str, ...] = ()) -> list[Target]:
    """The library's targets, narrowed by `only` (case-insensitive): a text that names an export
    exactly selects that export alone (`--only mechanisms.Laplace`, as a row's reproduce command
    passes it, is not also `LaplaceFolded`), any other selects every export containing it."""
    library = canonical(library)
    if library not in LIBRARIES:
        raise LibraryNotInstalledError(
            f"cannot scan {library!r}: dpaudit scans {', '.join(sorted(LIBRARIES))}"
        )
    found = LIBRARIES[library]()
    if only:
        names = {t.export.lower() for t in found}
        keys = [o.lower() for o in only]
        found = [t for t in found if any(_selects(k, t.export.lower(), names) for k in keys)]
        if not found:
            raise LibraryNotInstalledError(f"--only {', '.join(only)} matches no export of {library}")
    return found


def _selects(key: str, export: str, names: set[str]) -> bool:
    return key == export if key in names else key in export
