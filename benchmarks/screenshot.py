"""Render an HTML report to PNG with headless Chromium (issue 8: "how the page looks").

Usage::

    python3 benchmarks/screenshot.py REPORT.html [REPORT2.html ...] [--out DIR]
        [--width 1280] [--height 2400] [--chromium /usr/bin/chromium]

Writes `<DIR>/<report stem>.png` for each page (default DIR: next to each page) and prints
the PNG path, its size in pixels and the seconds Chromium took. The pages are
self-contained, so Chromium runs with networking features off; a page that tried to load an
external resource would render with it missing. Chromium (Debian: `apt-get install chromium`)
is not a dependency of dpaudit; this script is a manual check of the rendering, not a test.
`--height 800` renders the first screen of a 1280 × 800 window only: the verdict block (with
its claim / white-box / certified bars) must be in it, the privacy region just below.
"""

from __future__ import annotations

import argparse
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def find_chromium(explicit: str | None) -> str:
    for candidate in (explicit, "chromium", "chromium-browser", "google-chrome"):
        if candidate and (path := shutil.which(candidate)):
            return path
    raise SystemExit("screenshot: no Chromium found (apt-get install -y chromium, or pass --chromium PATH)")


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from the PNG header."""
    header = path.read_bytes()[:24]
    if header[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    width, height = struct.unpack(">II", header[16:24])
    return int(width), int(height)


def screenshot(
    html: Path, png: Path, *, chromium: str, width: int = 1280, height: int = 2400, timeout: float = 120.0
) -> float:
    """Render `html` to `png`; returns the seconds taken. Raises on a Chromium failure."""
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dpaudit-chromium-") as profile:
        cmd = [
            chromium,
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            f"--screenshot={png.resolve()}",
            html.resolve().as_uri(),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0 or not png.exists():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"chromium failed on {html} (exit {proc.returncode}): {' | '.join(tail)}")
    return time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("pages", nargs="+", type=Path, help="HTML files to render")
    p.add_argument("--out", type=Path, help="directory for the PNGs (default: next to each page)")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=2400)
    p.add_argument("--chromium", help="Chromium executable (default: found on PATH)")
    args = p.parse_args(argv)
    chromium = find_chromium(args.chromium)
    status = 0
    for page in args.pages:
        if not page.is_file():
            print(f"screenshot: no such file: {page}", file=sys.stderr)
            status = 2
            continue
        png = (args.out or page.parent) / f"{page.stem}.png"
        try:
            seconds = screenshot(page, png, chromium=chromium, width=args.width, height=args.height)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            print(f"screenshot: {exc}", file=sys.stderr)
            status = 1
            continue
        w, h = png_size(png)
        print(f"{png}  {w}x{h}  {seconds:.1f} s")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
