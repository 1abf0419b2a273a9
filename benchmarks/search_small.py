"""`--pairs search` at a small budget on every registered preset (issue 44).

For every registered entry (optionally `--only` some, `--skip-family` some), what
`python -m dpaudit run NAME --pairs search --num-samples N` does, in-process: the blind search
(`dpaudit.app.route.certify` with an explicit search route) at N samples per side per pair of
the registered route's count, at seed S, each under `--timeout` seconds. Prints one line per
entry (ran / error and why, verdict, certified ε against the claim, the twin's kind, seconds)
and a closing count: how many ran a search, how many buggy twins were flagged, how many correct
mechanisms were (a flag on a correct mechanism would be a false alarm: each certificate holds
w.p. ≥ 1 − β). `--registered` also audits every buggy twin on its registered pairs at the same
budget and seed (`--pairs registered`) and counts where the two verdicts agree.

    python benchmarks/search_small.py [--num-samples 1000] [--seed 0] [--timeout 60]
                                      [--only NAME ...] [--skip-family FAMILY ...] [--registered]
"""

from __future__ import annotations

import argparse
import time

from dpaudit.app.route import Route, certify
from dpaudit.engine.sampling import AuditTimeout
from dpaudit.engine.types import AuditConfig
from dpaudit.mechanisms.registry import entries


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-samples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--skip-family", nargs="*", default=())
    ap.add_argument("--registered", action="store_true", help="compare the buggy twins' registered route")
    args = ap.parse_args()
    ran = failed = flagged_buggy = buggy = flagged_correct = compared = agree = 0
    for e in entries().values():
        if (args.only and e.name not in args.only) or e.family in args.skip_family:
            continue
        cfg = AuditConfig(num_samples=args.num_samples, seed=args.seed, timeout=args.timeout, jobs=1)
        t = time.perf_counter()
        try:
            result = certify(e.build(), cfg, Route("search", explicit=True)).result
        except (Exception, AuditTimeout) as exc:
            failed += 1
            line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            print(f"{e.name:48s} ERROR {type(exc).__name__}: {line[:110]}", flush=True)
            continue
        seconds = time.perf_counter() - t
        ran += 1
        buggy += e.buggy
        flagged_buggy += e.buggy and result.violation
        flagged_correct += (not e.buggy) and result.violation
        verdict = "VIOLATION" if result.violation else "no violation"
        kind = "buggy" if e.buggy else "correct"
        registered = ""
        if args.registered and e.buggy:
            try:
                reg = certify(e.build(), cfg, Route("registered", explicit=True)).result
                compared += 1
                agree += reg.violation == result.violation
                registered = f" | registered {'VIOLATION' if reg.violation else 'no violation'}"
            except (Exception, AuditTimeout) as exc:
                registered = f" | registered ERROR {type(exc).__name__}"
        print(
            f"{e.name:48s} ran   {kind:7s} {verdict:12s} ε ≥ {result.epsilon_lower_bound:8.4f} "
            f"(claim {result.claim.epsilon:.4g}) {seconds:6.1f} s{registered}",
            flush=True,
        )
    print(
        f"ran {ran} of {ran + failed} presets at {args.num_samples:,} per side (seed {args.seed}); "
        f"buggy flagged {flagged_buggy}/{buggy}; correct flagged {flagged_correct}"
        + (f"; same verdict as the registered route on {agree}/{compared} twins" if args.registered else "")
    )


if __name__ == "__main__":
    main()
