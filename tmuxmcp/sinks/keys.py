"""The keys sink: what ``send-keys`` does with its arguments.

What tmux does (cmd-send-keys.c): without ``-l`` each word is first looked up
as a key *name* (``Enter``, ``C-c``, ``0x41``, ``M-a``, ``F1``...) and only
falls back to literal text when it is not one, so free text is ambiguous.
With ``-l`` the text is split into UTF-8 characters, each injected as a key;
bytes reach the program exactly unless the pane is in a mode (copy or view
mode), where every character is a mode key binding that can run commands.

Rules:
* Key names come only from the closed vocabulary below, never from free text.
* Literal text goes through ``send-keys -l --`` in chunks that keep one tmux
  command under its 16 KiB message limit, and only when the pane is not in a
  mode; larger text goes through a tmux buffer (``load-buffer -``).
"""

from __future__ import annotations

from tmuxmcp.errors import UnsafeValue

_NAMED = (
    "Enter",
    "Escape",
    "Tab",
    "BTab",
    "BSpace",
    "Space",
    "Up",
    "Down",
    "Left",
    "Right",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "Insert",
    "DC",
)
_FUNCTION = tuple(f"F{n}" for n in range(1, 13))
_CONTROL = tuple(f"C-{c}" for c in "abcdefghijklmnopqrstuvwxyz")
_META = tuple(f"M-{c}" for c in "abcdefghijklmnopqrstuvwxyz0123456789")

KEY_VOCABULARY: frozenset[str] = frozenset(_NAMED + _FUNCTION + _CONTROL + _META)

# tmux rejects a command whose packed argv exceeds 16364 bytes (client.c,
# MAX_IMSGSIZE); keep a margin for the command name, flags and target.
MAX_LITERAL_CHUNK_BYTES = 16000


def encode_key_name(value: str, param: str) -> str:
    """Return ``value`` if it is in the key vocabulary, else raise."""
    if value not in KEY_VOCABULARY:
        raise UnsafeValue(f"`{param}` must be a key name from the documented vocabulary")
    return value


def literal_chunks(text: str) -> list[str]:
    """Split ``text`` on character boundaries into argv-sized pieces."""
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for ch in text:
        width = len(ch.encode("utf-8"))
        if size + width > MAX_LITERAL_CHUNK_BYTES:
            chunks.append("".join(current))
            current, size = [], 0
        current.append(ch)
        size += width
    if current:
        chunks.append("".join(current))
    return chunks
