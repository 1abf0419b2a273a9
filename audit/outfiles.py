"""Files under `--out`: names made from mechanism names, written atomically, never through a link.

A mechanism's name is user input (`package.module:attribute` objects choose their own), so it is
never used as a path as it stands: `safe_stem` keeps letters, digits, `.`, `_` and `-`, drops
leading dots (no `..`, no hidden files) and, when anything was changed, appends a short hash of
the original name so two names that clean to the same text still get different files.

`write_text` writes a fresh temporary file in the target's directory and renames it over the
target: a crash never leaves a truncated file, and a symlink planted at the target (or at a
predictable temporary name) is replaced, never followed. The file gets the permissions an
ordinary `open(path, "w")` would (0666 less the umask, e.g. 0644 under umask 022), not the
temporary file's 0600.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

MAX_STEM = 120
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_stem(name: str) -> str:
    """A file-name stem for `name`: the name itself when it is already safe."""
    stem = _UNSAFE.sub("_", name).lstrip(".")[:MAX_STEM] or "mechanism"
    if stem == name:
        return stem
    return f"{stem}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def current_umask() -> int:
    """The process's umask (read by setting it and restoring it at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_text(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (temp file in the same directory, then rename)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        with open(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
