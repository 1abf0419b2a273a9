"""`dpaudit scan smartnoise-synth` on a fake `snsynth` (its registry, a synthesizer missing its
extra, one taking δ, a models package that does not import, DPcovariance loaded by its path), the
real one when installed, and `benchmarks/scan_versions.py`'s README writer and table lines."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from dpaudit.app import scan as scan_wing
from dpaudit.app.cli import main
from dpaudit.app.scan import ScanConfig, scan

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

FAKE = {
    "__init__.py": "from .base import Synthesizer\n",
    "base.py": '''
        import pandas as pd

        class Copy:
            """Not private: samples rows of the table it was fitted on."""
            def __init__(self, epsilon):
                self.epsilon = epsilon
            def fit(self, data, categorical_columns=(), preprocessor_eps=0.0):
                self.data = data.reset_index(drop=True)
            def sample(self, k):
                return self.data.iloc[[i % len(self.data) for i in range(k)]].reset_index(drop=True)

        class WithDelta(Copy):
            def __init__(self, epsilon, delta=None):
                super().__init__(epsilon)

        class Synthesizer:
            @classmethod
            def list_synthesizers(cls):
                return ["copy", "withdelta", "gan", "graphical"]

            @classmethod
            def create(cls, synth, epsilon=None, **kwargs):
                if synth == "gan":
                    raise ModuleNotFoundError("No module named 'torch'", name="torch")
                if synth == "graphical":  # as snsynth.mst: print a hint, re-raise a bare ImportError
                    try:
                        raise ModuleNotFoundError("No module named 'mbi'", name="mbi")
                    except ImportError:
                        print("Please install mbi")
                        raise ImportError
                return {"copy": Copy, "withdelta": WithDelta}[synth](epsilon=epsilon, **kwargs)
    ''',
    "models/__init__.py": "from sklearn.linear_model.no_such_module import LinearModel\n",
    "models/dp_covariance.py": """
        class DPcovariance:
            def __init__(self, n, cols, rng, global_eps):
                self.cols = cols
            def release(self, data):
                return data.cov().values
    """,
}


@pytest.fixture
def fake_snsynth(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for name, text in FAKE.items():
        path = tmp_path / "snsynth" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    saved = {k: v for k, v in sys.modules.items() if k == "snsynth" or k.startswith("snsynth.")}
    for k in saved:
        monkeypatch.delitem(sys.modules, k)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for k in [k for k in sys.modules if k == "snsynth" or k.startswith("snsynth.")]:
        del sys.modules[k]
    sys.modules.update(saved)


def test_the_registry_is_enumerated_with_a_reason_for_every_export_not_built(
    fake_snsynth: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    targets = scan_wing.library_targets("smartnoise")
    rows = {t.export: t for t in targets}
    assert list(rows) == [
        "Synthesizer.create('copy')",
        "Synthesizer.create('gan')",
        "Synthesizer.create('graphical')",
        "Synthesizer.create('withdelta')",
        "models.dp_covariance.DPcovariance",
        "models",
    ]
    assert {t.library for t in targets} == {"smartnoise-synth"}
    assert rows["Synthesizer.create('gan')"].reason == "needs torch"
    assert rows["Synthesizer.create('graphical')"].reason == "needs private-pgm (mbi)"
    assert "sklearn.linear_model.no_such_module" in rows["models"].reason
    assert [t.export for t in targets if t.build is not None] == [
        "Synthesizer.create('copy')",
        "Synthesizer.create('withdelta')",
        "models.dp_covariance.DPcovariance",
    ]
    assert "Please install" not in capsys.readouterr().out  # the library's hints kept off the table
    withdelta = rows["Synthesizer.create('withdelta')"].build
    assert withdelta is not None and withdelta().claim.delta == pytest.approx(1e-5)
    assert scan_wing.library_targets("snsynth", ("COPY",))[0].export == "Synthesizer.create('copy')"


def test_smartnoise_missing_exits_2_with_the_install_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "snsynth", None)  # import snsynth raises ImportError
    assert main(["scan", "smartnoise", "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert "smartnoise-synth is not installed here" in err and "--no-deps" in err and "Traceback" not in err


def test_a_synthesizer_that_copies_its_table_is_flagged_blind(fake_snsynth: Path) -> None:
    copy = scan_wing.library_targets("smartnoise-synth", ("copy",))
    rows = scan(copy, ScanConfig(num_samples=300, seed=0))
    assert [r.status for r in rows] == ["violation_found"]
    assert rows[0].certified is not None and rows[0].certified > 1.0 and rows[0].claim_kind == "stated"


@pytest.mark.skipif(importlib.util.find_spec("snsynth") is None, reason="smartnoise-synth not installed")
def test_the_installed_smartnoise_synth_is_scanned() -> None:
    from importlib.metadata import version

    targets = scan_wing.library_targets("smartnoise")
    names = {t.export for t in targets}
    assert {"Synthesizer.create('mwem')", "models.dp_covariance.DPcovariance"} <= names
    assert all(t.reason for t in targets if t.build is None)
    rows = scan([t for t in targets if "DPcovariance" in t.export], ScanConfig(num_samples=1_000, seed=0))
    buggy = tuple(int(p) for p in version("smartnoise-synth").split(".")[:3]) <= (1, 0, 5)
    expected = ("violation_found",) if buggy else ("no_violation_found", "inconclusive")
    assert len(rows) == 1 and rows[0].status in expected


def _scan_versions() -> ModuleType:
    spec = importlib.util.spec_from_file_location("scan_versions", BENCHMARKS / "scan_versions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["scan_versions"] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_writes_its_table_between_the_markers_only(tmp_path: Path) -> None:
    sv = _scan_versions()
    begin, end = sv.MARKERS
    readme = tmp_path / "README.md"
    readme.write_text(f"# head\n\nbefore\n{begin}\nold table\n{end}\nafter\n")
    sv.write_between(readme, "| new | table |\n")
    assert readme.read_text() == f"# head\n\nbefore\n{begin}\n| new | table |\n{end}\nafter\n"
    sv.write_between(readme, "| newer |")
    assert readme.read_text() == f"# head\n\nbefore\n{begin}\n| newer |\n{end}\nafter\n"
    fresh = tmp_path / "fresh.md"
    fresh.write_text("text\n")
    sv.write_between(fresh, "t")
    assert fresh.read_text() == f"text\n\n{begin}\nt\n{end}\n"
    broken = tmp_path / "broken.md"
    broken.write_text(f"{begin}\nno end\n")
    with pytest.raises(ValueError, match="markers"):
        sv.write_between(broken, "t")
    assert broken.read_text() == f"{begin}\nno end\n"


def test_the_benchmark_lines_mark_an_unexpected_verdict() -> None:
    sv = _scan_versions()
    row = sv.ROWS[0]
    record = {
        "rows": [
            {
                "export": "smartnoise-synth.models.dp_covariance.DPcovariance",
                "status": "violation_found",
                "certified_epsilon": 4.73,
                "claimed_epsilon": 1.0,
                "witness": "x ≤ 3 in 500 of 500",
                "seconds": 19.7,
            }
        ]
    }
    flagged = sv.lines(row, "1.0.5", "flagged", 0, record, 28.0)
    assert flagged == [
        "| smartnoise-synth | 1.0.5 | `smartnoise-synth.models.dp_covariance.DPcovariance` | flagged "
        "| flagged | 4.73 vs 1.00; x ≤ 3 in 500 of 500 | 0 | 20 | 28 |"
    ]
    assert "not flagged | flagged (unexpected)" in sv.lines(row, "1.0.6", "not flagged", 0, record, 28.0)[0]
    record["rows"][0] |= {"status": "inconclusive", "certified_epsilon": -0.01}
    assert "| not flagged | not flagged (inconclusive) | -0.01 vs 1.00 |" in sv.lines(
        row, "1.0.6", "not flagged", 0, record, 28.0
    )[0]
    assert "error (exit 2: boom)" in sv.lines(row, "1.0.6", "not flagged", 0, "exit 2: boom", 3.0)[0]
