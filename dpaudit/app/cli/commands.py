"""The commands other than `run`, and the helpers every command shares (pairs, summary, files).

`list`, `plan`, `gate` (whose logic lives in `gate`; the CLI hands it the reports/ writers and
renderers) and `report`, plus the parameter parsing, default pairs, one-paragraph summary and
result writers that `run` uses too. A printed ε bound is the engine's certified lower bound:
valid with probability ≥ 1 − β (β the failure probability) because every (ε, δ)-DP mechanism
satisfies P[M(D) ∈ S] ≤ e^ε P[M(D') ∈ S] + δ for every event S, and the engine certifies both
probabilities with Clopper–Pearson bounds under a union bound; a bound ≤ 0 is worded as no
evidence of privacy loss.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from dpaudit.engine.outfiles import safe_stem, write_text
from dpaudit.engine.runner import sample_size_plan as plan
from dpaudit.engine.types import AuditResult
from dpaudit.mechanisms.base import verdict_claim
from dpaudit.mechanisms.libraries import missing_hint
from dpaudit.mechanisms.registry import entries, resolve
from dpaudit.reports.html import render_html
from dpaudit.reports.junit import render_junit
from dpaudit.reports.markdown import fmt, render_markdown
from dpaudit.reports.schema import dumps, read_json

from ..gate_io import gate_io, write_result
from ..route import has_registered_pairs, pairs_for
from .parser import EXIT_OK, FORMATS, UsageError, all_cores


def parse_params(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--param expects K=V, got {item!r}")
        out[key.strip()] = value.strip()
    return out


DEFAULT_FORMATS = "json,md,html"


def formats(text: str | None) -> list[str]:
    """The formats `--format` names (all of `DEFAULT_FORMATS` when not given)."""
    fmts = [f.strip() for f in (DEFAULT_FORMATS if text is None else text).split(",") if f.strip()]
    bad = [f for f in fmts if f not in FORMATS]
    if bad:
        raise UsageError(f"unknown format(s) {', '.join(bad)} (available: {', '.join(FORMATS)})")
    return fmts


def output_formats(args: argparse.Namespace) -> list[str]:
    """The formats to write under `--out`; `--format` without `--out` is a usage error (the files
    would go nowhere)."""
    fmts = formats(args.format)
    if args.format is not None and not args.out:
        raise UsageError("--format needs --out DIR (the report files are written there)")
    return fmts


def drop_checkpoint(out: Path, mechanism: str) -> None:
    """The result is written: its checkpoint is no longer needed."""
    (out / ".checkpoints" / f"{safe_stem(mechanism)}.jsonl").unlink(missing_ok=True)


def families() -> dict[str, str]:
    """Registered name → paper family, for the reports' family column."""
    return {e.name: e.family_title for e in entries().values()}


def write_outputs(result: AuditResult, out: Path, fmts: Sequence[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    family = families().get(result.mechanism)
    stem = safe_stem(result.mechanism)
    if "json" in fmts:
        write_result(result, out / f"{stem}.json")
    if "md" in fmts:
        write_text(out / f"{stem}.md", render_markdown(result, family=family))
    if "html" in fmts:
        write_text(out / f"{stem}.html", render_html(result, family=family))


LIST_WIDTH = 100
"""`dpaudit list` fits a terminal this wide; `--wide` prints every column in full."""
_SHORT_RELATION = {"add_remove_one": "add/remove", "replace_one": "replace", "relabel_one": "relabel"}
_KIND = {"libraries": "library"}
_KIND_WIDE = {"libraries": "third-party library, audited against its documented claim (not known correct)"}
"""A library's mechanism is third-party code audited against the library's claim: neither a
correct reference nor a known twin (issue 42: `diffprivlib_laplace` was listed "correct" while
the README's gate flags it)."""


def _list_rows(wide: bool) -> list[tuple[str, ...]]:
    """One row per registered mechanism: all columns in full with `wide`, else the short ones."""
    rows: list[tuple[str, ...]] = []
    for e in entries().values():
        try:
            c = verdict_claim(e.build())  # the claim the report's verdict is about (one rule)
            relation = c.relation.value if wide else _SHORT_RELATION.get(c.relation.value, c.relation.value)
            claim = f"ε={fmt(c.epsilon)} δ={fmt(c.delta)} {relation}"
        except Exception as exc:  # a broken entry should not hide the others
            claim = f"(cannot build: {exc})"
        if wide:
            kind = f"buggy twin of {e.twin_of}" if e.buggy else _KIND_WIDE.get(e.family, "correct")
            if e.buggy and not e.detectable:
                kind += " (undetectable black-box)"
            rows.append((e.name, e.family_title, kind, claim, f"{e.default_num_samples:,}"))
        else:
            plain = _KIND.get(e.family, "correct")
            kind = ("buggy" + ("†" if not e.detectable else "")) if e.buggy else plain
            rows.append((e.name, kind, claim, f"{e.default_num_samples:,}"))
    return rows


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def cmd_list(args: argparse.Namespace) -> int:
    wide = bool(getattr(args, "wide", False))
    rows = _list_rows(wide)
    header = (
        ("mechanism", "family", "kind", "claim", "default samples")
        if wide
        else ("mechanism", "kind", "claim", "samples")
    )
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    if not wide:  # the claim column gives way (a name is never cut: it is what `run` takes)
        widths[2] = max(
            len(header[2]), min(widths[2], LIST_WIDTH - 2 * 3 - widths[0] - widths[1] - widths[3])
        )
    for r in [header, *rows]:
        cells = r if wide else tuple(_fit(x, w) for x, w in zip(r, widths, strict=True))
        print("  ".join(x.ljust(w) for x, w in zip(cells, widths, strict=True)).rstrip())
    if not wide:
        print(
            "\n† buggy twin a black-box audit cannot detect; `dpaudit list --wide` names each twin and family"
        )
    print(
        "\nestimators: histogram (discrete outputs), threshold (coordinates and mean-difference projection)"
    )
    print("pair generators: registered worst-case pairs per mechanism; boundary templates from the domain")
    hint = missing_hint()
    if hint:
        print(hint)
    return EXIT_OK


def cmd_plan(args: argparse.Namespace) -> int:
    mechanism, _ = resolve(args.mechanism, parse_params(args.param))
    result = plan(
        mechanism,
        pairs_for(mechanism),
        target_epsilon=args.target_epsilon,
        pilot_samples=args.pilot_samples,
        seed=args.seed,
        failure_probability=args.failure_probability,
    )
    command = _plan_command(args, result.num_samples, registered=has_registered_pairs(mechanism))
    if args.json:
        print(json.dumps({**result.to_dict(), "command": command}, indent=2, ensure_ascii=False, default=str))
    else:
        print(result.describe())
        if command:
            print(f"Run it: {command}")
    return EXIT_OK


def _plan_command(args: argparse.Namespace, num_samples: int | None, *, registered: bool) -> str | None:
    """The `dpaudit run` the plan is for, None without a plan: on the registered pairs where the
    mechanism has them; else the default route (below the search's minimum budget it audits the
    boundary templates the plan piloted; above it, it searches the domain and may do better)."""
    if num_samples is None:
        return None
    parts = ["dpaudit", "run", args.mechanism]
    for item in args.param:
        parts += ["--param", item]
    parts += ["--num-samples", str(num_samples), "--seed", str(args.seed)]
    parts += ["--failure-probability", repr(float(args.failure_probability))]
    return shlex.join(parts + (["--pairs", "registered"] if registered else []))


def cmd_gate(args: argparse.Namespace) -> int:
    """All logic lives in audit/gate.py; the CLI hands it the reports/ writers and renderers."""
    from ..gate import GateOptions, find_config, load_config, run_gate

    if args.config and args.config_file and args.config != args.config_file:
        raise UsageError("give the config file once (CONFIG or --config)")
    config = load_config(find_config(args.config or args.config_file))
    options = GateOptions(
        baseline=args.baseline,
        update_baseline=args.update_baseline,
        strict=args.strict,
        out=args.out,
        resume=args.resume,
        jobs=all_cores() if args.jobs is None else args.jobs,
    )
    return run_gate(config, options, gate_io()).exit_code


def cmd_report(args: argparse.Namespace) -> int:
    result = read_json(args.result)
    renderers = {"md": render_markdown, "html": render_html, "json": dumps}
    text = render_junit([result]) if args.format == "junit" else renderers[args.format](result)
    if args.out:
        write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK
