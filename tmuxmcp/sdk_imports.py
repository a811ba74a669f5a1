"""Load the SDK's server modules without running its packages' re-export files.

``import mcp.server.lowlevel.server`` first executes ``mcp/__init__.py`` and
``mcp/server/__init__.py``. Those files only re-export names, but to do so
they import the whole client (``mcp.client``, its HTTP stack) and the
high-level ``MCPServer`` with its resource machinery, none of which ``serve``
uses. Measured here (bench/README.md, "cold start"), that is about 0.1-0.17 s
of CPU of a cold start whose total is about 0.7 s.

``prepare`` registers each of those two packages as a plain package module
made from its import spec (``importlib.util.module_from_spec``): it has the
package's ``__path__``, so its submodules import as usual from the same files,
but its ``__init__`` is not run. Nothing the server imports reads names from
the two package namespaces (``from mcp import X``); if a future SDK did, the
import fails at startup, and ``import_server`` then drops the shells and the
half-imported modules and imports everything the ordinary way. A process that
has already imported ``mcp`` (tests, the in-memory benchmark client) is left
alone.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType

PACKAGES = ("mcp", "mcp.server")


def prepare() -> bool:
    """Register shells for ``PACKAGES``; False (and nothing changed) if not possible."""
    if any(name in sys.modules for name in PACKAGES):
        return False
    added: list[str] = []
    for name in PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None or spec.submodule_search_locations is None:
            for done in reversed(added):
                del sys.modules[done]
            return False
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        added.append(name)
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)
    return True


def _forget(names: tuple[str, ...]) -> None:
    """Drop ``names`` and their submodules from ``sys.modules``."""
    prefixes = tuple(f"{name}." for name in names)
    for name in [n for n in sys.modules if n in names or n.startswith(prefixes)]:
        del sys.modules[name]


def import_through_shells(module: str) -> ModuleType:
    """``module``, imported through the shells when they work, else the ordinary way."""
    if module in sys.modules or not prepare():
        return importlib.import_module(module)
    try:
        return importlib.import_module(module)
    except ImportError:
        _forget((*PACKAGES, module))
        return importlib.import_module(module)


def import_server() -> ModuleType:
    """``tmuxmcp.server`` without the SDK's package re-exports, if it can be had."""
    return import_through_shells("tmuxmcp.server")
