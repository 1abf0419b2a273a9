"""What one-run results say in words: how a design was chosen (declared before the scores, or given
after them and joined to the union bound of `bound.py`), the f-DP claim test's p-value adjusted for
the K designs (Mahloujifar, Melis & Chaudhuri 2024, Auditing f-Differential Privacy in One Run, the
union bound over designs of `fdp.py`), and the finding for a STATED claim a certificate exceeds.
"""

from __future__ import annotations

from dpaudit.engine.one_run.bound import Design
from dpaudit.engine.one_run.fdp import FdpCertificate


def adjusted_tail_bound(cert: FdpCertificate) -> float:
    """The smallest per-design p-value ×K (K designs, capped at 1): the p-value of the claim's test
    over the union, to compare with the whole β (the claim is rejected iff it is below β)."""
    return min(1.0, cert.claim_tail_bound * len(cert.outcomes))


def declared_design_note(design: Design) -> str:
    """`choice_of_k` for a design fixed before the scores existed (certified at the whole β)."""
    return (
        f"one design (k₊ = {design.k_plus}, k₋ = {design.k_minus}) declared before the scores existed, "
        "certified at the whole β"
    )


def posthoc_design_note(design: Design, k: int) -> str:
    """`choice_of_k` for a design given after the scores existed (it joins the union)."""
    return (
        f"the design k₊ = {design.k_plus}, k₋ = {design.k_minus} was given after the scores existed: "
        f"it joined the union bound over the fixed designs, {k} designs at β/{k} each "
        "(--design-fixed-in-advance certifies it alone at the whole β)"
    )


def rejection_findings(fdp: FdpCertificate | None) -> tuple[str, ...]:
    """The finding that names the f-DP test's rejection of the claim (none when it did not reject)."""
    if fdp is None or not fdp.claim_rejected:
        return ()
    k = len(fdp.outcomes)
    return (
        f"the claimed {fdp.claim.describe()} is rejected by the f-DP one-run test (Mahloujifar, "
        f"Melis & Chaudhuri): P[W ≥ observed] ≤ {fdp.claim_tail_bound:.3g} under it on the best of "
        f"{k} designs, below the per-design level {fdp.per_design_failure_probability:.3g} "
        f"(adjusted for the {k} designs: p ≤ {adjusted_tail_bound(fdp):.3g} < β = "
        f"{fdp.failure_probability:.3g})",
    )
