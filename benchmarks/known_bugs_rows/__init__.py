"""Rows of `benchmarks/known_bugs.py`: one module per published bug or negative control.

Each row module defines `PACKAGE` (the PyPI name), `ISSUE` (the issue or PR it reproduces),
`VERSIONS` ({version: expected verdict, "violation" or "no violation"}), `REQUIREMENTS` ({version:
pip arguments}: a list of strings for one `pip install`, or a list of such lists run in order, in a
fresh environment that already has dpaudit's dependencies; public version specifiers only, never a
local wheel's name), `NUM_SAMPLES` (the `--full` run's samples per side), optionally `ARGS` (extra
`dpaudit run` arguments), `FAST_NUM_SAMPLES` and `FAST_ARGS` (the default small run's budget and
extra arguments, e.g. a `--sequential` cap that stops once decided), `NOTE`, and `mechanism()`,
which returns a dpaudit Mechanism built only through the generic adapters (`from_estimator`,
`from_callable`, `from_synthesizer`, `from_release`): no pair or statistic written for the bug,
except where the row *is* the user's neighbour relation (the "labels fixed" rows), which then says
so in `PAIRS` ("hand-written: …"; absent means blind). The table labels those rows and counts them
apart, and `tests/benchmarks/test_known_bugs_rows.py` fails when a row reaches a pair or statistic
constructor (`NeighborPair`, `MixtureLLR`, through any import path or helper module) without
declaring it. The constants are literals: `known_bugs.py` reads them with `ast` without importing
the row, so it runs from a fresh clone before any dependency is installed.
"""
