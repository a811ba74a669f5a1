"""Handler wiring on the fake tmux: the argv each tool gives tmux, and what it makes of
the answer (the fast tier; no tmux process is started).

Each test calls a tool through the dispatcher (``server.call``: decode, the
declared encodings, the handler, the one error path) on a runtime whose
runner is ``driver.fake.FakeTmux``, and checks the exact command words the
real client would spawn and the result or error the answer becomes. What
tmux itself does with those words is proven on real tmux by the tests of
each toolset; here a test fails when a handler builds other words, drops the
gate, or maps an answer to the wrong result (CM-1, CM-5, CM-6).

Expected words are written as tmux would be typed (``"list-panes -t %9 -F"``
split on spaces), with ``ANY`` for a nonce-framed template or generated name.
"""

from __future__ import annotations

from tests.fake_answers import guard_refused, missing_pane
from tests.fake_support import call_tool, fake_runtime, words
from tmuxmcp.driver.client import ServerIdentity
from tmuxmcp.driver.fake import ANY, FakeCall, FakeTmux, Reply, expand_format
from tmuxmcp.driver.guards import Refusal
from tmuxmcp.errors import TmuxTimeout

SESSION_ROW = {
    "session_id": "$0",
    "session_name": "build",
    "session_windows": "2",
    "session_attached": "0",
    "session_created": "1700000000",
}
PANE_FRAME = {
    "pane_id": "%1",
    "history_size": "0",
    "history_limit": "2000",
    "pane_height": "24",
    "pane_width": "80",
    "cursor_x": "2",
    "cursor_y": "0",
    "alternate_on": "0",
    "pane_dead": "0",
    "pane_pid": "4242",
}


async def test_a_listing_is_one_gated_list_command_and_its_rows_become_records(
    fake: FakeTmux,
) -> None:
    """list_sessions: ``tmux -u -N -L tmuxmcp <gate> ; list-sessions -F <frame>`` (CM-1);
    each framed row becomes one typed record, a value with a backslash intact."""
    served = fake_runtime(fake)
    other = {**SESSION_ROW, "session_id": "$3", "session_name": "a\\b", "session_attached": "1"}
    fake.expect(*words("list-sessions -F"), ANY, rows=[SESSION_ROW, other])
    called = await call_tool(fake, served, "list_sessions", {})
    sessions = called.ok()["sessions"]
    assert [(s["session_id"], s["name"], s["attached_clients"]) for s in sessions] == [
        ("$0", "build", 0),
        ("$3", "a\\b", 1),
    ]
    (call,) = fake.calls
    assert list(call.argv[:9]) == [fake.binary, *words("-u -N -L tmuxmcp show-options -s -v --")]
    assert call.argv[9].startswith("#{?#{==:#{pid}.#{start_time}.#{@tmuxmcp_")
    assert call.argv[10] == ";"
    assert call.gated


async def test_a_capture_reads_the_height_and_the_rows_in_one_invocation(fake: FakeTmux) -> None:
    """capture_pane: the pane's height and its rows from one tmux client, blank rows
    below the last text dropped, the text as the pane shows it."""
    served = fake_runtime(fake)
    fake.expect(
        *words("display-message -p -t %3 -- #{pane_height} ; capture-pane -p -t %3 -S 0 -E"),
        ANY,
        stdout="4\n$ make\nok\n\n\n",
    )
    called = await call_tool(fake, served, "capture_pane", {"pane_id": "%3", "max_lines": 5})
    result = called.ok()
    assert result["text"] == "$ make\nok"
    assert (result["lines"], result["truncated"]) == (2, False)
    assert int(fake.calls[0].words[-1]) >= 4, "the read must reach the last row asked for"


async def test_a_management_call_escapes_a_final_semicolon_and_reads_the_name_back(
    fake: FakeTmux,
) -> None:
    """rename_window: the name is one argv element after ``--`` with its final ``;``
    escaped (argv Rule 1: ``x;`` would end tmux's command there), and the result is
    the name tmux reports, not the one asked for (CM-5)."""
    served = fake_runtime(fake)
    fake.expect(
        *words("rename-window -t @2 --"),
        "deploy\\;",
        *words("; list-windows -t @2 -F"),
        ANY,
        rows=[{"window_id": "@5", "window_name": "x"}, {"window_id": "@2", "window_name": "dep"}],
    )
    called = await call_tool(fake, served, "rename", {"window_id": "@2", "name": "deploy;"})
    assert called.ok() == {"id": "@2", "name": "dep"}


def _frame_and_screen(call: FakeCall) -> Reply:
    """tmux's answer to a cursor read: the expanded frame line, then the 24 screen rows."""
    template = call.words[5]
    return Reply(stdout=expand_format(template, PANE_FRAME) + "\n$ \n" + "\n" * 23)


async def test_text_for_a_pane_travels_on_stdin_never_in_argv(fake: FakeTmux) -> None:
    """send_keys' text (execute): the cursor is read, the text too long for argv loaded
    into a fresh buffer from the client's stdin and pasted, all in one invocation; no
    argv word holds the text (CM-6)."""
    served = fake_runtime(fake)
    text = "echo $HOME; rm -rf x " * 700  # past what set-buffer may carry in argv
    fake.expect(
        *words("display-message -p -t %1 --"),
        ANY,
        *words("; capture-pane -p -t %1 -S -2 ; show-options -s -v -t %1 --"),
        ANY,
        *words("; load-buffer -b"),
        ANY,
        *words("-- - ; paste-buffer -d -r -b"),
        ANY,
        *words("-t %1"),
        answer=_guarded_frame_and_screen,
    )
    called = await call_tool(fake, served, "send_keys", {"pane_id": "%1", "keys": [{"text": text}]})
    (call,) = fake.calls
    assert call.stdin == text.encode()
    assert not any("HOME" in word for word in call.argv)
    loaded, pasted = call.words[24], call.words[32]
    assert loaded == pasted and loaded.startswith("tmuxmcp-")
    assert called.ok()["delivered"] == f"0 keys, {len(text)} bytes of text"


def _guarded_frame_and_screen(call: FakeCall) -> Reply:
    """A cursor read, then the mode guard that passed: it prints the marker's value."""
    framed = _frame_and_screen(call)
    return Reply(stdout=framed.stdout + "marker value\n")


async def test_keys_and_text_for_an_editor_are_one_invocation(fake: FakeTmux) -> None:
    """Issue 28.4: i, a line with a tab, Escape, :wq, Enter: the cursor read, the keys,
    one mode guard before the first text, the short texts stored by set-buffer and
    pasted, in order, in one tmux invocation; the cursor is read before any of it."""
    served = fake_runtime(fake)
    fake.expect(
        *words("display-message -p -t %1 --"),
        ANY,
        *words("; capture-pane -p -t %1 -S -2 ; send-keys -t %1 -- i"),
        *words("; show-options -s -v -t %1 --"),
        ANY,
        *words("; set-buffer -b"),
        ANY,
        "--",
        "name\tvalue",
        *words("; paste-buffer -d -r -b"),
        ANY,
        *words("-t %1 ; send-keys -t %1 -- Escape ; set-buffer -b"),
        ANY,
        *words("-- :wq ; paste-buffer -d -r -b"),
        ANY,
        *words("-t %1 ; send-keys -t %1 -- Enter"),
        answer=_guarded_frame_and_screen,
    )
    keys = ["i", {"text": "name\tvalue"}, "Escape", {"text": ":wq"}, "Enter"]
    called = await call_tool(fake, served, "send_keys", {"pane_id": "%1", "keys": keys})
    assert len(fake.calls) == 1
    assert called.ok()["delivered"] == "3 keys, 13 bytes of text"
    assert called.ok()["cursor"]


async def test_a_teardown_of_the_window_holding_tmuxmcp_is_refused_and_nothing_is_killed(
    fake: FakeTmux,
) -> None:
    """kill_window of the window that holds tmuxmcp's own pane: one listing of that
    pane, then the refusal; no kill-window reaches tmux (the script has none)."""
    served = fake_runtime(fake, self_pane="%5")
    fake.expect(
        *words("list-panes -t %5 -F"),
        ANY,
        rows=[{"pane_id": "%5", "window_id": "@2", "session_id": "$1"}],
    )
    called = await call_tool(fake, served, "kill_window", {"window_id": "@2"})
    assert called.error is not None and called.error.startswith("[self-teardown-refused]")
    assert [call.words[0] for call in fake.calls] == ["list-panes"]


async def test_a_zoomed_session_on_tmux_3_4_is_not_killed() -> None:
    """kill_session on tmux 3.4: the zoom guard runs in the same invocation just before
    the kill, and its failure becomes the zoomed-teardown refusal."""
    with FakeTmux(version="3.4") as fake:
        served = fake_runtime(fake)
        fake.expect(
            *words("show-options -s -v -t $1 --"),
            ANY,
            *words("; kill-session -t $1"),
            answer=guard_refused(Refusal.WINDOW_ZOOMED),
        )
        called = await call_tool(fake, served, "kill_session", {"session_id": "$1"})
    assert called.error is not None and called.error.startswith("[zoomed-teardown-refused]")
    guard = fake.calls[0].words[6]
    assert "#{W:#{window_zoomed_flag}}" in guard and served.context.client.marker in guard


async def test_a_missing_pane_is_the_callers_mistake(fake: FakeTmux) -> None:
    """tmux's "can't find pane" becomes ``[object-not-found]`` naming the pane."""
    served = fake_runtime(fake)
    fake.expect(*words("list-panes -t %9 -F"), ANY, answer=missing_pane("%9"))
    called = await call_tool(fake, served, "list_panes", {"pane_id": "%9"})
    assert called.error is not None and called.error.startswith("[object-not-found]")
    assert "%9" in called.error


async def test_a_dead_server_is_latched_and_no_later_call_runs_tmux(fake: FakeTmux) -> None:
    """The server gone: the call is refused as the bound server lost, and every later
    call is refused without starting a tmux client (CM-1)."""
    served = fake_runtime(fake)
    fake.stop_server()
    first = await call_tool(fake, served, "list_panes", {})
    assert first.error is not None and first.error.startswith("[tmux-bound-server-lost]")
    assert len(fake.calls) == 1
    second = await call_tool(fake, served, "list_sessions", {})
    assert second.error is not None and second.error.startswith("[tmux-bound-server-lost]")
    assert len(fake.calls) == 1, "a call after the loss must not run tmux"


async def test_a_replaced_server_fails_the_gate_and_nothing_runs(fake: FakeTmux) -> None:
    """Another server on the socket: the gate fails, the call is refused (CM-1, CM-3)."""
    served = fake_runtime(fake)
    fake.replace_server(ServerIdentity(fake.identity.pid + 1, fake.identity.start_time))
    called = await call_tool(fake, served, "select", {"pane_id": "%1"})
    assert called.error is not None and called.error.startswith("[tmux-bound-server-lost]")
    assert "replaced" in called.error


async def test_a_tmux_timeout_is_reported_and_the_server_keeps_serving(fake: FakeTmux) -> None:
    """A runner deadline (``TmuxTimeout``) becomes ``[tmux-timeout]``; the next call runs."""
    served = fake_runtime(fake)
    fake.expect(*words("select-pane -t %1"), answer=TmuxTimeout("tmux did not answer in 10 s"))
    fake.expect(*words("select-pane -t %1"))
    timed_out = await call_tool(fake, served, "select", {"pane_id": "%1"})
    assert timed_out.error is not None and timed_out.error.startswith("[tmux-timeout]")
    assert (await call_tool(fake, served, "select", {"pane_id": "%1"})).ok() == {"id": "%1"}


async def test_bad_input_never_reaches_the_runner(fake: FakeTmux) -> None:
    """A pane id that is not one is refused by the declared decoding; tmux is not run."""
    served = fake_runtime(fake)
    called = await call_tool(fake, served, "select", {"pane_id": "%1;kill-server"})
    assert called.error is not None and called.error.startswith("[invalid-arguments]")
    assert fake.calls == []
