"""Audits side by side for `run --all`: one audit per worker process, `--jobs 1` inside each.

Why. Within one audit, `--jobs N` parallelises the sampling chunks, but the pilot, the event
selection, the white-box reference and the report stay in one process; on the main job that kept
two cores only 1.3 busy on average. Running whole audits in N worker processes keeps them all busy.

Results do not change: every chunk of an audit draws from its own seed stream, so an audit's
result is bit-identical for any `--jobs` (tests/test_cli_run_all.py checks the pool against
`--jobs 1`). What an audit prints while it runs (warnings, notes) is returned with its result and
printed by the parent as it finishes, so lines from two audits never interleave; the workers' own
progress lines are switched off (`DPAUDIT_PROGRESS=0`) and the parent prints one line per audit.
"""

from __future__ import annotations

import argparse
import copy
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from dpaudit.engine.progress import PROGRESS_ENV

from .parser import all_cores

T = TypeVar("T")


def pool_size(args: argparse.Namespace, todo: int) -> int:
    """How many audits run at once: `--jobs` with the default loky backend and more than one audit
    to run; 1 (audits in turn, `--jobs` inside each) with threading or Dask, whose workers are not
    separate local processes we own."""
    if args.backend != "loky" or todo < 2 or args.jobs == 1:
        return 1
    jobs = all_cores() if args.jobs == -1 else int(args.jobs)
    return max(1, min(jobs, todo))


def single_job(args: argparse.Namespace) -> argparse.Namespace:
    """A copy of `args` for one audit in a worker: `--jobs 1` (the worker is one core)."""
    inner = copy.copy(args)
    inner.jobs = 1
    return inner


def run_side_by_side(
    fn: Callable[[str, argparse.Namespace], T], names: Sequence[str], args: argparse.Namespace, size: int
) -> Iterator[tuple[int, T]]:
    """Yield (index into `names`, fn(name, args)) as each finishes. With `size` 1 the calls run here
    in order; else across `size` loky processes, each call with `single_job(args)`. An exception in
    any call is raised here (joblib re-raises the worker's exception type) and stops the rest."""
    if size <= 1:
        for i, name in enumerate(names):
            yield i, fn(name, args)
        return
    from joblib import Parallel, delayed

    inner = single_job(args)
    calls = (delayed(_indexed)(i, fn, name, inner) for i, name in enumerate(names))
    parallel = Parallel(n_jobs=size, backend="loky", return_as="generator_unordered", batch_size=1)
    yield from parallel(calls)


def _indexed(
    i: int, fn: Callable[[str, argparse.Namespace], T], name: str, args: argparse.Namespace
) -> tuple[int, T]:
    os.environ[PROGRESS_ENV] = "0"  # the parent prints one line per audit instead
    return i, fn(name, args)
