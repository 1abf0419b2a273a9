"""Neighbour relations, dataset types and pair generators (depends on numpy only)."""

from .base import (
    Dataset,
    DesignAxis,
    Domain,
    NeighborGenerator,
    NeighborPair,
    Relation,
    Subsampling,
    SubsamplingKind,
    are_neighbors,
    is_neighbor,
)
from .records import RecordKind, RecordSpace

__all__ = [
    "Dataset",
    "DesignAxis",
    "Domain",
    "NeighborGenerator",
    "NeighborPair",
    "RecordKind",
    "RecordSpace",
    "Relation",
    "Subsampling",
    "SubsamplingKind",
    "are_neighbors",
    "is_neighbor",
]
