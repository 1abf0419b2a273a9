"""One parser for a claim given as text, shared by the command line and the gate.

`dpaudit one-run` / `dpaudit scores` take `--epsilon/--delta`, `--accountant SIGMA,Q,T` or
`--gdp MU` (with `--claim-kind stated|proved`); a gate's one-run `[[audit]]` takes the keys
`epsilon`/`delta`, `accountant` or `gdp` (with `claim_kind`).
Both become a `PrivacyClaim` here: a point (ε, δ) claim, dp_accounting's privacy profile for T
Poisson-subsampled Gaussian steps (`mechanisms.accountants`), or μ-GDP (Dong, Roth & Su,
"Gaussian Differential Privacy") with its headline point at δ. Every bad value is a `ValueError`
whose one line names the flag or key as the user wrote it (`spelling`); the caller turns it into
its own input error (exit 2).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

from dpaudit.mechanisms.accountants import accountant_claim
from dpaudit.mechanisms.analytic import gaussian_epsilon
from dpaudit.mechanisms.base import ClaimCurve, ClaimKind, CurveKind, MechanismError, PrivacyClaim
from dpaudit.neighbors.base import Relation

DEFAULT_CURVE_DELTA = 1e-5
"""The headline δ of an accountant or GDP claim given without a δ."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimText:
    """A claim as the user gave it: at most one of ε (with δ), an accountant's "σ,q,T" and a μ."""

    epsilon: float | None = None
    delta: float | None = None
    accountant: str | None = None
    gdp: float | None = None
    relation: Relation = Relation.ADD_REMOVE_ONE
    kind: ClaimKind = ClaimKind.PROVED
    """PROVED or STATED, as `--claim-kind`: either is a violation when exceeded (a lone claim
    decides, `mechanisms.base.decides_verdict`); a STATED one is reported as a stated claim."""

    def given(self) -> int:
        """How many claims the text states (more than one is an error)."""
        return sum(x is not None for x in (self.epsilon, self.accountant, self.gdp))


def parse_claim(
    text: ClaimText, *, spelling: Callable[[str], str], where: str, default: object = None
) -> PrivacyClaim:
    """The claim `text` states, else `default` when it is a `PrivacyClaim`; `where` ends the
    claim's reference ("on the command line", "in dpaudit.toml, [[audit]] #2")."""
    s = spelling
    if text.given() > 1:
        raise ValueError(
            f"give the claim once: {s('epsilon')} (with {s('delta')}), {s('accountant')} or {s('gdp')}"
        )
    curve_delta = DEFAULT_CURVE_DELTA if text.delta is None else text.delta
    reference = f"the claim given {where}"
    if text.gdp is not None:
        claim = _gdp(text.gdp, text.relation, curve_delta, s, reference)
        return dataclasses.replace(claim, kind=text.kind)
    if text.accountant is not None:
        claim = _accountant(text.accountant, text.relation, curve_delta, s)
        return dataclasses.replace(claim, kind=text.kind)
    if text.epsilon is not None:
        delta = 0.0 if text.delta is None else text.delta
        return PrivacyClaim(
            epsilon=text.epsilon,
            delta=delta,
            relation=text.relation,
            reference=reference,
            kind=text.kind,
        )
    if text.delta is not None:
        raise ValueError(
            f"{s('delta')} needs {s('epsilon')}, {s('accountant')} or {s('gdp')} (the claim it belongs to)"
        )
    if isinstance(default, PrivacyClaim):
        return default
    raise ValueError(
        f"no claim: give {s('epsilon')} (and {s('delta')}), {s('accountant')} SIGMA,Q,T or {s('gdp')} MU "
        "(or give the function a `claim` attribute)"
    )


def _gdp(
    mu: float, relation: Relation, delta: float, s: Callable[[str], str], reference: str
) -> PrivacyClaim:
    if not (math.isfinite(mu) and mu > 0):
        raise ValueError(f"{s('gdp')} needs a finite μ > 0, got {mu}")
    if not 0 < delta < 1:
        raise ValueError(f"{s('delta')} must be in (0, 1) with {s('gdp')}, got {delta}")
    return PrivacyClaim(
        epsilon=gaussian_epsilon(delta, mu),
        delta=delta,
        relation=relation,
        reference=f"{reference} ({s('gdp')} {mu:g}: μ-GDP, Dong, Roth & Su)",
        kind=ClaimKind.PROVED,
        curve=ClaimCurve(kind=CurveKind.GDP, parameter=mu),
    )


def _accountant(text: str, relation: Relation, delta: float, s: Callable[[str], str]) -> PrivacyClaim:
    try:
        sigma, q, steps = (float(x) for x in text.split(","))
    except ValueError:
        raise ValueError(f"{s('accountant')} expects SIGMA,Q,T (e.g. 1.0,0.01,1000), got {text!r}") from None
    try:
        return accountant_claim(
            noise_multiplier=sigma, sample_rate=q, steps=int(steps), relation=relation, delta=delta
        )
    except (ValueError, TypeError, ImportError, MechanismError) as exc:
        raise ValueError(f"{s('accountant')} {text!r}: {str(exc).splitlines()[0]}") from None
