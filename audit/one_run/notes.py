"""What one-run results say in words: a design declared before the bits were drawn, the f-DP
claim test's p-value adjusted for the N designs of the union (Mahloujifar, Melis & Chaudhuri
2024, Auditing f-Differential Privacy in One Run, the union bound over designs of `fdp.py`). A
claim exceeded is a violation whatever its kind (the one verdict rule, `decides_verdict`).
"""

from __future__ import annotations

from .bound import Design
from .fdp import FdpCertificate


def adjusted_tail_bound(cert: FdpCertificate) -> float:
    """The smallest per-design p-value ×N (N the designs of the union, `family_size`, capped at 1):
    the p-value of the claim's test over the union, to compare with the level the f-DP test ran at,
    `cert.failure_probability` (β, or β/2 under `--method both`): rejected iff it is below it."""
    return min(1.0, cert.claim_tail_bound * union_size(cert))


def union_size(cert: FdpCertificate) -> int:
    """N, the number of designs β was split over (older certificates: the designs certified)."""
    return cert.family_size or len(cert.outcomes)


def declared_design_note(design: Design) -> str:
    """`choice_of_k` for a design fixed before the scores existed (certified at the whole β)."""
    return (
        f"one design (k₊ = {design.k_plus}, k₋ = {design.k_minus}) declared before the scores existed, "
        "certified at the whole β"
    )


def rejection_findings(fdp: FdpCertificate | None) -> tuple[str, ...]:
    """The finding that names the f-DP test's rejection of the claim (none when it did not reject)."""
    if fdp is None or not fdp.claim_rejected:
        return ()
    k = union_size(fdp)
    return (
        f"the claimed {fdp.claim.describe()} is rejected by the f-DP one-run test (Mahloujifar, "
        f"Melis & Chaudhuri): P[W ≥ observed] ≤ {fdp.claim_tail_bound:.3g} under it on the best of "
        f"{len(fdp.outcomes)} designs, below the per-design level {fdp.test_level:.3g} "
        f"(adjusted for the {k} designs of the union: p ≤ {adjusted_tail_bound(fdp):.3g} < "
        f"{fdp.failure_probability:.3g}, the level the test ran at)",
    )
