"""The `dpaudit` command (DESIGN.md, "CLI and JSON contract").

Exit codes: 0 no violation found, 1 violation found (verdicts only); 2 usage or input error,
including the user's mechanism failing (one line on stderr, no traceback); 3 internal error of
dpaudit (one line naming a file that holds the traceback; `--debug` prints it instead). No path
exits 1 without a verdict.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from dpaudit.engine.outfiles import safe_stem, write_text
from dpaudit.engine.plan import plan
from dpaudit.engine.runner import AuditInputError, run_audit
from dpaudit.engine.search import SearchBudgetError, SearchUnsupportedError, search_and_certify
from dpaudit.engine.types import AuditConfig, AuditResult
from dpaudit.mechanisms.base import Mechanism, MechanismError, claims_of
from dpaudit.mechanisms.registry import RegistryEntry, RegistryError, entries, resolve
from dpaudit.neighbors.base import NeighborPair
from dpaudit.neighbors.generators import BoundaryPairs, check_amplification
from dpaudit.reports.html import render_html, render_index_html
from dpaudit.reports.junit import render_junit
from dpaudit.reports.markdown import fmt, render_index_markdown, render_markdown, weakened
from dpaudit.reports.schema import SchemaError, dumps, read_json, to_json_dict

EXIT_OK, EXIT_VIOLATION, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
FALLBACK = "the default pair search is unavailable"
DEBUG_HELP = "show a traceback instead of the one-line error (exit codes unchanged)"
DEFAULT_PAIRS = "all"
"""`dpaudit run`'s pair mode when --pairs is not given: the worst-case search with the registered
pairs in its pilot pool, on the registered route's total budget (audit/search.py). Measured not
to fall below the registered route beyond seed noise on any registered learner
(benchmarks/search.py --seeds 3 --no-blind; benchmarks/README.md). A mechanism the search cannot
handle (no domain, a budget too small for a pilot) falls back to the registered pairs with a
one-line note; an explicit --pairs search|all errors instead. `dpaudit gate` keeps "registered"
as its default: a baseline compares the same pairs run after run."""
FORMATS = ("json", "md", "html")


class UsageError(Exception):
    """Bad command-line input (exit 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a probability in (0, 1), got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer seed, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer seed, got {text!r}")
    return value


def _float_list(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="dpaudit", description="Certified empirical privacy audits of DP mechanisms.")
    p.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    sub.add_parser("list", help="list registered mechanisms, estimators and pair generators")

    r = sub.add_parser("run", help="audit a mechanism (or --all registered correct mechanisms)")
    r.add_argument("mechanism", nargs="?", help="registered name or package.module:attribute")
    r.add_argument("--all", action="store_true", help="audit every registered correct mechanism")
    r.add_argument("--param", action="append", default=[], metavar="K=V", help="mechanism parameter")
    r.add_argument("--num-samples", type=_positive_int, help="samples per side and pair")
    r.add_argument("--seed", type=_seed, default=0)
    r.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="parallel workers (-1: all; default 1, or all with --backend dask)",
    )
    r.add_argument("--failure-probability", type=_probability, default=0.05)
    r.add_argument("--out", type=Path, help="directory for result files")
    r.add_argument("--format", default="json,md,html", help="comma-separated: json,md,html (with --out)")
    r.add_argument("--json", action="store_true", help="print the result JSON to stdout")
    r.add_argument(
        "--profile-deltas",
        type=_float_list,
        default=(),
        metavar="D1,D2",
        help="also certify ε at each δ (privacy profile)",
    )
    r.add_argument(
        "--profile-epsilons",
        type=_float_list,
        default=(),
        metavar="E1,E2",
        help="also certify δ at each ε (privacy profile)",
    )
    r.add_argument(
        "--pairs",
        choices=["registered", "search", "all"],
        default=None,
        help="registered: the mechanism's registered worst-case pairs; search: a pilot search over "
        "pairs generated from its domain, certifying the best; all: that search with the registered "
        "pairs in its pool; the same total budget either way (default: all; registered, with a note, "
        "when the mechanism declares no domain or the budget is too small to search)",
    )
    r.add_argument("--gdp", action="store_true", help="also certify a Gaussian-DP μ lower bound")
    r.add_argument(
        "--strict",
        action="store_true",
        help="a candidate pair whose sampling fails is an error (exit 2), not a weakened audit",
    )
    r.add_argument(
        "--resume", action="store_true", help="continue an interrupted run from its checkpoint under --out"
    )
    r.add_argument("--backend", default="loky", help="joblib backend for --jobs (loky, threading, dask)")
    r.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address (with --backend dask)")

    pl = sub.add_parser("plan", help="estimate from a pilot the samples needed to certify a target ε")
    pl.add_argument("mechanism", help="registered name or package.module:attribute")
    pl.add_argument("--target-epsilon", type=float, required=True)
    pl.add_argument("--param", action="append", default=[], metavar="K=V")
    pl.add_argument("--pilot-samples", type=_positive_int, default=20_000)
    pl.add_argument("--seed", type=_seed, default=0)
    pl.add_argument("--failure-probability", type=_probability, default=0.05)
    pl.add_argument("--json", action="store_true")

    g = sub.add_parser(
        "gate",
        help="run the audits configured in dpaudit.toml / [tool.dpaudit]; exit 1 on violation or regression",
    )
    g.add_argument(
        "config_file", nargs="?", type=Path, metavar="CONFIG", help="config file (same as --config)"
    )
    g.add_argument("--config", type=Path, help="dpaudit.toml or pyproject.toml (default: found in the cwd)")
    g.add_argument("--baseline", type=Path, help="baseline JSON to test for privacy regressions against")
    g.add_argument("--update-baseline", action="store_true", help="write the baseline from this run")
    g.add_argument(
        "--strict",
        action="store_true",
        help="exit 2 when a baseline no longer informs its regression test (stale: re-run --update-baseline)",
    )
    g.add_argument("--out", type=Path, help="directory for results, gate.json, gate.md and junit.xml")
    g.add_argument("--resume", action="store_true", help="continue an interrupted gate from --out")
    g.add_argument("--jobs", type=int, default=1, help="parallel workers (-1: all cores)")

    rep = sub.add_parser("report", help="render a result JSON")
    rep.add_argument("result", type=Path)
    rep.add_argument("--format", default="md", choices=["md", "html", "junit", "json"])
    rep.add_argument("--out", type=Path, help="write here instead of stdout")
    for command in sub.choices.values():  # `dpaudit run X --debug` as well as `dpaudit --debug run X`
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP)
    return p


def _parse_params(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--param expects K=V, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def _formats(text: str) -> list[str]:
    fmts = [f.strip() for f in text.split(",") if f.strip()]
    bad = [f for f in fmts if f not in FORMATS]
    if bad:
        raise UsageError(f"unknown format(s) {', '.join(bad)} (available: {', '.join(FORMATS)})")
    return fmts


def _has_registered_pairs(mechanism: Mechanism) -> bool:
    registered = getattr(mechanism, "neighbor_pairs", None)
    return callable(registered) and len(registered()) > 0


def pairs_for(mechanism: Mechanism) -> list[NeighborPair]:
    """The mechanism's registered worst-case pairs, else boundary templates for its claims.

    A mechanism whose claim relies on subsampling amplification under one relation cannot be
    audited on pairs of another: that is an input error, never a silent audit."""
    registered = getattr(mechanism, "neighbor_pairs", None)
    pairs: list[NeighborPair] = list(registered()) if callable(registered) else []
    if not pairs:
        relations = dict.fromkeys(c.relation for c in claims_of(mechanism))
        gen = BoundaryPairs()
        pairs = [p for rel in relations for p in gen.pairs(mechanism.domain, rel)]
    for rel in dict.fromkeys(p.relation for p in pairs):
        check_amplification(mechanism.domain, rel)
    return pairs


def _test_options(args: argparse.Namespace) -> list[str]:
    """The options that change which tests run (hence the Bonferroni split and the result)."""
    parts = ["--seed", str(args.seed), "--failure-probability", f"{args.failure_probability:g}"]
    if args.profile_deltas:
        parts += ["--profile-deltas", ",".join(f"{d:g}" for d in args.profile_deltas)]
    if args.profile_epsilons:
        parts += ["--profile-epsilons", ",".join(f"{e:g}" for e in args.profile_epsilons)]
    if args.gdp:
        parts.append("--gdp")
    return parts


def _command(name: str, params: dict[str, str], args: argparse.Namespace, n: int) -> str:
    parts = ["dpaudit", "run", name]
    for k, v in params.items():
        parts += ["--param", f"{k}={v}"]
    return shlex.join([*parts, "--num-samples", str(n), *_test_options(args)])


def _audit_one(spec: str, params: dict[str, str], args: argparse.Namespace) -> AuditResult:
    mechanism, entry = resolve(spec, params)
    n = args.num_samples or (entry.default_num_samples if entry else 1_000_000)
    config = AuditConfig(
        num_samples=n,
        seed=args.seed,
        failure_probability=args.failure_probability,
        jobs=args.jobs,
        backend=args.backend,
        profile_deltas=args.profile_deltas,
        profile_epsilons=args.profile_epsilons,
        gdp=args.gdp,
    )
    mode = args.pairs or DEFAULT_PAIRS
    if mode == "registered" and not _has_registered_pairs(mechanism):
        raise UsageError(
            f"{mechanism.name!r} registers no neighbour pairs (no neighbor_pairs()): drop --pairs "
            "registered to search its domain, or give it neighbor_pairs()"
        )
    checkpoint = args.out / ".checkpoints" / f"{safe_stem(mechanism.name)}.jsonl" if args.out else None
    note = ""
    if mode != "registered":
        try:
            if getattr(mechanism, "domain", None) is None:
                raise SearchUnsupportedError(f"{mechanism.name!r} declares no domain to search")
            found = search_and_certify(
                mechanism,
                config,
                registered=pairs_for(mechanism) if mode == "all" else (),
                parameters=tuple(params.items()),
                command=_command(spec, params, args, n) + f" --pairs {mode}",
                checkpoint_path=checkpoint,
                resume=args.resume,
            )
        except (SearchBudgetError, SearchUnsupportedError) as exc:
            if args.pairs is not None:  # asked for explicitly: the user hears why it cannot run
                raise
            # the default route cannot search this mechanism: the registered route, with a note
            # (the result's `command` says `--pairs registered`)
            # (printed with the result's warnings once it exists: an error during the audit stays
            # the one line on stderr)
            which = "registered pairs" if _has_registered_pairs(mechanism) else "boundary template pairs"
            note = f"note: audited on the {which} ({FALLBACK}: {exc})"
        else:
            lost = weakened(found.certified)
            if args.strict and lost:
                raise UsageError(f"{mechanism.name}: {lost[0]} (--strict)")
            for w in found.certified.warnings:
                print(f"dpaudit: warning: {found.certified.mechanism}: {w}", file=sys.stderr)
            return found.certified
    result = run_audit(
        mechanism,
        pairs_for(mechanism),
        config,
        parameters=tuple(params.items()),
        command=_command(spec, params, args, n) + " --pairs registered",
        checkpoint_path=checkpoint,
        resume=args.resume,
    )
    if note:
        result = dataclasses.replace(result, warnings=(*result.warnings, note))
    for w in result.warnings:
        print(f"dpaudit: warning: {result.mechanism}: {w}", file=sys.stderr)
    return result


def _eps_text(eps: float) -> str:
    """A lower bound ≤ 0 is valid but says nothing (ε ≥ 0 always): word it so."""
    return fmt(eps) if eps > 0 else f"0 (no evidence of privacy loss; raw bound {fmt(eps)})"


def _summary(r: AuditResult) -> str:
    verdict = "VIOLATION FOUND" if r.violation else "no violation found at this power"
    c = r.claim
    return (
        f"{r.mechanism}: {verdict}\n"
        f"  claim ε={fmt(c.epsilon)} δ={fmt(c.delta)} ({c.relation.value}; {c.reference})\n"
        f"  certified ε ≥ {_eps_text(r.epsilon_lower_bound)} "
        f"(δ ≥ {fmt(r.delta_lower_bound)} at the claimed ε), "
        f"confidence {1 - r.failure_probability:g}, {r.num_samples:,} samples/side, "
        f"{len(r.pairs)} pair(s), {r.elapsed_seconds:.1f} s"
        + "".join(f"\n  finding: {f}" for f in r.findings)
        + "".join(f"\n  {w}" for w in weakened(r))
    )


def _drop_checkpoint(out: Path, mechanism: str) -> None:
    """The result is written: its checkpoint is no longer needed."""
    (out / ".checkpoints" / f"{safe_stem(mechanism)}.jsonl").unlink(missing_ok=True)


def _families() -> dict[str, str]:
    """Registered name → paper family, for the reports' family column."""
    return {e.name: e.family for e in entries().values()}


def _write_result(result: AuditResult, path: Path) -> None:
    write_text(path, dumps(result))


def _write(result: AuditResult, out: Path, fmts: Sequence[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    family = _families().get(result.mechanism)
    stem = safe_stem(result.mechanism)
    if "json" in fmts:
        _write_result(result, out / f"{stem}.json")
    if "md" in fmts:
        write_text(out / f"{stem}.md", render_markdown(result, family=family))
    if "html" in fmts:
        write_text(out / f"{stem}.html", render_html(result, family=family))


def _cmd_run(args: argparse.Namespace) -> int:
    if args.resume and not args.out:
        raise UsageError("--resume needs --out (checkpoints live under the output directory)")
    if args.scheduler and args.backend != "dask":
        raise UsageError("--scheduler needs --backend dask")
    if args.jobs is None:
        args.jobs = -1 if args.backend == "dask" else 1
    if args.jobs == 0 or args.jobs < -1:
        raise UsageError("--jobs must be ≥ 1 or -1")
    fmts = _formats(args.format)
    params = _parse_params(args.param)
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
    if args.out:
        _write(result, args.out, fmts)
        _drop_checkpoint(args.out, result.mechanism)
    if args.json:
        sys.stdout.write(dumps(result))
    else:
        print(_summary(result))
    return EXIT_VIOLATION if result.violation else EXIT_OK


def _run_all(args: argparse.Namespace, fmts: Sequence[str]) -> int:
    selected: list[RegistryEntry] = [e for e in entries().values() if not e.buggy]
    results = []
    for i, entry in enumerate(selected, 1):
        print(f"[{i}/{len(selected)}] {entry.name}", file=sys.stderr, flush=True)
        finished = _finished(entry, args) if args.resume else None
        if finished is not None:
            print(f"  {entry.name}: finished result reused from {args.out}", file=sys.stderr, flush=True)
            results.append(finished)
            if not args.json:
                print(_summary(finished), flush=True)
            continue
        result = _audit_one(entry.name, {}, args)
        results.append(result)
        if args.out:
            _write(result, args.out, fmts)  # written as soon as done: a crash loses nothing finished
            _drop_checkpoint(args.out, result.mechanism)
        if not args.json:
            print(_summary(result), flush=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        fams = _families()
        write_text(args.out / "index.md", render_index_markdown(results, families=fams))
        if "html" in fmts:
            links = [f"{safe_stem(r.mechanism)}.html" for r in results]
            write_text(
                args.out / "index.html",
                render_index_html(results, links, families=fams, command=_run_all_command(args)),
            )
        write_text(args.out / "junit.xml", render_junit(results, families=fams))
        index = [
            {
                "mechanism": r.mechanism,
                "verdict": r.verdict.value,
                "epsilon_lower_bound": to_json_dict(r)["epsilon_lower_bound"],
                "claim": r.claim.to_dict(),
                "file": f"{safe_stem(r.mechanism)}.json",
            }
            for r in results
        ]
        write_text(args.out / "index.json", json.dumps(index, indent=2, ensure_ascii=False) + "\n")
    if args.json:
        sys.stdout.write(json.dumps([to_json_dict(r) for r in results], indent=2, ensure_ascii=False) + "\n")
    return EXIT_VIOLATION if any(r.violation for r in results) else EXIT_OK


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
    base = _command(entry.name, {}, args, n)
    same = {f"{base} --pairs {args.pairs or DEFAULT_PAIRS}"}
    if any(FALLBACK in w for w in result.warnings):  # the default route fell back to registered pairs
        same.add(f"{base} --pairs registered")
    return result if result.mechanism == entry.name and result.command in same else None


def _run_all_command(args: argparse.Namespace) -> str:
    """The `run --all` command that reproduces the whole run (same budgets, seed and tests)."""
    parts = ["dpaudit", "run", "--all", "--pairs", args.pairs or DEFAULT_PAIRS]
    if args.num_samples:
        parts += ["--num-samples", str(args.num_samples)]
    return shlex.join([*parts, *_test_options(args)])


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


def _cmd_list(_: argparse.Namespace) -> int:
    rows: list[tuple[str, ...]] = []
    for e in entries().values():
        try:
            m = e.build()
            c = m.claim
            claim = f"ε={fmt(c.epsilon)} δ={fmt(c.delta)} {c.relation.value}"
        except Exception as exc:  # a broken entry should not hide the others
            claim = f"(cannot build: {exc})"
        kind = f"buggy twin of {e.twin_of}" if e.buggy else "correct"
        if e.buggy and not e.detectable:
            kind += " (undetectable black-box)"
        rows.append((e.name, e.family, kind, claim, f"{e.default_num_samples:,}"))
    header = ("mechanism", "family", "kind", "claim", "default samples")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        print("  ".join(x.ljust(w) for x, w in zip(r, widths, strict=True)).rstrip())
    print(
        "\nestimators: histogram (discrete outputs), threshold (coordinates and mean-difference projection)"
    )
    print("pair generators: registered worst-case pairs per mechanism; boundary templates from the domain")
    return EXIT_OK


def _cmd_plan(args: argparse.Namespace) -> int:
    mechanism, _ = resolve(args.mechanism, _parse_params(args.param))
    result = plan(
        mechanism,
        pairs_for(mechanism),
        target_epsilon=args.target_epsilon,
        pilot_samples=args.pilot_samples,
        seed=args.seed,
        failure_probability=args.failure_probability,
    )
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False, default=str))
    else:
        print(result.describe())
    return EXIT_OK


def _cmd_gate(args: argparse.Namespace) -> int:
    """All logic lives in audit/gate.py; the CLI hands it the reports/ writers and renderers."""
    from dpaudit.app.gate import GateIO, GateOptions, run_gate
    from dpaudit.app.gate_config import find_config, load_config

    if args.config and args.config_file and args.config != args.config_file:
        raise UsageError("give the config file once (CONFIG or --config)")
    config = load_config(find_config(args.config or args.config_file))
    options = GateOptions(
        baseline=args.baseline,
        update_baseline=args.update_baseline,
        strict=args.strict,
        out=args.out,
        resume=args.resume,
        jobs=args.jobs,
    )
    io = GateIO(
        pairs_for=pairs_for,
        write_result=_write_result,
        read_result=read_json,
        render_markdown=render_markdown,
        render_junit=render_junit,
        summary=_summary,
    )
    return run_gate(config, options, io).exit_code


def _cmd_report(args: argparse.Namespace) -> int:
    result = read_json(args.result)
    renderers = {"md": render_markdown, "html": render_html, "json": dumps}
    text = render_junit([result]) if args.format == "junit" else renderers[args.format](result)
    if args.out:
        write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    raw = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(raw)
        handler: Any = {
            "list": _cmd_list,
            "run": _cmd_run,
            "plan": _cmd_plan,
            "gate": _cmd_gate,
            "report": _cmd_report,
        }[args.command]
        return int(handler(args))
    except (UsageError, RegistryError, AuditInputError, MechanismError, SchemaError, ValueError) as exc:
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
        print("dpaudit: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if "--debug" in raw:
            raise
        return _internal_error(exc)


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
