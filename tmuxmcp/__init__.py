"""tmuxmcp: a stdio MCP server that lets coding agents work inside tmux.

Every tool's authority is declared once, in :mod:`tmuxmcp.definition`;
registration, schemas, descriptions, annotations, ``tmuxmcp manifest`` and the
docs are derived from that definition (ADR 0001, CM-5).
"""

__version__ = "0.1.0"
