"""Rows of the known-bug benchmark (`benchmarks/known_bugs.py`), one module per published bug.

Each module defines `PACKAGE` (the PyPI distribution), `ISSUE` (where the bug and its fix are
published), `VERSIONS` ({version: expected verdict, "violation" or "no violation"}),
`REQUIREMENTS` ({version: [pip install arguments, ...]}: a list of pip invocations, each a list
of arguments, run in order in a fresh environment that already has dpaudit and its
dependencies), `NUM_SAMPLES`, an optional `NOTE`, and `mechanism()`, which returns the
`Mechanism` to audit blind (`dpaudit run module:mechanism`), built only through the generic
adapters: no pair and no statistic is written for the bug.
"""
