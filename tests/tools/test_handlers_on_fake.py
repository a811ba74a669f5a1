"""Every tool's handler on the fake tmux (issue 30.2): the words it gives tmux, and what
it makes of the answer, in the fast tier.

One test per tool the fake can show, next to ``test_handler_wiring.py`` (which
holds the ones about the gate, stdin, refusals and a lost server). Each calls
the tool through the dispatcher on a runtime whose runner is
``driver.fake.FakeTmux``, scripts tmux's answer, and checks the exact words
the handler built from its encoded arguments (CM-5) and the result it made of
the answer; what tmux does with the
words stays proven on real tmux by each toolset's own tests, and the fake's
answers are held to real tmux by ``tests/driver/test_fake_parity.py``.
``test_every_tool_has_a_test_on_the_fake`` keeps the list whole: a tool
without a test here, in the wiring tests or in a toolset's own
``test_*_on_fake.py`` (the waits, recover and the run wing have theirs, driven
through states by the fake world's kernel) must be named in ``REAL_TMUX_ONLY``
with the reason the fake cannot show it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.fake_answers import missing_pane
from tests.fake_support import VALUES, call_tool, fake_runtime, screen, shows, words
from tmuxmcp.definition import DEFINITION
from tmuxmcp.driver.fake import ANY, FakeTmux

PAGER_SAFE = words("-e PAGER=cat -e GIT_PAGER=cat -e MANPAGER=cat -e SYSTEMD_PAGER=cat")
"""The environment a pane a tool starts gets (``capability.environment``)."""

REAL_TMUX_ONLY: dict[str, str] = {}
"""Tools whose behaviour the fake cannot show at all, with why (tested on real tmux).
Empty since issue 30.2: the fake world's kernel (``FakeTmux.kernel``) drives
``wait_for_state`` and ``recover_pane`` through states, and ``run_command`` and
``wait_for_command`` have their refusals on the fake (``tests/tools/run/``); what stays
on real tmux for them is their shell side (the run's files, FIFOs and watcher), not a
whole tool."""

# -- inspect ----------------------------------------------------------------------------


async def test_list_windows_lists_every_window_as_records(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("list-windows -a -F"), ANY, rows=[VALUES])
    (window,) = (await call_tool(fake, served, "list_windows", {})).ok()["windows"]
    assert (window["window_id"], window["name"], window["session_id"]) == ("@2", "make", "$1")


async def test_list_buffers_lists_names_and_sizes(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("list-buffers -F"), ANY, rows=[VALUES])
    (buffer,) = (await call_tool(fake, served, "list_buffers", {})).ok()["buffers"]
    assert (buffer["name"], buffer["size"]) == ("buffer0", 12)


async def test_server_info_asks_the_bound_server_nothing_but_the_gate(fake: FakeTmux) -> None:
    """CM-1: server_info reports the binding decided at startup; its one invocation is
    the gate alone, and a server gone since is reported as such, not as an error."""
    served = fake_runtime(fake)
    fake.expect()
    info = (await call_tool(fake, served, "server_info", {})).ok()
    (call,) = fake.calls
    assert call.gated and call.words == ()
    assert info["server_state"] == "bound"
    assert info["info"]["server"]["provenance"] == "minimal"
    fake.stop_server()
    assert (await call_tool(fake, served, "server_info", {})).ok()["server_state"] == "gone"


async def test_snapshot_lists_every_pane_with_its_text(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("list-panes -a -F"), ANY, rows=[VALUES])
    fake.expect(
        *words("display-message -p --"),
        ANY,
        *words("; capture-pane -p -t %3"),
        answer=shows(screen("$ make")),
    )
    snapshot = (await call_tool(fake, served, "snapshot", {})).ok()
    (session,) = snapshot["sessions"]
    (pane,) = session["windows"][0]["panes"]
    assert (pane["pane_id"], pane["content"].rstrip("\n")) == ("%3", "$ make")


async def test_search_panes_finds_a_line_in_a_pane(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("list-panes -a -F"), ANY, rows=[VALUES])
    fake.expect(
        *words("display-message -p -t %3 --"),
        ANY,
        *words("; capture-pane -p -t %3 -S 0 -E 23"),
        answer=shows(screen("$ make", "error: x")),
    )
    found = (await call_tool(fake, served, "search_panes", {"pattern": "error"})).ok()
    (match,) = found["matches"]
    assert (match["pane_id"], match["row"], match["line"]) == ("%3", 1, "error: x")


def _polled(fake: FakeTmux, screen: str, times: int = 200, **values: str) -> None:
    """A waiting tool reads the pane as often as its clock says: script ``times`` reads
    of ``screen`` (``-S`` any row), and let the test leave the rest unread."""
    for _ in range(times):
        fake.expect(
            *words("display-message -p -t %3 --"),
            ANY,
            *words("; capture-pane -p -t %3 -S"),
            ANY,
            answer=shows(screen, **values),
        )


async def test_wait_for_text_matches_output_that_appears_below_the_prompt() -> None:
    """The first read anchors at the cursor (the prompt); a later read shows the
    output below it, which matches."""
    fake = FakeTmux()
    served = fake_runtime(fake)
    _polled(fake, screen("$ make"), times=1, cursor_x="6")
    _polled(fake, screen("$ make", "ready", "$ "), cursor_y="2")
    arguments = {"pane_id": "%3", "pattern": "ready", "timeout": 5}
    waited = (await call_tool(fake, served, "wait_for_text", arguments)).ok()
    assert (waited["outcome"], waited["match"]["line"]) == ("matched", "ready")
    fake.check(all_used=False)


async def test_capture_since_starts_with_a_cursor(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(
        *words("display-message -p -t %3 --"),
        ANY,
        *words("; capture-pane -p -t %3 -S -2"),
        answer=shows(screen("$ make", "ok")),
    )
    first = (await call_tool(fake, served, "capture_since", {"pane_id": "%3"})).ok()
    assert (first["partial"], first["lines"]) == ("$ make", [])
    assert first["cursor"], "a cursor to read on from"


# -- manage ------------------------------------------------------------------------------


async def test_create_session_starts_it_detached_with_the_pager_safe_environment(
    fake: FakeTmux,
) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("new-session -d -P -s build"), *PAGER_SAFE, "-F", ANY, rows=[VALUES])
    created = (await call_tool(fake, served, "create_session", {"name": "build"})).ok()
    assert (created["session_id"], created["window_id"], created["pane_id"]) == ("$1", "@2", "%3")


async def test_create_window_targets_the_session(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("new-window -d -P -t $1:"), *PAGER_SAFE, "-F", ANY, rows=[VALUES])
    created = (await call_tool(fake, served, "create_window", {"session_id": "$1"})).ok()
    assert (created["session_id"], created["window_id"], created["pane_id"]) == ("$1", "@2", "%3")


async def test_split_pane_splits_below_by_default(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("split-window -d -P -v -t %3"), *PAGER_SAFE, "-F", ANY, rows=[VALUES])
    created = (await call_tool(fake, served, "split_pane", {"pane_id": "%3"})).ok()
    assert (created["session_id"], created["window_id"], created["pane_id"]) == ("$1", "@2", "%3")


async def test_rename_of_a_session_reads_the_name_back(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("rename-session -t $1 -- build ; list-sessions -F"), ANY, rows=[VALUES])
    renamed = (await call_tool(fake, served, "rename", {"session_id": "$1", "name": "build"})).ok()
    assert renamed == {"id": "$1", "name": "build"}


async def test_set_pane_title_reads_the_title_back(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("select-pane -t %3 -T host ; list-panes -t %3 -F"), ANY, rows=[VALUES])
    titled = (
        await call_tool(fake, served, "set_pane_title", {"pane_id": "%3", "title": "host"})
    ).ok()
    assert titled == {"id": "%3", "name": "host"}


async def test_select_of_a_window_is_one_command(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("select-window -t @2"))
    selected = (await call_tool(fake, served, "select", {"window_id": "@2"})).ok()
    assert selected == {"id": "@2"}


async def test_select_layout_reads_the_layout_back(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("select-layout -t @2 -- tiled ; list-windows -t @2 -F"), ANY, rows=[VALUES])
    laid = (
        await call_tool(fake, served, "select_layout", {"window_id": "@2", "layout": "tiled"})
    ).ok()
    assert laid["window"]["layout"] == "b25d,80x24,0,0,3"


async def test_resize_pane_reads_the_size_back(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("resize-pane -t %3 -x 80 ; list-panes -t %3 -F"), ANY, rows=[VALUES])
    resized = (await call_tool(fake, served, "resize_pane", {"pane_id": "%3", "width": 80})).ok()
    assert (resized["pane"]["width"], resized["pane"]["height"]) == (80, 24)


async def test_swap_pane_keeps_the_focus(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("swap-pane -d -s %3 -t %4"))
    swapped = (
        await call_tool(fake, served, "swap_pane", {"pane_id": "%3", "other_pane_id": "%4"})
    ).ok()
    assert swapped == {"id": "%3"}


async def test_move_window_reads_where_it_went(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("move-window -d -s @2 -t $1: ; list-windows -t @2 -F"), ANY, rows=[VALUES])
    moved = (
        await call_tool(fake, served, "move_window", {"window_id": "@2", "session_id": "$1"})
    ).ok()
    assert moved["window"]["session_id"] == "$1"


async def test_set_option_reads_the_value_back(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(
        *words("set-option -w -t @2 -- mode-keys vi ; show-options -w -v -t @2 -- mode-keys"),
        stdout="vi\n",
    )
    set_to = (
        await call_tool(
            fake, served, "set_option", {"option": "mode-keys", "value": "vi", "window_id": "@2"}
        )
    ).ok()
    assert set_to == {"target": "@2", "option": "mode-keys", "value": "vi"}


# -- teardown ----------------------------------------------------------------------------


async def test_kill_pane_of_a_missing_pane_is_the_callers_mistake(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("kill-pane -t %9"), answer=missing_pane("%9"))
    called = await call_tool(fake, served, "kill_pane", {"pane_id": "%9"})
    assert called.error is not None and called.error.startswith("[object-not-found]")


async def test_clear_history_is_one_command(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("clear-history -t %3"))
    cleared = (await call_tool(fake, served, "clear_history", {"pane_id": "%3"})).ok()
    assert cleared == {"id": "%3", "deleted": "scrollback of pane"}


async def test_delete_buffer_checks_it_exists_in_the_same_invocation(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("save-buffer -b buffer0 -- /dev/null ; delete-buffer -b buffer0"))
    deleted = (await call_tool(fake, served, "delete_buffer", {"buffer": "buffer0"})).ok()
    assert deleted == {"id": "buffer0", "deleted": "buffer"}


# -- execute -----------------------------------------------------------------------------


async def test_send_keys_reads_the_cursor_and_sends_in_one_invocation(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    fake.expect(
        *words("display-message -p -t %3 --"),
        ANY,
        *words("; capture-pane -p -t %3 -S -2 ; send-keys -t %3 -- Enter"),
        answer=shows(screen("$ ")),
    )
    sent = (await call_tool(fake, served, "send_keys", {"pane_id": "%3", "keys": ["Enter"]})).ok()
    assert (sent["pane_id"], sent["delivered"]) == ("%3", "1 keys")
    assert sent["cursor"], "the cursor read before the keys, for a wait since it"


async def test_paste_buffer_pastes_the_named_buffer(fake: FakeTmux) -> None:
    served = fake_runtime(fake)
    # The mode guard (one show-options that fails in a tmux mode) stands before the paste.
    fake.expect(
        *words("show-options -s -v -t %3 --"), ANY, *words("; paste-buffer -b buffer0 -t %3")
    )
    pasted = (
        await call_tool(fake, served, "paste_buffer", {"pane_id": "%3", "buffer": "buffer0"})
    ).ok()
    assert pasted == {"pane_id": "%3", "delivered": "buffer buffer0"}


async def test_respawn_pane_gives_the_new_process_the_pager_safe_environment(
    fake: FakeTmux,
) -> None:
    served = fake_runtime(fake)
    fake.expect(*words("respawn-pane -k -t %3"), *PAGER_SAFE)
    respawned = (await call_tool(fake, served, "respawn_pane", {"pane_id": "%3"})).ok()
    assert respawned == {"pane_id": "%3", "delivered": "respawned"}


# -- the list stays whole ------------------------------------------------------------------


def _tools_called_on_the_fake(path: Path) -> set[str]:
    """The tool names a test module passes to ``call_tool`` as a literal."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "call_tool"
            and len(node.args) >= 3
            and isinstance(node.args[2], ast.Constant)
            and isinstance(node.args[2].value, str)
        ):
            found.add(node.args[2].value)
    return found


def test_every_tool_has_a_test_on_the_fake() -> None:
    """Every tool of the definition is called on the fake by a fast test here, in
    ``test_handler_wiring.py`` or in a ``test_*_on_fake.py`` module of ``tests/tools/``
    (a toolset's own, such as ``run/test_run_command_on_fake.py``), or is named in
    ``REAL_TMUX_ONLY`` with its reason."""
    here = Path(__file__).parent
    modules = {here / "test_handler_wiring.py", *here.rglob("test_*_on_fake.py")}
    tested = set().union(*(_tools_called_on_the_fake(path) for path in modules))
    names = {spec.name for spec in DEFINITION}
    assert names - tested - set(REAL_TMUX_ONLY) == set()
    assert set(REAL_TMUX_ONLY) <= names, "a tool named there that is no tool any more"
    assert not set(REAL_TMUX_ONLY) & tested, "tested on the fake after all: drop it from the list"
