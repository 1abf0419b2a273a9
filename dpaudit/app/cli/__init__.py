"""The command-line wing: `dpaudit` and its commands.

`front` is the door (help and `--version` without importing the engine), `entry` is `main` and
`run`; `parser` the options; `commands` the other commands; `pool` runs whole audits side by side;
`one_run`, `one_run_parser`, `one_run_summary` and `score_files` are `dpaudit one-run`, `scores`
and `sampler`. This module is the wing's only door (the console script is `dpaudit.app.cli:main`);
`gate_io` and `pairs_for` are imported on first use, so `dpaudit --help` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dpaudit.app.cli.front import main

if TYPE_CHECKING:  # at run time `__getattr__` imports them on first use
    from dpaudit.app.cli.commands import gate_io, pairs_for

__all__ = ["gate_io", "main", "pairs_for"]


def __getattr__(name: str) -> Any:
    if name in ("gate_io", "pairs_for"):
        from dpaudit.app.cli import commands

        return getattr(commands, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
