"""Accountant claims: the privacy profile a real accountant computes, as a `PrivacyClaim`.

One implementation per file, in the spirit of dp_accounting and Opacus' `accountants/`:
`dp_accounting` (Google's PLD accountant for Poisson-subsampled Gaussian steps; its `table`
caches the registered curves, `build` rewrites the table) and `opacus` (Opacus' own PRV or RDP
accountant, replayed). Nothing here is hand-written accounting. Families, the command line and
the public API build their claims here, not inside a family.
"""

from .dp_accounting import (
    AccountantUnavailableError,
    accountant_claim,
    accountant_curve,
    accountant_epsilon,
    accountant_source,
)

__all__ = [
    "AccountantUnavailableError",
    "accountant_claim",
    "accountant_curve",
    "accountant_epsilon",
    "accountant_source",
]
