"""Saturating rests for the README's DP-SGD loop (issue 35): can a single-record pair reach the
accountant when the rest keeps the canary's gradient at the clip?

The pair: k records at the high corner x = (3, 3) with label 1 (they pull θ·x up), and the
neighbour adds one record at the same corner with label 0, whose logistic gradient σ(θ·x)·x then
stays clipped to C on every step. Two measurements:

- `true K...`: the pair's exact ε(10⁻²) (not certified): the exact per-step likelihood ratio of
  the released updates given θ (a mixture over how many of the k rest records and whether the
  canary were sampled), summed over the 20 steps, on `RUNS` runs per side (seed 0);
  ε(δ) solves δ = E[(1 − e^{ε − L})₊] in both directions.
- `ceiling K N`: what the exact privacy loss itself, used as the statistic, would certify on that
  pair at N runs per side (threshold chosen on a tenth, certified on the rest at the runner's
  per-test level): the most any statistic can certify there, up to selection.
- `certify NAME K N`: `dpaudit.audit(tests.blind_dpsgd.NAME, pairs=[that pair], num_samples=N,
  seed=0)`: the default distinguishers (no statistic given) certify on that fixed pair.
- `ideal N SEEDS`: the same certification as `ceiling` for the loop's dominating pair, STEPS
  Poisson-subsampled Gaussian steps (σ = SIGMA, q = Q, a shift of C every time the record is
  sampled: the accountant's worst case, which no record of the logistic loop reaches), with its
  exact likelihood ratio as the statistic, at seeds 0 … SEEDS − 1: what any pair and any
  statistic could certify at N runs per side.

    PYTHONPATH=. python benchmarks/blind_dpsgd_saturating.py true [--clip-coordinates] K ...
    PYTHONPATH=. python benchmarks/blind_dpsgd_saturating.py ceiling K ... N
    PYTHONPATH=. python benchmarks/blind_dpsgd_saturating.py certify NAME K N
    PYTHONPATH=. python benchmarks/blind_dpsgd_saturating.py ideal N SEEDS
"""

from __future__ import annotations

import sys

import numpy as np
from scipy.special import gammaln, logsumexp

import dpaudit
from dpaudit.neighbors.base import Dataset, NeighborPair, Relation

SIGMA, Q, STEPS, CLIP, LR = 1.0, 0.1, 20, 1.0, 0.5
RUNS = 20_000
HIGH = np.array([3.0, 3.0])


def grad(theta: np.ndarray, x: np.ndarray, y: float, per_coordinate: bool) -> np.ndarray:
    s = 2.0 * y - 1.0
    g = (-s / (1.0 + np.exp((theta @ x) * s)))[:, None] * x[None]
    if per_coordinate:
        return np.clip(g, -CLIP, CLIP)
    return g / np.maximum(1.0, np.linalg.norm(g, axis=1, keepdims=True) / CLIP)


def simulate(k: int, canary: bool, runs: int, rng: np.random.Generator, pc: bool) -> np.ndarray:
    theta, ups = np.zeros((runs, 2)), np.empty((runs, STEPS, 2))
    for t in range(STEPS):
        u = rng.normal(0.0, SIGMA * CLIP, (runs, 2))
        if k:
            u += rng.binomial(k, Q, runs)[:, None] * grad(theta, HIGH, 1.0, pc)
        if canary:
            u += (rng.random(runs) < Q)[:, None] * grad(theta, HIGH, 0.0, pc)
        ups[:, t], theta = u, theta - LR * u
    return ups


def privacy_loss(ups: np.ndarray, k: int, pc: bool) -> np.ndarray:
    """log p(with the canary) − log p(without), exactly, given the released updates."""
    runs = ups.shape[0]
    theta, loss = np.zeros((runs, 2)), np.zeros(runs)
    j = np.arange(k + 1)
    binom = gammaln(k + 1) - gammaln(j + 1) - gammaln(k - j + 1) + j * np.log(Q) + (k - j) * np.log(1 - Q)
    for t in range(STEPS):
        u = ups[:, t]
        rest = j[None, :, None] * grad(theta, HIGH, 1.0, pc)[:, None, :]
        can = grad(theta, HIGH, 0.0, pc)[:, None, :]
        l0 = logsumexp(binom[None] - ((u[:, None] - rest) ** 2).sum(2) / (2 * SIGMA**2), axis=1)
        l1 = logsumexp(binom[None] - ((u[:, None] - rest - can) ** 2).sum(2) / (2 * SIGMA**2), axis=1)
        loss += np.logaddexp(np.log(1 - Q) + l0, np.log(Q) + l1) - l0
        theta = theta - LR * u
    return loss


def epsilon_at(lp: np.ndarray, lq: np.ndarray, delta: float = 1e-2) -> float:
    best = 0.0
    for loss in (lp, -lq):
        lo, hi = 0.0, 20.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if np.mean(np.maximum(0.0, 1.0 - np.exp(mid - loss))) > delta else (lo, mid)
        best = max(best, lo)
    return best


def pair(k: int) -> NeighborPair:
    X, y = np.tile(HIGH, (k, 1)), np.ones(k)
    return NeighborPair(
        dataset=Dataset(np.vstack([X, HIGH[None]]), np.append(y, 0.0)),
        neighbor=Dataset(X, y),
        relation=Relation.ADD_REMOVE_ONE,
        description=f"{k} records at x = (3, 3), y = 1 and one at x = (3, 3), y = 0 vs the {k}",
    )


def _losses(k: int, canary: bool, runs: int, rng: np.random.Generator, chunk: int = 25_000) -> np.ndarray:
    """Exact privacy losses of `runs` trainings (in chunks: memory does not grow with runs)."""
    out = [
        privacy_loss(simulate(k, canary, m, rng, False), k, False)
        for m in [chunk] * (runs // chunk) + ([runs % chunk] if runs % chunk else [])
    ]
    return np.concatenate(out)


def _ideal_losses(canary: bool, runs: int, rng: np.random.Generator) -> np.ndarray:
    """Exact privacy losses of the dominating pair (`ideal`): Σ_t log(1 − q + q·e^{u_t − 1/2})."""
    u = rng.normal(0.0, 1.0, (runs, STEPS)) + canary * (rng.random((runs, STEPS)) < Q)
    return np.asarray(np.log1p(Q * np.expm1(u - 0.5)).sum(axis=1))


def ideal(n: int, seed: int) -> float:
    """`certified` on the dominating pair's exact losses (`ideal`), n runs per side."""
    rng = np.random.default_rng(seed)
    return certified(_ideal_losses(True, n, rng), _ideal_losses(False, n, rng))


def ceiling(k: int, n: int) -> float:
    """What the exact privacy loss, as the statistic, certifies on `pair(k)` with n runs per side."""
    rng = np.random.default_rng(0)
    return certified(_losses(k, True, n, rng), _losses(k, False, n, rng))


def certified(la: np.ndarray, lb: np.ndarray, *, alpha: float = 0.05 / 8, delta: float = 1e-2) -> float:
    """The certified ε(δ) of the privacy losses `la` (with the record) and `lb` (without) as the
    statistic, split as the runner splits them (10% selection, 90% certification; the threshold
    chosen on the selection split; one-sided Clopper–Pearson at α/2 per side, α the runner's
    per-test level at δ = 10⁻² for an audit of four tests and two pairs)."""
    from dpaudit.engine.bounds import cp_lower, cp_upper, epsilon_from_bounds

    n = la.size
    sel = n // 10
    grid = np.quantile(np.concatenate([la[:sel], lb[:sel]]), np.linspace(0.5, 0.999, 400))
    pa = (la[:sel, None] >= grid).sum(0)
    pb = (lb[:sel, None] >= grid).sum(0)
    t = grid[int(np.argmax(epsilon_from_bounds(pa / sel, np.maximum(pb, 1) / sel, delta=delta)))]
    m = n - sel
    ka, kb = int((la[sel:] >= t).sum()), int((lb[sel:] >= t).sum())
    eps = epsilon_from_bounds(cp_lower(ka, m, alpha / 2), cp_upper(kb, m, alpha / 2), delta=delta)
    return float(eps)


def main(argv: list[str]) -> None:
    if argv[0] == "ideal":
        n, seeds = int(argv[1]), int(argv[2])
        values = [ideal(n, s) for s in range(seeds)]
        print(
            f"dominating pair, exact statistic, n={n}: certified ε(1e-2) per seed "
            + ", ".join(f"{v:.3f}" for v in values)
            + f"; median {float(np.median(values)):.3f}"
        )
        return
    if argv[0] == "ceiling":
        n = int(argv[-1])
        for k in (int(a) for a in argv[1:-1]):
            print(f"k={k} n={n}: the exact statistic certifies ε(1e-2) ≥ {ceiling(k, n):.3f}", flush=True)
        return
    if argv[0] == "true":
        pc = "--clip-coordinates" in argv
        for k in (int(a) for a in argv[1:] if not a.startswith("--")):
            rng = np.random.default_rng(0)
            up, uq = simulate(k, True, RUNS, rng, pc), simulate(k, False, RUNS, rng, pc)
            eps = epsilon_at(privacy_loss(up, k, pc), privacy_loss(uq, k, pc))
            print(f"k={k} clip_coordinates={pc}: true ε(1e-2) ≈ {eps:.3f}")
        return
    import tests.blind_dpsgd as loops

    name, k, n = argv[1], int(argv[2]), int(argv[3])
    r = dpaudit.audit(getattr(loops, name), pairs=[pair(k)], num_samples=n, seed=0)
    points = ", ".join(f"ε({p.parameter:g}) = {p.value:.3f}" for p in r.profile)
    print(f"{name} k={k} n={n}: {r.verdict.value}; {points}")


if __name__ == "__main__":
    main(sys.argv[1:])
