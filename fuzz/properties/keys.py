"""The keys sink: ``key-vocabulary`` and ``paste-exact``.

What a pane's program receives is read by a raw reader pane
(``fuzz/reader.py``): vocabulary names deliver the bytes bare ``send-keys``
delivers, and pasted text arrives byte for byte (CM-5).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from fuzz.calls import arguments
from fuzz.cases import Case
from fuzz.harness import Harness
from fuzz.oracles import is_control, is_text
from fuzz.properties.base import Property
from fuzz.schema import members
from fuzz.strategies import dangerous_text, hostile_text, huge_text, json_scalars

MARK = "FUZZ-END-MARK"
NOT_KEYS = ["enter", "C-", "0x41", "Enter;", "C-c ", "Home\n", "^C", "M-A", "F13", "C-M-x"]


class KeyVocabulary(Property):
    name = "key-vocabulary"
    invariant = (
        "a list of 1..200 names from the key vocabulary delivers the same bytes to a raw "
        "pane program as bare tmux send-keys of those names; free text and anything else is "
        "refused and never reaches tmux"
    )
    ci_examples = 10

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        names = members(case)
        junk = st.one_of(
            hostile_text(max_size=6),
            st.sampled_from(NOT_KEYS),
        )
        return st.one_of(
            st.lists(st.sampled_from(names), min_size=1, max_size=8),
            st.lists(st.sampled_from(names), min_size=1, max_size=8),
            st.lists(st.one_of(st.sampled_from(names), junk), min_size=1, max_size=4),
            st.sampled_from([[], ["Enter"] * 201]),
            json_scalars(),
        )

    def check(self, h: Harness, case: Case, value: Any) -> None:
        names = set(members(case))
        accepted = (
            isinstance(value, list)
            and 1 <= len(value) <= 200
            and all(isinstance(k, str) and k in names for k in value)
        )
        if not accepted:
            outcome = h.call(case.spec.name, arguments(case, h.world(), value))
            h.check_common(outcome)
            h.refused(outcome, param=case.param.name)
            return
        reference = h.reader(until=MARK)
        h.bare("send-keys", "-t", reference.pane, "--", *value, ";",
               "send-keys", "-l", "-t", reference.pane, "--", MARK)  # fmt: skip
        expected = h.received(reference)
        reader = h.reader(until=MARK)
        args = arguments(case, h.world(), value) | {"pane_id": reader.pane}
        outcome = h.call(case.spec.name, args)
        h.check_common(outcome)
        assert not outcome.is_error, outcome.text
        h.bare("send-keys", "-l", "-t", reader.pane, "--", MARK)
        assert h.received(reader) == expected


class PasteText(Property):
    name = "paste-exact"
    invariant = (
        "text without control characters other than newline, up to 1 MiB, reaches a raw pane "
        "program byte for byte, each newline as CR (Enter), then CR if enter, also while the "
        "pane is in copy mode; text with other control characters, NUL or lone surrogates, "
        "or over 1 MiB, is refused and never reaches tmux"
    )
    ci_examples = 10

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        text = st.one_of(
            dangerous_text(control=False, max_size=60),
            dangerous_text(control=False, max_size=60),
            st.lists(dangerous_text(control=False, max_size=20), min_size=2, max_size=4).map(
                "\n".join
            ),
            hostile_text(),
            huge_text(),
            st.just(""),
        )
        return st.tuples(text, st.booleans(), st.booleans(), st.booleans())

    def pinned(self, case: Case) -> list[Any]:
        return [
            ("q hello q #(touch SENTINEL);", True, False, True),  # copy mode: 'q' is no binding
            ("safe\x1b[201~rm", False, True, False),  # ESC could end a bracketed paste
            ("é;" * 30_000, True, True, False),  # 90 KB: far past tmux's 16 KiB argv limit
            ("a" * (1024 * 1024 + 1), False, False, False),  # one byte over the cap: refused
            ("def f():\n    return 5\n", True, True, False),  # newlines arrive as Enter (CR)
            ("line\r\nbreak", False, False, False),  # CR is a key: refused
        ]

    def check(self, h: Harness, case: Case, value: Any) -> None:
        text, enter, bracketed, copy_mode = value
        text = h.substitute(text)
        accepted = (
            is_text(text)
            and not any(is_control(ch) and ch != "\n" for ch in text)
            and len(text.encode()) <= 1024 * 1024
        )
        world = h.world()
        if not accepted:
            outcome = h.call(case.spec.name, arguments(case, world, text))
            h.check_common(outcome)
            h.refused(outcome)
            return
        expected = text.replace("\n", "\r").encode() + (b"\r" if enter else b"")
        reader = h.reader(count=len(expected)) if expected else None
        pane = reader.pane if reader else world.pane
        if copy_mode:
            h.bare("copy-mode", "-t", pane)
        args = arguments(case, world, text) | {
            "pane_id": pane, "enter": enter, "bracketed_paste": bracketed,
        }  # fmt: skip
        outcome = h.call(case.spec.name, args)
        h.check_common(outcome)
        assert not outcome.is_error, outcome.text
        if reader:
            assert h.received(reader) == expected
