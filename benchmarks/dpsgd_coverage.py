"""Coverage of the accountant curve claim: certified ε(δ) against dp_accounting's ε(δ), over seeds.

An accountant claim (`ClaimCurve` of kind accountant) is audited at every δ of the profile grid
(10⁻³, 10⁻², 10⁻¹) plus its headline δ, all under one Bonferroni split at β. On a correct DP-SGD
preset whose registered pair makes the accountant exact (the gradient canary on a zero-gradient
rest, all iterates), a certified value above the accountant's ε at its δ is a coverage failure of
the whole audit. This runs S seeded audits and counts the audits with at least one such point
(and, separately, those flagged as violations, which also counts the headline test); the
Clopper–Pearson 95% upper bound on the failure rate is printed next to β. A large β (0.5) makes
the bounds as tight as the product ever makes them, so it is the sensitive setting.

    python benchmarks/dpsgd_coverage.py [--mechanism dpsgd] [--audits 200] [--num-samples 20000]
                                        [--beta 0.05 0.5] [--param k=v ...]
"""

from __future__ import annotations

import argparse
import time

import dpaudit
from dpaudit.engine.bounds import cp_upper


def _params(items: list[str]) -> dict[str, str]:
    return dict(item.split("=", 1) for item in items)


def coverage(
    name: str, params: dict[str, str], *, audits: int, num_samples: int, beta: float
) -> dict[str, float]:
    """Audits S seeds of `name`; counts profile points above the claimed curve and violations."""
    above = flagged = 0
    worst = -float("inf")
    started = time.perf_counter()
    for seed in range(audits):
        r = dpaudit.audit(
            name,
            params=params,
            pairs="registered",
            num_samples=num_samples,
            seed=seed,
            failure_probability=beta,
        )
        gaps = [pt.value - pt.claimed for p in r.pairs for pt in p.profile if pt.claimed is not None]
        worst = max([worst, *gaps])
        above += any(g > 0 for g in gaps)
        flagged += r.violation
    return {
        "above": above,
        "flagged": flagged,
        "worst_gap": worst,
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mechanism", default="dpsgd_canary_t10")
    ap.add_argument("--param", action="append", default=[], metavar="K=V")
    ap.add_argument("--audits", type=int, default=200)
    ap.add_argument("--num-samples", type=int, default=20_000)
    ap.add_argument("--beta", type=float, nargs="+", default=[0.05, 0.5])
    args = ap.parse_args()
    print(f"{args.mechanism} {args.param}: {args.audits} audits of {args.num_samples:,} runs per side")
    print(
        "| β | audits with a point above the curve | CP 95% upper | flagged | max(certified − claimed) | s |"
    )
    print("|---|---|---|---|---|---|")
    for beta in args.beta:
        c = coverage(
            args.mechanism, _params(args.param), audits=args.audits, num_samples=args.num_samples, beta=beta
        )
        upper = float(cp_upper(int(c["above"]), args.audits, 0.05))
        print(
            f"| {beta:g} | {int(c['above'])}/{args.audits} | {upper:.3f} | "
            f"{int(c['flagged'])} | {c['worst_gap']:+.3f} | {c['seconds']:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
