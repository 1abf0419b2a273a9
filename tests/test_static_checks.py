"""ruff and mypy are clean, and the repository holds no symlink (issue 43: folders that are their
import names). mypy reads the package as it is installed: `dpaudit/` with `audit/` as
`dpaudit.engine` and the other top-level folders under their own names (`dpaudit/_folders.py`), so
the check lays that tree out with links in a temporary folder (never in the checkout) and maps the
paths in its messages back to the repository's."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dpaudit._folders import FOLDERS

ROOT = Path(__file__).resolve().parents[1]


def _installed_layout(tmp: Path) -> Path:
    package = tmp / "dpaudit"
    package.mkdir()
    for entry in (ROOT / "dpaudit").iterdir():
        if entry.name != "__pycache__":
            os.symlink(entry, package / entry.name)
    for name, folder in FOLDERS.items():
        os.symlink(ROOT / folder, package / name.split(".", 1)[1])
    return tmp


def _back_to_repository(text: str, tmp: Path) -> str:
    for name, folder in FOLDERS.items():
        text = text.replace(f"dpaudit/{name.split('.', 1)[1]}/", f"{folder}/")
    return text.replace(str(tmp) + "/", "")


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is in the test extras")
def test_mypy_is_clean(tmp_path: Path) -> None:
    tree = _installed_layout(tmp_path)
    argv = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
            "--cache-dir", str(tmp_path / ".mypy_cache"), "-p", "dpaudit"]
    ran = subprocess.run(argv, cwd=tree, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, _back_to_repository(ran.stdout + ran.stderr, tmp_path)


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is in the test extras")
def test_ruff_is_clean() -> None:
    ran = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)],
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_the_repository_holds_no_symlink() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, check=True)
    links = [line.split("\t", 1)[1] for line in listed.stdout.splitlines() if line.startswith("120000")]
    assert links == []


def test_every_top_level_folder_is_a_subpackage_without_links() -> None:
    """Each mapped folder imports from the checkout's own folder (or the installed copy of it)."""
    import dpaudit.engine
    import dpaudit.mechanisms
    import dpaudit.neighbors
    import dpaudit.reports

    for module in (dpaudit.engine, dpaudit.mechanisms, dpaudit.neighbors, dpaudit.reports):
        folder = Path(module.__file__ or "").parent
        assert not folder.is_symlink()
        expected = FOLDERS[module.__name__]
        assert folder.name in {expected, module.__name__.split(".", 1)[1]}
