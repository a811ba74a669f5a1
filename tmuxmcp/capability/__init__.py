"""The capability definition and everything derived from it (ADR 0001, CM-2..CM-5, CM-7).

* ``vocabulary``  the closed value sets of CM-2 and CM-3;
* ``params``      reusable parameter types, each carrying its sink and encoding;
* ``model``       ``ToolSpec``: one tool's declared authority;
* ``definition``  THE authoritative list of tools;
* ``surface``     the startup decision of which tools are served (CM-3);
* ``annotations`` whole-call MCP annotations from the definition (CM-4);
* ``describe``    tool descriptions from the definition (CM-7);
* ``manifest``    the machine-readable forms (``tmuxmcp manifest``/``surface``).
"""
