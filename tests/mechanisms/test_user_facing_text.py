"""Words for users: every string a user sees names papers by title and theorem.

User-facing text (claim references and notes, registry summaries and bug lines, mechanism
descriptions, registered neighbour-pair descriptions) must not carry the design documents'
internal tags: paper file names ("003_999a11082cbb8294.txt"), errata ids ("ERRATA F4"), spec
section numbers ("spec §2.1", "§9.3"), spec file names ("seeds-003-004.md", "DESIGN.md") or the
specs' bracketed provenance tags ("[C]", "[R]", "[D]"). Docstrings may cite docs/specs/*; these
strings may not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from dpaudit.mechanisms.base import ClaimKind, claims_of
from dpaudit.mechanisms.registry import RegistryEntry, entries

FORBIDDEN = re.compile(
    r"ERRATA"
    r"|spec\s*§|§\s*\d"
    r"|\b\d{3}_[0-9a-f]{16}\b|\b\d{3}_[0-9a-f]{6,}\.txt\b"
    r"|seeds?-\d"
    r"|DESIGN\.md|specs/"
    r"|\[[CRDVN](?:,\s*[CRDVN])*\]"
)
"""Internal tags of the design documents (see the module docstring)."""

PAPER_TITLES = (
    "Closure Properties for Private Classification and Online Prediction",
    "Private Realizable-to-Agnostic Transformation with Near-Optimal Sample Complexity",
    "Differentially Private Learning of Geometric Concepts",
    "Privately Learning Decision Lists and a Differentially Private Winnow",
    "Efficient, Noise-Tolerant, and Private Learning via Boosting",
    "Understanding the Sparse Vector Technique for Differential Privacy",
)

NAMES = sorted(entries())


def _texts(entry: RegistryEntry) -> Iterator[tuple[str, str]]:
    """(where, text) for every user-facing string of a registered mechanism."""
    yield "summary", entry.summary
    yield "bug", entry.bug
    mech = entry.build()
    for i, claim in enumerate(claims_of(mech)):
        yield f"claims[{i}].reference", claim.reference
        yield f"claims[{i}].note", claim.note
    description = getattr(mech, "description", None)
    if isinstance(description, str):
        yield "description", description
    pairs = getattr(mech, "neighbor_pairs", None)
    if callable(pairs):
        for j, pair in enumerate(pairs()):
            yield f"neighbor_pairs()[{j}].description", pair.description


def test_pattern_catches_the_internal_tags() -> None:
    for bad in (
        "003_999a11082cbb8294.txt, Thm 3.5",
        "ERRATA F4",
        "spec §2.1",
        "[spec §2.1 D]",
        "§9.3 relabel x* alone",
        "specs/seeds-003-004.md",
        "seed-002 §10",
        "DESIGN.md",
        "reconstructed constants [R]",
        "[C]",
        "[D]",
        "[D,N]",
    ):
        assert FORBIDDEN.search(bad), bad
    for good in (
        "Bun & Fang, Privately Learning Decision Lists and a Differentially Private Winnow, Thm 3.5",
        "Kaplan, Mansour, Matias & Stemmer, Differentially Private Learning of Geometric Concepts, "
        "Section 4, privacy analysis of SelectHalfplane",
        "(|F|+1)·2c, non-monotone score change under replace-one",
        "x ∈ [0, 1]",
        "W1 (EM-isolating): relabel x_1 = (1, −1)",
    ):
        assert not FORBIDDEN.search(good), good


@pytest.mark.parametrize("name", NAMES)
def test_user_facing_text_has_no_internal_tags(name: str) -> None:
    bad = [f"{where}: {text!r}" for where, text in _texts(entries()[name]) if FORBIDDEN.search(text)]
    assert not bad, f"{name}: internal tags in user-facing text:\n" + "\n".join(bad)


PAPER_FAMILIES = {"000,001", "002", "003", "004", "svt"}
"""Families implementing one paper each (textbook and floating-point mechanisms cite their own)."""


@pytest.mark.parametrize("name", [n for n in NAMES if entries()[n].family in PAPER_FAMILIES])
def test_paper_learner_references_cite_a_title(name: str) -> None:
    """Every proved or stated claim of a paper learner names its paper by title (an ingredient
    from the wider literature still names the paper whose construction it is plugged into)."""
    mech = entries()[name].build()
    missing = [
        c.reference
        for c in claims_of(mech)
        if c.kind in (ClaimKind.PROVED, ClaimKind.STATED)
        and not any(title in c.reference for title in PAPER_TITLES)
    ]
    assert not missing, f"{name}: claim references without a paper title: {missing}"
