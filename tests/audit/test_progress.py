from __future__ import annotations

import io

import pytest

from dpaudit.engine.progress import Progress, progress_enabled


class _TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_terminal_after_delay() -> None:
    out = _TTY()
    p = Progress("mech", 100, stream=out, delay=0.0, enabled=True)
    p.advance(50, "pair 1")
    p.close()
    text = out.getvalue()
    assert "mech:" in text and "50.0%" in text and text.endswith("\n")


def test_progress_quiet_in_ci_and_pipes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    assert not progress_enabled(_TTY())
    monkeypatch.delenv("CI")
    assert progress_enabled(_TTY())
    assert not progress_enabled(io.StringIO())  # not a terminal
    out = io.StringIO()
    p = Progress("mech", 100, stream=out, delay=0.0)
    p.advance(100)
    p.close()
    assert out.getvalue() == ""
