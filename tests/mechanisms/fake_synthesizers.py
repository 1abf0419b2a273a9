"""Small fake synthesizers for the synthesizer adapter's tests (no library needed).

`NoisyMarginals` is a correct ε-DP synthesizer under replace-one: it maps every value outside
the declared categories to category 0 and clips numbers into the declared bounds, releases a
Laplace(2/ε)-noised histogram of the (category, number-bin) cells (L1 sensitivity 2 under
replace-one), and samples rows from it (post-processing). `leak` makes it a published kind of
bug: "category" keeps categories it reads from the data (a value outside the declared ones
appears in the output), "outlier" samples numbers between the data's own min and max.
"""

from __future__ import annotations

from typing import Any

import numpy as np

CATS = ("a", "b", "c")
LOW, HIGH, BINS = 0.0, 1.0, 4


class NoisyMarginals:
    def __init__(self, rng: np.random.Generator, *, epsilon: float = 1.0, leak: str = "") -> None:
        self.rng, self.epsilon, self.leak = rng, epsilon, leak

    def fit(self, table: Any) -> None:
        cat = [str(v) for v in np.asarray(table["colour"])]
        x = np.asarray(table["size"], dtype=float)
        self.extra = sorted({v for v in cat if v not in CATS}) if self.leak == "category" else []
        self.cats = list(CATS) + self.extra
        code = np.array([self.cats.index(v) if v in self.cats else 0 for v in cat], dtype=int)
        self.lo, self.hi = (
            (float(x.min()), float(x.max())) if self.leak == "outlier" and x.size else (LOW, HIGH)
        )
        b = np.clip(((np.clip(x, LOW, HIGH) - LOW) / (HIGH - LOW) * BINS).astype(int), 0, BINS - 1)
        counts = np.bincount(code * BINS + b, minlength=len(self.cats) * BINS).astype(float)
        noisy = np.maximum(counts + self.rng.laplace(scale=2.0 / self.epsilon, size=counts.size), 0.0)
        if self.extra:  # the leak: the data's own categories always survive
            noisy[len(CATS) * BINS :] = np.maximum(noisy[len(CATS) * BINS :], 1.0)
        self.p = noisy / noisy.sum() if noisy.sum() > 0 else np.full(counts.size, 1.0 / counts.size)

    def sample(self, k: int) -> dict[str, Any]:
        cell = self.rng.choice(self.p.size, size=k, p=self.p)
        u = (cell % BINS + self.rng.random(k)) / BINS
        size = self.lo + u * (self.hi - self.lo)
        return {"colour": np.array([self.cats[c] for c in cell // BINS], dtype=object), "size": size}


def correct(rng: np.random.Generator) -> NoisyMarginals:
    return NoisyMarginals(rng)


def leaks_category(rng: np.random.Generator) -> NoisyMarginals:
    return NoisyMarginals(rng, leak="category")


def leaks_outlier(rng: np.random.Generator) -> NoisyMarginals:
    return NoisyMarginals(rng, leak="outlier")
