"""The run index of an output folder (index.md, index.html, junit.xml, index.json), rebuilt from
every result in it on each write (issue 42).

`run --all --out DIR` writes one result file per audit and an index of them. A later
`dpaudit run NAME --out DIR` into the same folder adds or replaces one result: the index is
rebuilt so it never lists a stale verdict or misses an audit. The index holds the results just
produced (in memory, whatever formats were written) and every other result JSON found in the
folder (files that do not read as a result, such as the index's own `index.json`, are skipped).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from dpaudit.engine.outfiles import safe_stem, write_text
from dpaudit.engine.types import AuditResult
from dpaudit.reports.html_index import render_index_html
from dpaudit.reports.junit import render_junit
from dpaudit.reports.markdown import render_index_markdown
from dpaudit.reports.schema import SchemaError, read_json, to_json_dict

from .commands import families

INDEX_FILES = ("index.md", "index.html", "junit.xml", "index.json")
NOT_RESULTS = frozenset({"index.json", "gate.json"})


def has_index(out: Path) -> bool:
    """Whether `out` holds a run index (a folder `run --all` wrote)."""
    return any((out / name).is_file() for name in INDEX_FILES)


def results_on_disk(out: Path, *, skip: Sequence[AuditResult] = ()) -> list[AuditResult]:
    """Every result JSON in `out` (sorted by file name) except those of the mechanisms in `skip`."""
    known = {r.mechanism for r in skip}
    found: list[AuditResult] = []
    for path in sorted(out.glob("*.json")):
        if path.name in NOT_RESULTS:
            continue
        try:
            result = read_json(path)
        except (SchemaError, OSError, ValueError):
            continue
        if result.mechanism not in known and path.stem == safe_stem(result.mechanism):
            known.add(result.mechanism)
            found.append(result)
    return found


def write_indexes(
    out: Path, fresh: Sequence[AuditResult], *, html: bool, command: str | None = None
) -> list[AuditResult]:
    """Rebuild the index files of `out` from `fresh` and every other result JSON there; index.html
    when `html` or when one exists already (never left stale). `command` (the `run --all`
    invocation) heads index.html only when the index holds nothing but `fresh`. Returns the
    results indexed."""
    out.mkdir(parents=True, exist_ok=True)
    others = results_on_disk(out, skip=fresh)
    results = [*fresh, *others]
    fams = families()
    write_text(out / "index.md", render_index_markdown(results, families=fams))
    if html or (out / "index.html").is_file():
        links = [f"{safe_stem(r.mechanism)}.html" for r in results]
        given = command if not others else None
        write_text(out / "index.html", render_index_html(results, links, families=fams, command=given))
    write_text(out / "junit.xml", render_junit(results, families=fams))
    index = [
        {
            "mechanism": r.mechanism,
            "verdict": str(getattr(r.verdict, "value", r.verdict)),
            "epsilon_lower_bound": to_json_dict(r)["epsilon_lower_bound"],
            "claim": r.claim.to_dict(),
            "file": f"{safe_stem(r.mechanism)}.json",
        }
        for r in results
    ]
    write_text(out / "index.json", json.dumps(index, indent=2, ensure_ascii=False) + "\n")
    return results
