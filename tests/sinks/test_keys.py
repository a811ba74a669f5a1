"""``sinks.keys``: the closed key-name vocabulary and ``send-keys -l`` chunking.

Research §4: without ``-l`` a word is looked up as a key name first, so only
names from the vocabulary may reach that parser; literal text is chunked on
character boundaries to keep one tmux command under its 16 KiB message limit
(§2 "Message size").
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support import PrivateTmux
from tmuxmcp.errors import UnsafeValue
from tmuxmcp.sinks.keys import (
    KEY_VOCABULARY,
    MAX_LITERAL_CHUNK_BYTES,
    encode_key_name,
    literal_chunks,
)

# ------------------------------------------------------------------ vocabulary


@pytest.mark.parametrize(
    "name", ["Enter", "Escape", "Tab", "BSpace", "Space", "Up", "DC", "F1", "F12", "C-c", "M-a"]
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
        "a",
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
    assert len(KEY_VOCABULARY) == 16 + 12 + 26 + 36
    assert isinstance(KEY_VOCABULARY, frozenset)
    for name in KEY_VOCABULARY:
        assert name.isascii()
        assert name.isprintable()
        assert " " not in name
        assert not name.endswith(";")
        assert not name.startswith("-")


def test_tmux_parses_every_vocabulary_name_as_a_key(private_tmux: PrivateTmux) -> None:
    """Each name is a key name to tmux (``key_string_lookup_string``), never literal text.

    ``bind-key`` uses the same lookup as ``send-keys`` and fails with
    "unknown key" where ``send-keys`` would fall back to typing the text.
    """
    private_tmux.new_session("keys")
    argv: list[str] = []
    for name in sorted(KEY_VOCABULARY):
        argv += ["bind-key", "-T", "tmxvocab", name, "display-message", "x", ";"]
    private_tmux.bare(*argv[:-1])
    listed = private_tmux.bare("list-keys", "-T", "tmxvocab").stdout.splitlines()
    # C-i/Tab and C-m/Enter are one key each, so a few bindings coincide.
    assert len(KEY_VOCABULARY) - 4 <= len(listed) <= len(KEY_VOCABULARY)
    # Negative control: a non-name is not a key, so the check above can fail.
    bad = private_tmux.bare("bind-key", "-T", "tmxvocab", "Enterr", "display", "x", check=False)
    assert bad.returncode != 0
    assert "unknown key" in bad.stderr


# --------------------------------------------------------------------- chunking


def _check_chunks(text: str) -> list[str]:
    chunks = literal_chunks(text)
    assert "".join(chunks) == text
    for chunk in chunks:
        assert chunk, "no empty chunks"
        assert len(chunk.encode("utf-8")) <= MAX_LITERAL_CHUNK_BYTES
    # Greedy: a chunk ends only where the next character would not fit.
    for chunk, following in itertools.pairwise(chunks):
        size = len(chunk.encode("utf-8")) + len(following[0].encode("utf-8"))
        assert size > MAX_LITERAL_CHUNK_BYTES
    return chunks


def test_empty_text_has_no_chunks() -> None:
    assert literal_chunks("") == []


def test_small_text_is_one_chunk() -> None:
    assert _check_chunks("hello; world") == ["hello; world"]


def test_exactly_the_limit_is_one_chunk_and_one_more_byte_is_two() -> None:
    assert len(_check_chunks("a" * MAX_LITERAL_CHUNK_BYTES)) == 1
    assert _check_chunks("a" * (MAX_LITERAL_CHUNK_BYTES + 1))[1] == "a"


@pytest.mark.parametrize("char", ["é", "☺", "😀"])
def test_multibyte_characters_are_never_split(char: str) -> None:
    text = "a" + char * (MAX_LITERAL_CHUNK_BYTES // len(char.encode("utf-8")) + 3)
    chunks = _check_chunks(text)
    assert len(chunks) == 2
    for chunk in chunks:
        chunk.encode("utf-8").decode("utf-8")  # each chunk is whole characters


def test_chunks_respect_the_limit_with_combining_marks() -> None:
    """Chunks split between code points, not graphemes: a combining mark may start one.

    That is harmless for ``send-keys -l``, which injects one code point per key.
    """
    text = "e\u0301" * MAX_LITERAL_CHUNK_BYTES  # 3 bytes per pair
    chunks = _check_chunks(text)
    assert len(chunks) == 4
    assert chunks[1].startswith("\u0301")


_RUNS = st.lists(
    st.tuples(st.sampled_from(["a", ";", "é", "☺", "😀", "\n", "\x1b"]), st.integers(1, 9000)),
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(_RUNS)
def test_chunking_property(runs: list[tuple[str, int]]) -> None:
    _check_chunks("".join(char * count for char, count in runs))


@given(st.text(max_size=200))
def test_short_text_is_a_single_chunk(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return  # not argv text at all; require_argv_text refuses it first
    assert literal_chunks(text) == ([text] if text else [])
