"""Layering of the one import package `dpaudit`.

Dependency direction: neighbors → numpy only; mechanisms → neighbors; engine (`audit/`) →
mechanisms, neighbors; reports → the engine's result types; the applications (`dpaudit/app/`)
may import everything and are the only importers of `reports`. No module imports another
that imports it back, directly or through a chain (deferred imports inside functions count).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.imports import imported_names, misplaced_imports

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {
    "engine": ROOT / "audit",
    "mechanisms": ROOT / "mechanisms",
    "neighbors": ROOT / "neighbors",
    "reports": ROOT / "reports",
    "app": ROOT / "dpaudit" / "app",
}
ALLOWED = {
    "neighbors": set(),
    "mechanisms": {"neighbors"},
    "engine": {"mechanisms", "neighbors"},
    "reports": {"engine"},
    "app": {"engine", "mechanisms", "neighbors", "reports"},
}
THIRD_PARTY = {"numpy", "scipy", "statsmodels", "joblib", "matplotlib", "jinja2"}
OLD_TOP_LEVEL = {"audit", "mechanisms", "neighbors", "reports"}


def _module_name(part: str, path: Path) -> str:
    rel = path.relative_to(FOLDERS[part]).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    prefix = "dpaudit.app" if part == "app" else f"dpaudit.{part}"
    return ".".join([prefix, *parts])


def _modules() -> dict[str, tuple[str, Path]]:
    found = {
        _module_name(part, p): (part, p) for part, folder in FOLDERS.items() for p in folder.rglob("*.py")
    }
    for p in (ROOT / "dpaudit").glob("*.py"):  # the public API and `python -m dpaudit`: application side
        found["dpaudit" if p.stem == "__init__" else f"dpaudit.{p.stem}"] = ("app", p)
    return found


def _imports(path: Path) -> set[str]:
    """Absolute module names imported anywhere in the file (also inside functions; relative
    imports resolved)."""
    return imported_names(path)


def _part_of(module: str) -> str | None:
    bits = module.split(".")
    if bits[0] != "dpaudit" or len(bits) < 2:
        return None
    return bits[1] if bits[1] in ALLOWED else None


def test_dependency_direction() -> None:
    problems = []
    for part, path in _modules().values():
        imported = _imports(path)
        parts = {p for p in map(_part_of, imported) if p}
        bad = parts - ALLOWED[part] - {part}
        if part == "neighbors":
            bad |= {m.split(".")[0] for m in imported} & THIRD_PARTY - {"numpy"}
        old = {m.split(".")[0] for m in imported} & OLD_TOP_LEVEL
        if bad or old:
            problems.append(f"{path.relative_to(ROOT)} imports {sorted(bad | old)}")
    assert not problems, problems


def test_only_the_applications_import_reports() -> None:
    importers = {
        name
        for name, (part, path) in _modules().items()
        if part not in {"app", "reports"} and any(_part_of(m) == "reports" for m in _imports(path))
    }
    assert not importers, importers


REPORT_IMPORTS = {"dpaudit.engine.types", "dpaudit.engine.jsonnum"}
"""What reports/ may import from the engine: the result types and their JSON encoding (numbers, and
the result writer behind `AuditResult.to_json()`)."""


def test_reports_use_only_result_types() -> None:
    for name, (part, path) in _modules().items():
        if part != "reports":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dpaudit.engine"):
                assert node.module in REPORT_IMPORTS, f"{name} imports {node.module}"


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, (_, path) in modules.items():
        targets = {m for m in _imports(path) if m in modules}
        graph[name] = targets - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    graph = _graph()
    # a package's __init__ importing its own submodules is how registration works; a submodule
    # importing the package back is the cycle that matters, so packages are checked without that edge
    for name in graph:
        graph[name] = {t for t in graph[name] if not t.startswith(name + ".")}
    assert not _cycles(graph), _cycles(graph)


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 500


def test_functions_and_modules_stay_short() -> None:
    """Engine, reports and applications: no function over 80 lines, no module over 500."""
    long = []
    for name, (part, path) in _modules().items():
        if part not in {"engine", "reports", "app"}:
            continue
        source = path.read_text(encoding="utf-8")
        if len(source.splitlines()) > MAX_MODULE_LINES:
            long.append(f"{name}: {len(source.splitlines())} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{name}.{node.name}: {length} lines")
    assert not long, long


WINGS = {
    "dpaudit.engine.runner",
    "dpaudit.engine.search",
    "dpaudit.engine.one_run",
    "dpaudit.engine.distinguishers",
    "dpaudit.app.cli",
    "dpaudit.app.gate",
    "dpaudit.app.baseline",
}
"""The engine's and the app's wings: folders whose `__init__` is their only door from outside."""


def _wing_of(module: str) -> str | None:
    return next((w for w in WINGS if module == w or module.startswith(w + ".")), None)


def _package_and_benchmark_files() -> list[tuple[str, Path]]:
    found = [(name, path) for name, (_, path) in _modules().items()]
    found += [(f"benchmarks.{p.stem}", p) for p in (ROOT / "benchmarks").glob("*.py")]
    return found


def test_wings_are_entered_through_their_door() -> None:
    """No module outside a wing imports one of its modules except the wing's `__init__` (the package
    and the benchmarks, which use dpaudit as a user would; a wing's own tests may reach inside)."""
    modules = set(_modules())
    problems = []
    for name, path in _package_and_benchmark_files():
        mine = _wing_of(name)
        for imported in _imports(path):
            wing = _wing_of(imported)
            if wing is None or wing == mine or imported == wing:
                continue
            if imported in modules or imported.rsplit(".", 1)[0] in modules - {wing}:
                problems.append(f"{path.relative_to(ROOT)} imports {imported} (use {wing})")
    assert not problems, problems


def test_every_wing_exists_with_a_door() -> None:
    for wing in WINGS:
        part, *rest = wing.split(".")[1:]
        folder = FOLDERS["app" if part == "app" else part].joinpath(*rest)
        assert (folder / "__init__.py").is_file(), wing


FAMILIES = {p.name for p in (ROOT / "mechanisms").iterdir() if (p / "__init__.py").is_file()} - {
    "accountants"
}
"""Mechanism families: subpackages of mechanisms/ (accountants are claims, shared by all)."""


def test_the_engine_imports_no_mechanism_family() -> None:
    problems = []
    for name, (part, path) in _modules().items():
        if part != "engine":
            continue
        for imported in _imports(path):
            bits = imported.split(".")
            if bits[:2] == ["dpaudit", "mechanisms"] and len(bits) > 2 and bits[2] in FAMILIES:
                problems.append(f"{name} imports {imported}")
    assert not problems, problems


def test_the_accountants_import_no_mechanism_family() -> None:
    """Claims from accountants are shared by every family; a family builds its own tables
    (`mechanisms/dpsgd/accountant_table.py`), never the reverse (issue 43)."""
    problems = []
    for name, (_, path) in _modules().items():
        if not name.startswith("dpaudit.mechanisms.accountants"):
            continue
        for imported in _imports(path):
            bits = imported.split(".")
            if bits[:2] == ["dpaudit", "mechanisms"] and len(bits) > 2 and bits[2] in FAMILIES:
                problems.append(f"{name} imports {imported}")
    assert not problems, problems


def test_the_app_never_imports_the_public_api() -> None:
    """`dpaudit.api` calls the app; the app never calls back (no back arrow)."""
    problems = [
        name
        for name, (part, path) in _modules().items()
        if part == "app"
        and not name.startswith("dpaudit.api")
        and name != "dpaudit"
        and any(m == "dpaudit.api" or m.startswith("dpaudit.api.") for m in _imports(path))
    ]
    assert not problems, problems


def test_the_door_checks_catch_a_violation(tmp_path: Path) -> None:
    assert _wing_of("dpaudit.engine.search.pilot") == "dpaudit.engine.search"
    assert _wing_of("dpaudit.engine.search") == "dpaudit.engine.search"
    assert _wing_of("dpaudit.engine.searchlight") is None
    bad = tmp_path / "bad.py"
    bad.write_text("from dpaudit.engine.search.pilot import Pilot\nfrom dpaudit.mechanisms.dpsgd import x\n")
    assert {"dpaudit.engine.search.pilot", "dpaudit.mechanisms.dpsgd"} <= _imports(bad)


ENTRY_POINTS = (
    "dpaudit.app.cli.entry",
    "dpaudit.api",
    "dpaudit.app.gate.procedure",
    "dpaudit.app.pytest_plugin",
    "dpaudit.app.scan.procedure",
)
"""`dpaudit run`, `dpaudit.audit()`/`gate()`, the gate, the pytest plugin and `dpaudit scan`
(issue 43, item 3)."""
ROUTE_BYPASS = {"dpaudit.engine.runner.run_audit", "dpaudit.engine.search.search_and_certify"}


def test_only_the_cli_wing_and_main_import_the_cli() -> None:
    """The API and the pytest plugin reach the route, the gate's IO and the summaries without
    importing the command-line wing (issue 43, item 3)."""
    importers = {
        name
        for name, (_, path) in _modules().items()
        if not name.startswith("dpaudit.app.cli")
        and name != "dpaudit.__main__"
        and any(m == "dpaudit.app.cli" or m.startswith("dpaudit.app.cli.") for m in _imports(path))
    }
    assert not importers, importers


def test_every_entry_point_reaches_the_one_route() -> None:
    """Each entry point certifies through `app.route.certify` (its budget guard included), never
    through the runner or the search directly."""
    modules = _modules()
    for name in ENTRY_POINTS:
        imported = _imports(modules[name][1])
        assert "dpaudit.app.route.certify" in imported, name
        assert not imported & ROUTE_BYPASS, (name, imported & ROUTE_BYPASS)


def test_the_relative_import_rule_catches_both_mistakes() -> None:
    """An import is relative exactly where its relative form names the same file for Python and for
    a tool that reads imports as paths (ARCHITECTURE.md, "Layout"): between and within the mapped
    folders; the engine (`audit/` is `dpaudit.engine`) and `dpaudit/` are reached absolutely from
    other folders."""
    engine, reports = ROOT / "audit" / "bounds.py", ROOT / "reports" / "words.py"
    app = ROOT / "dpaudit" / "api.py"
    assert misplaced_imports(engine, "from ..mechanisms.base import Mechanism\nfrom .types import A\n") == []
    assert len(misplaced_imports(engine, "from dpaudit.mechanisms.base import Mechanism\n")) == 1
    assert len(misplaced_imports(engine, "def f():\n    from dpaudit.engine.types import A\n")) == 1
    assert misplaced_imports(reports, "from dpaudit.engine.types import AuditResult\n") == []
    assert len(misplaced_imports(reports, "from ..engine.types import AuditResult\n")) == 1
    assert misplaced_imports(app, "from dpaudit.mechanisms.base import M\nfrom .app import route\n") == []
    assert len(misplaced_imports(app, "from dpaudit.app import route\n")) == 1
    assert len(misplaced_imports(app, "from ..mechanisms.base import Mechanism\n")) == 1


def test_imports_between_the_folders_are_relative() -> None:
    """The picture a tool that reads imports as paths draws of the checkout holds every arrow it can
    place: imports within and between the mapped folders are relative (issue 43)."""
    problems = [
        f"{path.relative_to(ROOT)} {problem}"
        for _, path in _modules().values()
        for problem in misplaced_imports(path)
    ]
    assert not problems, problems

