"""The tmux-format sink's round trips: ``name-round-trip`` and ``directory-round-trip``.

A name or directory the documented rule accepts is stored and reported
exactly (read back through bare tmux); anything else is refused and changes
nothing; format syntax in either never expands (CM-5).
"""

from __future__ import annotations

import os
import time
from typing import Any

from hypothesis import strategies as st

from fuzz.calls import arguments
from fuzz.cases import Case
from fuzz.harness import Harness
from fuzz.known_bugs import known_bug
from fuzz.oracles import NAME_KINDS, NAME_VARIABLES, is_text, name_accepted
from fuzz.properties.base import Property
from fuzz.strategies import SENTINEL, dangerous_text, hostile_text


class NameRoundTrip(Property):
    name = "name-round-trip"
    invariant = (
        "a name the documented rule accepts is stored exactly (read back through bare tmux) "
        "and reported exactly; any other is refused as unsafe or invalid and changes nothing; "
        "no #() job, #{} or strftime ever runs"
    )
    ci_examples = 25

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        return st.one_of(
            hostile_text(),
            dangerous_text(min_size=1, max_size=12, control=False),
            dangerous_text(min_size=1, max_size=12, control=False).map(
                lambda s: s + f"#(touch {SENTINEL})"
            ),
            st.integers(190, 210).map(lambda n: ("#é" * n)[:n]),
        )

    def pinned(self, case: Case) -> list[Any]:
        return [
            "$a#(touch SENTINEL)",  # tmux 3.3a stores '$a' as '\$a' (found by tests/tools)
            "#[fg=red]#(touch SENTINEL)",
            "trail#",
            "a;",
            "-n",
            "%H:%M",
            "a\u2028b",  # wcwidth < 0: was accepted, then rewritten by tmux (fixed)
            "#" * 200,  # the longest accepted name, every character escaped
            "x" * 201,  # one over: refused by the schema
        ]

    def check(self, h: Harness, case: Case, value: Any) -> None:
        value = h.substitute(value)
        kind = NAME_KINDS[str(case)]
        if known_bug(case, value):
            return
        world = h.world()
        tool = case.spec.name
        target = {"rename": world.window, "set_pane_title": world.pane}.get(tool)
        variable = NAME_VARIABLES[kind]
        count = len(h.bare("list-panes", "-a", "-F", "#{pane_id}").split())
        before = h.bare("display-message", "-p", "-t", target, variable) if target else None
        outcome = h.call(tool, arguments(case, world, value))
        h.check_common(outcome)
        if not name_accepted(kind, value):
            h.refused(outcome)
            if target:
                assert h.bare("display-message", "-p", "-t", target, variable) == before
            else:
                assert len(h.bare("list-panes", "-a", "-F", "#{pane_id}").split()) == count
            return
        assert not outcome.is_error, outcome.text
        assert outcome.structured is not None
        if target is None:
            field = "session_name" if kind == "session" else "window_name"
            target = outcome.structured["session_id" if kind == "session" else "window_id"]
            assert outcome.structured[field] == value
        else:
            assert outcome.structured["name"] == value
        assert h.holds(target, variable, value)


ODD_PATHS = ["/", "//", "/tmp", "/tmp/", "/nonexistent", ".", "..", "rel", "/tmp/../tmp", "~"]


def _leaf_names() -> st.SearchStrategy[str]:
    return dangerous_text(min_size=1, max_size=16).filter(
        lambda s: "/" not in s and is_text(s) and s not in (".", "..") and len(s.encode()) <= 200
    )


class DirectoryRoundTrip(Property):
    name = "directory-round-trip"
    invariant = (
        "an existing absolute normalized directory without control characters becomes the "
        "new session's or pane's directory exactly; anything else is refused and creates "
        "nothing; format syntax in the path never expands"
    )
    ci_examples = 12

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.tuples(st.just("mkdir"), _leaf_names()),
            st.tuples(st.just("mkdir"), _leaf_names()),
            hostile_text(),
            st.sampled_from(ODD_PATHS),
        )

    def pinned(self, case: Case) -> list[Any]:
        return [("mkdir", "#{session_name}##(x)%H;"), ("mkdir", "d\x85"), "//"]

    def check(self, h: Harness, case: Case, value: Any) -> None:
        if isinstance(value, tuple | list):
            path = os.path.join(h.scratch, "dirs", value[1])
            os.makedirs(path, exist_ok=True)
        else:
            path = value
        accepted = (
            is_text(path)
            and path.startswith("/")
            and (os.path.normpath(path) == path or path == "//")
            and not any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in path)
            and len(path.encode()) <= 4096
            and os.path.isdir(path)
        )
        world = h.world()
        count = len(h.bare("list-panes", "-a", "-F", "#{pane_id}").split())
        outcome = h.call(case.spec.name, arguments(case, world, path))
        h.check_common(outcome)
        if not accepted:
            h.refused(outcome)
            assert len(h.bare("list-panes", "-a", "-F", "#{pane_id}").split()) == count
            return
        assert not outcome.is_error, outcome.text
        assert outcome.structured is not None
        if case.spec.name == "create_session":
            assert h.holds(outcome.structured["session_id"], "#{session_path}", path)
            return
        # A pane's directory is its process's: wait (deadline) for the shell to start there.
        pane = outcome.structured["pane_id"]
        deadline = time.monotonic() + 10
        expected = os.path.realpath(path)
        while time.monotonic() < deadline:
            if h.holds(pane, "#{pane_current_path}", expected):
                return
            time.sleep(0.02)
        current = h.bare("display-message", "-p", "-t", pane, "#{pane_current_path}")
        raise AssertionError(f"pane directory {current!r}, expected {expected!r}")
