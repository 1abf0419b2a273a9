"""`python -m dpaudit` is the `dpaudit` command."""

from dpaudit.app.cli import main

raise SystemExit(main())
