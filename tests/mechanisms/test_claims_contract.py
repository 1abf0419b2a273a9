"""The Mechanism contract asks for `claims`; `claim` comes from one mixin (issue 43), and a user's
mechanism that gives a single `claim` (the README's form) still works."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpaudit.mechanisms.base import (
    ClaimFromClaims,
    MechanismError,
    PrivacyClaim,
    claims_of,
    is_mechanism,
    primary_first,
)
from dpaudit.neighbors.base import Dataset, Domain, Relation

ROOT = Path(__file__).resolve().parents[2]
A = PrivacyClaim(epsilon=1.0, relation=Relation.REPLACE_ONE, reference="a")
B = PrivacyClaim(epsilon=2.0, relation=Relation.ADD_REMOVE_ONE, reference="b")


class _Basics:
    name = "m"
    domain = Domain(num_features=1)
    seedable = True

    def sample(self, dataset: Dataset, num_samples: int, *, rng: np.random.Generator) -> Any:
        return rng.normal(size=num_samples)


@dataclass(frozen=True, slots=True)
class WithClaims(_Basics, ClaimFromClaims):
    @property
    def claims(self) -> tuple[PrivacyClaim, ...]:
        return (B, A)


class ClaimOnly(_Basics):
    claim = A


def test_the_mixin_gives_the_headline_claim() -> None:
    m = WithClaims()
    assert m.claim == B and claims_of(m) == (B, A) and is_mechanism(m)


def test_a_user_mechanism_with_a_single_claim_still_works() -> None:
    m = ClaimOnly()
    assert claims_of(m) == (A,) and is_mechanism(m)


def test_claims_of_puts_a_given_claim_first_and_rejects_non_claims() -> None:
    class Both(ClaimOnly):
        claims = (B, A)

    assert claims_of(Both()) == (A, B) == primary_first(A, (B, A))

    class Neither(_Basics):
        pass

    with pytest.raises(MechanismError, match="no 'claim'"):
        claims_of(Neither())
    assert not is_mechanism(Neither())

    class Text(_Basics):
        claims = ("ε = 1",)

    with pytest.raises(MechanismError, match="PrivacyClaim"):
        claims_of(Text())


def test_def_claim_appears_once_in_the_package() -> None:
    found = []
    for folder in ("audit", "mechanisms", "neighbors", "reports", "dpaudit/app"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef) and node.name == "claim":
                    found.append(path.relative_to(ROOT).as_posix())
    assert found == ["mechanisms/base.py"], found
