"""Canary-score files for `dpaudit scores`: CSV, NPZ or JSON, two layouts.

- one run: `scores` (one per canary) and `included` (0/1 or true/false: the canary's inclusion bit,
  drawn i.i.d. with probability ½ independently of everything else);
- many runs: `in_scores` (one per run that trained on the canary) and `out_scores` (one per run
  that did not), every run independent.

CSV: a header naming the columns (`score,included` or `in_score,out_score`), then one row per canary
(one run: every cell present) or per run (many runs: the shorter column may end in empty cells, to
the end of the file); a missing, non-finite or malformed cell, or a blank line before the last
data row, is an error naming the line (blank lines after it are the file's end).
NPZ: arrays with those names (plural). JSON: an object with the plural names as keys, each a list
of numbers. Any problem is a `ScoreFileError` naming the file.

Registered designs (one run, NPZ or JSON): `designs`, rows (k₊, k₋) fixed before the scores
existed. `dpaudit one-run --out` and the gate write them (audit/one_run/saved.py, NPZ, before
any analysis); `dpaudit scores` certifies them at their registered share (audit/one_run/
design_choice.py). CSV has no place for them: a CSV file registers nothing.
"""

from __future__ import annotations

import csv
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

ONE_RUN = ("scores", "included")
MANY_RUNS = ("in_scores", "out_scores")
_CSV_NAMES = {"score": "scores", "included": "included", "in_score": "in_scores", "out_score": "out_scores"}
_COLUMN = {v: k for k, v in _CSV_NAMES.items()}
_TRUE = {"1", "true", "yes", "in"}
_FALSE = {"0", "false", "no", "out"}


class ScoreFileError(ValueError):
    """A malformed score file (exit 2); the message names the file."""


@dataclass(frozen=True, slots=True)
class ScoreFile:
    kind: str
    """"one_run" or "many_runs"."""
    first: NDArray[np.float64]
    second: NDArray[Any]
    """inclusion bits (one run) or out scores (many runs)."""
    registered: tuple[tuple[int, int], ...] | None = None
    """(k₊, k₋) of the designs registered before the scores existed (one run; None: none recorded)."""


def _layout(path: Path, arrays: dict[str, Any]) -> ScoreFile:
    keys = set(arrays)
    for kind, names in (("one_run", ONE_RUN), ("many_runs", MANY_RUNS)):
        if set(names) <= keys:
            first = _numbers(path, names[0], arrays[names[0]])
            if kind == "one_run":
                bits = _bits(path, arrays[names[1]])
                if bits.shape != first.shape:
                    raise ScoreFileError(f"{path}: {first.size} scores but {bits.size} inclusion bits")
                registered = _designs(path, arrays["designs"], first.size) if "designs" in keys else None
                return ScoreFile(kind=kind, first=first, second=bits, registered=registered)
            return ScoreFile(kind=kind, first=first, second=_numbers(path, names[1], arrays[names[1]]))
    raise ScoreFileError(
        f"{path}: expected 'scores' and 'included' (one run) or 'in_scores' and 'out_scores' (many runs), "
        f"found {', '.join(sorted(keys)) or 'nothing'}"
    )


def _designs(path: Path, values: Any, m: int) -> tuple[tuple[int, int], ...]:
    """The registered designs: rows (k₊, k₋) of integers ≥ 0 with 1 ≤ k₊ + k₋ ≤ m, at least one."""
    try:
        a = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        a = np.empty((0, 0))
    if a.ndim != 2 or a.shape[0] < 1 or a.shape[1] != 2 or not np.all(np.isfinite(a)):
        raise ScoreFileError(f"{path}: 'designs' must be a non-empty list of [k_plus, k_minus] pairs")
    k = a.astype(np.int64)
    if np.any(k != a) or np.any(k < 0) or np.any(k.sum(axis=1) < 1) or np.any(k.sum(axis=1) > m):
        raise ScoreFileError(
            f"{path}: every registered design needs integers k_plus, k_minus ≥ 0, 1 ≤ k_plus + k_minus ≤ {m}"
        )
    return tuple(dict.fromkeys((int(p), int(q)) for p, q in k))


def _numbers(path: Path, name: str, values: Any) -> NDArray[np.float64]:
    try:
        a = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ScoreFileError(f"{path}: '{name}' must hold numbers") from None
    if a.ndim != 1 or a.size == 0:
        raise ScoreFileError(f"{path}: '{name}' must be a non-empty list of numbers")
    if not np.all(np.isfinite(a)):
        raise ScoreFileError(f"{path}: '{name}' holds {int(np.sum(~np.isfinite(a)))} non-finite value(s)")
    return a


def _bits(path: Path, values: Any) -> NDArray[np.bool_]:
    a = np.asarray(values)
    if a.dtype.kind in "US":
        low = np.char.lower(np.char.strip(a.astype(str)))
        if not np.all(np.isin(low, [*_TRUE, *_FALSE])):
            raise ScoreFileError(f"{path}: 'included' must be 0/1 or true/false")
        return np.isin(low, list(_TRUE))
    if a.dtype == np.bool_:
        return a.ravel()
    try:
        num = a.astype(np.float64).ravel()
    except (TypeError, ValueError):
        raise ScoreFileError(f"{path}: 'included' must be 0/1 or true/false") from None
    if not np.all((num == 0) | (num == 1)):
        raise ScoreFileError(f"{path}: 'included' must be 0/1 or true/false")
    return num == 1


def _read_csv(path: Path) -> dict[str, Any]:
    """Columns of a CSV score file, read row by row: every cell of a one-run row must be present, a
    score finite and a bit 0/1 or true/false, else a `ScoreFileError` naming the file and line. In
    the many-runs layout a column may end early (empty cells to the end), never resume."""
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        raise ScoreFileError(f"{path}: empty file")
    header = [h.strip().lower() for h in rows[0]]
    unknown = [h for h in header if h not in _CSV_NAMES]
    if unknown or len(set(header)) != len(header):
        raise ScoreFileError(
            f"{path}: CSV header must be 'score,included' or 'in_score,out_score', got {','.join(header)}"
        )
    names = [_CSV_NAMES[h] for h in header]
    columns: dict[str, list[Any]] = {name: [] for name in names}
    ended: dict[str, int] = {}
    blank = [not any(c.strip() for c in row) for row in rows]
    last = max((i for i, b in enumerate(blank) if not b), default=0)  # blank lines after it: the file's end
    for line, row in enumerate(rows[1 : last + 1], start=2):
        if blank[line - 1]:
            raise ScoreFileError(f"{path}: line {line} is blank (every row is one canary or run; no gaps)")
        if len(row) != len(header):
            raise ScoreFileError(f"{path}: line {line} has {len(row)} fields, the header {len(header)}")
        for name, cell in zip(names, (c.strip() for c in row), strict=True):
            _csv_cell(path, line, name, cell, columns, ended)
    if not any(columns.values()):
        raise ScoreFileError(f"{path}: no data rows after the header")
    return {name: np.asarray(cells) if name == "included" else cells for name, cells in columns.items()}


def _csv_cell(
    path: Path, line: int, name: str, cell: str, columns: dict[str, list[Any]], ended: dict[str, int]
) -> None:
    """Append one cell to its column, or raise naming the file, the line and the column."""
    if not cell:
        if name in ONE_RUN:
            raise ScoreFileError(f"{path}: line {line}: the '{_COLUMN[name]}' cell is empty")
        ended.setdefault(name, line)
        return
    if name in ended:
        raise ScoreFileError(
            f"{path}: line {line}: '{_COLUMN[name]}' has a value after its empty cell on line {ended[name]}"
        )
    if name == "included":
        if cell.lower() not in _TRUE | _FALSE:
            raise ScoreFileError(f"{path}: line {line}: 'included' is {cell!r}, expected 0/1 or true/false")
        columns[name].append(cell)
        return
    try:
        value = float(cell)
    except ValueError:
        raise ScoreFileError(f"{path}: line {line}: '{_COLUMN[name]}' is {cell!r}, not a number") from None
    if not np.isfinite(value):
        raise ScoreFileError(f"{path}: line {line}: '{_COLUMN[name]}' is {cell!r}, not a finite number")
    columns[name].append(value)


def load_scores(path: Path) -> ScoreFile:
    """Read and validate a score file (format from the suffix: .csv, .npz, .json)."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            arrays = _read_csv(path)
        elif suffix == ".npz":
            with np.load(path, allow_pickle=False) as npz:
                arrays = {k: npz[k] for k in npz.files}
        elif suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ScoreFileError(f"{path}: JSON must be an object of named lists")
            arrays = data
        else:
            raise ScoreFileError(
                f"{path}: unknown score file type {suffix or '(none)'} (use .csv, .npz or .json)"
            )
    except ScoreFileError:
        raise
    except (
        OSError,
        UnicodeDecodeError,
        json.JSONDecodeError,
        zipfile.BadZipFile,
        ValueError,
        EOFError,
    ) as exc:
        raise ScoreFileError(
            f"{path}: cannot read: {' '.join(str(exc).split()) or type(exc).__name__}"
        ) from None
    return _layout(path, arrays)
