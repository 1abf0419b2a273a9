"""dpaudit: certified lower bounds on the realised (ε, δ) of differentially private learners.

The repository's folders are installed as subpackages of this one import name:
`audit/` is `dpaudit.engine` (the statistics), `mechanisms/`, `neighbors/` and `reports/` keep
their names under `dpaudit.`, and `dpaudit.app` holds the command line, gate and pytest plugin.
"""
