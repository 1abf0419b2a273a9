"""Where the repository's top-level folders live in the one import package `dpaudit`, without links.

The rule, in one line: the folder `audit/` is imported as `dpaudit.engine`; `mechanisms/`,
`neighbors/` and `reports/` as `dpaudit.<same name>`.

An installed wheel holds them as real subfolders of `dpaudit/` (the build maps them with
setuptools' `package-dir`, see `setup.py`). In a checkout (an editable install, `PYTHONPATH=.`,
or pytest's rootdir) they sit beside `dpaudit/`, and `install()` adds a finder that resolves each
of the four names to its folder on first import, so nothing is imported before it is used.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

FOLDERS: dict[str, str] = {
    "dpaudit.engine": "audit",
    "dpaudit.mechanisms": "mechanisms",
    "dpaudit.neighbors": "neighbors",
    "dpaudit.reports": "reports",
}
"""Import name → top-level folder of the repository."""


class CheckoutFolders(importlib.abc.MetaPathFinder):
    """Finds `dpaudit.engine` etc. in the checkout's top-level folders."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        folder = FOLDERS.get(fullname)
        if folder is None:
            return None
        init = self.root / folder / "__init__.py"
        if not init.is_file():
            return None
        return importlib.util.spec_from_file_location(
            fullname, init, submodule_search_locations=[str(init.parent)]
        )


def install(package_dir: Path) -> None:
    """Add the finder when `package_dir` (the `dpaudit/` folder) is a checkout's, not a wheel's."""
    if (package_dir / "engine" / "__init__.py").is_file():
        return  # an installed wheel: the folders are real subpackages
    root = package_dir.resolve().parent
    if any(isinstance(f, CheckoutFolders) and f.root == root for f in sys.meta_path):
        return
    sys.meta_path.insert(0, CheckoutFolders(root))
