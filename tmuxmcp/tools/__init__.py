"""Tool implementations: argument Structs, result Structs and handlers.

What each tool may do, and which handler implements it, is declared once in
:mod:`tmuxmcp.definition`, the layer above this package; nothing here imports
it. A handler receives arguments the dispatcher has already decoded and
encoded for their sinks (``capability.encode``).
"""
