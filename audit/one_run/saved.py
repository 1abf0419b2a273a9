"""Never lose a training (issue 42, build item 6): one run's scores, inclusion bits and registered
designs are saved before any analysis, into an output directory checked writable before training.

The file is NPZ with the arrays `scores` (float64, one per canary), `included` (bool) and
`designs` (int64 rows (k₊, k₋): the designs fixed before the bits were drawn, design_choice.py),
the layout `dpaudit scores FILE` reads (dpaudit/app/cli/score_files.py), so
`dpaudit scores FILE` re-certifies the training exactly as `one-run` did, or with other designs
at their charged share. Written to a fresh temporary name in the directory, then renamed (a crash
never leaves a truncated file under the final name; a planted symlink is replaced, not followed).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from ..outfiles import safe_stem
from .bound import Design

SUFFIX = ".scores.npz"


class OutputDirError(OSError):
    """The output directory cannot be created or written (the caller's input error, exit 2)."""


def ensure_writable(out: Path) -> None:
    """Create `out` and write-probe it (a temporary file, removed): before any training, so an
    unwritable directory is found before the training it would lose."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=out, prefix=".dpaudit-probe-", suffix=".tmp")
        os.close(fd)
        Path(probe).unlink()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise OutputDirError(f"--out {out}: cannot write there ({reason}); nothing was trained") from None


def scores_path(out: Path, name: str) -> Path:
    """`<out>/<safe name>.scores.npz`."""
    return out / f"{safe_stem(name)}{SUFFIX}"


def save_scores(
    path: Path, *, scores: np.ndarray[Any, Any], included: np.ndarray[Any, Any], designs: tuple[Design, ...]
) -> None:
    """Write the NPZ (module docstring), atomically."""
    values = np.asarray(scores, dtype=np.float64)
    bits = np.asarray(included, dtype=bool)
    rows = np.array([(d.k_plus, d.k_minus) for d in designs], dtype=np.int64).reshape(-1, 2)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with open(fd, "wb") as fh:
            np.savez(fh, scores=values, included=bits, designs=rows)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
