"""One word per concept (ARCHITECTURE.md, "Glossary"; issue 43): "score" is a one-run canary's
score only. The pilot ranks, a learned distinguisher fits a statistic, an objective has a value.

Every use outside the one-run wing is a legacy one, listed with its count per file in
`tests/glossary_legacy.json` (code, JSON keys and docs alike): the test fails when a file uses
the word more often than listed (a banned use came back) and when it uses it less (lower the
count: the list only shrinks)."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path

from dpaudit.engine.types import AuditConfig, AuditResult, EpsilonEstimate
from dpaudit.reports.schema import from_json_dict, to_json_dict
from dpaudit.reports.search_record import search_record
from tests.reports.fixtures import make_result

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


# β (ARCHITECTURE.md, "Glossary"): `failure_probability` is the audit's overall β only; a test's
# share β_t is `test_level`, the level one certified bound is computed at (β_t/k) `bound_level`.
CHECKED = ("audit", "reports", "dpaudit")
BETA_NAMES = re.compile(r"^(beta|beta_\w+|per_\w+_failure_probability|\w*failure_probability_\w+)$")
BOUND_FUNCTIONS = ROOT / "audit" / "bounds.py"
LEGACY_KEYS = re.compile(r"per_(test|design)_failure_probability")


def identifiers(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of every name, parameter, keyword, attribute and field in `tree`."""
    out = []
    for n in ast.walk(tree):
        name = {ast.Name: "id", ast.arg: "arg", ast.keyword: "arg", ast.Attribute: "attr"}.get(type(n))
        if name and getattr(n, name):
            out.append((getattr(n, "lineno", 0), getattr(n, name)))
    return out


def python_files() -> list[Path]:
    return sorted(p for d in CHECKED for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts)


def test_a_per_test_level_is_never_called_beta_or_failure_probability() -> None:
    found = [
        f"{p.relative_to(ROOT)}:{line} {name}"
        for p in python_files()
        for line, name in identifiers(ast.parse(p.read_text(encoding="utf-8")))
        if BETA_NAMES.match(name)
    ]
    assert not found, f"β is `failure_probability`, β_t `test_level`, a bound's level `bound_level`: {found}"


def test_the_bound_functions_and_estimates_take_a_bound_level_not_beta() -> None:
    tree = ast.parse(BOUND_FUNCTIONS.read_text(encoding="utf-8"))
    params = {
        (f.name, a.arg)
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef)
        for a in f.args.args + f.args.kwonlyargs
    }
    assert not {p for p in params if p[1] in {"failure_probability", "beta"}}, params
    assert ("epsilon_lower_bound", "bound_level") in params and ("cp_lower", "level") in params
    est = {f.name for f in dataclasses.fields(EpsilonEstimate)}
    result = {f.name for f in dataclasses.fields(AuditResult)}
    assert "bound_level" in est and "failure_probability" not in est
    assert {"failure_probability", "test_level"} <= result
    assert "failure_probability" in {f.name for f in dataclasses.fields(AuditConfig)}


def test_no_persisted_key_or_doc_uses_the_old_names_outside_the_readers() -> None:
    texts = [*python_files(), *(ROOT / d for d in DOCS), ROOT / "docs" / "DESIGN.md"]
    texts += sorted((ROOT / "reports" / "templates").rglob("*.j2"))
    texts.append(ROOT / "dpaudit" / "result.schema.json")
    found = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in texts
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if (LEGACY_KEYS.search(line) or "EpsilonEstimate.failure_probability" in line)  # legacy
        and "legacy" not in line
    ]
    assert not found, found


def test_a_result_of_schema_3_reads_with_its_old_keys() -> None:
    r = make_result(violation=True)
    new = to_json_dict(r)
    old = json.loads(json.dumps(new))
    old["schema_version"] = 3
    old["per_test_failure_probability"] = old.pop("test_level")  # the legacy key
    for p in old["pairs"]:
        for e in [p["estimate"], *(x["estimate"] for x in p.get("profile", ()))]:
            e["failure_probability"] = e.pop("bound_level")
    assert "test_level" in new and "bound_level" in new["pairs"][0]["estimate"]
    back = from_json_dict(old)
    assert back.test_level == r.test_level and back.failure_probability == r.failure_probability
    assert [p.estimate.bound_level for p in back.pairs] == [p.estimate.bound_level for p in r.pairs]
    assert from_json_dict(new) == from_json_dict(old)


def test_a_search_record_written_with_score_keys_reads_its_ranks() -> None:
    """Results written before issue 43 kept the pilot's rank under "score"."""
    rows = [{"description": "d", "relation": "replace-one", "source": "template", "rank": 0.25}]
    old = [{**rows[0], "score": rows[0]["rank"]}]
    del old[0]["rank"]  # the legacy key only
    read = [
        search_record(dataclasses.replace(make_result(), extra={"search": {"candidates": c}}))
        for c in (rows, old)
    ]
    assert read[0] is not None and read[1] is not None
    assert read[0].candidates[0].rank == read[1].candidates[0].rank == 0.25


def test_claim_is_defined_once_by_the_mixin() -> None:
    """The Mechanism contract asks for `claims` only (issue 43): `claim` comes from
    `mechanisms.base.ClaimFromClaims`, the one `def claim` of the package."""
    folders = ("audit", "mechanisms", "neighbors", "reports", "dpaudit")
    found = [
        (p.relative_to(ROOT).as_posix(), c.name)
        for d in folders
        for p in sorted((ROOT / d).rglob("*.py"))
        for c in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(c, ast.ClassDef)
        for f in c.body
        if isinstance(f, ast.FunctionDef) and f.name == "claim"
    ]
    assert found == [("mechanisms/base.py", "ClaimFromClaims")], found
    copies = [
        p for d in folders for p in (ROOT / d).rglob("*.py") if "self.claims[0]" in p.read_text("utf-8")
    ]
    assert not copies, copies


def test_the_beta_check_sees_parameters_keywords_and_attributes() -> None:
    code = (
        "def f(beta_t, *, level):\n"  # legacy names, as the check must see them
        "    g(failure_probability=beta_t)\n"  # legacy
        "    return plan.per_test_failure_probability\n"  # legacy
    )
    names = [n for _, n in identifiers(ast.parse(code)) if BETA_NAMES.match(n)]
    assert names.count("beta_t") == 2 and "per_test_failure_probability" in names  # legacy
    assert not BETA_NAMES.match("failure_probability") and not BETA_NAMES.match("test_level")
