"""The literal sink of buffer names: ``literal-buffer-name`` (literal / argv-only).

A buffer name without control characters names exactly that buffer, passed
as one argv element; the bystander's buffer is never touched (CM-5).
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from fuzz.calls import arguments
from fuzz.cases import Case
from fuzz.harness import REFUSED, Harness, escape_argv
from fuzz.oracles import is_text
from fuzz.properties.base import Property
from fuzz.strategies import hostile_text


def _exists(h: Harness, name: str) -> bool:
    """Whether tmux finds a buffer by exactly ``name``, asked by name.

    Not by reading ``list-buffers``: bare tmux 3.4 prints a ``$`` before a
    letter as ``\\$``, and tmux 3.7 stores a new buffer's name through ``vis``
    (a backslash doubled), so a listing is no oracle there. ``save-buffer -b``
    fails on an unknown name on every version and writes only ``/dev/null``.
    """
    found = h.tmux.bare("save-buffer", "-b", escape_argv(name), "/dev/null", check=False)
    return found.returncode == 0


class BufferName(Property):
    name = "literal-buffer-name"
    invariant = (
        "a buffer name of 1..200 characters without control characters names exactly that "
        "buffer (deleted, or pasted byte for byte); a missing buffer is an error; other "
        "names are refused and never reach tmux; the bystander's buffer is untouched"
    )
    ci_examples = 8

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        names = st.one_of(hostile_text(max_size=12), st.integers(195, 205).map(lambda n: "b;" * n))
        return st.tuples(names, st.booleans())

    def pinned(self, case: Case) -> list[Any]:
        return [("bystander-buffe", False), ("-b", True), ("x;", True)]

    def check(self, h: Harness, case: Case, value: Any) -> None:
        name, create = value
        name = h.substitute(name)
        accepted = (
            1 <= len(name) <= 200
            and is_text(name)
            and not any(ord(c) < 0x20 or ord(c) == 0x7F for c in name)
        )
        if name == "bystander-buffer":
            return
        world = h.world()
        payload = "pasted " + name.replace("\n", " ") if accepted else "x"
        if create and accepted:
            h.bare("set-buffer", "-b", escape_argv(name), "--", escape_argv(payload))
        exists = _exists(h, name)
        reader = None
        args = arguments(case, world, name)
        if case.spec.name == "paste_buffer" and accepted and exists:
            reader = h.reader(count=len(payload.encode()))
            args["pane_id"] = reader.pane
        outcome = h.call(case.spec.name, args)
        h.check_common(outcome)
        if not accepted:
            h.refused(outcome)
            return
        if not exists:
            assert outcome.is_error and outcome.slug not in REFUSED, outcome.text
            return
        assert not outcome.is_error, outcome.text
        if reader:
            assert h.received(reader) == payload.encode()
            assert _exists(h, name), "paste_buffer keeps the buffer"
        else:
            assert not _exists(h, name)
