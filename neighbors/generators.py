"""Domain-driven neighbour-pair generators (facade: re-exports the modules that implement them).

Every generator is driven by a mechanism's declared `Domain` only (never by its code or its
registered pairs), and every pair it yields satisfies `is_neighbor`, lies in the domain
(`Domain.check` returns None on both sides) and changes only rows the claim covers
(`Domain.check_pair`: with `private_rows`, public rows are identical on both sides and no
add/remove pair is generated, since a deletion shifts every later, public, position; a template
whose change would sit in a public row has the changed row swapped with the nearest private
row on both sides, which keeps its records). `WorstCasePairs(strict=True)` raises instead of
filtering when a family builds a pair that does not, which is how the property tests check the
families.

Where each piece lives:

- `neighbors.space`: `Space`, the domain's valid values (rounded box, labels, sizes, private
  rows) and its extreme records; `DEFAULT_MAX_ROWS`.
- `neighbors.admissible`: `admissible`, `pair_key`, `check_amplification` /
  `AmplificationMismatchError` (a claim relying on amplification under one relation is refused
  under another; the generators call it before yielding anything), `InadmissiblePairError`.
- `neighbors.sizes`: `size_jumps`, `inclusion_probability`, `boundary_sizes`.
- `neighbors.building`: applying one change to a base dataset, fillers, far records.
- `neighbors.records`: `RecordSpace` (categorical, one-hot, histogram bins, integer, bounded
  norm, binary counting-query records), declared as `Domain(records=...)` / `Domain.over`;
  `neighbors.record_templates`: their families (counting-query patterns, flanked clusters,
  boundary points of `Domain.hypothesis_grid`), first in `WorstCasePairs`.
- `neighbors.templates`: `WorstCasePairs` and its families (extreme, corner, tiny, size,
  duplicate, lone, stream); `neighbors.clusters` (cluster family) and
  `neighbors.subsampling_cases` (`SubsamplingPairs`, subsampling family).
- `neighbors.boundary`: `BoundaryPairs`.
- `neighbors.random_pairs` / `neighbors.local_moves`: `random_pair`, `local_moves` (`MOVES`),
  `changed_index`, the random and local-search proposals used by `audit/search/procedure.py`.
- `neighbors.sweeps`: `CountSweeps`, `count_grid`: k records at one extreme and the neighbour
  moving, adding or removing one, k on a grid to 64 (the search's sweep screen, `audit/search/sweeps.py`).
"""

from __future__ import annotations

from .admissible import (
    AmplificationMismatchError,
    InadmissiblePairError,
    admissible,
    check_amplification,
    pair_key,
)
from .boundary import BoundaryPairs
from .building import emit_pair
from .local_moves import MOVES, _apply_move, changed_index, local_moves
from .random_pairs import random_pair
from .sizes import boundary_sizes, inclusion_probability, size_jumps
from .space import DEFAULT_MAX_ROWS, Space
from .subsampling_cases import SubsamplingPairs
from .templates import WorstCasePairs

_Space = Space
_emit = emit_pair

__all__ = [
    "DEFAULT_MAX_ROWS",
    "MOVES",
    "AmplificationMismatchError",
    "BoundaryPairs",
    "InadmissiblePairError",
    "SubsamplingPairs",
    "WorstCasePairs",
    "_Space",
    "_apply_move",
    "_emit",
    "admissible",
    "boundary_sizes",
    "changed_index",
    "check_amplification",
    "inclusion_probability",
    "local_moves",
    "pair_key",
    "random_pair",
    "size_jumps",
]
