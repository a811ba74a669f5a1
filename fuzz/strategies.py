"""Hypothesis strategies weighted towards what tmux's interpreters treat specially.

Plain random text almost never contains ``#(``, a trailing ``;`` or a lone
surrogate; these strategies make such inputs common. Three alphabets:

* DANGEROUS: one character each for every layer in research/tmux-sinks.md:
  format (``# { } [ ] ( ) , %``), argv (``;`` and ``-``), targets (``: . $ @ %
  = ~ ! ^``), shells (``' " $ ` \\ ~ * ?``) and the name rule (``$ \\``);
* CONTROL: C0, DEL and C1 characters, which names and text refuse;
* NON_ASCII: wide, combining, zero-width and invisible characters, and ones
  that libc's wcwidth calls unprintable (tmux vis-encodes those in names).

TOKENS are multi-character sequences that only mean something whole (``#(``,
``#{``, ``\\;``). Payloads that would run something contain the placeholder
``SENTINEL``; the harness replaces it with a path in its sentinel directory,
so any job that runs leaves a file behind.

Lone surrogates and NUL cannot be produced by the text alphabets alone, so
``hostile_text`` mixes them in explicitly; over the wire they travel as JSON
``\\udXXX`` escapes (``json.dumps`` escapes non-ASCII by default).
"""

from __future__ import annotations

import string
from typing import Any

from hypothesis import strategies as st

SENTINEL = "SENTINEL"
"""Placeholder for a sentinel path; the harness substitutes a real one."""

DANGEROUS = "#{}()[];\\%-:.'\"$\n,=~!^@&*?|<> `+/"
CONTROL = "".join(chr(c) for c in (*range(0x01, 0x20), 0x7F, 0x80, 0x85, 0x9B, 0x9F))
NON_ASCII = (
    "é☺日😀\u0301\u200b\u200e\ufeff\u00a0\u3000\u00ad\ue000\U0001f1e6"
    "\u0378\u2028\u2029\uffff\U0010ffff"  # wcwidth < 0: tmux vis-encodes them in names
)
LONE_SURROGATES = ("\ud800", "\udbff", "\udc00", "\udfff")

TOKENS = (
    f"#(touch {SENTINEL})",
    f"##(touch {SENTINEL})",
    f"#[fg=red]#(touch {SENTINEL})",
    f"$(touch {SENTINEL})",
    f"`touch {SENTINEL}`",
    f"; run-shell 'touch {SENTINEL}'",
    "#{session_name}",
    "#{pane_id}",
    "#{?1,a,b}",
    "#{l:x}",
    "#S",
    "##",
    "###[",
    "#,",
    "#}",
    "%H",
    "%%",
    ";",
    "\\;",
    "--",
    "-t",
    "-F",
    "{last}",
    "=",
    "~",
    "%0",
    "@0",
    "$0",
    "${HOME}",
    "\\",
    "\x1b[201~",
)

_ALPHABET = st.sampled_from(
    list(DANGEROUS) * 4 + list(string.ascii_letters + string.digits) * 2 + list(NON_ASCII)
)


def dangerous_pieces(*, control: bool = True) -> st.SearchStrategy[str]:
    """One piece of hostile text: a dangerous character, a token or a run of letters."""
    pieces = [
        _ALPHABET,
        _ALPHABET,
        st.sampled_from(TOKENS),
        st.text(st.characters(codec="utf-8"), min_size=1, max_size=3),
    ]
    if control:
        pieces.append(st.sampled_from(CONTROL))
    return st.one_of(*pieces)


def dangerous_text(
    *, min_size: int = 0, max_size: int = 40, control: bool = True
) -> st.SearchStrategy[str]:
    """Hostile text, mostly short, built from dangerous pieces."""
    return st.lists(dangerous_pieces(control=control), min_size=min_size, max_size=max_size).map(
        "".join
    )


def huge_text() -> st.SearchStrategy[str]:
    """Text past every limit: tmux's 16 KiB argv, 1 MiB text, 4 KiB paths."""
    return st.tuples(
        dangerous_text(max_size=5, control=False),
        st.sampled_from([16_365, 65_537, 1024 * 1024 + 1, 3 * 1024 * 1024]),
        st.sampled_from(["a", "é", "😀", "#", ";"]),
    ).map(lambda t: t[0] + t[2] * (t[1] // len(t[2].encode())))


def hostile_text(*, max_size: int = 40) -> st.SearchStrategy[str]:
    """Any hostile string: dangerous text, sometimes with NUL or a lone surrogate."""
    return st.one_of(
        dangerous_text(max_size=max_size),
        dangerous_text(max_size=max_size),
        dangerous_text(max_size=max_size),
        st.tuples(
            dangerous_text(max_size=8),
            st.sampled_from(["\x00", *LONE_SURROGATES]),
            dangerous_text(max_size=8),
        ).map("".join),
    )


def id_like(prefixes: str = "$@%") -> st.SearchStrategy[str]:
    """Strings that look like tmux ids, most of them not exact ids."""
    prefix = st.sampled_from(list(prefixes))
    digits = st.one_of(
        st.integers(0, 30).map(str),
        st.integers(0, 10**12).map(str),
        st.tuples(st.integers(1, 3), st.integers(0, 30)).map(lambda t: "0" * t[0] + str(t[1])),
    )
    junk = st.sampled_from(["", " ", "\n", ";", ":", ".", "-", "+", "x", "\x00", "\ud800"])
    return st.one_of(
        st.tuples(prefix, digits).map("".join),
        st.tuples(junk, prefix, digits, junk).map("".join),
        st.tuples(prefix, st.sampled_from(["+1", "-1", "", "{last}", "=x"])).map("".join),
    )


def json_scalars() -> st.SearchStrategy[Any]:
    """Any JSON scalar, with hostile strings and integers past every bound."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.sampled_from([0, 1, -1, 2**31 - 1, -(2**31), 2**63, -(2**63) - 1, 10**30]),
        st.floats(allow_nan=False, allow_infinity=False),
        hostile_text(),
        id_like(),
    )


def json_values(*, max_leaves: int = 8) -> st.SearchStrategy[Any]:
    """Any JSON value: scalars, and lists and objects of them (keys hostile too)."""
    return st.recursive(
        json_scalars(),
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(hostile_text(max_size=6), inner, max_size=4),
        ),
        max_leaves=max_leaves,
    )
