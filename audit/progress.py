"""Progress on stderr for long runs; silent under CI=true, with DPAUDIT_PROGRESS=0 (set in the
worker processes of `run --all`, whose parent prints one line per audit) or when stderr is not a
terminal."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

PROGRESS_ENV = "DPAUDIT_PROGRESS"
"""Environment variable: "0" silences the progress line (set in `run --all`'s pool workers)."""


def progress_enabled(stream: TextIO | None = None) -> bool:
    s = stream or sys.stderr
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        return False
    if os.environ.get(PROGRESS_ENV, "") == "0":
        return False
    return bool(getattr(s, "isatty", lambda: False)())


class Progress:
    """A one-line progress indicator that appears only after `delay` seconds."""

    def __init__(
        self,
        label: str,
        total: int,
        *,
        enabled: bool | None = None,
        stream: TextIO | None = None,
        delay: float = 2.0,
    ) -> None:
        self.label = label
        self.total = max(1, total)
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = progress_enabled(self.stream) if enabled is None else enabled
        self.start = time.monotonic()
        self.delay = delay
        self._last = 0.0
        self._shown = False

    def advance(self, amount: int, note: str = "") -> None:
        self.done += amount
        if not self.enabled:
            return
        now = time.monotonic()
        elapsed = now - self.start
        if elapsed < self.delay or now - self._last < 0.2:
            return
        self._last = now
        frac = min(1.0, self.done / self.total)
        eta = elapsed * (1 - frac) / frac if frac > 0 else float("nan")
        self.stream.write(
            f"\r{self.label}: {100 * frac:5.1f}% ({self.done:,}/{self.total:,} samples)"
            f" {note} eta {eta:5.0f}s   "
        )
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
