"""Words that claim more than is proved must not come back (issue 42; ARCHITECTURE.md, "Glossary").

Banned: "infinite" (an event seen 0 of N times on one side certifies a finite ε ≥ ln(p̂/q̂): it is a
"one-sided witness"), "conforms" (a test that does not reject finds "no departure", it proves no
conformance), "passed" (a bound below the claim is "no violation found at this power"), and
"certified … if" (an estimate under an unchecked assumption is not certified).

Searched: every report template, the README, and every string literal of the package that is not
a docstring (console messages, report text, error messages). Identifiers with an underscore
(`infinite_witness`, a JSON field) are names, not words, and are dropped before matching.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

from dpaudit.app.one_run_summary import _fdp_line
from dpaudit.reports.comparisons import index_ratios, white_box_words
from dpaudit.reports.html import render_html
from dpaudit.reports.markdown import render_markdown
from tests.reports.fixtures import make_result

ROOT = Path(__file__).resolve().parents[1]
BANNED = re.compile(
    r"\binfinit\w*|\bconform\w*|\bpassed\b|\bcertified\b(?:(?!\. |[;\n]).)*\bif\b", re.IGNORECASE
)
""""certified … if" within one sentence (up to ". ", ";" or a line end)."""
IDENTIFIER = re.compile(r"\w+_\w+")
JINJA = re.compile(r"\{%.*?%\}|\{\{.*?\}\}|<[^>]*>")
"""Template code and HTML tags: not words a reader sees (`{% if c.certified %}`)."""
SOURCES = ("dpaudit", "audit", "reports", "mechanisms", "neighbors")

ALLOWED = {
    # the word is about floating-point values, not a privacy loss
    "mechanism {} returned {} NaN/infinite values",
    "{} contains NaN or infinite values",
}


def _banned(text: str) -> list[str]:
    return [m.group(0) for m in BANNED.finditer(IDENTIFIER.sub("", text))]


def _docstrings(tree: ast.AST) -> set[int]:
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }


def _messages(path: Path) -> list[tuple[int, str]]:
    """The file's non-docstring string literals; an f-string as one text with {} for its fields."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    texts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skip |= {id(v) for v in node.values}
            texts.append(
                (node.lineno, "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values))
            )
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            texts.append((node.lineno, node.value))
    return texts


def _source_files() -> list[Path]:
    files = {p.resolve() for folder in SOURCES for p in (ROOT / folder).rglob("*.py")}
    return sorted(files)


def test_the_scanner_sees_what_it_bans() -> None:
    assert _banned("certified μ ≥ 1.6, ε ≥ 7.7 at δ if the mechanism is GDP")
    assert _banned("sampler conforms to Poisson sampling") and _banned("(infinite witness)")
    assert _banned("all audits passed") and not _banned("e.infinite_witness; certified ε ≥ 1.2")
    sample = ROOT / "tests" / "test_words.py"
    assert any("certified μ ≥ 1.6" in t for _, t in _messages(sample))  # literals are read …
    assert not any("must not come back" in t and len(t) > 100 for _, t in _messages(sample))  # docstrings not


def test_no_banned_words_in_messages() -> None:
    hits = [
        f"{path.relative_to(ROOT)}:{line}: {text[:100]!r}"
        for path in _source_files()
        for line, text in _messages(path)
        if not text.startswith(tuple(ALLOWED)) and _banned(text)
    ]
    assert not hits, hits


def test_no_banned_words_in_templates_and_readme() -> None:
    files = [*sorted((ROOT / "reports" / "templates").glob("*.j2")), ROOT / "README.md"]
    assert len(files) > 3
    hits = [
        f"{path.relative_to(ROOT)}:{n}: {_banned(line)}"
        for path in files
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _banned(JINJA.sub(" ", line))
    ]
    assert not hits, hits


def test_gdp_estimate_is_not_called_certified() -> None:
    fdp = {
        "claim_rejected": False,
        "claim_tradeoff": "1-GDP",
        "claim_tail_bound": 0.4,
        "designs": [{}] * 7,
        "mu_lower_bound": 1.608,
        "epsilon_from_mu": 7.664,
        "epsilon_lower_bound": 0.9,
        "delta": 1e-5,
        "epsilon_ceiling": 1.2,
        "failure_probability": 0.05,
    }
    line = _fdp_line(fdp, 0.05)
    assert "GDP estimate ε ≈ 7.664 at δ (assumes GDP; not certified)" in line
    assert "certified ε ≥ 0.9 at δ=1e-05" in line and "μ-GDP refuted for every μ ≤ 1.608" in line
    assert not _banned(line)


def test_an_analytic_upper_bound_is_shown_as_one_and_never_divided_into() -> None:
    """`hs_stl`'s oracle returns an upper bound (its Gaussian-DP profile, equal to its claim):
    shown "≤ x", named "upper bound", never the denominator of "certified/white-box"."""
    r = make_result()
    method = "upper bound: Gaussian-DP profile, μ = 2√T/(κnσ)"
    bound = dataclasses.replace(r.pairs[0], exact_epsilon=1.0, exact_epsilon_method=method)
    r = dataclasses.replace(r, pairs=(bound, *r.pairs[1:]))
    words = white_box_words(r) or ""
    assert "ε ≤ 1 under replace_one" in words and "certified/white-box" not in words
    assert index_ratios(r)[1] is None and index_ratios(r)[0] is not None  # of the claim only
    assert "| ≤ 1 |" in render_markdown(r)
    page = render_html(r)
    assert "upper bound (replace)" in page and "white-box (replace)" not in page
    exact = dataclasses.replace(bound, exact_epsilon_method="exact enumeration")
    r_exact = dataclasses.replace(r, pairs=(exact, *r.pairs[1:]))
    assert "certified/white-box" in (white_box_words(r_exact) or "")
    assert index_ratios(r_exact)[1] is not None
