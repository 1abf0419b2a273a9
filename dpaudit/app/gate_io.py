"""The gate's connection to result files, renderers and console summaries (`GateIO`).

The gate (`app/gate/`) never imports reports/ (dependency direction, docs/DESIGN.md): whoever runs
it hands it this. It lives beside the route, outside the CLI wing, so `dpaudit gate`,
`dpaudit.gate()` (api.py) and the pytest plugin reach it without importing `app.cli`.
"""

from __future__ import annotations

from pathlib import Path

from dpaudit.engine.outfiles import write_text
from dpaudit.engine.types import AuditResult
from dpaudit.reports.junit import render_junit
from dpaudit.reports.markdown import render_markdown
from dpaudit.reports.schema import dumps, read_json

from .gate import GateIO
from .one_run_summary import summary as one_run_summary
from .summary import summary


def write_result(result: AuditResult, path: Path) -> None:
    """The result JSON at `path` (`reports.schema`)."""
    write_text(path, dumps(result))


def gate_io() -> GateIO:
    """The gate's connection to result files and renderers (the CLI's and the API's)."""
    return GateIO(
        write_result=write_result,
        read_result=read_json,
        render_markdown=render_markdown,
        render_junit=render_junit,
        summary=gate_summary,
    )


def gate_summary(r: AuditResult) -> str:
    """The gate's console summary: `dpaudit one-run`'s for a one-run audit, `run`'s otherwise."""
    return one_run_summary(r) if isinstance(r.extra.get("one_run"), dict) else summary(r)
