"""run_command when input is already waiting in the pane: real tmux, real shells.

Issue 22 item 5: a program that asks the terminal something (the cursor
position, the device attributes, the background colour) and does not read
the answer leaves tmux's reply in the pane's input; the next run found it
typed ahead of its line (``1R`` after ``\\033[6n``) and was refused as an
"unclosed quote". Text a person (or ``send_keys``' text) left at the prompt is not
tmuxmcp's to destroy: the run is refused, saying what is pending and how to
clear it. Every command runs in the pane's own shell only (CM-6).
"""

from __future__ import annotations

import contextlib
import os
import pty
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.support import PrivateTmux, error_text, serve
from tests.tools.run.test_run_command import (
    SHELLS,
    _at_prompt,
    _cursor_row,
    _foreground_command,
    _run,
    _shell_session,
)

QUERIES = {
    "cursor-position": "printf '\\033[6n'",
    "device-attributes": "printf '\\033[c'",
    "secondary-attributes": "printf '\\033[>c'",
    "status-report": "printf '\\033[5n'",
    "terminal-version": "printf '\\033[>q'",
    "text-area-size": "printf '\\033[18t'",
    "background-colour": "printf '\\033]11;?\\007'",
}
"""Terminal queries tmux answers into the pane's input, each of tmux 3.3a-3.6a (the
background colour once the window has one: ``window-style``)."""


@pytest.fixture(autouse=True)
def _no_rc_files(private_tmux: PrivateTmux) -> None:
    private_tmux.private_home("/bin/sh")


@pytest.mark.parametrize("query", sorted(QUERIES))
@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_a_terminal_reply_left_unread_does_not_reach_the_next_command(
    private_tmux: PrivateTmux, shell: str, query: str
) -> None:
    """The reply to a query the command never read was typed ahead of the next run's
    line: ``echo next`` was refused ("unclosed quote") or ran with the reply's tail."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"q-{shell}", shell)
        private_tmux.bare("set-option", "-w", "-t", pane, "window-style", "bg=#102030")
        await _at_prompt(private_tmux, pane)
        first = await _run(session, pane, f"{QUERIES[query]}; sleep 0.3; echo asked")
        assert first["exit_status"] == 0
        after = await _run(session, pane, "echo next")
        assert (after["exit_status"], after["output"]) == (0, "next"), after
        # And the one after it: nothing of the reply is left anywhere.
        again = await _run(session, pane, "echo again")
        assert (again["exit_status"], again["output"]) == (0, "again"), again


async def _typed_at_prompt(tmux: PrivateTmux, pane: str, text: str) -> None:
    """Wait (deadline 10 s) until ``text`` shows on the cursor row, as typed, not entered."""
    with trio.fail_after(10):
        while not _cursor_row(tmux, pane).rstrip().endswith(text):
            await trio.sleep(0.02)


@pytest.mark.parametrize("how", ["a-client", "send_keys"])
@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_text_typed_at_the_prompt_is_refused_and_kept(
    private_tmux: PrivateTmux, shell: str, how: str, tmp_path: Path
) -> None:
    """A line half-typed at the prompt (by a person's keys, or by send_keys' text
    without Enter) had the run's line typed after it: refused as an "unclosed quote" (a
    misleading diagnosis), or worse, run as one line with it. Now refused before
    typing, naming the text and how to clear it; the text stays, nothing runs."""
    ran = tmp_path / "ran"
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"t-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        assert (await _run(session, pane, "echo first"))["output"] == "first"
        half = "git commit -m 'half"
        if how == "a-client":
            private_tmux.bare("send-keys", "-t", pane, "-l", half)
        else:
            sent = await session.call_tool("send_keys", {"pane_id": pane, "keys": [{"text": half}]})
            assert not sent.is_error, error_text(sent)
        await _typed_at_prompt(private_tmux, pane, half)
        refused = await session.call_tool(
            "run_command", {"pane_id": pane, "command": f"touch {ran}"}
        )
        text = error_text(refused)
        assert refused.is_error and "[pane-not-ready]" in text, text
        assert repr(half) in text and "C-u" in text, text
        assert "unclosed quote" not in text, text
        assert _cursor_row(private_tmux, pane).rstrip().endswith(half)
        assert not ran.exists()
        # Cleared as the message says, the next run works.
        private_tmux.bare("send-keys", "-t", pane, "C-u")
        with trio.fail_after(10):
            while half in _cursor_row(private_tmux, pane):
                await trio.sleep(0.02)
        done = await _run(session, pane, f"touch {ran}; echo next")
        assert (done["exit_status"], done["output"]) == (0, "next"), done
        assert ran.exists()


@contextlib.contextmanager
def _attached_client(tmux: PrivateTmux, pane: str) -> Iterator[int]:
    """A tmux client attached to ``pane``'s session on a pty of the test's own: its
    master, where a person's keys are written. Detached and reaped at the end."""
    master, slave = pty.openpty()
    env = {**tmux.env, "TERM": "xterm-256color"}
    client = subprocess.Popen(
        [*tmux.argv("attach-session", "-t", pane)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    try:
        yield master
    finally:
        tmux.bare("detach-client", "-s", pane, check=False)
        try:
            client.wait(timeout=10)
        except subprocess.TimeoutExpired:
            client.kill()
            client.wait()
        os.close(master)


async def _until_attached(tmux: PrivateTmux, pane: str) -> int:
    """Wait (deadline 10 s) for a client on the pane's session; its last activity."""
    with trio.fail_after(10):
        while True:
            seen = tmux.bare(
                "display-message", "-p", "-t", pane, "#{session_attached} #{session_activity}"
            ).stdout.split()
            if seen and seen[0] != "0":
                return int(seen[1])
            await trio.sleep(0.02)


@pytest.mark.parametrize("shell", sorted(SHELLS))
async def test_keys_a_person_typed_during_the_run_are_kept_and_named(
    private_tmux: PrivateTmux, shell: str
) -> None:
    """pending Rule 2: a client typed into the session during the run, so what waits in
    the input may be theirs: not discarded, and the next run is refused naming it
    (with the reply's tail the line editor kept) instead of typed after it."""
    async with serve(private_tmux) as session:
        pane = _shell_session(private_tmux, f"p-{shell}", shell)
        await _at_prompt(private_tmux, pane)
        assert (await _run(session, pane, "echo first"))["output"] == "first"
        with _attached_client(private_tmux, pane) as keyboard:
            await _until_attached(private_tmux, pane)
            results: list[dict[str, Any]] = []
            # The command waits on a FIFO until the keys are typed: a fixed sleep could
            # end before them on a loaded machine, and they would not be typed during
            # the run (issue 27.4).
            fifo = os.path.join(private_tmux.directory, f"hold-{shell}")
            os.mkfifo(fifo)
            held = f"printf '\\033[6n'; dd if={fifo} of=/dev/null status=none"

            async def run_query() -> None:
                results.append(await _run(session, pane, held))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(run_query)
                with trio.fail_after(10):
                    while _foreground_command(private_tmux, pane) != "dd":
                        await trio.sleep(0.02)
                os.write(keyboard, b"zq")  # a person's keys, while the command runs
                os.close(os.open(fifo, os.O_WRONLY))  # dd reads end of file: the run ends
            assert results[0]["exit_status"] == 0
            with trio.fail_after(10):
                while "zq" not in _cursor_row(private_tmux, pane):
                    await trio.sleep(0.02)
            refused = await session.call_tool("run_command", {"pane_id": pane, "command": "echo x"})
            text = error_text(refused)
            assert refused.is_error and "[pane-not-ready]" in text and "C-u" in text, text
            if shell == "sh":
                # dash has no line editor: the keys wait in the terminal's line, not
                # shown after the prompt. They were found only once the line was
                # typed after them (pending Rule 5): now nothing is typed, and the
                # refusal says why and how to clear them.
                assert "shows no text waiting in its input" in text, text
                assert "send_keys C-u" in text, text
                screen = private_tmux.bare("capture-pane", "-p", "-t", pane).stdout
                assert "echo x" not in screen, screen
                again = await session.call_tool(
                    "run_command", {"pane_id": pane, "command": "echo x"}
                )
                assert "shows no text waiting" in error_text(again)
                cleared = await session.call_tool("send_keys", {"pane_id": pane, "keys": ["C-u"]})
                assert not cleared.is_error
                done = await _run(session, pane, "echo x")
                assert (done["exit_status"], done["output"]) == (0, "x"), done
            else:
                assert "zq" in text, text
                assert "zq" in _cursor_row(private_tmux, pane)
