"""Whether a task can go to a worker process (issue 34, item 5).

`run --all` and `gate` use every core, and the sampler ships each chunk's task (the mechanism,
the dataset, the seed) to joblib workers by pickling it (loky uses cloudpickle). A user's object
that does not survive the round trip — a wrapper class delegating with `__getattr__`, which
recurses while it is being unpickled, or a library handle with no pickle support — used to end the
audit in `BrokenProcessPool` (exit 3, as if dpaudit had failed). `ships` tries the round trip once
in the parent; the sampler runs tasks that fail it in-process (the results do not change: every
chunk draws from its own seed stream, whatever process runs it) and says so once.
"""

from __future__ import annotations

import pickle
import sys
from typing import Any

__all__ = ["in_process_note", "ships"]

_NOTED: set[str] = set()


def ships(obj: Any, backend: str) -> bool:
    """True when `obj` survives pickling to a worker of `backend` (threads need nothing)."""
    if backend == "threading":
        return True
    dumps = _dumps()
    try:
        pickle.loads(dumps(obj))
    except Exception:  # any failure to cross means: keep it here
        return False
    return True


def _dumps() -> Any:
    """cloudpickle's `dumps` (what loky sends with), wherever this joblib keeps it; else pickle's."""
    try:
        import cloudpickle

        return cloudpickle.dumps
    except ImportError:  # pragma: no cover - joblib vendors or requires cloudpickle
        try:
            from joblib.externals import cloudpickle as vendored

            return vendored.dumps
        except ImportError:
            return pickle.dumps


def in_process_note(name: str) -> None:
    """One line on stderr, once per mechanism and process: its chunks run in this process."""
    if name in _NOTED:
        return
    _NOTED.add(name)
    print(
        f"dpaudit: note: mechanism {name!r} cannot be pickled to worker processes; "
        "its samples are drawn in this process (as with --jobs 1; results are unchanged)",
        file=sys.stderr,
    )
