"""Interpreter boundaries that a caller's value can reach inside tmux.

One module per boundary. Each says what tmux does with bytes there, gives the
encoder that makes a caller's value arrive exactly as intended, and names what
can never be made safe (such values are rejected with ``UnsafeValue``).

The vocabulary below is what the capability definition uses to classify every
caller-controlled parameter (ADR 0001, CM-5). It is measured against tmux, not
inferred from parameter names: see ``../shared/research/tmux-sinks.md`` and the
fuzz suite.
"""

from __future__ import annotations

from enum import StrEnum


class Sink(StrEnum):
    """The interpreter boundary a parameter's value reaches."""

    LITERAL = "literal"
    """Stored or used by tmux byte for byte (after the argv layer)."""
    TMUX_FORMAT = "tmux-format"
    """Passed through tmux's format expander: ``#{}``, ``#()``, ``##``."""
    KEYS = "keys"
    """Injected into a pane as keys (key names, or literal characters with ``-l``)."""
    SHELL = "shell"
    """Read by a shell: a pane's shell for pane commands; never a host-side shell (CM-6)."""
    TARGET = "target"
    """A ``-t``/``-s`` target, restricted to exact tmux ids (``$N``, ``@N``, ``%N``)."""
    NUMERIC = "numeric"
    """Parsed by tmux as a number (format-expanded first on tmux >= 3.4)."""
    FLAG = "flag"
    """Selects whether a fixed flag is passed; no caller bytes reach tmux."""
    LOCAL = "local"
    """Consumed by tmuxmcp itself (limits, caps); never reaches tmux."""


class Encoding(StrEnum):
    """What tmuxmcp does to a value before it reaches its sink."""

    NONE = "none"
    """Nothing: the value never reaches tmux (sink ``local``)."""
    FIXED_FLAG = "fixed-flag"
    """A boolean chooses between passing a constant flag or not."""
    ID_ONLY = "id-only"
    """Must fully match the id pattern; names, prefixes and patterns are refused."""
    VALIDATED_INTEGER = "validated-integer"
    """A range-checked integer rendered in decimal: no ``#`` can reach a format."""
    FORMAT_ESCAPE = "format-escape"
    """``#`` runs doubled except before ``[`` so expansion yields the value itself."""
    FORMAT_TIME_ESCAPE = "format-time-escape"
    """``format-escape`` plus ``%`` doubled, where strftime runs before expansion."""
    ARGV_ONLY = "argv-only"
    """Only the argv-layer rules (trailing ``;``, ``--``) apply."""
    SHELL_QUOTE = "shell-quote"
    """Quoted for a POSIX shell running in a pane."""
    NAME_RULE = "name-rule+format-escape"
    """Checked by the name rule (``sinks.names``), then format-escaped."""
    DIRECTORY = "existing-directory+format-escape"
    """An existing absolute directory (the rule in ``sinks.path``; existence asked of
    the host, ``driver.host``), then format-escaped."""
    CLOSED_VOCABULARY = "closed-vocabulary"
    """One of a fixed list of values defined by tmuxmcp."""
    KEYS_OR_TEXT = "keys-or-text"
    """Each item a key from a closed list (names, or one printable character), sent by
    ``send-keys``; or ``{"text"}``, stored in a paste buffer and written to the pane by
    ``paste-buffer``: no key-name parsing, no mode key bindings, refused while the pane
    is in a mode; control characters other than tab and newline are refused."""
    PANE_SHELL_TEXT = "pane-shell-text"
    """Typed verbatim into the pane's own shell (through a paste buffer) inside a
    generated wrapper; it is a command and does whatever it says."""


__all__ = ["Encoding", "Sink"]
