"""The scan's table: one line per export (verdict, certified ε against the claim, witness, seconds)."""

from __future__ import annotations

from collections.abc import Sequence

from .procedure import ScanConfig, ScanRow

WORDS = {
    "violation_found": "VIOLATION",
    "no_violation_found": "no violation found",
    "inconclusive": "inconclusive",
}


def line(row: ScanRow) -> str:
    verdict = WORDS.get(row.status, row.status)
    if row.certified is None:
        bound = ""
    else:
        kind = " (stated)" if row.claim_kind == "stated" else ""
        value = f"{row.certified:.3g}" if row.certified > 0 else "0 (no evidence)"
        bound = f"ε ≥ {value} of {row.claimed:g}{kind}"
    said = row.witness or row.detail
    return f"{row.target:<48} {verdict:<20} {bound:<28} {row.seconds:>7.1f} s  {said}".rstrip()


def render(rows: Sequence[ScanRow], config: ScanConfig, library: str, version: str) -> str:
    built = sum(r.status != "not built" for r in rows)
    head = (
        f"dpaudit scan {library} {version}: {len(rows)} exports, {built} audited blind at "
        f"{config.num_samples:,} samples per side, confidence {1 - config.failure_probability:g} "
        f"for the whole table (β split over the {built} audits)"
    )
    columns = f"{'export':<48} {'verdict':<20} {'certified vs claimed':<28} {'seconds':>9}  witness / note"
    flagged = sum(r.flagged for r in rows)
    tail = f"{flagged} flagged, {built - flagged} not flagged, {len(rows) - built} not built"
    return "\n".join([head, columns, *(line(r) for r in rows), tail])


def to_json(rows: Sequence[ScanRow], config: ScanConfig, library: str, version: str) -> dict[str, object]:
    return {
        "library": library,
        "version": version,
        "num_samples": config.num_samples,
        "seed": config.seed,
        "failure_probability": config.failure_probability,
        "rows": [
            {
                "export": r.target,
                "kind": r.kind,
                "status": r.status,
                "claimed_epsilon": r.claimed,
                "certified_epsilon": r.certified,
                "claim_kind": r.claim_kind,
                "witness": r.witness,
                "note": r.detail,
                "seconds": round(r.seconds, 3),
            }
            for r in rows
        ],
    }
