"""The door of `dpaudit`: help, `--version` and no command answered from the parser alone, before
the engine, scipy and the reports are imported (`dpaudit --help` in a fraction of a second);
every other command goes to `entry.main`. Ctrl-C while those imports run (start-up) ends with one
line and exit 130, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from .parser import EXIT_INTERRUPTED, build_parser

_ANSWERED_BY_THE_PARSER = frozenset({"-h", "--help", "--version"})


def main(argv: Sequence[str] | None = None) -> int:
    raw = list(sys.argv[1:] if argv is None else argv)
    try:
        if not [a for a in raw if a != "--debug"]:  # no command: say what the commands are
            build_parser().print_help()
            return 0
        if _ANSWERED_BY_THE_PARSER & set(raw):
            build_parser().parse_args(raw)  # prints help or the version and exits 0, or errors (exit 2)
        full = _load()
    except KeyboardInterrupt:
        print("dpaudit: interrupted during start-up", file=sys.stderr)
        return EXIT_INTERRUPTED
    return full(raw)


def _load() -> Callable[[Sequence[str] | None], int]:
    """`entry.main`, imported on first use (it imports the engine, scipy and the reports)."""
    from .entry import main as full

    return full
