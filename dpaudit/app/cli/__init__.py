"""The command-line wing: `dpaudit` and its commands.

`entry` is `main` and `run`; `parser` the options; `commands` the other commands; `pool` runs
whole audits side by side; `one_run`, `one_run_parser`, `one_run_summary` and `score_files` are
`dpaudit one-run`, `scores` and `sampler`. This module is the wing's only door (the console
script is `dpaudit.app.cli:main`).
"""

from dpaudit.app.cli.commands import gate_io, pairs_for
from dpaudit.app.cli.entry import main

__all__ = ["gate_io", "main", "pairs_for"]
