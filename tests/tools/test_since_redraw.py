"""Cursors over a row its program redraws in place, on real tmux (issue 28.3).

A cursor (``since``) is made on the cursor's row, which is live: the program
that owns the terminal may erase it and write something else there. Two such
programs an agent meets every day: ``less -X`` (git's default ``LESS=FRX``)
leaves by erasing its ``:`` prompt, and bash draws ``$ `` on that row; a
script that prints ``:``, reads one key and erases its line. After either,
the new prompt must match a wait since the cursor (no missed prompt), and the
agent's own command line above it must not (no stale match); capture_since
from the same cursor must report no gap and repeat no row. Everything is read
back through bare tmux before the tools are asked.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Any

import pytest
import trio
from mcp import ClientSession

from tests.support import PrivateTmux, call_and_interrupt, serve, structured

BASH = ("env", "-i", "PATH=/usr/bin:/bin", "TERM=screen", "PS1=$ ", "bash", "--norc", "--noprofile")
"""A bash whose prompt is ``$ ``, with no start-up file and no inherited pager options."""
ASK = "printf :; IFS= read -rsn1 k; printf '\\r\\033[K'"
"""Prints ``:``, reads one key without echo, and erases its own line."""


async def _until(predicate: Callable[[], bool], seconds: float = 20.0) -> None:
    with trio.fail_after(seconds):
        while not predicate():
            await trio.sleep(0.01)


def _screen(tmux: PrivateTmux, pane: str) -> list[str]:
    return tmux.bare("capture-pane", "-p", "-t", pane).stdout.rstrip("\n").split("\n")


def _cursor(tmux: PrivateTmux, pane: str) -> tuple[int, int]:
    x, y = tmux.bare("display-message", "-p", "-t", pane, "#{cursor_x} #{cursor_y}").stdout.split()
    return int(x), int(y)


async def _bash(tmux: PrivateTmux, name: str) -> str:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    pane = tmux.new_session(name, "tmuxmcp", *BASH)["pane_id"]
    await _until(lambda: _screen(tmux, pane)[0] == "$")
    return pane


async def _type(tmux: PrivateTmux, pane: str, line: str) -> None:
    tmux.bare("send-keys", "-t", pane, "-l", line)
    await _until(lambda: line in "\n".join(_screen(tmux, pane)))
    tmux.bare("send-keys", "-t", pane, "Enter")


def _since(pane: str, pattern: str, cursor: str, timeout: float) -> dict[str, Any]:
    return {"pane_id": pane, "pattern": pattern, "regex": True, "since": cursor, "timeout": timeout}


async def _send(session: ClientSession, pane: str, text: str) -> str:
    sent = structured(
        await session.call_tool("send_keys", {"pane_id": pane, "keys": [{"text": text}]})
    )
    cursor: str = sent["cursor"]
    return cursor


async def test_the_prompt_after_less_x_matches_since_the_cursor_of_its_q(
    private_tmux: PrivateTmux,
) -> None:
    """``q`` leaves ``less -X``, which erases its ``:``; bash draws ``$ `` on that row.

    The cursor of the ``q`` sits after the ``:`` (column 1); the ``$`` is in
    column 0. The row was redrawn after the cursor, so all of it is new: the
    wait matches the prompt instead of scanning the one blank after column 1.
    """
    if shutil.which("less") is None:
        pytest.skip("less is not installed")
    async with serve(private_tmux) as session:
        pane = await _bash(private_tmux, "lessx")
        await _type(private_tmux, pane, "seq 1 100 | less -X")
        await _until(lambda: _screen(private_tmux, pane)[-1] == ":")
        assert _cursor(private_tmux, pane) == (1, 23)
        cursor = await _send(session, pane, "q")
        await _until(lambda: _screen(private_tmux, pane)[-1] == "$")
        assert _cursor(private_tmux, pane) == (2, 23)  # the prompt is on the row of the ':'
        found = structured(
            await session.call_tool("wait_for_text", _since(pane, r"^\$", cursor, 10))
        )
        assert found["outcome"] == "matched", found
        assert found["match"]["row"] == 23
        assert found["match"]["line"] == "$ "
        assert found["gap"] is None
        # The prompt row is the partial row; nothing complete was printed since.
        since = structured(
            await session.call_tool("capture_since", {"pane_id": pane, "cursor": cursor})
        )
        assert (since["gap"], since["lines"], since["partial"]) == (None, [], "$"), since
        # A command's rows then come from that row on, each once.
        await _type(private_tmux, pane, "echo AFTER_$((6*7))")
        await _until(lambda: "AFTER_42" in _screen(private_tmux, pane))
        later = structured(
            await session.call_tool("capture_since", {"pane_id": pane, "cursor": cursor})
        )
        assert later["gap"] is None
        assert later["lines"][:2] == ["$ echo AFTER_$((6*7))", "AFTER_42"], later


async def test_a_line_erased_after_its_key_is_not_history_cleared(
    private_tmux: PrivateTmux,
) -> None:
    """A script prints ``:`` on the second row, reads a key and erases its line.

    The row of the cursor was redrawn; the rows above it were not. The cursor
    is still found (no gap), the typed command line above it never matches
    (it holds ``$`` too), and the new prompt on the redrawn row does.
    """
    async with serve(private_tmux) as session:
        pane = await _bash(private_tmux, "erase")
        await _type(private_tmux, pane, ASK)
        await _until(lambda: _screen(private_tmux, pane)[1:2] == [":"])
        assert _cursor(private_tmux, pane) == (1, 1)
        before = structured(await session.call_tool("capture_since", {"pane_id": pane}))
        cursor = await _send(session, pane, "y")
        await _until(lambda: _screen(private_tmux, pane)[1:2] == ["$"])
        assert _screen(private_tmux, pane)[0] == f"$ {ASK}"
        found = structured(
            await session.call_tool("wait_for_text", _since(pane, r"\$", cursor, 10))
        )
        assert found["outcome"] == "matched", found
        assert found["gap"] is None
        assert (found["match"]["row"], found["match"]["line"]) == (1, "$ "), found
        since = structured(
            await session.call_tool("capture_since", {"pane_id": pane, "cursor": cursor})
        )
        assert (since["gap"], since["lines"], since["partial"]) == (None, [], "$"), since
        # capture_since's own cursor, made on the ':' row before the key, also holds.
        after = structured(
            await session.call_tool("capture_since", {"pane_id": pane, "cursor": before["cursor"]})
        )
        assert (after["gap"], after["lines"], after["partial"]) == (None, [], "$"), after


async def test_a_wait_begun_before_the_redraw_matches_only_the_new_prompt(
    private_tmux: PrivateTmux,
) -> None:
    """Without ``since``, the wait's own anchor is the ``:`` row: the same rule holds.

    The key is sent once the wait is looking (its first progress report), so
    the redraw happens under it."""
    async with serve(private_tmux) as session:
        pane = await _bash(private_tmux, "anchor")
        await _type(private_tmux, pane, ASK)
        await _until(lambda: _screen(private_tmux, pane)[1:2] == [":"])
        waited = await call_and_interrupt(
            session,
            "wait_for_text",
            {"pane_id": pane, "pattern": r"\$", "regex": True, "timeout": 30},
            lambda: private_tmux.bare("send-keys", "-t", pane, "y"),
            seconds=40,
        )
        found = structured(waited)
        assert found["outcome"] == "matched", found
        assert found["gap"] is None
        assert (found["match"]["row"], found["match"]["line"]) == (1, "$ "), found
