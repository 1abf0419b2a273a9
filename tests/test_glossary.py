"""One word per concept (ARCHITECTURE.md, "Glossary"; issue 43): "score" is a one-run canary's
score only. The pilot ranks, a learned distinguisher fits a statistic, an objective has a value.

Every use outside the one-run wing is a legacy one, listed with its count per file in
`tests/glossary_legacy.json` (code, JSON keys and docs alike): the test fails when a file uses
the word more often than listed (a banned use came back) and when it uses it less (lower the
count: the list only shrinks)."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LEGACY = Path(__file__).with_name("glossary_legacy.json")
WORD = re.compile(r"score", re.IGNORECASE)
SCANNED = ("audit", "mechanisms", "neighbors", "reports", "dpaudit", "benchmarks", "docs")
DOCS = ("README.md", "ARCHITECTURE.md")
SUFFIXES = {".py", ".md", ".json", ".toml", ".html", ".j2", ".txt"}


def one_run(rel: str) -> bool:
    """Where "score" is the one-run canary's score: the one-run wing, its commands, gate keys,
    figures and benchmarks, and score files."""
    return "one_run" in rel or "score_file" in rel or rel == "benchmarks/scores.py"


def files() -> list[Path]:
    found = [ROOT / d for d in DOCS]
    for folder in SCANNED:
        for path in (ROOT / folder).rglob("*"):
            if any(p.is_symlink() for p in (path, *path.parents) if p != ROOT and ROOT in p.parents):
                continue
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts:
                found.append(path)
    return sorted(found)


def counts() -> dict[str, int]:
    out = {}
    for path in files():
        rel = path.relative_to(ROOT).as_posix()
        n = len(WORD.findall(path.read_text(encoding="utf-8", errors="replace")))
        if n and not one_run(rel):
            out[rel] = n
    return out


def test_score_means_a_one_run_canary_score_only() -> None:
    allowed = json.loads(LEGACY.read_text(encoding="utf-8"))
    now = counts()
    more = {f: (n, allowed.get(f, 0)) for f, n in now.items() if n > allowed.get(f, 0)}
    fewer = {f: (now.get(f, 0), n) for f, n in allowed.items() if now.get(f, 0) < n}
    assert not more, (
        "'score' is a one-run canary's score only (ARCHITECTURE.md, Glossary): the pilot ranks, a "
        f"learned distinguisher fits a statistic, an objective has a value. (now, allowed): {more}"
    )
    assert not fewer, f"fewer legacy uses than listed: lower tests/glossary_legacy.json: {fewer}"


def test_the_check_sees_code_keys_and_docs() -> None:
    assert one_run("audit/one_run/bound.py") and not one_run("audit/search/pilot.py")
    text = 'def score(x): ...\n{"type": "score"}\nThe pilot scores pairs.\n'
    assert len(WORD.findall(text)) == 3


def test_the_glossary_defines_each_word() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    glossary = text[text.index("### Glossary") :]
    for word in ("**score**", "**rank**", "**statistic**", "**β**", "**β_t**"):
        assert word in glossary[: glossary.index("\n\n", glossary.index("|"))], word
