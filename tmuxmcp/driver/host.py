"""What the host's filesystem says about a path a call names (issue 21.4).

The sinks are pure (``sinks``): they decide whether a value is safe for its
interpreter from the value alone. Whether a start directory exists is a
question for the machine, asked here, in the IO layer, by the encoding step
(``capability.encode``) for every parameter whose encoding declares it
(``Encoding.DIRECTORY``).

Rules kept here:

* the path is one the pure rule already accepted (absolute, normalized, no
  control characters: ``sinks.path``), so no relative lookup is made;
* the answer is the kernel's at the time of the call: a directory removed
  afterwards reaches tmux, which then falls back as it does for any
  vanished directory;
* the error names the parameter, never the path (errors carry no payloads).
"""

from __future__ import annotations

import os

from tmuxmcp.errors import UnsafeValue


def require_directory(path: str, param: str) -> None:
    """Refuse ``path`` unless it names an existing directory now."""
    if not os.path.isdir(path):
        raise UnsafeValue(f"`{param}` is not an existing directory")
