"""Dependency direction (DESIGN.md): neighbors → numpy only; mechanisms → neighbors;
audit → mechanisms, neighbors; reports → audit's result types. The CLI and the registry may
import concrete modules."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"audit", "mechanisms", "neighbors", "reports"}
ALLOWED = {
    "neighbors": set(),
    "mechanisms": {"neighbors"},
    "audit": {"mechanisms", "neighbors"},
    "reports": {"audit"},
}
EXCEPTIONS = {"audit/cli.py": {"reports"}}
THIRD_PARTY = {"numpy", "scipy", "statsmodels", "joblib", "matplotlib"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_dependency_direction() -> None:
    problems = []
    for pkg, allowed in ALLOWED.items():
        for path in (ROOT / pkg).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            imported = _imports(path)
            bad = (imported & PACKAGES) - allowed - {pkg} - EXCEPTIONS.get(rel, set())
            if pkg == "neighbors":
                bad |= (imported & THIRD_PARTY) - {"numpy"}
            if bad:
                problems.append(f"{rel} imports {sorted(bad)}")
    assert not problems, problems


REPORT_IMPORTS = {"audit.types", "audit.jsonnum"}
"""What reports/ may import from audit/: the result types and their JSON number encoding."""


def test_reports_use_only_result_types() -> None:
    for path in (ROOT / "reports").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("audit"):
                assert node.module in REPORT_IMPORTS, f"{path.name} imports {node.module}"
