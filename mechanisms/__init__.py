"""Black-box mechanisms: the base contract, textbook references, buggy twins, and one
module (or subpackage) per paper's learners. See `mechanisms.registry`."""

from .base import (
    ClaimKind,
    Mechanism,
    MechanismError,
    PrivacyClaim,
    applicable_claim,
    claims_of,
    from_callable,
)

__all__ = [
    "ClaimKind",
    "Mechanism",
    "MechanismError",
    "PrivacyClaim",
    "applicable_claim",
    "claims_of",
    "from_callable",
]
