"""``sinks.keys``: the closed key vocabulary (names, and one printable character each).

Research §4: without ``-l`` a word is looked up as a key name first, so only
names from the vocabulary may reach that parser.
"""

from __future__ import annotations

import pytest

from tests.support import PrivateTmux
from tmuxmcp.errors import UnsafeValue
from tmuxmcp.sinks.keys import (
    KEY_NAMES,
    KEY_VOCABULARY,
    PRINTABLE_KEYS,
    encode_key_name,
)

# ------------------------------------------------------------------ vocabulary


@pytest.mark.parametrize(
    "name",
    [
        "Enter",
        "Escape",
        "Tab",
        "BSpace",
        "Space",
        "Up",
        "DC",
        "F1",
        "F12",
        "C-c",
        "M-a",
        "a",
        "q",
        ":",
        ";",
        "-",
        "^",
        " ",
        "~",
    ],
)
def test_vocabulary_names_are_accepted(name: str) -> None:
    assert encode_key_name(name, "key") == name


@pytest.mark.parametrize(
    "name",
    [
        "",
        "enter",
        "ENTER",
        " Enter",
        "Enter ",
        "Enter\n",
        "Enter;",
        "C-C",
        "C-M-x",
        "^C",
        "0x41",
        "0x263a",
        "F13",
        "F0",
        "S-Up",
        "é",
        "\t",
        "hello",
        "KP0",
        "MouseDown1Pane",
        "C-c C-c",
        "#{pane_id}",
    ],
)
def test_anything_outside_the_vocabulary_is_refused(name: str) -> None:
    with pytest.raises(UnsafeValue) as info:
        encode_key_name(name, "keys")
    assert "`keys`" in info.value.message
    if len(name) > 3:
        assert name not in info.value.message  # the payload is never echoed


def test_vocabulary_size_and_shape() -> None:
    """Names of more than one character, and (issue 28.4) every printable ASCII character."""
    assert len(KEY_NAMES) == 16 + 12 + 26 + 36
    assert KEY_NAMES | set(PRINTABLE_KEYS) == KEY_VOCABULARY
    assert len(PRINTABLE_KEYS) == 95 and all(len(key) == 1 for key in PRINTABLE_KEYS)
    assert isinstance(KEY_VOCABULARY, frozenset)
    for name in KEY_NAMES:
        assert name.isascii()
        assert name.isprintable()
        assert " " not in name
        assert not name.endswith(";")
        assert not name.startswith("-")
    for key in PRINTABLE_KEYS:
        assert key.isascii() and key.isprintable()


def test_tmux_parses_every_vocabulary_name_as_a_key(private_tmux: PrivateTmux) -> None:
    """Each name is a key name to tmux (``key_string_lookup_string``), never literal text.

    ``bind-key`` uses the same lookup as ``send-keys`` and fails with
    "unknown key" where ``send-keys`` would fall back to typing the text.
    """
    private_tmux.new_session("keys")
    argv: list[str] = []
    for name in sorted(KEY_NAMES):
        argv += ["bind-key", "-T", "tmxvocab", name, "display-message", "x", ";"]
    private_tmux.bare(*argv[:-1])
    listed = private_tmux.bare("list-keys", "-T", "tmxvocab").stdout.splitlines()
    # C-i/Tab and C-m/Enter are one key each, so a few bindings coincide.
    assert len(KEY_NAMES) - 4 <= len(listed) <= len(KEY_NAMES)
    # Negative control: a non-name is not a key, so the check above can fail.
    bad = private_tmux.bare("bind-key", "-T", "tmxvocab", "Enterr", "display", "x", check=False)
    assert bad.returncode != 0
    assert "unknown key" in bad.stderr
