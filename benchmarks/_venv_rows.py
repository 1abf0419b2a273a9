"""A known-bugs row run in the venv of one library version (issue 44, `benchmarks/expensive.py`).

The venvs are `benchmarks/known_bugs.py`'s (one per (package, version) under its cache folder, made
once from the row module's `REQUIREMENTS`, from the public index, never in the environment running
the benchmark): a benchmark that needs another version of a library runs in an environment of its
own. Only the standard library (the row's constants are read with `ast`, not imported).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

try:  # imported as benchmarks._venv_rows (the tests) or from a script run in benchmarks/
    from benchmarks import known_bugs
except ImportError:
    import known_bugs  # type: ignore[no-redef]


def package_of(row: str) -> str:
    """A known-bugs row's library: its module's `PACKAGE`."""
    return str(known_bugs.read_row(known_bugs.ROWS / f"{row}.py")["PACKAGE"])


def venv_python(row: str, version: str, *, cache: Path, make: bool) -> tuple[str, str]:
    """The python of the row's library at `version` under `cache`, made first with `make` if
    missing; or ("", why it cannot run) when there is no finished venv."""
    package = package_of(row)
    python = known_bugs.venv_python(cache, package, version)
    if make and not known_bugs.installed(python):
        constants = known_bugs.read_row(known_bugs.ROWS / f"{row}.py")
        reqs = list(dict(constants["REQUIREMENTS"])[version])  # type: ignore[call-overload]
        known_bugs.environment(cache, package, version, reqs)
    if not known_bugs.installed(python):
        return "", f"no venv: skipped ({package} {version} not made at {python.parent.parent}; --make-venvs)"
    return str(python), ""


def venv_of(cmd: Sequence[str]) -> str:
    """The venv a command runs in (its python's folder's parent), "" for this interpreter."""
    return "" if cmd[0] == sys.executable else str(Path(cmd[0]).parent.parent)
