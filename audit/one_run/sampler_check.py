"""Sampler conformance: do a sampler's batches look like the Poisson sampling an accountant assumes?

The accountant of Poisson-subsampled DP-SGD assumes every example enters every step's batch
independently with probability q. Record T batches over n examples as a (T, n) inclusion matrix
X. Under that hypothesis H₀ the entries are i.i.d. Bernoulli(q), so

1. rate: the total ΣX ~ Binomial(nT, q) (exact two-sided binomial test);
2. batch sizes: b_t = Σ_i X_ti are i.i.d. Binomial(n, q); statistic D_b = Σ_t (b_t − nq)²,
   two-sided (a fixed batch size is under-dispersed, a sampler mixing rates over-dispersed);
3. per-example counts: c_i = Σ_t X_ti are i.i.d. Binomial(T, q); D_c = Σ_i (c_i − Tq)²,
   two-sided (a shuffler's counts are all equal: under-dispersed; a weighted sampler's rates
   differ: over-dispersed);
4. lag-1 co-inclusion: L = Σ_{t,i} X_ti X_{t+1,i}, two-sided (a shuffler rarely repeats an
   example in consecutive steps; a sticky sampler too often).

Tests 2–4 are Monte Carlo tests: the statistic's null distribution is simulated exactly (X drawn
i.i.d. Bernoulli(q), or b and c drawn from their binomials) on `null_draws` draws from the
check's seed, and each one-sided p-value is (1 + #{simulated ≥ observed})/(1 + N), which is
valid at every N (the observed statistic is exchangeable with the simulated ones under H₀).
Every one-sided p-value (2 for the rate, 2 each for 2–4: eight) is compared with β/8
(Bonferroni), so a conforming sampler is flagged with probability ≤ β. A batch holding an
example twice, or an index out of range, fails outright (no probability involved).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

SAMPLER_PHASE = 133
NULL_DRAWS = 1999
F64 = NDArray[np.float64]


@dataclass(frozen=True, slots=True, kw_only=True)
class SamplerTest:
    name: str
    statistic: float
    expected: float
    p_low: float
    """P-value against "too small" (one-sided)."""
    p_high: float
    """P-value against "too large" (one-sided)."""
    threshold: float

    @property
    def rejected(self) -> bool:
        return min(self.p_low, self.p_high) <= self.threshold


@dataclass(frozen=True, slots=True, kw_only=True)
class SamplerCheck:
    num_examples: int
    steps: int
    sample_rate: float
    failure_probability: float
    tests: tuple[SamplerTest, ...]
    defects: tuple[str, ...] = ()
    """Failures that need no statistics (a duplicate in a batch, an index out of range)."""

    @property
    def departure_found(self) -> bool:
        """A defect or a rejected test: the batches depart from Poisson sampling (false alarm ≤ β).
        False says only that no departure was found at this power, never that the sampler is Poisson."""
        return bool(self.defects) or any(t.rejected for t in self.tests)

    def describe(self) -> str:
        found = "the sampler DEPARTS FROM Poisson sampling"
        head = found if self.departure_found else "no departure from Poisson sampling found"
        lines = [
            f"{head} at rate q={self.sample_rate:g} (n={self.num_examples}, T={self.steps}; "
            f"false-alarm probability ≤ {self.failure_probability:g})",
            *[f"  defect: {d}" for d in self.defects],
        ]
        for t in self.tests:
            mark = "REJECTED" if t.rejected else "ok"
            lines.append(
                f"  {t.name}: observed {t.statistic:.6g}, expected {t.expected:.6g} under H₀; "
                f"p(low) {t.p_low:.3g}, p(high) {t.p_high:.3g} vs {t.threshold:.3g}: {mark}"
            )
        return "\n".join(lines)


def inclusion_matrix(
    batches: Iterable[Any], num_examples: int, steps: int
) -> tuple[NDArray[np.bool_], tuple[str, ...]]:
    """(T, n) bool matrix from the first `steps` batches (each a bool mask of length n or an array of
    example indices), and the defects found (duplicates, out-of-range indices)."""
    x = np.zeros((steps, num_examples), dtype=bool)
    defects: list[str] = []
    t = -1
    for t, batch in enumerate(batches):
        if t >= steps:
            t -= 1
            break
        b = np.asarray(batch)
        if b.dtype == np.bool_ and b.shape == (num_examples,):
            x[t] = b
            continue
        idx = b.astype(np.int64).ravel() if b.size else np.zeros(0, dtype=np.int64)
        if b.size and not np.all(idx == b.ravel()):
            raise ValueError(f"batch {t} holds non-integer indices")
        if np.any((idx < 0) | (idx >= num_examples)):
            defects.append(f"batch {t} holds an index outside 0..{num_examples - 1}")
            idx = idx[(idx >= 0) & (idx < num_examples)]
        if np.unique(idx).size != idx.size and not any("twice" in d for d in defects):
            defects.append(f"batch {t} holds an example twice (sampling with replacement)")
        x[t, idx] = True
    if t + 1 < steps:
        raise ValueError(f"the sampler produced {t + 1} batches, {steps} were asked for")
    return x, tuple(defects)


def _mc_test(name: str, observed: float, simulated: F64, expected: float, threshold: float) -> SamplerTest:
    n = simulated.size
    return SamplerTest(
        name=name,
        statistic=observed,
        expected=expected,
        p_low=float((1 + np.sum(simulated <= observed)) / (n + 1)),
        p_high=float((1 + np.sum(simulated >= observed)) / (n + 1)),
        threshold=threshold,
    )


def lag_pmf(steps: int, q: float) -> F64:
    """Exact law of one example's Σ_t X_t X_{t+1} for X_1..X_T i.i.d. Bernoulli(q) (dynamic
    programme over (last bit, count))."""
    off = np.zeros(steps)
    on = np.zeros(steps)
    off[0], on[0] = 1 - q, q
    for _ in range(steps - 1):
        new_on = q * off
        new_on[1:] += q * on[:-1]
        off = (1 - q) * (off + on)
        on = new_on
    pmf = np.maximum(off + on, 0.0)
    return np.asarray(pmf / pmf.sum(), dtype=np.float64)


def _lag_null(steps: int, n: int, q: float, draws: int, rng: np.random.Generator) -> F64:
    """L under H₀, `draws` times: sums of n i.i.d. draws from `lag_pmf` (exact, in blocks)."""
    pmf = lag_pmf(steps, q)
    out = np.empty(draws)
    per = max(1, (1 << 22) // n)
    for s in range(0, draws, per):
        k = min(per, draws - s)
        out[s : s + k] = rng.choice(steps, size=(k, n), p=pmf).sum(axis=1)
    return out


def check_matrix(
    x: NDArray[np.bool_],
    *,
    sample_rate: float,
    failure_probability: float = 0.05,
    seed: int = 0,
    null_draws: int = NULL_DRAWS,
    defects: Sequence[str] = (),
) -> SamplerCheck:
    """The four tests of the module docstring on the (T, n) inclusion matrix `x`."""
    steps, n = x.shape
    q = sample_rate
    if not 0 < q < 1:
        raise ValueError(f"sample_rate must be in (0, 1), got {q}")
    if steps < 2 or n < 2:
        raise ValueError("need at least 2 steps and 2 examples")
    level = failure_probability / 8
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(SAMPLER_PHASE,)))
    total = int(x.sum())
    rate = SamplerTest(
        name="inclusion rate (total ~ Binomial(nT, q))",
        statistic=total / (n * steps),
        expected=q,
        p_low=float(stats.binom.cdf(total, n * steps, q)),
        p_high=float(stats.binom.sf(total - 1, n * steps, q)),
        threshold=level,
    )
    b = x.sum(axis=1).astype(float)
    c = x.sum(axis=0).astype(float)
    sim_b = ((rng.binomial(n, q, size=(null_draws, steps)) - n * q) ** 2).sum(axis=1)
    sim_c = ((rng.binomial(steps, q, size=(null_draws, n)) - steps * q) ** 2).sum(axis=1)
    lag = float(np.sum(x[1:] & x[:-1]))
    tests = (
        rate,
        _mc_test(
            "batch-size dispersion (b_t ~ Binomial(n, q))",
            float(((b - n * q) ** 2).sum()),
            sim_b,
            steps * n * q * (1 - q),
            level,
        ),
        _mc_test(
            "per-example count dispersion (c_i ~ Binomial(T, q))",
            float(((c - steps * q) ** 2).sum()),
            sim_c,
            n * steps * q * (1 - q),
            level,
        ),
        _mc_test(
            "lag-1 co-inclusion (independence across steps)",
            lag,
            _lag_null(steps, n, q, null_draws, rng),
            (steps - 1) * n * q * q,
            level,
        ),
    )
    return SamplerCheck(
        num_examples=n,
        steps=steps,
        sample_rate=q,
        failure_probability=failure_probability,
        tests=tests,
        defects=tuple(defects),
    )


def check_sampler(
    batches: Iterable[Any],
    *,
    num_examples: int,
    steps: int,
    sample_rate: float,
    failure_probability: float = 0.05,
    seed: int = 0,
    null_draws: int = NULL_DRAWS,
) -> SamplerCheck:
    """Record the first `steps` batches over `num_examples` examples and test them (module docstring)."""
    x, defects = inclusion_matrix(batches, num_examples, steps)
    return check_matrix(
        x,
        sample_rate=sample_rate,
        failure_probability=failure_probability,
        seed=seed,
        null_draws=null_draws,
        defects=defects,
    )
