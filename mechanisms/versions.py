"""Installed versions of optional libraries, read from package metadata (so asking never imports
the library). Shared by the accountants (claim references name the version) and the library
families (availability); here so that neither imports the other (issue 43).
"""

from __future__ import annotations

import functools
from importlib import metadata


@functools.cache
def version_of(distribution: str) -> str | None:
    """The installed version of a distribution, or None when it is not installed (read once per
    process: registration, `dpaudit list`'s hint and every claim reference ask for it)."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def major_minor(version: str) -> tuple[int, int]:
    parts = ([*version.split("."), "0", "0"])[:2]
    return tuple(int("".join(ch for ch in p if ch.isdigit()) or 0) for p in parts)  # type: ignore[return-value]
