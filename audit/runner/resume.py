"""Checkpoint resume for the runner: the audit's key and its selection records.

Every chunk's samples are a pure function of (seed, pair, side, phase, chunk) and every
selection a function of its selection split, so a resumed audit reloads recorded selections
(`selection_from_record`) and chunk counts instead of redrawing them and certifies exactly the
events, on exactly the counts, an uninterrupted run would: its Clopper–Pearson intervals, and
the union bound over them, are those of that run. `audit_key` hashes everything that determines
the result, so a checkpoint of another audit is never resumed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...mechanisms.base import Mechanism, claims_of, uses_sample_streams
from ..checkpoint import Checkpoint, header_chunk
from ..checkpoint import audit_key as checkpoint_key
from ..distinguishers import Selection, event_from_spec, event_spec
from ..jsonnum import json_number, parse_number
from ..types import AuditConfig
from .plan import AuditPlan, PlannedPair


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dpaudit")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


def selection_record(sel: Selection) -> dict[str, Any]:
    """A Selection as a checkpoint record (JSON); runners-up nested in "also"."""
    return {
        "event": event_spec(sel.event),
        "dataset_is_p": sel.dataset_is_p,
        "projected": json_number(sel.projected),
        "distinguisher": sel.distinguisher,
        "considered": [[name, json_number(v)] for name, v in sel.considered],
        "also": [selection_record(x) for x in sel.also],
    }


def selection_from_record(r: dict[str, Any]) -> Selection:
    """The Selection a `selection_record` stands for."""
    return Selection(
        event_from_spec(r["event"]),
        bool(r["dataset_is_p"]),
        parse_number(r["projected"]),
        str(r["distinguisher"]),
        tuple((str(name), parse_number(v)) for name, v in r.get("considered", ())),
        tuple(selection_from_record(x) for x in r.get("also", ())),
    )


def resumed_selections(checkpoint: Checkpoint | None, *, index: int, count: int) -> list[Selection] | None:
    """Pair `index`'s `count` recorded selections, or None unless all of them are recorded."""
    stored = [checkpoint.selections.get((index, k)) if checkpoint else None for k in range(count)]
    if all(r is not None and r.get("event") is not None for r in stored):
        return [selection_from_record(r) for r in stored if r is not None]
    return None


def audit_key(
    mechanism: Mechanism,
    plans: Sequence[PlannedPair],
    config: AuditConfig,
    chunk: int,
    parameters: Sequence[tuple[str, str]],
) -> str:
    """Hash of everything that determines an audit's result (for checkpoints)."""
    return checkpoint_key(
        {
            "mechanism": mechanism.name,
            "parameters": list(parameters),
            "claims": [c.to_dict() for c in claims_of(mechanism)],
            "pairs": [[p.pair.dataset.key(), p.pair.neighbor.key(), p.pair.relation.value] for p in plans],
            "seed": config.seed,
            "num_samples": config.num_samples,
            "failure_probability": config.failure_probability,
            "split": list(config.split()),
            "chunk": chunk,
            "profile": [list(config.profile_deltas), list(config.profile_epsilons), config.gdp],
            "version": package_version(),
            **({"floating_point": True} if config.floating_point else {}),
            **({"sequential": True} if config.sequential else {}),
        }
    )


def open_checkpoint(
    mechanism: Mechanism,
    plan: AuditPlan,
    config: AuditConfig,
    *,
    chunk: int,
    path: Path | None,
    resume: bool,
) -> Checkpoint | None:
    """The audit's checkpoint at `path` (None without a path), resumed when `resume`."""
    if path is None:
        return None
    key = audit_key(mechanism, plan.pairs, config, chunk, plan.key_parameters)
    return Checkpoint(path, key, resume=resume, chunk=chunk)


def resumed_config(
    mechanism: Mechanism, config: AuditConfig, *, path: Path | None, resume: bool
) -> AuditConfig:
    """`config`, with the chunk size of the checkpoint being resumed for a mechanism whose chunks
    are sized by a measured cost (per-sample streams; `engine.checkpoint.header_chunk`)."""
    if not (resume and path is not None and config.chunk_size is None and uses_sample_streams(mechanism)):
        return config
    chunk = header_chunk(path)
    return config if chunk is None else dataclasses.replace(config, chunk_size=chunk)


def recorded_chunk(
    checkpoint: Checkpoint | None, key: tuple[int, int, int], *, primary: int, cuts: Sequence[int]
) -> tuple[list[int], list[int]] | None:
    """A certification chunk's recorded (event counts, trajectory segments), or None when it must
    be (re)drawn. `primary` is the number of the primary test's events; a record from before
    segments were kept stands for a chunk without cuts (its segments are the primary counts)."""
    recorded = checkpoint.chunks.get(key) if checkpoint else None
    segs = checkpoint.segments.get(key) if checkpoint else None
    if recorded is not None and segs is None and not cuts:
        segs = list(recorded[:primary])
    if recorded is not None and segs is not None and len(segs) == primary * (len(cuts) + 1):
        return recorded, segs
    return None


def record_selections(checkpoint: Checkpoint | None, selections: Sequence[Selection], *, index: int) -> None:
    """Record pair `index`'s selections (one per test) in `checkpoint`, if any."""
    if checkpoint is not None:
        for k, sel in enumerate(selections):
            checkpoint.record_selection(index, k, selection_record(sel))
