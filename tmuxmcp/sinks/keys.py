"""The keys sink: what ``send-keys`` does with its arguments.

What tmux does (cmd-send-keys.c): without ``-l`` each word is first looked up
as a key *name* (``Enter``, ``C-c``, ``0x41``, ``M-a``, ``F1``...) and only
falls back to literal text when it is not one, so free text is ambiguous.
With ``-l`` the text is split into UTF-8 characters, each injected as a key;
bytes reach the program exactly unless the pane is in a mode (copy or view
mode), where every character is a mode key binding that can run commands.

A word of one printable ASCII character (`` `` to ``~``) is that character's
key (key-string.c ``key_string_lookup_string``: a one-byte string of 32 or
more is its own key code; ``^`` needs a second character to mean Ctrl, and a
modifier needs its ``-`` and a key after it). Sent to a pane in a mode, it is
that mode's binding (``q`` leaves copy mode), run before the next command of
the same invocation (``key_bindings_dispatch`` inserts it right after
send-keys). Two words need the argv layer: ``;`` alone would end the command,
so ``driver.argv`` escapes it (Rule 1 there), and ``-`` alone follows
``--``. Claim ``key-printable`` proves each one arrives as its byte and that
``q`` has left copy mode for the command after it (``tmuxmcp verify``).

Rules:
* Key names come only from the closed vocabulary below, never from free text:
  a name from the table, or one printable ASCII character.
* Literal text never goes through ``send-keys``: ``send_keys``' text parts
  and ``run_command`` deliver it through a tmux buffer (see ``sinks.text``).
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

PRINTABLE_KEYS = tuple(chr(code) for code in range(0x20, 0x7F))
"""One printable ASCII character each, space to ``~``: a key press of that character."""

KEY_NAMES: frozenset[str] = frozenset(_NAMED + _FUNCTION + _CONTROL + _META)
"""The named keys (``Enter``, ``C-c``, ...): tmux key names, claim ``key-names``."""

KEY_VOCABULARY: frozenset[str] = KEY_NAMES | frozenset(PRINTABLE_KEYS)

# tmux rejects a command whose packed argv exceeds 16364 bytes (client.c,
# MAX_IMSGSIZE); keep a margin for the command name, flags and target.
MAX_LITERAL_CHUNK_BYTES = 16000


# Other spellings of the same keys, for suggestions in errors only: a value is
# never *accepted* through this table (see ``suggest_key``).
_MODIFIER_SPELLINGS = {
    "C-": ("ctrl-", "ctrl+", "control-", "control+", "ctl-", "c-", "^"),
    "M-": ("alt-", "alt+", "meta-", "meta+", "option-", "m-"),
}
_NAME_SPELLINGS = {
    "Escape": ("esc",),
    "Enter": ("return", "ret", "cr", "newline", "kpenter"),
    "BSpace": ("backspace", "bs"),
    "DC": ("delete", "del"),
    "Insert": ("ins",),
    "PageUp": ("pgup", "pageup", "ppage"),
    "PageDown": ("pgdn", "pgdown", "pagedown", "npage"),
    "BTab": ("shift-tab", "s-tab", "backtab"),
    "Up": ("arrowup", "uparrow"),
    "Down": ("arrowdown", "downarrow"),
    "Left": ("arrowleft", "leftarrow"),
    "Right": ("arrowright", "rightarrow"),
}


def suggest_key(value: str) -> str | None:
    """The vocabulary key that ``value`` most likely means, for an error message.

    Case-insensitive match first, then modifier spellings (``Ctrl-C``, ``^C``,
    ``Alt-x``) and common names (``Esc``, ``Return``); the answer is always a
    member of ``KEY_VOCABULARY``.
    """
    text = value.strip()
    folded = {key.lower(): key for key in KEY_NAMES}
    if text.lower() in folded:
        return folded[text.lower()]
    lowered = text.lower()
    for prefix, spellings in _MODIFIER_SPELLINGS.items():
        for spelling in spellings:
            rest = text[len(spelling) :]
            if lowered.startswith(spelling) and len(rest) == 1:
                candidate = prefix + rest.lower()
                if candidate in KEY_VOCABULARY:
                    return candidate
    squashed = lowered.replace(" ", "").replace("_", "")
    for key, spellings in _NAME_SPELLINGS.items():
        if squashed in spellings:
            return key
    return None


def encode_key_name(value: str, param: str) -> str:
    """Return ``value`` if it is in the key vocabulary, else raise saying what to send."""
    if value not in KEY_VOCABULARY:
        raise UnsafeValue(f"`{param}` {key_advice(value)}")
    return value


def key_advice(value: str) -> str:
    """Why ``value`` is no key, and what to send instead (for an error message)."""
    key = suggest_key(value)
    if key is not None:
        return f"is not a key name; did you mean `{key}`?"
    if len(value) == 1:
        return (
            "is a character that is no key here (keys are printable ASCII or names); "
            'send it as text: {"text": "…"}'
        )
    return (
        "is not a key name (Enter, Escape, Tab, C-c, M-x, F1, Up, or one printable "
        'character); send text as {"text": "…"}'
    )
