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
    if node.level > len(package):
        return None  # above the package: Python refuses it
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


def file_of(module: str) -> Path | None:
    """The file that holds `module` in the repository (a module, or a package's `__init__`)."""
    for folder, name in sorted(IMPORT_NAMES.items(), key=lambda kv: -len(kv[1])):
        if module == name or module.startswith(name + "."):
            rest = module[len(name) + 1 :].split(".") if module != name else []
            base = ROOT.joinpath(folder, *rest)
            if rest and base.with_suffix(".py").is_file():
                return base.with_suffix(".py")
            return base / "__init__.py" if (base / "__init__.py").is_file() else None
    return None


def as_path(source: Path, level: int, rest: str) -> Path | None:
    """The file a tool that reads imports as paths finds for `from <level dots><rest> import …` in
    `source`: up `level - 1` folders from the file's own, then down `rest`."""
    base = source.resolve().parent
    for _ in range(level - 1):
        base = base.parent
    target = base.joinpath(*rest.split(".")) if rest else base
    if rest and target.with_suffix(".py").is_file():
        return target.with_suffix(".py")
    return target / "__init__.py" if (target / "__init__.py").is_file() else None


def relative_form(path: Path, module: str) -> tuple[int, str] | None:
    """(level, rest) of the relative import of `module` from the package file `path`."""
    found = module_of(path)
    if found is None:
        return None
    name, is_init = found
    package = name.split(".") if is_init else name.split(".")[:-1]
    target = module.split(".")
    common = 0
    while common < min(len(package), len(target)) and package[common] == target[common]:
        common += 1
    if common == 0:
        return None
    return len(package) - common + 1, ".".join(target[common:])


def misplaced_imports(path: Path, source: str | None = None) -> list[str]:
    """Imports of the package's own modules in `path` that break the rule: an import is relative
    exactly where its relative form names the same file for Python and for a tool that reads
    imports as paths (within a folder; between the mapped folders that carry their folder's name)."""
    problems = []
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = absolute(node, path)
        elif isinstance(node, ast.Import) and len(node.names) == 1 and node.names[0].asname:
            module = node.names[0].name.rpartition(".")[0] or None
        else:
            continue
        if isinstance(node, ast.ImportFrom) and node.level > 0 and module is None:
            problems.append(f"line {node.lineno}: relative import above the package dpaudit")
            continue
        if not module or not (module == "dpaudit" or module.startswith("dpaudit.")):
            continue
        target, form = file_of(module), relative_form(path, module)
        by_path = as_path(path, *form) if form else None
        is_relative = isinstance(node, ast.ImportFrom) and node.level > 0
        if is_relative and by_path != target:
            problems.append(f"line {node.lineno}: relative import of {module} reads as another file by path")
        elif not is_relative and target is not None and by_path == target:
            problems.append(f"line {node.lineno}: {module} is imported absolutely (make it relative)")
    return problems
