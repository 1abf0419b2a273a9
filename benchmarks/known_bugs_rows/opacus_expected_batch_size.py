"""Opacus 1.6.0 `PrivacyEngine.make_private` derives its noise divisor from the private dataset's
size (meta-pytorch/opacus#571, #819): `sample_rate = 1/len(data_loader)` and
`expected_batch_size = int(len(dataset) * sample_rate)`, and the optimizer divides the noisy
clipped sum by that expected batch size. Under add/remove one record the noise scale of the
released update then moves with n (σC/2 at n = 5, σC/3 at n = 6 for batch_size 4), which the
accountant, a function of (σ, q, T) only, does not account for.

The row is what a user writes (kept in `dpaudit/mechanisms/opacus/small_n.py`, which is also the
preset `opacus_make_private_small_n`): a function of the dataset that builds `nn.Linear(4, 1)` (zeros),
SGD, a `DataLoader(batch_size=4)`, `PrivacyEngine(accountant="rdp").make_private(...,
noise_multiplier=σ, max_grad_norm=1, poisson_sampling=True)`, trains one epoch and returns the
final weights and bias, wrapped with `dpaudit.from_callable` (no pair, no statistic): the blind
search proposes the add/remove pairs from the domain (4 features in [-1, 1], labels {0, 1}, 5 to
8 records). On every size in the domain q = 1/⌈n/4⌉ = 1/2 and one epoch is T = 2 steps, so the
claim (Opacus' own RDP accountant at δ = 10⁻⁵, what `engine.accountant.get_epsilon` prints) is
the same for every dataset the domain allows; only the divisor int(n/2) = 2, 3, 3, 4 moves.
Torch draws from generators seeded per call from dpaudit's Generator (no global seeding).
"""

from __future__ import annotations

from typing import Any

PACKAGE = "opacus"
ISSUE = "meta-pytorch/opacus#571 (and #819)"
VERSIONS = {"1.6.0": "violation"}
REQUIREMENTS = {"1.6.0": [["torch==2.13.0"], ["opacus==1.6.0"]]}
NUM_SAMPLES = 20_000
FAST_NUM_SAMPLES = 1000
FAST_ARGS = ["--sequential"]
NOTE = (
    "the claim is Opacus' RDP ε(1e-5) for q = 1/2, T = 2 (one epoch at batch_size 4 over a nominal "
    "8 records; q is 1/2 at every n in 5..8), add/remove; the divisor int(n·q) is 2 at n = 5, 3 at n = 6"
)


def mechanism() -> Any:
    """The user training of `dpaudit.mechanisms.opacus.small_n` (the preset
    `opacus_make_private_small_n`), wrapped with `from_callable` only."""
    from dpaudit.mechanisms.opacus.small_n import opacus_make_private_small_n

    return opacus_make_private_small_n(name="opacus_expected_batch_size")
