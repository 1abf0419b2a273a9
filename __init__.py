"""Marks the repository root as the folder of the package `dpaudit`'s top-level folders.

`audit/`, `mechanisms/`, `neighbors/` and `reports/` are subpackages of `dpaudit` (setup.py's
package-dir; dpaudit/_folders.py in a checkout), so the root stands where their parent package
stands, and a relative import between them (`from ..mechanisms.base import Mechanism` in `audit/`)
names the same file for Python and for a tool that reads imports as paths. Python never imports
this file (the package `dpaudit` is `dpaudit/__init__.py`); keep it free of code.
"""
