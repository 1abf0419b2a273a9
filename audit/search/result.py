"""What a worst-case search returns: its result record, its errors, and its warning.

Implements `SearchResult` (every candidate with its pilot figures, and the certified audit),
`Candidate`, the search's errors and `weakened_warning`. Only `SearchResult.certified` carries
a guarantee: its pairs and events were chosen on pilot samples not used to certify them, and
the runner splits the failure probability across every certified pair (Bonferroni:
P(any certified bound fails) ≤ Σᵢ β/k = β). Pilot figures are rankings, not bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ...neighbors.base import NeighborPair, Relation
from ..types import WEAKENED, AuditResult, EpsilonEstimate


class SearchUnsupportedError(ValueError):
    """The search cannot respect this mechanism's domain (one-line message)."""


class SearchBudgetError(ValueError):
    """num_samples too small for a pilot plus certification (one-line message)."""


class Candidate(NamedTuple):
    """One evaluated candidate: (pair description, relation, pilot estimate)."""

    description: str
    relation: Relation
    estimate: EpsilonEstimate


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchResult:
    """A search: every candidate with its pilot estimate (best first) and the certified audit.

    Only `certified` carries a guarantee; `candidates[i].estimate` are pilot figures (small
    budget, own seed, used for ranking). `candidate_pairs[i]` is the pair of `candidates[i]`,
    `pilot_samples_of[i]` the pilot samples per side it received.
    """

    candidates: tuple[Candidate, ...]
    candidate_pairs: tuple[NeighborPair, ...]
    ranks: tuple[float, ...]
    sources: tuple[str, ...]
    certified: AuditResult
    certified_pairs: tuple[NeighborPair, ...]
    relations: tuple[Relation, ...]
    pilot_seeds: tuple[int, ...]
    pilot_samples_per_candidate: int
    pilot_samples: int
    certification_samples: int
    total_samples: int
    budget: int
    pilot_fraction: float
    top_k: int
    skipped: tuple[str, ...] = ()
    pilot_samples_of: tuple[int, ...] = ()
    halving_rounds: int = 0
    selection_samples_of_certified: tuple[int, ...] = ()
    """Per certified pair, the pilot samples per side its event was chosen on (its selection split)."""
    selection_topup_samples: int = 0
    """Samples per side drawn (at pilot seeds) after the pilot to complete those selection splits."""

    def to_dict(self) -> dict[str, Any]:
        """Summary of the search for the certified result's `extra` (the result writer,
        `reports.schema`, encodes its non-finite figures, e.g. a −∞ pilot bound)."""
        return {
            "pilot_fraction": self.pilot_fraction,
            "top_k": self.top_k,
            "budget": self.budget,
            "pilot_samples": self.pilot_samples,
            "pilot_samples_per_candidate": self.pilot_samples_per_candidate,
            "halving_rounds": self.halving_rounds,
            "certification_samples": self.certification_samples,
            "selection_samples_of_certified": list(self.selection_samples_of_certified),
            "selection_topup_samples": self.selection_topup_samples,
            "certified_pairs": [p.description for p in self.certified_pairs],
            "total_samples": self.total_samples,
            "pilot_seeds": list(self.pilot_seeds),
            "relations": [r.value for r in self.relations],
            "skipped": list(self.skipped),
            "candidates": [
                {
                    "description": c.description,
                    "relation": c.relation.value,
                    "source": src,
                    "rank": rank,
                    "pilot_samples": m,
                    "pilot_epsilon_lower_bound": c.estimate.epsilon_lower_bound,
                    "pilot_selection_epsilon": c.estimate.selection_epsilon,
                    "tags": list(p.tags),
                }
                for c, p, rank, src, m in zip(
                    self.candidates,
                    self.candidate_pairs,
                    self.ranks,
                    self.sources,
                    self.pilot_samples_of,
                    strict=True,
                )
            ],
        }


def weakened_warning(failures: Sequence[str]) -> tuple[str, ...]:
    """The warning for candidates whose sampling raised: the pair may have been the strongest, so
    the bound may be lower than the mechanism allows (never invalid: a dropped candidate only
    loses power). Empty when nothing failed."""
    if not failures:
        return ()
    more = f" (and {len(failures) - 1} more, listed in the search record)" if len(failures) > 1 else ""
    return (f"{WEAKENED}: {len(failures)} candidate pair(s) failed while sampling: {failures[0]}{more}",)
