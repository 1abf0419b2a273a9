"""`dpaudit scan LIBRARY`: audit blind what an installed DP library exports (issue 44, item 5).

A first slice, diffprivlib only. The targets are read from the installed version, not from a
list: every function `diffprivlib.tools` exports whose signature takes `epsilon` (and
`bounds` or `range` where it has one) is built through `from_release` over a declared one-column
table (`v`, bounds [0, 1], which the library says it clips: the search puts records far outside),
with `exceptions=(ValueError,)` and `no_answer=True`, so a raise or a NaN on one side only is a
witness said as what it is; each model `diffprivlib.models` exports with a registered
`from_estimator` preset (`diffprivlib_model_*`) is audited through that preset. Claims are the
documented ε = 1 the target is built with, STATED (the documentation names no relation:
replace-one, the weaker claim, except the histogram, as the registered presets do).

Each target is audited blind (`dpaudit.audit`, the default route) at `budget` samples per side,
seed `seed`; the table has one row per target: verdict, certified ε against the claim, witness,
seconds. Validity is each audit's own (their failure probabilities are not pooled: the table is
a list of independent audits at 0.05 each, as `run --all`).
"""

from __future__ import annotations

import functools
import inspect
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["ScanRow", "ScanTarget", "diffprivlib_targets", "render", "scan", "targets_of"]

LIBRARIES = ("diffprivlib",)
DEFAULT_BUDGET = 1000
ADD_REMOVE_TOOLS = ("histogram", "histogramdd")
"""Tools audited under add/remove (as the registered preset `diffprivlib_histogram`); the others
under replace-one (n public), as the presets `diffprivlib_mean`, `_var`, `_sum`."""
EXTRA_ARGS: dict[str, dict[str, Any]] = {
    "percentile": {"percent": 50.0},
    "quantile": {"quant": 0.5},
    "histogramdd": {"range": [(0.0, 1.0)]},
}
"""Required arguments beyond the data, epsilon and bounds (the median's)."""


@dataclass(frozen=True, slots=True)
class ScanTarget:
    """One exported object and how to build it as a `Mechanism`."""

    name: str
    kind: str
    build: Callable[[], Any]


@dataclass(frozen=True, slots=True)
class ScanRow:
    name: str
    kind: str
    verdict: str
    epsilon: float
    claim: float
    witness: str
    seconds: float

    @property
    def flagged(self) -> bool:
        return self.verdict == "violation_found"


@dataclass(frozen=True, slots=True)
class ToolRelease:
    """`fn(table["v"], epsilon=1, <bounds>, random_state=…)`, the first array it returns
    (`histogram` returns (counts, edges)); picklable (the function is found by name)."""

    name: str

    def __call__(self, table: Any, rng: np.random.Generator) -> Any:
        import diffprivlib.tools as tools

        fn = getattr(tools, self.name)
        params = inspect.signature(fn).parameters
        kwargs: dict[str, Any] = {"epsilon": 1.0, "random_state": int(rng.integers(2**31))}
        if "bounds" in params:
            kwargs["bounds"] = (0.0, 1.0)
        if "range" in params:
            kwargs["range"] = (0.0, 1.0)
            kwargs["bins"] = 4
        kwargs.update(EXTRA_ARGS.get(self.name, {}))
        out = fn(np.asarray(table["v"], dtype=np.float64), **kwargs)
        return out[0] if isinstance(out, tuple) else out


def _tool_mechanism(name: str) -> Any:
    import dpaudit
    from dpaudit import ClaimKind, NumericColumn, PrivacyClaim, Relation

    relation = Relation.ADD_REMOVE_ONE if name in ADD_REMOVE_TOOLS else Relation.REPLACE_ONE
    claim = PrivacyClaim(
        epsilon=1.0,
        relation=relation,
        kind=ClaimKind.STATED,
        reference=f"diffprivlib tools.{name}(epsilon=1), as documented",
    )
    return dpaudit.from_release(
        ToolRelease(name),
        columns=(NumericColumn(name="v", low=0.0, high=1.0),),
        claim=claim,
        name=f"diffprivlib.tools.{name}",
        min_size=1,
        max_size=8,
        exceptions=(ValueError,),
        no_answer=True,
    )


def _tools() -> list[str]:
    import diffprivlib.tools as tools

    names = []
    for name in _exported(tools):
        fn = getattr(tools, name)
        if not inspect.isfunction(fn):
            continue
        params = inspect.signature(fn).parameters
        positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        data = [p for p in params.values() if p.kind in positional and p.default is inspect.Parameter.empty]
        given = EXTRA_ARGS.get(name, {})
        if "epsilon" in params and len([p for p in data if p.name not in given]) == 1:
            names.append(name)
    return names


def _exported(module: Any) -> list[str]:
    """What a module exports: `__all__`, else its public names defined in the library itself."""
    names = getattr(module, "__all__", None)
    if names is None:
        root = module.__name__.split(".")[0]
        names = [
            n
            for n in dir(module)
            if not n.startswith("_") and str(getattr(getattr(module, n), "__module__", "")).startswith(root)
        ]
    return sorted(names)


def _preset(name: str) -> Any:
    from dpaudit.mechanisms.registry import resolve

    return resolve(name)[0]


def diffprivlib_targets() -> list[ScanTarget]:
    """The installed diffprivlib's one-array tools and its models that have a preset."""
    import diffprivlib.models as models

    from dpaudit.mechanisms.registry import entries

    out = [ScanTarget(f"tools.{n}", "tool", functools.partial(_tool_mechanism, n)) for n in _tools()]
    known = entries()
    presets = {k.removeprefix("diffprivlib_model_").replace("_", ""): k for k in known}
    for model in _exported(models):
        preset = presets.get(model.lower())
        if preset is not None and preset.startswith("diffprivlib_model_"):
            out.append(ScanTarget(f"models.{model}", "model", functools.partial(_preset, preset)))
    return out


def targets_of(library: str) -> list[ScanTarget]:
    """The scan targets of `library` (ValueError when it is not supported or not installed)."""
    if library not in LIBRARIES:
        raise ValueError(f"scan supports {', '.join(LIBRARIES)} (got {library!r})")
    try:
        return diffprivlib_targets()
    except ImportError as exc:
        raise ValueError(f"{library} is not installed ({exc})") from None


def scan(
    targets: Sequence[ScanTarget],
    *,
    budget: int,
    seed: int,
    on_row: Callable[[ScanRow], None] | None = None,
) -> list[ScanRow]:
    """Audit each target blind at `budget` samples per side; one row each."""
    import warnings

    import dpaudit

    rows = []
    for target in targets:
        start = time.monotonic()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # libraries warn on every call (privacy leak, bounds)
            result = dpaudit.audit(target.build(), num_samples=budget, seed=seed)
        pair = max(result.pairs, key=lambda p: p.estimate.epsilon_lower_bound)
        row = ScanRow(
            name=target.name,
            kind=target.kind,
            verdict=result.verdict.value,
            epsilon=float(result.epsilon_lower_bound),
            claim=float(result.claim.epsilon),
            witness=f"{pair.description}: {pair.estimate.event}",
            seconds=time.monotonic() - start,
        )
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


def render(rows: Sequence[ScanRow], *, markdown: bool = False) -> str:
    """One table: target, verdict, certified ε vs the claim, witness, seconds."""
    head = ("target", "verdict", "certified ε", "claim ε", "seconds", "witness")
    cells = [
        (
            r.name,
            "FLAGGED" if r.flagged else "clean",
            f"{max(r.epsilon, 0.0):.3g}",
            f"{r.claim:g}",
            f"{r.seconds:.1f}",
            r.witness[:100],
        )
        for r in rows
    ]
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return "\n".join(lines + ["| " + " | ".join(c) + " |" for c in cells]) + "\n"
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*head), *(fmt.format(*c) for c in cells)]) + "\n"


def write(rows: Sequence[ScanRow], out: Path) -> None:
    """`out/scan.json` (every row) and `out/scan.md` (the table)."""
    out.mkdir(parents=True, exist_ok=True)
    data = [
        {
            "target": r.name,
            "kind": r.kind,
            "verdict": r.verdict,
            "epsilon_lower_bound": r.epsilon if np.isfinite(r.epsilon) else None,
            "claim_epsilon": r.claim,
            "witness": r.witness,
            "seconds": r.seconds,
        }
        for r in rows
    ]
    (out / "scan.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    (out / "scan.md").write_text(render(rows, markdown=True), encoding="utf-8")


def add_scan_command(sub: Any) -> None:
    """`dpaudit scan LIBRARY [--only NAMES] [--budget N] [--seed S] [--out DIR]`."""
    sc = sub.add_parser(
        "scan",
        help="audit blind what an installed DP library exports (diffprivlib); exit 1 if anything is flagged",
    )
    sc.add_argument("library", help=f"the library to scan ({', '.join(LIBRARIES)})")
    sc.add_argument("--only", help="comma-separated targets (e.g. tools.mean,models.GaussianNB)")
    sc.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        help=f"samples per side per target (default {DEFAULT_BUDGET})",
    )
    sc.add_argument("--seed", type=int, default=0, help="audit seed (default 0)")
    sc.add_argument("--out", type=Path, help="directory for scan.json and scan.md")


def cmd_scan(args: Any) -> int:
    """The `scan` command: 0 when nothing is flagged, 1 otherwise (a usage error is a ValueError:
    exit 2 from the entry point)."""
    targets = targets_of(args.library)
    if args.only:
        wanted = {t.strip() for t in args.only.split(",") if t.strip()}
        unknown = wanted - {t.name for t in targets}
        if unknown:
            raise ValueError(
                f"no such target(s) {sorted(unknown)}; targets: {', '.join(t.name for t in targets)}"
            )
        targets = [t for t in targets if t.name in wanted]
    if args.budget < 1:
        raise ValueError("--budget must be ≥ 1")
    size = f"{len(targets)} target(s), {args.budget:,} samples per side, seed {args.seed}"
    print(f"dpaudit scan {args.library}: {size}")
    rows = scan(
        targets,
        budget=args.budget,
        seed=args.seed,
        on_row=lambda r: print(
            f"  {r.name}: {'FLAGGED' if r.flagged else 'clean'} ({r.seconds:.1f} s)", flush=True
        ),
    )
    print(render(rows), end="")
    if args.out is not None:
        write(rows, args.out)
    return 1 if any(r.flagged for r in rows) else 0
