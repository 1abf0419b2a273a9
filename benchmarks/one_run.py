"""Coverage of the one-run bound (audit/one_run/bound.py) on mechanisms of known ε.

For each scenario and seed s = 0 … S−1: dpaudit draws the inclusion bits from s, one training
run produces a score per canary, and `one_run.certify` gives ε̂ at failure probability β. The
table shows the true ε, the mean / max bound, the ceiling, and the coverage: the fraction of
seeds with ε̂ ≤ true ε (must be ≥ 1 − β), with its 95% Clopper–Pearson lower bound.

Scenarios (m canaries each, every canary its own mechanism of the stated ε):
- rr: ε-randomised response per canary (score = the bit, flipped w.p. 1/(1+e^ε)); pure ε-DP and
  the worst case of the bound (Steinke et al.'s tail is exact for it);
- gauss: score = μ·bit + N(0, 1), μ-GDP per canary; true ε(δ) from the Gaussian profile;
- dpsgd: the DP-SGD family's reference trainer (`mechanisms/dpsgd/reference.py`, gradient model,
  all-iterates view), one gradient canary C·e_i per coordinate i; score = the Neyman–Pearson
  statistic along e_i (Σ_t log mixture likelihood ratio); true ε(δ) = dp_accounting's PLD ε
  for T Poisson-subsampled Gaussian steps, add/remove;
- null: scores N(0, 1) independent of the bits (true ε = 0): a bound > 0 is a false certificate.

`--posthoc` (issues 37, 42) reruns the post-hoc design simulation instead: randomised response
at ε = 1, m = 200 canaries, 2,000 audits (seeds), β = 0.05, δ = 0, Steinke–Nasr–Jagielski bound.
Each audit's scores and bits are a score file with no registered design (as a CSV written
elsewhere). The adversary searches OUTSIDE the grid: every (k₊, k₋) with 0 ≤ k₊, k₋ ≤ m/2 (10,200
designs), each passed back as `dpaudit scores FILE --k-plus A --k-minus B`, and keeps the best
ε̂. A failure is an audit whose best ε̂ exceeds 1 (the true ε). Arms:
- "joined" (issue 37's rule, the invalid one): each design joins the default grid, β/(K+1) each
  (β/K when it is one of the grid's);
- "charged" (issue 42's rule, `design_choice.file_choice`): each design is charged against every
  design the command accepts, β/|F_m|, |F_m| = (m+1)(m+2)/2 − 1;
- "charged, or the default": the best of the above and of the plain `dpaudit scores FILE` (the
  grid at β/K): two analyses of one file (the union bound gives ≤ 2β; measured here).
Exact and fast: for fixed r = k₊ + k₋ the bound increases with the correct guesses v, and ε̂ > ε₀
iff P[Bin(r, q(ε₀)) ≥ v] < β' (δ = 0), so an audit fails iff some r's best split reaches the
threshold; every audit counted as a failure is re-certified through the tool's own path
(`file_choice` + `certify`) and must give ε̂ > ε₀ (asserted).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from gdp import gdp_epsilon
from scipy import special, stats

from dpaudit.engine.bounds import cp_lower
from dpaudit.engine.one_run import Design, certify, default_design, file_choice, inclusion_bits, train_rng
from dpaudit.mechanisms.accountants.dp_accounting import accountant_epsilon
from dpaudit.mechanisms.dpsgd.reference import DPSGD
from dpaudit.neighbors.base import Dataset, Relation

Train = Callable[[np.ndarray[Any, Any], np.random.Generator], np.ndarray[Any, Any]]


def rr(epsilon: float) -> Train:
    def train(included: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
        flip = rng.random(included.size) < 1.0 / (1.0 + math.exp(epsilon))
        return (included ^ flip).astype(float)

    return train


def gauss(mu: float) -> Train:
    def train(included: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
        return mu * included + rng.standard_normal(included.size)

    return train


def null() -> Train:
    def train(included: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
        return rng.standard_normal(included.size)

    return train


def dpsgd(m: int, *, sigma: float, q: float, steps: int) -> tuple[Train, DPSGD]:
    """One gradient canary C·e_i per coordinate of a dim-m DP-SGD (C = 1, B = 1): canary i's
    inclusion changes coordinate i of every released update only."""
    mech = DPSGD(
        noise_multiplier=sigma,
        sample_rate=q,
        steps=steps,
        clip_norm=1.0,
        batch_size=1.0,
        dim=m,
        model="gradient",
        view="all_iterates",
        relation="add_remove_one",
    )

    def train(included: np.ndarray[Any, Any], rng: np.random.Generator) -> np.ndarray[Any, Any]:
        rows = np.eye(m)[included]
        updates, _, _ = mech.train(Dataset(X=rows), 1, rng)
        assert updates is not None
        y = updates[0]  # (T, m), in units of C since B = 1
        z = (y - 0.5) / (sigma * sigma)
        llr = np.logaddexp(math.log1p(-q), math.log(q) + z) if q < 1 else z
        return np.asarray(llr.sum(axis=0))

    return train, mech


def scenarios(m: int, delta: float) -> dict[str, tuple[Train, float, float]]:
    """name → (train, δ audited, true ε at that δ)."""
    sigma, q, steps = 1.0, 0.5, 4
    train_sgd, _ = dpsgd(m, sigma=sigma, q=q, steps=steps)
    true_sgd = accountant_epsilon(
        noise_multiplier=sigma, sample_rate=q, steps=steps, relation=Relation.ADD_REMOVE_ONE, delta=delta
    )
    return {
        "rr eps=2": (rr(2.0), 0.0, 2.0),
        "rr eps=4": (rr(4.0), 0.0, 4.0),
        "gauss mu=2": (gauss(2.0), delta, gdp_epsilon(2.0, delta=delta)),
        f"dpsgd s={sigma} q={q} T={steps}": (train_sgd, delta, true_sgd),
        "null": (null(), delta, 0.0),
    }


def run(
    name: str,
    train: Train,
    delta: float,
    truth: float,
    *,
    m: int,
    seeds: int,
    beta: float,
    designs: tuple[Design, ...] | None,
) -> dict[str, Any]:
    bounds, start, ceiling = [], time.perf_counter(), 0.0
    for s in range(seeds):
        bits = inclusion_bits(m, s)
        cert = certify(
            train(bits, train_rng(s)), bits, delta=delta, failure_probability=beta, designs=designs
        )
        bounds.append(cert.epsilon_lower_bound)
        ceiling = cert.ceiling
    b = np.array(bounds)
    covered = int(np.sum(b <= truth))
    return {
        "scenario": name,
        "delta": delta,
        "true": truth,
        "mean": float(b.mean()),
        "max": float(b.max()),
        "ceiling": ceiling,
        "covered": covered,
        "runs": seeds,
        "cp95": float(cp_lower(covered, seeds, 0.05)),
        "seconds": time.perf_counter() - start,
    }


def _thresholds(r_max: int, *, epsilon: float, beta: float) -> np.ndarray[Any, Any]:
    """v*(r) for r = 0 … r_max: the fewest correct of r guesses with P[Bin(r, q(ε)) ≥ v] < β
    (the δ = 0 bound then certifies more than ε; r_max + 1 when no count does)."""
    q = special.expit(epsilon)
    out = np.full(r_max + 1, r_max + 1)
    for r in range(1, r_max + 1):
        v = np.arange(r + 1)
        ok = np.flatnonzero(stats.binom.sf(v - 1, r, q) < beta)
        out[r] = ok[0] if ok.size else r_max + 1
    return out


def _split_counts(
    scores: np.ndarray[Any, Any], bits: np.ndarray[Any, Any], half: int
) -> np.ndarray[Any, Any]:
    """V[k₊, k₋]: correct guesses of the design (k₊, k₋), 0 ≤ k± ≤ half, with the tool's guesses
    (k₊ highest scores "in", k₋ lowest "out", ties by canary index: `bound.guess_sets`)."""
    order = np.argsort(-scores, kind="stable")
    plus = np.concatenate([[0], np.cumsum(bits[order])])[: half + 1]
    minus = np.concatenate([[0], np.cumsum(~bits[order[::-1]])])[: half + 1]
    return plus[:, None] + minus[None, :]


def _fails(
    counts: np.ndarray[Any, Any], thresholds: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]
) -> list[Design]:
    """The designs of `mask` whose correct count reaches their r's threshold."""
    r = np.add.outer(np.arange(counts.shape[0]), np.arange(counts.shape[1]))
    hit = mask & (counts >= thresholds[r])
    return [Design(k_plus=int(a), k_minus=int(b)) for a, b in zip(*np.nonzero(hit), strict=True)]


def posthoc(*, m: int, seeds: int, beta: float, epsilon: float = 1.0, power_audits: int = 50) -> None:
    """The post-hoc design simulation (module docstring): failure rates of the three arms."""
    train, half = rr(epsilon), m // 2
    grid = default_design(m)
    k = len(grid)
    n_family = file_choice(m, given=Design(k_plus=1, k_minus=0), registered=None).family_size
    assert n_family is not None
    searched = np.ones((half + 1, half + 1), dtype=bool)
    searched[0, 0] = False
    in_grid = np.zeros_like(searched)
    for g in grid:
        if g.k_plus <= half and g.k_minus <= half:
            in_grid[g.k_plus, g.k_minus] = True
    v_joined, v_grid = (
        _thresholds(m, epsilon=epsilon, beta=beta / (k + 1)),
        _thresholds(m, epsilon=epsilon, beta=beta / k),
    )
    v_charged = _thresholds(m, epsilon=epsilon, beta=beta / n_family)
    joined = charged = either = 0
    best_charged: list[float] = []
    best_default: list[float] = []
    start = time.perf_counter()
    for s in range(seeds):
        bits = inclusion_bits(m, s)
        scores = train(bits, train_rng(s))
        counts = _split_counts(scores, bits, half)
        old = _fails(counts, v_joined, searched & ~in_grid) + _fails(counts, v_grid, in_grid)
        new = _fails(counts, v_charged, searched)
        default = certify(scores, bits, delta=0.0, failure_probability=beta).epsilon_lower_bound > epsilon
        for d in new[:1]:  # the tool's own path must agree that this design fails
            choice = file_choice(m, given=d, registered=None)
            cert = certify(
                scores,
                bits,
                delta=0.0,
                failure_probability=beta,
                designs=choice.designs,
                family_size=choice.family_size,
            )
            assert cert.epsilon_lower_bound > epsilon, (s, d, cert.epsilon_lower_bound)
        for d in old[:1]:  # and that the old rule certified above ε
            designs = grid if d in grid else (*grid, d)
            cert = certify(scores, bits, delta=0.0, failure_probability=beta, designs=designs)
            assert cert.epsilon_lower_bound > epsilon, (s, d, cert.epsilon_lower_bound)
        if s < power_audits:
            tried = _best_per_total(counts, searched)  # each charged at β/|F_m|: one call, max over them
            best_charged.append(
                certify(
                    scores, bits, delta=0.0, failure_probability=beta, designs=tried, family_size=n_family
                ).epsilon_lower_bound
            )
            best_default.append(
                certify(scores, bits, delta=0.0, failure_probability=beta).epsilon_lower_bound
            )
        joined += bool(old)
        charged += bool(new)
        either += bool(new) or default
    print(
        f"randomised response ε = {epsilon:g}, m = {m}, {seeds} audits, β = {beta:g}, δ = 0; the adversary "
        f"tries every (k₊, k₋) with k± ≤ {half} ({int(searched.sum()):,} designs) and keeps the best"
    )
    print("| rule for a design given after the scores | failures (best ε̂ > true ε) | rate | 95% CP upper |")
    print("|---|---|---|---|")
    for label, n in (
        (f"joins the grid, β/{k + 1} (issue 37; invalid)", joined),
        (f"charged against every design, β/{n_family:,} (issue 42)", charged),
        ("charged, or the plain `scores FILE` (two analyses)", either),
    ):
        upper = 1.0 - float(cp_lower(seeds - n, seeds, 0.05))
        print(f"| {label} | {n}/{seeds} | {n / seeds:.4f} | {upper:.4f} |")
    n_power = len(best_charged)
    print(
        f"power (first {n_power} audits): mean best ε̂ of the adversary under the charged rule "
        f"{np.mean(best_charged):.3f}, of the plain `scores FILE` (grid at β/{k}) {np.mean(best_default):.3f}"
    )
    print(f"({time.perf_counter() - start:.0f} s)")


def _best_per_total(counts: np.ndarray[Any, Any], mask: np.ndarray[Any, Any]) -> tuple[Design, ...]:
    """For each r = k₊ + k₋, the design of `mask` with the most correct guesses (the bound grows
    with them at fixed r, so the adversary's best design is among these)."""
    r = np.add.outer(np.arange(counts.shape[0]), np.arange(counts.shape[1]))
    best = []
    for total in range(1, int(r.max()) + 1):
        cells = mask & (r == total)
        if cells.any():
            flat = np.flatnonzero(cells)
            a, b = np.unravel_index(flat[np.argmax(counts.ravel()[flat])], counts.shape)
            best.append(Design(k_plus=int(a), k_minus=int(b)))
    return tuple(best)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--canaries", type=int, default=None, help="m (default 1000; 200 with --posthoc)")
    ap.add_argument("--seeds", type=int, default=None, help="audits (default 1000; 2000 with --posthoc)")
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--delta", type=float, default=1e-5)
    ap.add_argument("--only", default="", help="comma-separated scenario name prefixes")
    ap.add_argument("--posthoc", action="store_true", help="the post-hoc design simulation (issues 37, 42)")
    args = ap.parse_args()
    if args.posthoc:
        posthoc(m=args.canaries or 200, seeds=args.seeds or 2000, beta=args.beta)
        return
    args.seeds = args.seeds or 1000
    m = args.canaries or 1000
    grid = default_design(m)
    single = (Design(k_plus=(m + 1) // 2, k_minus=m // 2),)
    print(
        f"m = {m}, β = {args.beta}, {args.seeds} seeds; designs: default grid of {len(grid)} (union bound) "
        f"and 'all m guesses' (one design at β)"
    )
    print(
        "| scenario | design | δ | true ε | mean ε̂ | max ε̂ | ceiling | ε̂ ≤ true | coverage (95% CP lo) | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    only = [o for o in args.only.split(",") if o]
    for name, (train, delta, truth) in scenarios(m, args.delta).items():
        if only and not any(name.startswith(o) for o in only):
            continue
        for label, designs in (("grid", None), ("all", single)):
            row = run(name, train, delta, truth, m=m, seeds=args.seeds, beta=args.beta, designs=designs)
            print(
                f"| {name} | {label} | {delta:g} | {truth:.3f} | {row['mean']:.3f} | {row['max']:.3f} | "
                f"{row['ceiling']:.3f} | {row['covered']}/{row['runs']} | "
                f"{row['covered'] / row['runs']:.3f} ({row['cp95']:.3f}) | {row['seconds']:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
