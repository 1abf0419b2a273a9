"""The command-line wing: `dpaudit` and its commands.

`front` is the door (help and `--version` without importing the engine), `entry` is `main` and
`run`; `parser` the options; `commands` the other commands; `pool` runs
whole audits side by side; `one_run`, `one_run_parser` and `score_files` are `dpaudit one-run`,
`scores` and `sampler`. This module is the wing's only door (the console script is
`dpaudit.app.cli:main`); only `dpaudit/__main__.py` imports it. The route, the gate's IO
(`app.gate_io`) and the console summaries (`app.summary`, `app.one_run_summary`) live outside the
wing, so the API and the pytest plugin reach them without it.
"""

from .front import main

__all__ = ["main"]
