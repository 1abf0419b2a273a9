"""Checkpoints for resumable audits (issue 8: "resumable runs").

A checkpoint is an append-only JSON-lines file. Its first line is a header with the audit's
*key*, a hash of everything that determines the result (mechanism and parameters, pairs,
seed, budget, objectives, chunk size, dpaudit version). Each further line records either a
pair's selection (the chosen events, serialised, with the candidates considered) or one
certification chunk's event counts (with the first event's counts on the chunk's trajectory
segments, a few small integers).
Every record is flushed and fsync'ed before the runner moves on, so a `kill -9` loses at most
the chunk in flight; a torn last line is ignored on reading. Because every chunk's samples are
a pure function of (seed, pair, side, phase, chunk), a resumed audit produces exactly the
result an uninterrupted one would, without redoing any recorded chunk.

The header is written to a temporary file and renamed into place, so a checkpoint on disk
either has a complete header or does not exist; a file without one (left empty or cut by a
kill from an older version, or whose first line is not a dpaudit header at all, e.g. text written
over it) holds no records it could trust and is restarted. A non-empty file restarted that way
leaves a note (`Checkpoint.note`, which the runner adds to the result's warnings and the CLI
prints): the user asked to resume and gets a fresh run, and should know. A first line that
parses but is not a header, or a header of another audit, is an error instead (`CheckpointError`).
A symlink at the checkpoint's path is removed, never written through.

The header also states the chunk size (`header_chunk`): a mechanism with per-sample streams has
its chunks sized by a measured cost that differs from run to run, so a resumed audit of one takes
the chunk size its checkpoint was cut in (its samples do not depend on it).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from .outfiles import write_text

FORMAT_VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that belongs to another audit, or cannot be read (one-line message)."""


def audit_key(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _restart_note(path: Path, lines: list[str]) -> str:
    """The note for a non-empty checkpoint restarted for want of a header ('' if it was empty)."""
    first = next((line for line in lines if line.strip()), "")
    if not first:
        return ""
    why = (
        "its header was cut (a write interrupted by a kill)"
        if first.lstrip().startswith('{"type": "header"')
        else f"its first line is not a dpaudit header ({first.strip()[:40]!r})"
    )
    return f"checkpoint {path} discarded: {why}; the audit restarted from the beginning"


def header_chunk(path: Path) -> int | None:
    """The chunk size a checkpoint's header states, or None (no file, no header, none stated)."""
    try:
        with path.open(encoding="utf-8") as fh:
            head = json.loads(fh.readline())
    except (OSError, ValueError):
        return None
    chunk = head.get("chunk") if isinstance(head, dict) and head.get("type") == "header" else None
    return chunk if isinstance(chunk, int) and chunk >= 1 else None


class Checkpoint:
    """Records selections and chunk counts of one audit; `resume=True` loads earlier records."""

    def __init__(self, path: Path, key: str, *, resume: bool, chunk: int | None = None) -> None:
        self.path = path
        self.key = key
        self.selections: dict[tuple[int, int], dict[str, Any]] = {}
        self.chunks: dict[tuple[int, int, int], list[int]] = {}
        self.segments: dict[tuple[int, int, int], list[int]] = {}
        """Per chunk, the first event's counts on the chunk's trajectory segments (when recorded)."""
        self.note = ""
        """Why a non-empty checkpoint was discarded on resume (its header cut, or not a dpaudit
        header); empty when it was resumed, absent, empty, or not asked to resume."""
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()
        if not (resume and path.exists() and self._load()):
            head: dict[str, Any] = {"type": "header", "key": key, "version": FORMAT_VERSION}
            header = json.dumps(head if chunk is None else {**head, "chunk": chunk}) + "\n"
            write_text(path, header)
        self._fh = path.open("a", encoding="utf-8")

    def _load(self) -> bool:
        """Load the records of an earlier run; False when the file holds no header (restart)."""
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise CheckpointError(f"cannot read checkpoint {self.path}: {exc.strerror}") from None
        records = []
        for line in lines:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line torn by a crash: its chunk is simply redone
        if not records:  # empty, a torn header, or no header at all: nothing to trust
            self.note = _restart_note(self.path, lines)
            return False
        if not isinstance(records[0], dict) or records[0].get("type") != "header":
            raise CheckpointError(f"{self.path} is not a dpaudit checkpoint")
        if records[0].get("key") != self.key:
            raise CheckpointError(
                f"checkpoint {self.path} belongs to a different audit (mechanism, parameters, seed or "
                "budget changed); delete it or run without --resume"
            )
        for r in records[1:]:
            try:
                self._add(r)
            except (AttributeError, KeyError, TypeError, ValueError):
                raise CheckpointError(
                    f"checkpoint {self.path} holds a malformed record ({json.dumps(r)[:80]}); delete it or "
                    "run without --resume"
                ) from None
        return True

    def _add(self, r: dict[str, Any]) -> None:
        if r.get("type") == "selection":
            self.selections[(int(r["pair"]), int(r["objective"]))] = r
        elif r.get("type") == "chunk":
            key = (int(r["pair"]), int(r["side"]), int(r["chunk"]))
            self.chunks[key] = [int(c) for c in r["counts"]]
            if r.get("segments") is not None:
                self.segments[key] = [int(c) for c in r["segments"]]

    def _write(self, record: dict[str, Any]) -> None:
        self._fh.write(json.dumps(record) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def record_selection(self, pair: int, objective: int, record: dict[str, Any]) -> None:
        full = {"type": "selection", "pair": pair, "objective": objective, **record}
        self.selections[(pair, objective)] = full
        self._write(full)

    def record_chunk(
        self, pair: int, side: int, chunk: int, counts: list[int], segments: list[int] | None = None
    ) -> None:
        """One certification chunk's event counts (and, optionally, its trajectory segments)."""
        self.chunks[(pair, side, chunk)] = counts
        record: dict[str, Any] = {
            "type": "chunk",
            "pair": pair,
            "side": side,
            "chunk": chunk,
            "counts": counts,
        }
        if segments is not None:
            self.segments[(pair, side, chunk)] = segments
            record["segments"] = segments
        self._write(record)

    def close(self, *, remove: bool = False) -> None:
        self._fh.close()
        if remove:
            self.path.unlink(missing_ok=True)
