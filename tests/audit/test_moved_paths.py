"""Old engine import paths (issue 43): each resolves to the moved module itself, with a
DeprecationWarning, and nothing in the project still uses one."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

import dpaudit.engine
from dpaudit.engine import MOVED, moved_to
from tests.imports import imported_names

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_moved_module_and_warns(old: str) -> None:
    name = f"dpaudit.engine.{old}"
    sys.modules.pop(name, None)
    with pytest.warns(DeprecationWarning, match="issue 43"):
        module = importlib.import_module(name)
    assert module is importlib.import_module(f"dpaudit.engine.{MOVED[old]}")


def test_old_submodules_of_a_moved_package_are_the_moved_ones() -> None:
    sys.modules.pop("dpaudit.engine.learned.fitted", None)
    with pytest.warns(DeprecationWarning):
        from dpaudit.engine.learned.fitted import FittedEvent
    from dpaudit.engine.distinguishers.learned.fitted import FittedEvent as Moved

    assert FittedEvent is Moved
    assert moved_to("dpaudit.engine.bounds") is None
    assert moved_to("dpaudit.engine.learnedx") is None


def test_nothing_in_the_project_imports_an_old_path() -> None:
    problems = []
    for folder in ("audit", "mechanisms", "neighbors", "reports", "dpaudit", "benchmarks", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.is_relative_to(ROOT / "dpaudit" / "engine") or path.name == Path(__file__).name:
                continue
            problems += [f"{path.relative_to(ROOT)}: {n}" for n in imported_names(path) if moved_to(n)]
    assert not problems, problems


def test_the_engine_root_holds_at_most_ten_files() -> None:
    root = Path(dpaudit.engine.__file__).resolve().parent
    assert len(list(root.glob("*.py"))) <= 10, sorted(p.name for p in root.glob("*.py"))
