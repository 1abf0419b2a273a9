"""One-run audit target: ONE Opacus training with m ≥ 1,000 gradient canaries (Steinke, Nasr &
Jagielski, "Privacy Auditing with One (1) Training Run", NeurIPS 2023), for `dpaudit one-run`:

    dpaudit one-run dpaudit.mechanisms.opacus.one_run:train                 # Poisson sampling
    dpaudit one-run dpaudit.mechanisms.opacus.one_run:train --method fdp
    dpaudit one-run dpaudit.mechanisms.opacus.one_run:train_shuffled       # poisson_sampling=False

`train(included, rng)` trains logistic regression `nn.Linear(d + m, 1)` with Opacus
(`training.train_once`) on N = rest + m records: the rest (synthetic, 0 in the m canary columns)
and one slot per canary. Slot i's per-sample gradient is replaced through the hook by C·e_i
(weight of canary column i; bias 0) when canary i is included, by 0 otherwise: an excluded
canary is a zero-gradient filler, so N, Opacus' q = 1/⌈N/B⌉ and its divisor int(N·q) do not
depend on the bits. A zero-gradient record adds exactly 0 to the clipped sum whenever it is
sampled, so the output law with the filler is that of the same training without the record at
the same public N and q: canary i in vs out is add/remove of C·e_i, the relation Opacus accounts
for, and the claim (`claim`) is Opacus' accountant replayed on (σ, q, T) (`common.opacus_claim`).

Scores use the released iterates only (all-iterates threat model): with y_t,i = ⟨θ_{t−1} − θ_t,
e_i⟩/η the canary coordinate of step t's released noisy gradient, `score="llr"` (default) is the
Neyman–Pearson statistic of the Poisson mixture, Σ_t log[(1 − q) + q·exp((s·y_t,i − s²/2)/τ²)]
with s = C/B̂ and τ = σC/B̂, and `score="sum"` is Σ_t y_t,i (= ⟨θ₀ − θ_T, e_i⟩/η).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..base import ClaimFromClaims, PrivacyClaim
from .common import loader_rates, opacus_claim, rates_match
from .mechanism import rest_records, training_module

SCORES = ("llr", "sum")


@dataclass(frozen=True, slots=True, kw_only=True)
class OpacusOneRun(ClaimFromClaims):
    """`train(included, rng) -> scores` for `dpaudit one-run` (module docstring)."""

    num_canaries: int = 1000
    noise_multiplier: float = 1.0
    max_grad_norm: float = 1.0
    batch_size: int = 200
    steps: int = 50
    poisson_sampling: bool = True
    rest_size: int = 1000
    dim: int = 4
    learning_rate: float = 0.5
    accountant: str = "prv"
    delta: float = 1e-5
    score: str = "llr"

    def __post_init__(self) -> None:
        if self.score not in SCORES:
            raise ValueError(f"score must be one of {', '.join(SCORES)}, got {self.score!r}")
        if self.num_canaries < 1 or self.rest_size < 0:
            raise ValueError("need num_canaries ≥ 1 and rest_size ≥ 0")

    @property
    def size(self) -> int:
        return self.rest_size + self.num_canaries

    @property
    def sample_rate(self) -> float:
        return loader_rates(self.size, self.batch_size)[0]

    @property
    def expected_batch_size(self) -> int:
        return loader_rates(self.size, self.batch_size)[1]

    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return (opacus_claim(
            accountant=self.accountant,
            noise_multiplier=self.noise_multiplier,
            max_grad_norm=self.max_grad_norm,
            sample_rate=self.sample_rate,
            batch_size=self.batch_size,
            steps=self.steps,
            delta=self.delta,
            poisson_sampling=self.poisson_sampling,
            records=f"{self.size} records ({self.num_canaries} canary slots)",
        ),)

    def __call__(self, included: NDArray[Any], rng: np.random.Generator) -> NDArray[np.float64]:
        bits = np.asarray(included, dtype=bool).reshape(-1)
        m = bits.size
        if m != self.num_canaries:
            raise ValueError(
                f"built for {self.num_canaries} canaries (its claim's q depends on N), got {m}: "
                f"use OpacusOneRun(num_canaries={m})"
            )
        training = training_module()
        x_rest, y_rest = (
            rest_records(self.rest_size, self.dim)
            if self.rest_size
            else (np.zeros((0, self.dim + 1)), np.zeros(0))
        )
        width = self.dim + m
        features = np.zeros((self.size, width))
        features[: self.rest_size, : self.dim] = x_rest[:, : self.dim]
        labels = np.concatenate([y_rest, np.ones(m)])
        gradients = np.zeros((self.size, m))
        gradients[self.rest_size + np.arange(m), np.arange(m)] = np.where(bits, self.max_grad_norm, 0.0)
        rows = np.zeros(self.size, dtype=bool)
        rows[self.rest_size :] = True
        run = training.train_once(
            features,
            labels,
            (rows, gradients),
            hyper=training.hyper_of(self),
            seed=int(rng.integers(0, 2**62)),
            num_canary_columns=m,
        )
        if not rates_match(run, sample_rate=self.sample_rate, expected_batch_size=self.expected_batch_size):
            raise RuntimeError(
                f"Opacus ran with q = {run.sample_rate:g}; the claim is for {self.sample_rate:g}"
            )
        return self.scores(run.updates)

    def scores(self, updates: NDArray[np.float64]) -> NDArray[np.float64]:
        """One score per canary from the (T, m) released canary coordinates."""
        if self.score == "sum":
            return np.asarray(updates.sum(axis=0), dtype=np.float64)
        shift = self.max_grad_norm / self.expected_batch_size
        sd = self.noise_multiplier * shift
        z = np.minimum((shift * updates - 0.5 * shift * shift) / (sd * sd), 700.0)
        q = self.sample_rate
        return np.asarray(np.log1p(q * np.expm1(z)).sum(axis=0), dtype=np.float64)


train = OpacusOneRun()
"""1,000 gradient canaries, Poisson sampling, σ = 1, q = 0.1 (B = 200 of N = 2,000), T = 50."""
train_shuffled = OpacusOneRun(poisson_sampling=False)
"""The same with `poisson_sampling=False` (shuffled batches; Opacus' claim is then STATED)."""
train_sum = OpacusOneRun(score="sum")
"""The same as `train`, scored by Σ_t y_t,i (the last iterate's canary coordinate)."""
