"""``python -m tmuxmcp.docgen [--write | --check]``."""

import sys

from tmuxmcp.docgen.blocks import main

raise SystemExit(main(sys.argv[1:]))
