"""The `dpaudit` command (docs/DESIGN.md, "CLI and JSON contract").

Exit codes: 0 no violation found, 1 violation found (verdicts only); 2 usage or input error,
including the user's mechanism failing or exceeding `--timeout` (one line on stderr naming the
mechanism and the phase, no traceback; with `run --all` the results finished before it are
already written under --out); 3 internal error of
dpaudit (one line naming a file that holds the traceback; `--debug` prints it instead). No path
exits 1 without a verdict.

Layout: the parser in `cli_parser`, the other commands and shared helpers in `cli_commands`;
this module is `main` and the `run` command (re-exporting what importers used from here).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from typing import Any

from dpaudit.engine.outfiles import safe_stem
from dpaudit.engine.runner import DEFAULT_TIME_BUDGET, AuditInputError, budget_from_cost
from dpaudit.engine.sampling import AuditTimeout, audit_session
from dpaudit.engine.types import AuditConfig, AuditResult
from dpaudit.mechanisms.base import Mechanism, MechanismError, claims_of
from dpaudit.mechanisms.libraries import FAMILY as LIBRARIES
from dpaudit.mechanisms.opacus import FAMILY as OPACUS
from dpaudit.mechanisms.registry import RegistryEntry, RegistryError, entries, resolve
from dpaudit.reports.markdown import weakened
from dpaudit.reports.schema import SchemaError, dumps, read_json, to_json_dict

from ..gate_io import write_result as _write_result
from ..route import FALLBACK, Route, certify, has_registered_pairs, pairs_for
from ..summary import summary as _summary
from .commands import (
    cmd_gate,
    cmd_list,
    cmd_plan,
    cmd_report,
    drop_checkpoint,
    formats,
    output_formats,
    parse_params,
    write_outputs,
)
from .indexes import has_index, write_indexes
from .one_run import cmd_one_run, cmd_sampler, cmd_scores
from .parser import (
    DEBUG_HELP,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    EXIT_VIOLATION,
    FORMATS,
    UsageError,
    all_cores,
    build_parser,
)
from .pool import pool_size, run_side_by_side
from .scan_command import cmd_scan

__all__ = [  # main and `run`; what importers used from here before the split is re-exported
    "DEBUG_HELP",
    "DEFAULT_PAIRS",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_USAGE",
    "EXIT_VIOLATION",
    "FALLBACK",
    "FORMATS",
    "UsageError",
    "_summary",
    "_write_result",
    "build_parser",
    "main",
    "pairs_for",
]

DEFAULT_PAIRS = "all"
"""`dpaudit run`'s pair mode when --pairs is not given: the worst-case search with the registered
pairs in its pilot pool, on the registered route's total budget (audit/search/procedure.py). Measured not
to fall below the registered route beyond seed noise on any registered learner
(benchmarks/search.py --seeds 3 --no-blind; benchmarks/README.md). A mechanism the search cannot
handle (no domain, a budget too small for a pilot) falls back to the registered pairs with a
one-line note; an explicit --pairs search|all errors instead. `dpaudit gate` keeps "registered"
as its default: a baseline compares the same pairs run after run."""


def _test_options(args: argparse.Namespace) -> list[str]:
    """The options that change which tests run (hence the Bonferroni split and the result)."""
    parts = ["--seed", str(args.seed), "--failure-probability", repr(float(args.failure_probability))]
    if args.profile_deltas:  # repr: the shortest text that parses back to the same float
        parts += ["--profile-deltas", ",".join(repr(float(d)) for d in args.profile_deltas)]
    if args.profile_epsilons:
        parts += ["--profile-epsilons", ",".join(repr(float(e)) for e in args.profile_epsilons)]
    if args.gdp:
        parts.append("--gdp")
    if getattr(args, "floating_point", False):
        parts.append("--floating-point")
    if args.pilot_fraction is not None:
        parts += ["--pilot-fraction", repr(float(args.pilot_fraction))]
    if args.search_pairs is not None:
        parts += ["--search-pairs", str(args.search_pairs)]
    if getattr(args, "sweep_max_count", None) is not None:
        parts += ["--sweep-max-count", str(args.sweep_max_count)]
    return parts


def _command(
    name: str, params: dict[str, str], args: argparse.Namespace, n: int, *, sequential: bool = False
) -> str:
    parts = ["dpaudit", "run", name]
    for k, v in params.items():
        parts += ["--param", f"{k}={v}"]
    seq = ["--sequential"] if sequential else []
    return shlex.join([*parts, "--num-samples", str(n), *_test_options(args), *seq])


def _budget(mechanism: Mechanism, entry: RegistryEntry | None, args: argparse.Namespace) -> tuple[int, bool]:
    """(samples per side, whether the budget was fitted to the measured cost). Without
    --num-samples, a registered mechanism keeps its budget unless --time-budget is given; a user
    mechanism's budget fits its measured cost in --time-budget (default `DEFAULT_TIME_BUDGET`),
    stated up front on stderr (audit/runner/budget.py)."""
    if args.num_samples:
        return args.num_samples, False
    if entry is not None and args.time_budget is None:
        return entry.default_num_samples, False
    pairs = pairs_for(mechanism)
    workers = all_cores() if args.jobs == -1 else args.jobs
    with audit_session(mechanism.name, timeout=args.timeout):
        budget = budget_from_cost(
            mechanism,
            pairs[0].dataset,
            pairs=args.search_pairs or len(pairs),
            workers=workers,
            time_budget=args.time_budget or DEFAULT_TIME_BUDGET,
            seed=args.seed,
        )
    print(budget.message(mechanism.name), file=sys.stderr, flush=True)
    return budget.num_samples, True


def _audit_one(spec: str, params: dict[str, str], args: argparse.Namespace) -> AuditResult:
    mechanism, entry = resolve(spec, params)
    claims_of(mechanism)  # a claim of the wrong type: exit 2 before anything else
    mode = args.pairs or DEFAULT_PAIRS
    if mode == "registered" and not has_registered_pairs(mechanism):
        raise UsageError(
            f"{mechanism.name!r} registers no neighbour pairs (no neighbor_pairs()): drop --pairs "
            "registered to search its domain, use --pairs templates for its boundary templates, or "
            "give it neighbor_pairs()"
        )
    n, fitted = _budget(mechanism, entry, args)
    sequential = fitted if args.sequential is None else args.sequential
    config = AuditConfig(
        num_samples=n,
        seed=args.seed,
        failure_probability=args.failure_probability,
        jobs=args.jobs,
        backend=args.backend,
        profile_deltas=args.profile_deltas,
        profile_epsilons=args.profile_epsilons,
        gdp=args.gdp,
        timeout=args.timeout,
        floating_point=args.floating_point,
        sequential=sequential,
    )
    checkpoint = args.out / ".checkpoints" / f"{safe_stem(mechanism.name)}.jsonl" if args.out else None
    route = Route(
        mode=mode,
        explicit=args.pairs is not None,
        pilot_fraction=args.pilot_fraction,
        search_pairs=args.search_pairs,
        sweep_max_count=args.sweep_max_count,
    )
    result = certify(
        mechanism,
        config,
        route,
        parameters=tuple(params.items()),
        command=_command(spec, params, args, n, sequential=sequential),
        checkpoint_path=checkpoint,
        resume=args.resume,
    ).result
    lost = weakened(result)
    if args.strict and lost:
        raise UsageError(f"{mechanism.name}: {lost[0]} (--strict)")
    return result


def _cmd_run(args: argparse.Namespace) -> int:
    if args.resume and not args.out:
        raise UsageError("--resume needs --out (checkpoints live under the output directory)")
    if args.scheduler and args.backend != "dask":
        raise UsageError("--scheduler needs --backend dask")
    if args.jobs is None:  # one audit: in-process (no worker start-up); --all: every core
        args.jobs = -1 if args.backend == "dask" else all_cores() if args.all else 1
    fmts = output_formats(args)
    params = parse_params(args.param)
    client = _connect_dask(args.scheduler) if args.backend == "dask" else None
    try:
        return _run(args, fmts, params)
    finally:
        if client is not None:
            client.close()  # with no --scheduler this also shuts down the local cluster it started


def _run(args: argparse.Namespace, fmts: Sequence[str], params: dict[str, str]) -> int:
    if args.all:
        if args.mechanism or params:
            raise UsageError("--all takes no MECHANISM and no --param")
        return _run_all(args, fmts)
    if not args.mechanism:
        raise UsageError("run needs a MECHANISM (or --all); see `dpaudit list`")
    result = _audit_one(args.mechanism, params, args)
    _print_warnings(result)
    if args.out:
        write_outputs(result, args.out, fmts)
        drop_checkpoint(args.out, result.mechanism)
        if has_index(args.out):  # an `--all` folder: its index lists this result, not a stale one
            write_indexes(args.out, [result], html="html" in fmts)
    if args.json:
        sys.stdout.write(dumps(result))
    else:
        print(_summary(result))
    return EXIT_VIOLATION if result.violation else EXIT_OK


def _run_all(args: argparse.Namespace, fmts: Sequence[str]) -> int:
    # the DP-library and Opacus families audit third-party code, by name (`dpaudit run diffprivlib_laplace`)
    selected: list[RegistryEntry] = [
        e for e in entries().values() if not e.buggy and e.family not in (LIBRARIES, OPACUS)
    ]
    start = time.monotonic()
    done: dict[int, AuditResult] = {}
    for i, entry in enumerate(selected):
        finished = _finished(entry, args) if args.resume else None
        if finished is not None:
            done[i] = finished
            _announce(
                len(done), len(selected), finished, args, note=f"finished result reused from {args.out}"
            )
    todo = [i for i in range(len(selected)) if i not in done]
    size = pool_size(args, len(todo))
    if size > 1:
        print(f"dpaudit: {len(todo)} audits, {size} at a time", file=sys.stderr, flush=True)
    names = [selected[i].name for i in todo]
    for k, result in run_side_by_side(_audit_registered, names, args, size):
        done[todo[k]] = result
        if args.out:
            write_outputs(result, args.out, fmts)  # written as soon as done: a crash loses nothing finished
            drop_checkpoint(args.out, result.mechanism)
        _announce(len(done), len(selected), result, args)
    results = [done[i] for i in range(len(selected))]
    if args.out:
        _write_indexes(results, args, fmts)
    if args.json:
        sys.stdout.write(json.dumps([to_json_dict(r) for r in results], indent=2, ensure_ascii=False) + "\n")
    print(
        _closing_line(results, args, time.monotonic() - start),
        file=sys.stderr if args.json else sys.stdout,
        flush=True,
    )
    return EXIT_VIOLATION if any(r.violation for r in results) else EXIT_OK


def _audit_registered(name: str, args: argparse.Namespace) -> AuditResult:
    """One registered audit of `run --all` (module level: pool workers call it)."""
    return _audit_one(name, {}, args)


def _announce(k: int, total: int, result: AuditResult, args: argparse.Namespace, *, note: str = "") -> None:
    """`[k/total] name` on stderr as an audit finishes (with its warnings), its summary on stdout."""
    print(f"[{k}/{total}] {result.mechanism}{': ' + note if note else ''}", file=sys.stderr, flush=True)
    _print_warnings(result)
    if not args.json:
        print(_summary(result), flush=True)


def _print_warnings(result: AuditResult) -> None:
    for w in result.warnings:
        print(f"dpaudit: warning: {result.mechanism}: {w}", file=sys.stderr)


def _closing_line(results: Sequence[AuditResult], args: argparse.Namespace, seconds: float) -> str:
    """One line after `run --all`: how many audits, violations and weakened audits, the wall-clock
    seconds it took, where to look."""
    violations = [r.mechanism for r in results if r.violation]
    weak = sum(1 for r in results if weakened(r))
    found = f"{len(violations)} violation(s): {', '.join(violations)}" if violations else "no violation found"
    inconclusive = sum(1 for r in results if r.inconclusive)
    unsure = f", {inconclusive} inconclusive (no power or no evidence)" if inconclusive else ""
    index = "index.html" if "html" in formats(args.format) else "index.md"
    where = f"; reports in {args.out / index}" if args.out else ""
    return f"dpaudit: {len(results)} audits, {found}{unsure}, {weak} weakened, {seconds:.0f} s{where}"


def _write_indexes(results: Sequence[AuditResult], args: argparse.Namespace, fmts: Sequence[str]) -> None:
    """index.md, index.html (with html), junit.xml and index.json next to the per-mechanism files,
    over these results and every other result JSON in --out (`indexes.write_indexes`)."""
    write_indexes(args.out, results, html="html" in fmts, command=_run_all_command(args))


def _finished(entry: RegistryEntry, args: argparse.Namespace) -> AuditResult | None:
    """With --resume, the result a previous `run --all` already wrote for `entry` under --out,
    when it is the same audit (its reproduce command equals this run's); else None (re-run)."""
    path = args.out / f"{safe_stem(entry.name)}.json"
    if not path.is_file():
        return None
    try:
        result = read_json(path)
    except (SchemaError, OSError, ValueError):
        return None
    n = args.num_samples or entry.default_num_samples
    base = _command(entry.name, {}, args, n, sequential=bool(args.sequential))
    same = {f"{base} --pairs {args.pairs or DEFAULT_PAIRS}"}
    if any(FALLBACK in w for w in result.warnings):  # the default route fell back to registered pairs
        same |= {f"{base} --pairs registered", f"{base} --pairs templates"}
    return result if result.mechanism == entry.name and result.command in same else None


def _run_all_command(args: argparse.Namespace) -> str:
    """The `run --all` command that reproduces the whole run (same budgets, seed and tests)."""
    parts = ["dpaudit", "run", "--all", "--pairs", args.pairs or DEFAULT_PAIRS]
    if args.num_samples:
        parts += ["--num-samples", str(args.num_samples)]
    seq = ["--sequential"] if args.sequential else []
    return shlex.join([*parts, *_test_options(args), *seq])


def _connect_dask(address: str | None) -> Any:
    """A Dask client (a scheduler address, or a local cluster) that joblib's Dask backend uses;
    the caller closes it."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise UsageError("--backend dask needs the dask extra: pip install 'dpaudit[dask]'") from None
    try:
        return Client(address, timeout=10) if address else Client(processes=False)
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: {exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    raw = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(raw)
        handler: Any = {
            "list": cmd_list,
            "run": _cmd_run,
            "plan": cmd_plan,
            "gate": cmd_gate,
            "report": cmd_report,
            "one-run": cmd_one_run,
            "scores": cmd_scores,
            "sampler": cmd_sampler,
            "scan": cmd_scan,
        }[args.command]
        return int(handler(args))
    except (
        UsageError,
        RegistryError,
        AuditInputError,
        MechanismError,
        AuditTimeout,
        SchemaError,
        ValueError,
    ) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"dpaudit: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `dpaudit list | head`: the reader left; say nothing more
        _silence_stdout()
        return EXIT_OK if raw[:1] in (["list"], ["report"]) else EXIT_USAGE
    except OSError as exc:
        print(f"dpaudit: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"dpaudit: interrupted{_resume_words(raw)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        if "--debug" in raw:
            raise
        return _internal_error(exc)


RESUMABLE = ("run", "gate")
"""Commands that checkpoint under --out and continue with --resume."""


def _resume_words(raw: Sequence[str]) -> str:
    """After Ctrl-C: "; continue with: dpaudit … --resume" for a command that checkpoints under
    --out (the same command line, so the same seed and options); "" otherwise."""
    command = next((a for a in raw if not a.startswith("-")), None)
    has_out = any(a == "--out" or a.startswith("--out=") for a in raw)
    if command not in RESUMABLE or not has_out:
        return ""
    return f"; continue with: {shlex.join(['dpaudit', *raw, *([] if '--resume' in raw else ['--resume'])])}"


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _internal_error(exc: BaseException) -> int:
    """Exit 3 for a bug in dpaudit itself: one line on stderr naming the traceback file (written
    to the system temporary directory, never into the user's --out)."""
    try:
        fd, path = tempfile.mkstemp(prefix="dpaudit-traceback-", suffix=".txt")
        with open(fd, "w", encoding="utf-8") as fh:
            fh.write("".join(traceback.format_exception(exc)))
        where = f"traceback in {path}"
    except OSError:
        where = "traceback not saved; re-run with --debug"
    message = " ".join(str(exc).split())[:300]
    print(
        f"dpaudit: internal error: {type(exc).__name__}{': ' + message if message else ''} ({where})",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
