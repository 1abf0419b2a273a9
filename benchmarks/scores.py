"""dpaudit's score certification vs jax_privacy's `CanaryScoreAuditor` on the same score files.

Score sets (one seeded numpy Generator per set and route):
- null: in and out scores from the same N(0, 1) (true ε = 0);
- gauss μ: in ~ N(μ, 1), out ~ N(0, 1) for μ ∈ {0.5, 1, 2} (μ-GDP: true ε(δ) from the Gaussian
  profile);
- dpsgd: the `dpsgd_canary_t10_score` preset (σ = 1, q = 0.1, T = 10, B = 4, gradient canary
  C·e₁, empty rest, canary score Σ_t B·⟨g̃_t, e₁⟩), true ε(δ) from the family's white-box oracle
  (binomial mixture, add/remove). Multi-run: the preset run on its registered add/remove pair.
  One run: m gradient canaries C·e_i in m coordinates, canary i's score Σ_t B·g̃_t[i] (trained
  in blocks of coordinates; coordinates do not interact, so this is one run in distribution).

Routes: one run (m ∈ {1000, 10000} canaries, inclusion bits i.i.d. Bernoulli(½), a CSV
`score,included`) and many runs (10⁴ in + 10⁴ out scores of independent runs, an NPZ
`in_scores`/`out_scores`). dpaudit: `dpaudit scores FILE` in-process (Steinke–Nasr–Jagielski
over a fixed grid of designs; a threshold chosen on a seeded split, Clopper–Pearson on the rest).
jax_privacy 2.0.0 runs in its own venv (`--jax-python`) through a helper this script writes,
on the same files: `epsilon_one_run` / `epsilon_one_run_fdp` (Bonferroni and Split thresholds),
`epsilon_clopper_pearson` (Bonferroni, Split, MultiSplit; two-sided like dpaudit),
`epsilon_from_gdp` and the `epsilon_raw_counts` point estimate. Both at β = 0.05, the same δ.

`--null-trials N` adds N no-signal trials per route (smaller sizes, `--null-size`) and prints
how often each method certifies ε > 0 (a valid method at β: at most β, up to sampling noise).

Usage: python benchmarks/scores.py [--seed S] [--jax-python /tmp/jpvenv/bin/python]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from gdp import gdp_epsilon

from dpaudit.app.cli import main as dpaudit_main
from dpaudit.engine.one_run import certify, certify_in_out
from dpaudit.mechanisms.dpsgd.reference import DPSGD
from dpaudit.mechanisms.registry import resolve
from dpaudit.neighbors.base import Dataset, Relation

INSTALL = "python3 -m venv /tmp/jpvenv && /tmp/jpvenv/bin/pip install jax-privacy"
DPSGD_PRESET = "dpsgd_canary_t10_score"
BLOCK = 500
"""Canaries (coordinates) per DP-SGD training call in the one-run set."""
F64 = np.ndarray[Any, np.dtype[np.float64]]
Bits = np.ndarray[Any, np.dtype[np.bool_]]

ONE_RUN_METHODS = ("SNJ Bonf", "SNJ Split", "f-DP Bonf", "f-DP Split")
MANY_RUN_METHODS = ("CP Bonf", "CP Split", "CP MultiSplit", "GDP", "raw est.")

JAX_HELPER = r'''
"""Run jax_privacy's CanaryScoreAuditor on score files listed in a JSON manifest (argv[1])."""
import json, sys
import numpy as np
from jax_privacy import auditing as A


def load(path):
    if path.endswith(".csv"):
        a = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
        bits = a[:, 1] == 1
        return a[bits, 0], a[~bits, 0]
    with np.load(path) as z:
        return z["in_scores"], z["out_scores"]


def one_run(au, sig, delta, seed):
    split = A.Split(threshold_estimation_frac=0.5, seed=seed)
    return {
        "SNJ Bonf": au.epsilon_one_run(sig, delta),
        "SNJ Split": au.epsilon_one_run(sig, delta, threshold_strategy=split),
        "f-DP Bonf": au.epsilon_one_run_fdp(sig, delta),
        "f-DP Split": au.epsilon_one_run_fdp(sig, delta, threshold_strategy=split),
    }


def many_runs(au, sig, delta, seed):
    split = A.Split(threshold_estimation_frac=0.5, seed=seed)
    multi = A.MultiSplit(num_samples=100, threshold_estimation_frac=0.5, seed=seed)
    cp = au.epsilon_clopper_pearson
    return {
        "CP Bonf": cp(sig, delta, one_sided=False),
        "CP Split": cp(sig, delta, one_sided=False, threshold_strategy=split),
        "CP MultiSplit": cp(sig, delta, one_sided=False, threshold_strategy=multi),
        "GDP": au.epsilon_from_gdp(sig, delta),
        "raw est.": au.epsilon_raw_counts(50, delta, one_sided=False),
    }


def audit(kind, ins, outs, sig, delta, seed):
    au = A.CanaryScoreAuditor(ins, outs)
    run = one_run if kind == "one_run" else many_runs
    out = {k: float(v) for k, v in run(au, sig, delta, seed).items()}
    out["hull"] = int(len(au._fn_counts))  # thresholds Bonferroni divides by
    return out


def null_trials(job):
    out = {}
    with np.load(job["path"]) as z:
        arrays = {k: z[k] for k in z.files}
    for i in range(arrays["scores"].shape[0]):
        s, b = arrays["scores"][i], arrays["included"][i]
        rows = [("one_run", s[b], s[~b]), ("many_runs", arrays["in_scores"][i], arrays["out_scores"][i])]
        for kind, ins, outs in rows:
            r = audit(kind, ins, outs, job["significance"], job["delta"], i)
            for k, v in r.items():
                out.setdefault(f"{kind}:{k}", []).append(v)
    return out


results = {}
for job in json.load(open(sys.argv[1])):
    if job["kind"] == "null_trials":
        results[job["id"]] = null_trials(job)
    else:
        ins, outs = load(job["path"])
        results[job["id"]] = audit(job["kind"], ins, outs, job["significance"], job["delta"], job["seed"])
json.dump(results, sys.stdout)
'''


# ------------------------------------------------------------------------------------------ sources
@dataclass(frozen=True)
class Source:
    """A score distribution: one-run scores given inclusion bits, and in/out scores of many runs."""

    name: str
    one_run: Callable[[Bits, np.random.Generator], F64]
    many_runs: Callable[[int, np.random.Generator], tuple[F64, F64]]
    truth: float
    claim: tuple[str, ...]
    """dpaudit's claim flags (the verdict only; the bound does not depend on them)."""


def gaussian_source(mu: float, delta: float) -> Source:
    def one(bits: Bits, rng: np.random.Generator) -> F64:
        return mu * bits + rng.standard_normal(bits.size)

    def many(n: int, rng: np.random.Generator) -> tuple[F64, F64]:
        return mu + rng.standard_normal(n), rng.standard_normal(n)

    truth = gdp_epsilon(mu, delta=delta) if mu > 0 else 0.0
    name = f"gauss mu={mu:g}" if mu > 0 else "null (no signal)"
    return Source(name, one, many, truth, ("--epsilon", repr(truth), "--delta", repr(delta)))


def dpsgd_source(delta: float) -> Source:
    mech, _ = resolve(DPSGD_PRESET)
    assert isinstance(mech, DPSGD)
    pair = next(p for p in mech.neighbor_pairs() if p.relation is Relation.ADD_REMOVE_ONE)

    def many(n: int, rng: np.random.Generator) -> tuple[F64, F64]:
        ins = mech.sample(pair.dataset, n, rng=rng)[:, 0]
        return ins, mech.sample(pair.neighbor, n, rng=rng)[:, 0]

    def one(bits: Bits, rng: np.random.Generator) -> F64:
        return np.concatenate(
            [_dpsgd_block(mech, bits[i : i + BLOCK], rng) for i in range(0, bits.size, BLOCK)]
        )

    accountant = f"{mech.noise_multiplier:g},{mech.sample_rate:g},{mech.steps}"
    claim = ("--accountant", accountant, "--delta", repr(delta))
    name = f"dpsgd s={mech.noise_multiplier:g} q={mech.sample_rate:g} T={mech.steps}"
    return Source(name, one, many, mech.exact_epsilon(pair, delta=delta), claim)


def _dpsgd_block(preset: DPSGD, bits: Bits, rng: np.random.Generator) -> F64:
    """One training run with gradient canaries C·e_i for the included i of this block: the score of
    canary i is Σ_t B·g̃_t[i], the preset's canary score along coordinate i."""
    dim = bits.size
    mech = DPSGD(
        noise_multiplier=preset.noise_multiplier,
        sample_rate=preset.sample_rate,
        steps=preset.steps,
        clip_norm=preset.clip_norm,
        batch_size=preset.batch_size,
        dim=dim,
        view="all_iterates",
        relation="add_remove_one",
    )
    rows = preset.clip_norm * np.eye(dim)[bits]
    updates, _, _ = mech.train(Dataset(X=rows), 1, rng)
    assert updates is not None
    return np.asarray(updates[0].sum(axis=0) * preset.batch_size / preset.clip_norm)


def sources(delta: float) -> list[Source]:
    return [gaussian_source(mu, delta) for mu in (0.0, 0.5, 1.0, 2.0)] + [dpsgd_source(delta)]


# ------------------------------------------------------------------------------------------ files
@dataclass(frozen=True)
class ScoreFile:
    source: Source
    kind: str
    """"one_run" or "many_runs"."""
    size: str
    path: Path


def write_one_run(path: Path, scores: F64, bits: Bits) -> None:
    table = np.column_stack([scores, bits.astype(int)])
    np.savetxt(path, table, delimiter=",", header="score,included", comments="", fmt=["%.17g", "%d"])


def make_files(
    srcs: list[Source], outdir: Path, seed: int, canaries: tuple[int, ...], runs: int
) -> list[ScoreFile]:
    seeds = iter(np.random.SeedSequence(seed).spawn(len(srcs) * (len(canaries) + 1)))
    files = []
    for i, src in enumerate(srcs):
        for m in canaries:
            rng = np.random.default_rng(next(seeds))
            bits = rng.random(m) < 0.5
            path = outdir / f"set{i}_one_run_{m}.csv"
            write_one_run(path, src.one_run(bits, rng), bits)
            files.append(ScoreFile(src, "one_run", f"m={m} ({int(bits.sum())} in)", path))
        rng = np.random.default_rng(next(seeds))
        ins, outs = src.many_runs(runs, rng)
        path = outdir / f"set{i}_many_runs.npz"
        np.savez(path, in_scores=ins, out_scores=outs)
        files.append(ScoreFile(src, "many_runs", f"{runs} in / {runs} out", path))
    return files


# ------------------------------------------------------------------------------------------ dpaudit
def run_dpaudit(f: ScoreFile, *, delta: float, beta: float, seed: int, method: str = "") -> dict[str, Any]:
    """`dpaudit scores FILE --json` in-process; the bound and the design / event it came from
    (`method`: `--method` for one-run files, "" for dpaudit's default)."""
    argv = ["scores", str(f.path), "--json", "--seed", str(seed), "--failure-probability", repr(beta)]
    argv += list(f.source.claim) + (["--method", method] if method else [])
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = dpaudit_main(argv)
    if code not in (0, 1):
        raise SystemExit(f"dpaudit {' '.join(argv)} exited {code}")
    result = json.loads(buf.getvalue())
    extra = result["extra"]
    if f.kind == "one_run":
        d = extra["one_run"]
        how = f"k₊={d['k_plus']} k₋={d['k_minus']} {d['correct']}/{d['guesses']}"
    else:
        e = result["pairs"][0]["estimate"]
        how = f"{e['event']} {e['direction']} {e['p_count']}/{e['p_total']} vs {e['q_count']}/{e['q_total']}"
    if delta != result["claim"]["delta"]:
        raise SystemExit(f"dpaudit used δ={result['claim']['delta']}, expected {delta}")
    return {"eps": float(result["epsilon_lower_bound"]), "how": how}


# ------------------------------------------------------------------------------------------ jax_privacy
def check_jax(python: str) -> None:
    probe = [python, "-c", "import jax_privacy.auditing"]
    ok = Path(python).exists() and subprocess.run(probe, capture_output=True, env=_jax_env()).returncode == 0
    if not ok:
        print(f"jax_privacy not importable with {python}; install it: {INSTALL}", file=sys.stderr)
        raise SystemExit(2)


def _jax_env() -> dict[str, str]:
    env = dict(os.environ, JAX_PLATFORMS="cpu", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    return env


def run_jax(python: str, jobs: list[dict[str, Any]], workdir: Path) -> dict[str, Any]:
    helper, manifest = workdir / "jax_audit.py", workdir / "jax_jobs.json"
    helper.write_text(JAX_HELPER.lstrip(), encoding="utf-8")
    manifest.write_text(json.dumps(jobs), encoding="utf-8")
    proc = subprocess.run(
        [python, str(helper), str(manifest)], capture_output=True, text=True, env=_jax_env(), cwd=workdir
    )
    if proc.returncode != 0:
        raise SystemExit(f"jax_privacy helper failed:\n{proc.stderr[-2000:]}")
    return dict(json.loads(proc.stdout))


def jax_jobs(files: list[ScoreFile], *, delta: float, beta: float, seed: int) -> list[dict[str, Any]]:
    return [
        {
            "id": str(f.path),
            "path": str(f.path),
            "kind": f.kind,
            "significance": beta,
            "delta": delta,
            "seed": seed,
        }
        for f in files
    ]


# ------------------------------------------------------------------------------------------ tables
def cell(value: float, truth: float) -> str:
    """ε to 3 decimals, '*' when above the true ε (a certificate that is wrong)."""
    return f"{value:.3f}{'*' if value > truth + 1e-6 else ''}"


def print_table(kind: str, files: list[ScoreFile], ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    methods = ONE_RUN_METHODS if kind == "one_run" else MANY_RUN_METHODS
    label = "dpaudit design, W/r" if kind == "one_run" else "dpaudit event, counts"
    ours_cols = "dpaudit SNJ | dpaudit f-DP" if kind == "one_run" else "dpaudit"
    jax_cols = " | ".join("jax " + m for m in methods)
    print(f"| score set | size | true ε | {ours_cols} | {jax_cols} | H | {label} |")
    print("|" + "---|" * (len(methods) + 6 + (kind == "one_run")))
    for f in (f for f in files if f.kind == kind):
        d, j, t = ours[str(f.path)], theirs[str(f.path)], f.source.truth
        jax_cells = [f"{j[m]:.3f}" if m == "raw est." else cell(j[m], t) for m in methods]
        mine = [cell(d["eps"], t)] + ([cell(d["fdp"], t)] if kind == "one_run" else [])
        row = [f.source.name, f.size, f"{t:.3f}", *mine, *jax_cells, str(j["hull"]), d["how"]]
        print("| " + " | ".join(row) + " |")


# ------------------------------------------------------------------------------------------ null trials
def make_null_trials(path: Path, *, trials: int, m: int, runs: int, seed: int) -> None:
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(99,)))
    np.savez(
        path,
        scores=rng.standard_normal((trials, m)),
        included=rng.random((trials, m)) < 0.5,
        in_scores=rng.standard_normal((trials, runs)),
        out_scores=rng.standard_normal((trials, runs)),
    )


def dpaudit_null(path: Path, *, delta: float, beta: float) -> dict[str, list[float]]:
    """The engine functions `dpaudit scores` calls, on each trial's arrays (split seed = trial)."""
    with np.load(path) as z:
        a = {k: z[k] for k in z.files}
    one, many = [], []
    for i in range(a["scores"].shape[0]):
        one.append(certify(a["scores"][i], a["included"][i], delta=delta, failure_probability=beta))
        many.append(
            certify_in_out(
                a["in_scores"][i], a["out_scores"][i], delta=delta, failure_probability=beta, seed=i
            )
        )
    return {
        "one_run:dpaudit": [c.epsilon_lower_bound for c in one],
        "many_runs:dpaudit": [c.estimate.epsilon_lower_bound for c in many],
    }


def print_null(results: dict[str, list[float]], trials: int, beta: float) -> None:
    print(f"\nNo-signal trials ({trials} per route): fraction with ε̂ > 0 (valid at β = {beta}: ≤ {beta})\n")
    print("| route | method | ε̂ > 0 | mean ε̂ | max ε̂ |")
    print("|---|---|---|---|---|")
    for route, methods in (("one_run", ONE_RUN_METHODS), ("many_runs", MANY_RUN_METHODS)):
        for method in ("dpaudit", *methods):
            v = np.asarray(results[f"{route}:{method}"])
            name = method if method == "dpaudit" else f"jax {method}"
            if method == "raw est.":
                name += " (an estimate, not a bound)"
            print(f"| {route} | {name} | {np.mean(v > 0):.3f} | {v.mean():.3f} | {v.max():.3f} |")


# ------------------------------------------------------------------------------------------ main
def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jax-python", default="/tmp/jpvenv/bin/python")
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--beta", type=float, default=0.05, help="dpaudit's β = jax_privacy's significance")
    ap.add_argument("--canaries", default="1000,10000", help="comma-separated one-run sizes m")
    ap.add_argument("--runs", type=int, default=10_000, help="in and out runs per side (multi-run)")
    ap.add_argument("--null-trials", type=int, default=0)
    ap.add_argument("--null-size", type=int, default=1000, help="m and runs per side of a null trial")
    ap.add_argument("--keep", type=Path, default=None, help="write the score files here and keep them")
    return ap.parse_args()


def compare(args: argparse.Namespace, workdir: Path) -> None:
    canaries = tuple(int(x) for x in args.canaries.split(","))
    srcs = sources(args.delta)
    files = make_files(srcs, workdir, args.seed, canaries, args.runs)
    start = time.perf_counter()
    ours = {str(f.path): run_dpaudit(f, delta=args.delta, beta=args.beta, seed=args.seed) for f in files}
    for f in (f for f in files if f.kind == "one_run"):
        fdp = run_dpaudit(f, delta=args.delta, beta=args.beta, seed=args.seed, method="fdp")
        ours[str(f.path)]["fdp"] = fdp["eps"]
    t_ours = time.perf_counter() - start
    start = time.perf_counter()
    theirs = run_jax(
        args.jax_python, jax_jobs(files, delta=args.delta, beta=args.beta, seed=args.seed), workdir
    )
    t_theirs = time.perf_counter() - start
    print(
        f"δ = {args.delta:g} for both tools; dpaudit β = {args.beta:g}, "
        f"jax_privacy significance = {args.beta:g}"
    )
    print(f"seed {args.seed}; files in {workdir}; '*' = above the true ε\n")
    print("One run (scores + inclusion bits):\n")
    print_table("one_run", files, ours, theirs)
    print("\nMany runs (in scores and out scores of independent runs):\n")
    print_table("many_runs", files, ours, theirs)
    print(
        f"\nseconds: dpaudit {t_ours:.1f} (in-process CLI), "
        f"jax_privacy {t_theirs:.1f} (subprocess, incl. import)"
    )


def null_check(args: argparse.Namespace, workdir: Path) -> None:
    path = workdir / "null_trials.npz"
    n = args.null_size
    make_null_trials(path, trials=args.null_trials, m=n, runs=n, seed=args.seed)
    results = dpaudit_null(path, delta=args.delta, beta=args.beta)
    job = {
        "id": "null",
        "path": str(path),
        "kind": "null_trials",
        "significance": args.beta,
        "delta": args.delta,
    }
    results.update(run_jax(args.jax_python, [job], workdir)["null"])
    print_null(results, args.null_trials, args.beta)
    print(f"(m = {n} canaries per one-run trial; {n} in + {n} out per multi-run trial; seed {args.seed})")


def main() -> None:
    args = parse_args()
    check_jax(args.jax_python)
    with tempfile.TemporaryDirectory(prefix="dpaudit_scores_") as tmp:
        workdir = args.keep or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        compare(args, workdir)
        if args.null_trials > 0:
            null_check(args, workdir)


if __name__ == "__main__":
    main()
