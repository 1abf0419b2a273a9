"""What a file of the repository imports, as absolute module names, relative imports resolved.

The package's folders import each other relatively where the relative form names the same file for
Python and for a tool that reads imports as paths (ARCHITECTURE.md, "Layout"); the checks that
parse imports (tests/test_architecture.py, tests/audit/test_moved_paths.py) read both forms
through this one helper.
"""

from __future__ import annotations

import ast
from pathlib import Path

from dpaudit._folders import FOLDERS

ROOT = Path(__file__).resolve().parents[1]
IMPORT_NAMES = {folder: name for name, folder in FOLDERS.items()} | {"dpaudit": "dpaudit"}
"""Repository folder → the import name it holds (`audit` → `dpaudit.engine`, …)."""


def module_of(path: Path) -> tuple[str, bool] | None:
    """The module name of a package file and whether it is a package's `__init__`; None outside."""
    try:
        top, *rest = path.resolve().relative_to(ROOT).with_suffix("").parts
    except ValueError:
        return None
    if top not in IMPORT_NAMES or not rest:
        return None
    is_init = rest[-1] == "__init__"
    return ".".join([IMPORT_NAMES[top], *(rest[:-1] if is_init else rest)]), is_init


def absolute(node: ast.ImportFrom, path: Path) -> str | None:
    """The absolute module an `import from` names (None for a relative one outside the package)."""
    if node.level == 0:
        return node.module
    found = module_of(path)
    if found is None:
        return None
    name, is_init = found
    package = name.split(".") if is_init else name.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imported_names(path: Path) -> set[str]:
    """Absolute module names imported anywhere in the file (inside functions too), with the
    names imported from each (`from a import b` gives `a` and `a.b`)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = absolute(node, path)
            if module:
                names.add(module)
                names |= {f"{module}.{a.name}" for a in node.names}
    return names
