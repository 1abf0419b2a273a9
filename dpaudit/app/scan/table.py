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
    said = "; ".join(s for s in (row.witness or row.detail, row.budget_note) if s)
    return f"{row.target:<48} {verdict:<20} {bound:<28} {row.seconds:>7.1f} s  {said}".rstrip()


def render(rows: Sequence[ScanRow], config: ScanConfig, library: str, version: str) -> str:
    """The table: a head (budget, confidence), a line per export, a tail (counts), and the command
    that reproduces each flagged row alone."""
    built = sum(r.status != "not built" for r in rows)
    lowered = sum(0 < r.num_samples < config.num_samples for r in rows)
    fitted = f" ({lowered} fitted lower to the {config.timeout:g} s timeout)" if lowered else ""
    if config.row_failure_probability is None:
        level = (f"confidence {1 - config.failure_probability:g} for the whole table "
                 f"(β split over the {built} audits)")
    else:
        level = f"each audit at β = {config.row_failure_probability:.3g} (its row's own)"
    head = (f"dpaudit scan {library} {version}: {len(rows)} exports, {built} audited blind at "
            f"{config.num_samples:,} samples per side{fitted}, {level}")
    columns = f"{'export':<48} {'verdict':<20} {'certified vs claimed':<28} {'seconds':>9}  witness / note"
    flagged = [r for r in rows if r.flagged]
    tail = f"{len(flagged)} flagged, {built - len(flagged)} not flagged, {len(rows) - built} not built"
    again = ["reproduce a flagged row alone:", *(f"  {r.command}" for r in flagged)] if flagged else []
    return "\n".join([head, columns, *(line(r) for r in rows), tail, *again])


def to_json(rows: Sequence[ScanRow], config: ScanConfig, library: str, version: str) -> dict[str, object]:
    return {
        "library": library,
        "version": version,
        "num_samples": config.num_samples,
        "seed": config.seed,
        "failure_probability": config.failure_probability,
        "row_failure_probability": config.row_failure_probability,
        "timeout": config.timeout,
        "budget_fitted_to_timeout": config.fit_budget,
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
                "num_samples": r.num_samples,
                "budget_note": r.budget_note,
                "seconds_per_sample": r.seconds_per_sample,
                "seed": r.seed,
                "failure_probability": r.failure_probability,
                "command": r.command,
            }
            for r in rows
        ],
    }
