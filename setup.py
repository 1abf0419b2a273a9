"""Build script: maps the repository's top-level folders into the one import package `dpaudit`.

The rule (also `dpaudit/_folders.py`, which does the same for a checkout): the folder `audit/` is
the package `dpaudit.engine`; `mechanisms/`, `neighbors/` and `reports/` are `dpaudit.<same name>`.
Every folder holding an `__init__.py` below them is a subpackage, so a new folder needs no edit here.
"""

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).parent
PACKAGE_DIRS = {
    "dpaudit": "dpaudit",
    "dpaudit.engine": "audit",
    "dpaudit.mechanisms": "mechanisms",
    "dpaudit.neighbors": "neighbors",
    "dpaudit.reports": "reports",
}


def packages() -> list[str]:
    names = []
    for name, folder in PACKAGE_DIRS.items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            parts = init.parent.relative_to(ROOT / folder).parts
            names.append(".".join((name, *parts)))
    return names


setup(package_dir=PACKAGE_DIRS, packages=packages())
