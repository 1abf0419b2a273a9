"""OpenDP's measurement constructors as scan targets.

Every `make_*` in `opendp.measurements` of the installed version is a target. The constructors
that dpaudit's OpenDP presets build (`make_laplace` on a bounded scalar, a clamped sum and a sized
mean; `make_gaussian`; `make_geometric` behind a count) are audited through those presets, with the
library's own privacy map as the claim; the others need an input domain and metric chosen for
them (a vector, a dataframe, a queryable) and are listed with that reason.
"""

from __future__ import annotations

import functools

from .targets import LibraryNotInstalledError, Target, preset

LIBRARY = "opendp"
PRESETS: dict[str, tuple[str, ...]] = {
    "make_laplace": ("opendp_laplace", "opendp_sum", "opendp_mean"),
    "make_gaussian": ("opendp_gaussian",),
    "make_geometric": ("opendp_count",),
}


def targets() -> list[Target]:
    try:
        import opendp.measurements as measurements
    except ImportError as exc:
        raise LibraryNotInstalledError(
            f"opendp is not installed here ({exc}); pip install \"dpaudit[opendp]\""
        ) from exc
    found: list[Target] = []
    for name in sorted(n for n in dir(measurements) if n.startswith("make_")):
        presets = PRESETS.get(name, ())
        for registered in presets:
            export = f"measurements.{name}" + (f" ({registered})" if len(presets) > 1 else "")
            found.append(Target(library=LIBRARY, export=export, kind="mechanism",
                                build=functools.partial(preset, registered)))
        if not presets:
            found.append(Target(library=LIBRARY, export=f"measurements.{name}", kind="mechanism",
                                reason="needs an input domain and metric the scan does not build"))
    return found


