"""``sinks.shell``: quoting a value as one word for a POSIX shell in a pane (CM-6).

The round trip runs a real shell: ``sh -c 'printf "%s\\0" <quoted words>'``
must print every word exactly, with no expansion, splitting or globbing.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tmuxmcp.errors import UnsafeValue
from tmuxmcp.sinks.shell import quote_word

_SHELLS = [path for path in (shutil.which("sh"), shutil.which("bash")) if path is not None]


def _shell_words(shell: str, words: list[str], param: str = "word") -> list[str]:
    """What ``shell`` sees as the arguments after quoting each word."""
    script = "printf '%s\\0' " + " ".join(quote_word(word, param) for word in words)
    done = subprocess.run(
        [shell, "-c", script], capture_output=True, check=True, timeout=10, env={"HOME": "/h"}
    )
    out = done.stdout.decode("utf-8")
    assert out.endswith("\x00")
    return out[:-1].split("\x00")


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("plain", "plain"),
        ("a-b_c.d/e:f,g+h=i@j%k", "a-b_c.d/e:f,g+h=i@j%k"),
        ("", "''"),
        ("a b", "'a b'"),
        ("it's", "'it'\"'\"'s'"),
        ("$HOME", "'$HOME'"),
        ("~", "'~'"),
        ("*", "'*'"),
    ],
)
def test_quote_word_cases(value: str, quoted: str) -> None:
    assert quote_word(value, "w") == quoted


@pytest.mark.parametrize("shell", _SHELLS)
def test_dangerous_words_reach_the_shell_as_one_literal_word_each(shell: str) -> None:
    words = [
        "",
        " ",
        "a b",
        "it's",
        "''",
        '"dq"',
        "$HOME",
        "${HOME}",
        "$(echo pwned)",
        "`echo pwned`",
        "~",
        "~root",
        "*",
        "?",
        "[a]",
        "{a,b}",
        "a;b",
        "a|b",
        "a&b",
        "a>b",
        "<x",
        "#comment",
        "\\",
        "back\\slash",
        "new\nline",
        "tab\there",
        "-n",
        "é☺😀",
        "!",
        "a=b",
    ]
    assert _shell_words(shell, words) == words


_SHELL_ALPHABET = st.sampled_from(list("'\"\\$`~*?[]{}();|&<>#! \t\n=%@:,.-_aZ0é😀"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(_SHELL_ALPHABET, max_size=12), min_size=1, max_size=8))
def test_quote_word_round_trips_through_sh(words: list[str]) -> None:
    assert _shell_words(_SHELLS[0], words) == words


@pytest.mark.parametrize("value", ["a\x00b", "\ud800"])
def test_quote_word_rejects_what_argv_cannot_carry(value: str) -> None:
    with pytest.raises(UnsafeValue, match="`marker`"):
        quote_word(value, "marker")
