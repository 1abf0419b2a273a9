"""`python -m dpaudit` is the `dpaudit` command."""

try:
    from .app.cli import main
except KeyboardInterrupt:  # Ctrl-C while Python imports the command line: no traceback
    import sys

    print("dpaudit: interrupted during start-up", file=sys.stderr)
    raise SystemExit(130) from None

raise SystemExit(main())
