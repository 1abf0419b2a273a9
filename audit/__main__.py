"""`python -m audit` is the `dpaudit` command."""

from audit.cli import main

raise SystemExit(main())
