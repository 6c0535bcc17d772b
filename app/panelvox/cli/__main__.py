"""``python -m panelvox.cli``: the ``panelvox`` command."""

from panelvox.cli import main

raise SystemExit(main())
