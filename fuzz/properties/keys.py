"""The keys sink: ``keys-or-text`` (``send_keys``' keys and text parts, issue 28.4).

What a pane's program receives is read by a raw reader pane
(``fuzz/reader.py``): key parts deliver the bytes bare ``send-keys`` of
those names delivers, and text parts arrive byte for byte, each newline as
CR, in order (CM-5). A text part is refused while the pane is in a tmux mode
(nothing of it or after it arrives), unless keys before it left the mode.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from fuzz.calls import arguments
from fuzz.cases import Case
from fuzz.harness import Harness
from fuzz.oracles import is_control, is_text
from fuzz.properties.base import Property
from fuzz.strategies import dangerous_text, hostile_text, huge_text, json_scalars
from tmuxmcp.driver.argv import escape_element
from tmuxmcp.sinks.keys import KEY_VOCABULARY, PRINTABLE_KEYS

MARK = "FUZZ-END-MARK"
SEPARATOR = "\x1f"
"""Between keys in the reference reader: no key of the vocabulary sends it."""
NOT_KEYS = ["enter", "C-", "0x41", "Enter;", "C-c ", "Home\n", "^C", "M-A", "F13", "C-M-x", "é"]
NAMES = sorted(KEY_VOCABULARY - set(PRINTABLE_KEYS))
MAX_PARTS = 200
MAX_TEXT = 1024 * 1024


def _text_ok(text: Any) -> bool:
    return (
        isinstance(text, str)
        and is_text(text)
        and not any(is_control(ch) and ch not in "\n\t" for ch in text)
        and len(text.encode()) <= MAX_TEXT
    )


def _accepted(value: Any) -> bool:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_PARTS:
        return False
    texts = 0
    for part in value:
        if isinstance(part, dict):
            if set(part) != {"text"} or not _text_ok(part["text"]):
                return False
            texts += len(part["text"].encode())
        elif not (isinstance(part, str) and part in KEY_VOCABULARY):
            return False
    return texts <= MAX_TEXT


def _expected(h: Harness, value: list[Any]) -> bytes:
    """What a raw reader should get: each key's bytes as bare ``send-keys`` delivers them
    (read back from a reference reader, one separator after each), each text part's
    bytes with newlines as CR."""
    keys = [part for part in value if not isinstance(part, dict)]
    sent: list[bytes] = []
    if keys:
        reference = h.reader(until=MARK)
        argv: list[str] = []
        for key in keys:
            argv += [*([";"] if argv else []), "send-keys", "-t", reference.pane, "--",
                     escape_element(key), ";", "send-keys", "-l", "-t", reference.pane, "--",
                     SEPARATOR]  # fmt: skip
        h.bare(*argv, ";", "send-keys", "-l", "-t", reference.pane, "--", MARK)
        sent = h.received(reference).split(SEPARATOR.encode())
    found = iter(sent)
    return b"".join(
        part["text"].replace("\n", "\r").encode() if isinstance(part, dict) else next(found)
        for part in value
    )


class KeysOrText(Property):
    name = "keys-or-text"
    invariant = (
        "a list of 1..200 parts, each a key from the vocabulary (names, one printable "
        "character) or {text} without control characters but tab and newline, delivers in "
        "order what bare send-keys of the keys and send-keys -l of the text (newline as CR) "
        "deliver to a raw pane program; text while the pane is in copy mode is refused with "
        "nothing delivered unless a q before it left the mode; anything else is refused and "
        "never reaches tmux"
    )
    ci_examples = 10

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        key = st.one_of(st.sampled_from(NAMES), st.sampled_from(PRINTABLE_KEYS))
        text = st.builds(
            lambda t: {"text": t},
            st.one_of(dangerous_text(control=False, max_size=40), st.just("a\tb\nc;")),
        )
        junk = st.one_of(
            hostile_text(max_size=6),
            st.sampled_from(NOT_KEYS),
            st.builds(lambda t: {"text": t}, hostile_text(max_size=8)),
            st.builds(lambda t: {"text": t}, huge_text()),
            st.just({"txt": "a"}),
            json_scalars(),
        )
        parts = st.lists(st.one_of(key, text), min_size=1, max_size=8)
        mixed = st.lists(st.one_of(key, text, junk), min_size=1, max_size=4)
        whole = st.sampled_from([[], ["Enter"] * 201, [{"text": "x" * (MAX_TEXT + 1)}]])
        return st.tuples(st.one_of(parts, parts, mixed, whole, json_scalars()), st.booleans())

    def pinned(self, case: Case) -> list[Any]:
        return [
            ([{"text": "q hello q #(touch SENTINEL);"}, "Enter"], True),  # refused in copy mode
            (["q", {"text": "after q #(touch SENTINEL);"}, "Enter"], True),  # q left the mode
            ([{"text": "safe\x1b[201~rm"}], False),  # ESC is a key: refused
            ([{"text": "é;" * 30_000}, ";", {"text": "x\ty"}], False),  # past 16 KiB, in order
            ([";", "-", "^", "#", "~", " ", "{", "}", "\\"], False),  # one-character keys
            ([{"text": "line\r\nbreak"}], False),  # CR is a key: refused
        ]

    def check(self, h: Harness, case: Case, raw: Any) -> None:
        value, copy_mode = raw
        value = h.substitute(value)
        world = h.world()
        if not _accepted(value):
            outcome = h.call(case.spec.name, arguments(case, world, value))
            h.check_common(outcome)
            h.refused(outcome)
            return
        first_text = next((i for i, p in enumerate(value) if isinstance(p, dict)), None)
        if copy_mode and first_text is not None and "q" not in value[:first_text]:
            reader = h.reader(until=MARK)
            h.bare("copy-mode", "-t", reader.pane)
            args = arguments(case, world, value) | {"pane_id": reader.pane}
            outcome = h.call(case.spec.name, args)
            h.check_common(outcome)
            assert outcome.is_error and outcome.slug == "pane-not-ready", outcome.text
            h.bare("send-keys", "-X", "-t", reader.pane, "cancel", check=False)
            h.bare("send-keys", "-l", "-t", reader.pane, "--", MARK)
            # Keys before the text acted on the mode; nothing reached the program.
            assert h.received(reader) == b""  # the reader drops the mark itself
            return
        if copy_mode:
            return  # keys in a mode act on the mode: no bytes to compare (see pinned)
        expected = _expected(h, value)
        reader = h.reader(until=MARK)
        outcome = h.call(case.spec.name, arguments(case, world, value) | {"pane_id": reader.pane})
        h.check_common(outcome)
        assert not outcome.is_error, outcome.text
        h.bare("send-keys", "-l", "-t", reader.pane, "--", MARK)
        assert h.received(reader) == expected
