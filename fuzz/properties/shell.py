"""The shell sink: ``pane-shell-output`` (shell / pane-shell-text).

A command reaches the pane's own shell exactly, shown by ``printf`` of
shell-quoted hostile text coming back as the output; nothing reaches a
host-side shell or tmux's format expander (CM-6).
"""

from __future__ import annotations

import shlex
from typing import Any

from hypothesis import strategies as st

from fuzz.calls import arguments
from fuzz.cases import Case
from fuzz.harness import Harness
from fuzz.oracles import is_control
from fuzz.properties.base import Property
from fuzz.strategies import CONTROL, DANGEROUS, LONE_SURROGATES, TOKENS, dangerous_text

_SHELL_SAFE = [c for c in DANGEROUS if c != "\n"] + list("abcXYZ019 é☺日")
_SHELL_TOKENS = [t for t in TOKENS if not any(is_control(c) for c in t)]


def _shell_lines() -> st.SearchStrategy[list[str]]:
    piece = st.one_of(st.sampled_from(_SHELL_SAFE), st.sampled_from(_SHELL_TOKENS))
    line = st.lists(piece, max_size=12).map("".join).map(str.rstrip)
    return st.lists(line, min_size=1, max_size=3)


class PaneShellText(Property):
    name = "pane-shell-output"
    invariant = (
        "a command reaches the pane's own shell exactly (shown by printf of shell-quoted "
        "hostile text coming back as the output, exit status 0); no #() or ';' reaches tmux; "
        "control characters other than newline, NUL, lone surrogates and blank commands are "
        "refused and never reach tmux"
    )
    ci_examples = 8

    def values(self, case: Case) -> st.SearchStrategy[Any]:
        refused = st.one_of(
            st.tuples(
                dangerous_text(control=False, max_size=6),
                st.sampled_from([c for c in CONTROL if c != "\n"] + ["\x00", *LONE_SURROGATES]),
                dangerous_text(control=False, max_size=6),
            ).map(lambda t: ("raw", "".join(t))),
            st.sampled_from([("raw", ""), ("raw", " "), ("raw", "\n"), ("raw", " \n ")]),
        )
        return st.one_of(_shell_lines().map(lambda lines: ("printf", lines)),
                         _shell_lines().map(lambda lines: ("printf", lines)), refused)  # fmt: skip

    def pinned(self, case: Case) -> list[Any]:
        return [("printf", ["#(touch SENTINEL) ;", "\\;", "'quoted' \"dq\" $(x) `y`"])]

    def check(self, h: Harness, case: Case, value: Any) -> None:
        form, payload = value
        payload = h.substitute(payload)
        world = h.world()
        if form == "raw":
            outcome = h.call(case.spec.name, arguments(case, world, payload))
            h.check_common(outcome)
            h.refused(outcome)
            return
        command = "\n".join(f"printf '%s\\n' {shlex.quote(line)}" for line in payload)
        outcome = h.call(case.spec.name, arguments(case, world, command))
        h.check_common(outcome)
        assert not outcome.is_error, outcome.text
        result = outcome.structured
        assert result is not None
        assert (result["completed"], result["exit_status"]) == (True, 0), result
        assert result["output"] == "\n".join(payload), result
