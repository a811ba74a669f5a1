"""Generated documentation, derived from the capability definition (CM-5, CM-7).

``python -m tmuxmcp.docgen --write`` rewrites every generated block and file;
``--check`` (the default) exits 1 if any is stale. One module per job:

* ``blocks``        the machinery: block names to renderers, ``regenerate``,
                    ``stale``, ``main``, and ``docs/capabilities.json``;
* ``reference``     the tool reference (docs/tools.md);
* ``hint_tables``   the annotation tables, rendered from ``capability.scenarios``;
* ``configuration`` commands, flags and toolsets (docs/configuration.md);
* ``trust``         the authority and disclosure tables (docs/trust.md);
* ``permissions``   Claude Code's allow rule for the observe-only tools
                    (docs/quickstart.md);
* ``schema_text``   a JSON Schema in a few words; ``markdown`` table cells.

Rules kept by every module here:

1. Nothing about a tool's authority is typed into docgen; every row comes
   from the definition (through ``params_of``, ``describe``,
   ``input_schema``, ``output_schema``, the surface resolver and the
   annotation rule) or, for the command line, from the settings table
   (``tmuxmcp.settings``) that the parser is built from.
2. Annotations are computed, never copied: ``capability.scenarios`` resolves
   each documented scenario's surface and evidence exactly as
   ``runtime.decide`` does at startup.
3. Output is deterministic (definition order, sorted sets), so ``--check`` is
   a plain string comparison.
"""

from tmuxmcp.docgen.blocks import BLOCKS as BLOCKS
from tmuxmcp.docgen.blocks import DECLARED as DECLARED
from tmuxmcp.docgen.blocks import FILES as FILES
from tmuxmcp.docgen.blocks import Declared as Declared
from tmuxmcp.docgen.blocks import UnknownBlock as UnknownBlock
from tmuxmcp.docgen.blocks import documents as documents
from tmuxmcp.docgen.blocks import main as main
from tmuxmcp.docgen.blocks import regenerate as regenerate
from tmuxmcp.docgen.blocks import stale as stale
