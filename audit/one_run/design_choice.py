"""Which designs a one-run certificate covers, and at what share of β (issue 42, build item 2).

A union bound covers a design only when the design belongs to a family fixed before the scores
existed (bound.py: designs certified at β/N each, taken from a family of N fixed in advance, may
be any subset of it, even one picked after looking at the scores). Three cases:

- **Registered** designs: the ones `dpaudit one-run` and the gate fixed before drawing the bits
  (the default grid, or the user's `--k-plus/--k-minus`), recorded in the score file they write
  (`score_files.py`, the `designs` array). A file with R registered designs is certified over
  them at β/R each, and one of them given on the command line is certified at that same share
  β/R (its registered share: it is one member of the family of R).
- **No registration** (a file written elsewhere) and no design given: the default grid, a
  function of m only, K designs at β/K.
- **Any other design given after the scores existed** (`dpaudit scores FILE --k-plus A
  --k-minus B` with (A, B) not registered): the user may have tried many designs and kept the
  best, so it is charged against the whole family of designs the command accepts,
  F_m = {(k₊, k₋) : k₊, k₋ ≥ 0, 1 ≤ k₊ + k₋ ≤ m}, |F_m| = (m + 1)(m + 2)/2 − 1, at β/|F_m|.
  Validity: F_m is a function of m only, fixed before the scores; each design of it certified at
  β/|F_m| fails with probability ≤ β/|F_m|, so P[some design of F_m fails] ≤ β, and every design
  a user can give is in F_m: whichever one is picked, and however, its ε̂ (and its f-DP
  rejection) is wrong only on that event. Simulated in `benchmarks/one_run.py --posthoc`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .bound import Design, default_design


@dataclass(frozen=True, slots=True, kw_only=True)
class DesignChoice:
    """The designs to certify, the family their β share is charged against, and the words."""

    designs: tuple[Design, ...] | None
    """None: the default grid `default_design(m)`."""
    family_size: int | None
    """N (β/N per design); None: the number of designs certified."""
    note: str
    """`choice_of_k` for the report ('' keeps the certificate's own wording)."""


def family_size(m: int) -> int:
    """|F_m|: the designs (k₊, k₋) with k₊, k₋ ≥ 0 and 1 ≤ k₊ + k₋ ≤ m (every design the commands accept)."""
    if m < 1:
        raise ValueError(f"need at least one canary, got m={m}")
    return (m + 1) * (m + 2) // 2 - 1


def charged_choice(m: int, design: Design) -> DesignChoice:
    """A design given after the scores existed: certified at β/|F_m| (module docstring)."""
    n = family_size(m)
    return DesignChoice(
        designs=(design,),
        family_size=n,
        note=(
            f"the design k₊ = {design.k_plus}, k₋ = {design.k_minus} is not one registered before the "
            f"scores existed: it is charged against every design the command accepts for m = {m} "
            f"canaries ({n:,} designs), β/{n:,}"
        ),
    )


def registered_choice(registered: tuple[Design, ...], design: Design | None = None) -> DesignChoice:
    """The file's registered designs (β/R each), or one of them at its registered share β/R."""
    r = len(registered)
    if design is None:
        return DesignChoice(
            designs=registered,
            family_size=r,
            note=f"the {r} design(s) registered in the score file before the scores existed, β/{r} each",
        )
    return DesignChoice(
        designs=(design,),
        family_size=r,
        note=(
            f"the design k₊ = {design.k_plus}, k₋ = {design.k_minus} was registered in the score file "
            f"before the scores existed, one of {r}: certified at its registered share β/{r}"
        ),
    )


def file_choice(m: int, *, given: Design | None, registered: tuple[Design, ...] | None) -> DesignChoice:
    """The designs for a one-run score file of m canaries (module docstring's three cases)."""
    if registered is not None:
        if given is None or given in registered:
            return registered_choice(registered, given)
        return charged_choice(m, given)
    if given is None:
        return DesignChoice(designs=None, family_size=None, note="")
    return charged_choice(m, given)


def default_registration(m: int, designs: tuple[Design, ...] | None) -> tuple[Design, ...]:
    """What `one-run` and the gate register in the score file they write: the designs fixed before
    the bits were drawn (the user's, else the default grid)."""
    return designs if designs is not None else default_design(m)
