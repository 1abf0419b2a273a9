"""`dpaudit scan LIBRARY`: the handler (its options are in `parser.py`; the wing is `dpaudit.app.scan`)."""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import PackageNotFoundError, version

from .parser import all_cores

EXIT_OK, EXIT_VIOLATION = 0, 1


def cmd_scan(args: argparse.Namespace) -> int:
    from dpaudit.engine.outfiles import write_text

    from ..scan import (
        TIMEOUT_SHARE,
        ScanConfig,
        ScanRow,
        canonical,
        default_budget,
        library_targets,
        render,
        scan,
        to_json,
    )
    from ..scan.table import line

    args.library = canonical(args.library)
    targets = library_targets(args.library, tuple(args.only))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
    built = sum(t.build is not None for t in targets)
    jobs = max(1, min(built, all_cores() if args.jobs in (None, -1) else args.jobs))  # no idle worker
    budget = args.budget if args.budget is not None else default_budget(args.library)
    config = ScanConfig(num_samples=budget, seed=args.seed, failure_probability=1 - args.confidence,
                        timeout=args.timeout, jobs=jobs, fit_budget=args.budget is None,
                        row_failure_probability=args.row_failure_probability)
    fitting = (f", fitted lower where the measured cost does not fit {TIMEOUT_SHARE:.0%} of the "
               f"{config.timeout:g} s timeout" if config.fit_budget else "")
    print(f"dpaudit: scanning {built} of {len(targets)} exports of {args.library} "
          f"({config.num_samples:,} samples per side each{fitting}, {jobs} at a time)", file=sys.stderr)
    done = [0]

    def progress(row: ScanRow) -> None:
        done[0] += 1
        print(f"[{done[0]}/{built}] {line(row)}", file=sys.stderr)

    rows = scan(targets, config, progress=progress)
    installed = _version(args.library)
    text = render(rows, config, args.library, installed)
    print(text)
    if args.out is not None:
        write_text(args.out / "scan.txt", text + "\n")
        record = to_json(rows, config, args.library, installed)
        write_text(args.out / "scan.json", json.dumps(record, indent=2))
    return EXIT_VIOLATION if any(r.flagged for r in rows) else EXIT_OK


def _version(library: str) -> str:
    try:
        return version(library)
    except PackageNotFoundError:
        return "(version unknown)"
