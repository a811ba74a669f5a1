"""``python -m tmuxmcp``: the same entry point as the ``tmuxmcp`` script."""

from tmuxmcp.cli import main

raise SystemExit(main())
