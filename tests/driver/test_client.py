"""``driver.client``: every call is ``tmux -u -N <socket>``, checked against the bound server.

ADR 0001 CM-1: tmuxmcp acts only on the server it bound to at startup. A call
after that server died is ``ServerGone``; a call answered by a different
server is ``ServerReplaced``; ``-N`` means no call can start a server.
Research §3: a missing object is reported by tmux ("can't find pane") and is
a caller mistake, ``ObjectNotFound``. Results are read back with bare tmux.
"""

from __future__ import annotations

import os
import re
import shutil
from typing import Any

import pytest
import trio

from tests.support import DEDICATED, PrivateTmux, focus_client, notify_hooks_of
from tmuxmcp.driver import binding, hooks
from tmuxmcp.driver.argv import cmd, render
from tmuxmcp.driver.client import (
    CommandTooLong,
    ConfigWatch,
    ServerIdentity,
    TmuxClient,
    TmuxOutput,
    classify_failure,
    decode,
    hooks_for,
)
from tmuxmcp.driver.fake import FakeTmux
from tmuxmcp.driver.socket import select_socket
from tmuxmcp.errors import (
    BoundServerLost,
    ConfigurationChanged,
    NoSessions,
    ObjectNotFound,
    ServerGone,
    TmuxCommandFailed,
    TmuxTimeout,
)
from tmuxmcp.sinks.keys import MAX_LITERAL_CHUNK_BYTES


def _tmux_binary() -> str:
    found = shutil.which("tmux")
    assert found is not None
    return os.path.realpath(found)


def _client(tmux: PrivateTmux) -> TmuxClient:
    return TmuxClient(_tmux_binary(), select_socket(None, None), tmux.env, timeout=10)


def _no_server(tmux: PrivateTmux) -> bool:
    done = tmux.bare("list-sessions", check=False)
    return done.returncode != 0 and (
        "no server running" in done.stderr or "error connecting" in done.stderr
    )


# ------------------------------------------------------------------------ pure


def test_every_call_forbids_starting_a_server() -> None:
    client = TmuxClient("/usr/bin/tmux", select_socket("work", None), {"A": "1"})
    assert client.base_argv() == ["/usr/bin/tmux", "-u", "-N", "-L", "work"]
    assert client.bound is None
    assert client.env == {"A": "1"}


async def test_run_before_bind_is_a_programming_error() -> None:
    client = TmuxClient("/nonexistent/tmux", select_socket(None, None), {})
    with pytest.raises(RuntimeError, match="before bind"):
        await client.run(cmd("list-sessions"))


@pytest.mark.parametrize(
    ("stderr", "error"),
    [
        ("no server running on /tmp/tmux-0/tmuxmcp\n", ServerGone),
        ("error connecting to /tmp/tmux-0/tmuxmcp (No such file or directory)\n", ServerGone),
        ("server exited unexpectedly\n", ServerGone),
        ("can't find pane: %999\n", ObjectNotFound),
        ("can't find window: @9\n", ObjectNotFound),
        ("can't find session: $9\n", ObjectNotFound),
        ("no current target\n", NoSessions),
        ("no buffer tmxbuf\n", ObjectNotFound),
        ("unknown command: frobnicate\n", TmuxCommandFailed),
        ("command too long\n", TmuxCommandFailed),
        ("", TmuxCommandFailed),
    ],
)
def test_classify_failure(stderr: str, error: type[Exception]) -> None:
    assert type(classify_failure(stderr, select_socket(None, None))) is error


def test_gone_messages_name_the_socket_selection_not_tmux_paths() -> None:
    gone = classify_failure("no server running on /secret/tmux-0/x\n", select_socket(None, None))
    assert isinstance(gone, ServerGone)
    assert "-L tmuxmcp" in gone.message
    assert "/secret" not in gone.message


def test_failure_text_is_collapsed_and_bounded() -> None:
    failed = classify_failure("bad\n\n  thing\t" + "x" * 1000, select_socket(None, None))
    assert isinstance(failed, TmuxCommandFailed)
    assert "bad thing x" in failed.message
    assert "\n" not in failed.message
    assert len(failed.message) < 400
    empty = classify_failure("", select_socket(None, None))
    assert "no error text" in str(empty)


def test_decode_replaces_invalid_utf8() -> None:
    assert decode(b"a\xffb\xc3\xa9") == "a\ufffdbé"


# ----------------------------------------------------------------- real tmux


async def test_run_returns_only_the_commands_output(private_tmux: PrivateTmux) -> None:
    client = _client(private_tmux)
    await binding.establish(client)
    out = await client.run(
        cmd("display-message", "-p", args=["one"]), cmd("display-message", "-p", args=["two;"])
    )
    assert out == TmuxOutput("one\ntwo;\n")
    assert await client.run() == TmuxOutput("")


async def test_a_command_list_over_tmux_s_limit_is_refused_before_tmux_runs(
    fake: FakeTmux,
) -> None:
    """tmux refuses a command list over 16,364 bytes whole ("command too long"), which
    reached the client as a tmux error; tmuxmcp now says it built it, and runs nothing.

    On the fake (issue 30.2), which records every invocation: none was made. That tmux's
    limit is real is ``test_a_maximal_literal_chunk_fits_in_one_tmux_command``'s control."""
    client = fake.client()
    words = [cmd("set-option", "-g", args=["@seen", "after"])]
    words += [cmd("display-message", "-p", args=["x" * 1000]) for _ in range(17)]
    with pytest.raises(CommandTooLong, match="tmuxmcp defect"):
        await client.run(*words)
    assert fake.calls == []


async def test_groups_run_in_as_few_invocations_as_the_limit_allows_in_order(
    private_tmux: PrivateTmux,
) -> None:
    """snapshot and search_panes read every pane in one invocation, which failed with
    "command too long" from about 200 panes on; ``run_groups`` splits the list between
    groups, keeps each whole and the output in order."""
    client = _client(private_tmux)
    await binding.establish(client)
    groups = [
        [
            cmd("display-message", "-p", args=[f"{n}a"]),
            cmd("display-message", "-p", args=[f"{n}b" + "y" * 300]),
        ]
        for n in range(200)
    ]
    spawned = []
    real = client.run

    async def counting(*commands: Any, **kwargs: Any) -> TmuxOutput:
        spawned.append(len(commands))
        return await real(*commands, **kwargs)

    client.run = counting  # type: ignore[method-assign]
    out = await client.run_groups(groups)
    lines = out.stdout.splitlines()
    assert lines == [line for n in range(200) for line in (f"{n}a", f"{n}b" + "y" * 300)]
    assert len(spawned) > 1 and all(count % 2 == 0 for count in spawned), spawned
    assert len(spawned) <= 6, spawned  # about 62 KB of commands in 12 KB invocations


@pytest.mark.parametrize(
    ("target_flag", "command", "value"),
    [("t", "list-panes", "%999"), ("t", "list-windows", "$999"), ("t", "list-panes", "@999")],
)
async def test_a_missing_target_is_object_not_found(
    private_tmux: PrivateTmux, target_flag: str, command: str, value: str
) -> None:
    client = _client(private_tmux)
    await binding.establish(client)
    with pytest.raises(ObjectNotFound) as info:
        await client.run(cmd(command, **{target_flag: value}))
    assert info.value.reference == "object-not-found"


async def test_a_tmux_error_is_command_failed(private_tmux: PrivateTmux) -> None:
    ids = private_tmux.new_session("c")
    client = _client(private_tmux)
    await binding.establish(client)
    # tmux 3.3 and later say "too many arguments"; 3.2a prints the usage line.
    with pytest.raises(TmuxCommandFailed, match=r"too many arguments|usage: rename-window"):
        await client.run(cmd("rename-window", t=ids["window_id"], args=["a", "b"]))
    name = private_tmux.bare("list-windows", "-t", ids["session_id"], "-F", "#{window_name}")
    assert name.stdout != "a\n"


async def test_stdin_reaches_tmux(private_tmux: PrivateTmux) -> None:
    """``load-buffer -`` with bytes on stdin: the path for large or binary text (research §4)."""
    client = _client(private_tmux)
    await binding.establish(client)
    data = "x;\n#{pane_id} #(true) é\n" * 2000  # larger than one argv message
    await client.run(cmd("load-buffer", b="tmxbuf", args=["-"]), stdin=data.encode())
    assert private_tmux.bare("show-buffer", "-b", "tmxbuf").stdout == data


async def test_a_killed_server_makes_calls_fail_with_server_gone(private_tmux: PrivateTmux) -> None:
    client = _client(private_tmux)
    await binding.establish(client)
    private_tmux.kill_server()
    with pytest.raises(BoundServerLost) as info:
        await client.run(cmd("list-sessions"))
    assert info.value.reference == "tmux-bound-server-lost"
    assert _no_server(private_tmux)


async def test_no_call_starts_a_server(private_tmux: PrivateTmux) -> None:
    """``-N``: even commands that would start a server (``start-server``, ``new-session``) don't."""
    client = _client(private_tmux)
    await binding.establish(client)
    private_tmux.kill_server()
    for command in (cmd("start-server"), cmd("new-session", "-d")):
        with pytest.raises(BoundServerLost):
            await client.run(command)
        with pytest.raises(ServerGone):
            await client.run_unbound([command])
        assert _no_server(private_tmux)
    # Control: the same command without -N would have started one.
    private_tmux.bare("-f", "/dev/null", "new-session", "-d")
    assert not _no_server(private_tmux)


async def test_a_restarted_server_is_server_replaced(private_tmux: PrivateTmux) -> None:
    client = _client(private_tmux)
    facts = await binding.establish(client)
    private_tmux.kill_server()
    private_tmux.start_foreign_server()
    assert int(private_tmux.server_pid()) != facts.identity.pid
    with pytest.raises(BoundServerLost) as info:
        await client.run(cmd("list-sessions"))
    assert info.value.reference == "tmux-bound-server-lost"
    assert "restart tmuxmcp" in info.value.message


async def test_a_call_refused_as_server_replaced_has_no_effect_on_the_new_server(
    private_tmux: PrivateTmux,
) -> None:
    """CM-1 / ``ServerReplaced``: tmuxmcp "refuses to act on another" server.

    The gate option set at binding does not exist on a replacement server, so
    tmux drops the whole command list there (found by this test: the first
    version compared identities only after tmux had run everything).
    """
    client = _client(private_tmux)
    await binding.establish(client)
    private_tmux.kill_server()
    ids = private_tmux.new_session("theirs")  # someone else's server now owns the socket
    with pytest.raises(BoundServerLost):
        await client.run(cmd("rename-session", t=ids["session_id"], args=["renamed-by-tmuxmcp"]))
    names = private_tmux.bare("list-sessions", "-F", "#{session_name}").stdout
    assert names == "theirs\n"


async def test_a_replacement_that_copies_the_gate_option_is_refused(
    private_tmux: PrivateTmux,
) -> None:
    """CM-1 / issue 12 item 4: the gate checks the live server, not a copyable value.

    Any client of the socket can read ``@tmuxmcp_<nonce>`` with ``show-options
    -s``; a replacement server that copies it (name and value) used to be
    served as the bound one. The gate now compares the answering server's own
    ``#{pid}`` and ``#{start_time}`` with the bound identity in the same tmux
    invocation, so nothing runs on the replacement.
    """
    client = _client(private_tmux)
    await binding.establish(client)
    copied = private_tmux.bare("show-options", "-s", "-v", client.marker).stdout.strip()
    assert copied  # what a reader of the socket can see
    private_tmux.kill_server()
    ids = private_tmux.new_session("theirs")
    private_tmux.bare("set-option", "-s", client.marker, copied)
    with pytest.raises(BoundServerLost) as info:
        await client.run(cmd("rename-session", t=ids["session_id"], args=["renamed-by-tmuxmcp"]))
    assert "nothing was run" in info.value.message
    names = private_tmux.bare("list-sessions", "-F", "#{session_name}").stdout
    assert names == "theirs\n"


async def test_the_bound_identity_without_the_gate_option_is_refused(
    private_tmux: PrivateTmux,
) -> None:
    """CM-1: only the option binding set opens the gate, not the identity alone.

    A server on the socket with the bound pid and start time but without the
    ``@tmuxmcp_<nonce>`` option (here: the bound server, the option removed by
    another client) is refused and nothing after the gate runs. Found on tmux
    3.2a, whose ``show-options`` prints nothing and succeeds for a missing user
    option: the rename ran there (verify's ``gate-foreign`` failed).
    """
    client = _client(private_tmux)
    await binding.establish(client)
    ids = private_tmux.new_session("ours")
    private_tmux.bare("set-option", "-s", "-u", client.marker)
    with pytest.raises(BoundServerLost) as info:
        await client.run(cmd("rename-session", t=ids["session_id"], args=["renamed-by-tmuxmcp"]))
    assert "nothing was run" in info.value.message
    names = private_tmux.bare("list-sessions", "-F", "#{session_name}").stdout
    assert names == "ours\n"


async def test_a_same_pid_server_with_another_start_time_is_replaced(
    private_tmux: PrivateTmux,
) -> None:
    """The identity is pid *and* start time, so pid reuse cannot pass the check."""
    client = _client(private_tmux)
    facts = await binding.establish(client)
    client.bind(ServerIdentity(facts.identity.pid, facts.identity.start_time - 1))
    with pytest.raises(BoundServerLost):
        await client.run(cmd("list-sessions"))


async def test_a_blocked_call_times_out_and_the_server_keeps_serving(
    private_tmux: PrivateTmux,
) -> None:
    client = _client(private_tmux)
    facts = await binding.establish(client)
    start = trio.current_time()
    with pytest.raises(TmuxTimeout):
        await client.run(cmd("wait-for", args=["tmxchan"]), seconds=0.5)
    assert trio.current_time() - start < 5
    out = await client.run(cmd("display-message", "-p", args=["#{pid}"]))
    assert out.stdout == f"{facts.identity.pid}\n"


async def test_a_maximal_literal_chunk_fits_in_one_tmux_command(private_tmux: PrivateTmux) -> None:
    """``MAX_LITERAL_CHUNK_BYTES`` leaves room for the identity probe and the argv escapes.

    Research §2 "Message size": the packed argv must be at most 16364 bytes.
    """
    ids = private_tmux.new_session("chunk", DEDICATED, "cat")
    client = _client(private_tmux)
    await binding.establish(client)
    worst = "a" * (MAX_LITERAL_CHUNK_BYTES - 1) + ";"  # the escape adds one byte
    emoji = "😀" * (MAX_LITERAL_CHUNK_BYTES // 4)
    for chunk in (worst, emoji):
        assert len(chunk.encode()) == MAX_LITERAL_CHUNK_BYTES
        await client.run(cmd("send-keys", "-l", t=ids["pane_id"], args=[chunk]))
    # Control: the limit is real, so the assertion above can fail. tmux itself
    # refuses the longer chunk, and tmuxmcp's client refuses it before tmux runs.
    over = private_tmux.bare("send-keys", "-l", "-t", ids["pane_id"], "a" * 16400, check=False)
    assert over.returncode != 0 and re.search(r"too long|failed to send", over.stderr), over
    with pytest.raises(CommandTooLong):
        await client.run(cmd("send-keys", "-l", t=ids["pane_id"], args=["a" * 16400]))


# ----------------------------------------------- per-call configuration check
# Issue 12 item 5 / CM-4: with narrow annotations published, every call
# re-checks, in the gate of the same tmux invocation, the aliases and the hooks
# it could activate. tmux runs an after-hook from the options of the session
# the command resolved to, inheriting the global session options (cmd-queue.c
# cmdq_insert_hook); ``set-hook -w``/``-p``/``-gw`` on an after-hook land there
# as well. Each scope below is installed by bare tmux (another client of the
# socket) *after* binding, and each hook would leave a mark when it runs.

HOOK_SCOPES = {
    "global": ("-g",),
    "global-window-flag": ("-gw",),
    "session": ("-t", "{session}"),
    "window": ("-w", "-t", "{window}"),
    "pane": ("-p", "-t", "{pane}"),
}


async def _watched(tmux: PrivateTmux) -> tuple[TmuxClient, dict[str, str]]:
    """A bound client with the per-call check on, and a session to target."""
    client = _client(tmux)
    facts = await binding.establish(client)
    if facts.aliases is None:
        pytest.skip("this tmux expands no whole array in a format (before 3.5): no check")
    client.watch = ConfigWatch(facts.aliases)
    ids = tmux.new_session("s")
    await client.run(cmd("list-panes", "-a", F="#{pane_id}"))  # passes before any change
    return client, ids


def _marks(tmux: PrivateTmux) -> int:
    path = os.path.join(tmux.directory, "ran")
    if not os.path.exists(path):
        return 0
    with open(path) as f:
        return len(f.read().split())


def _mark_command(tmux: PrivateTmux) -> str:
    return f"run-shell 'echo x >> {os.path.join(tmux.directory, 'ran')}'"


def test_the_binding_sees_aliases_exactly_when_formats_expand_whole_arrays(
    private_tmux: PrivateTmux,
) -> None:
    """Rule 3c's precondition, measured with bare tmux on this tmux version."""
    client = _client(private_tmux)
    facts = trio.run(binding.establish, client)
    seen = private_tmux.bare("display-message", "-p", "#{command-alias}").stdout.strip()
    listed = private_tmux.bare("show-options", "-s", "-v", "command-alias").stdout.split("\n")
    if "split-pane=split-window" in seen:
        assert facts.aliases == " ".join(line for line in listed if line)
    else:
        assert facts.aliases is None


@pytest.mark.parametrize("scope", sorted(HOOK_SCOPES))
@pytest.mark.parametrize("hook", ["after-list-panes", "after-show-options"])
async def test_a_hook_set_after_startup_refuses_the_call_instead_of_running(
    private_tmux: PrivateTmux, scope: str, hook: str
) -> None:
    """The operation's own after-hook, and the gate's (``after-show-options``)."""
    client, ids = await _watched(private_tmux)
    where = [
        a.format(session=ids["session_id"], window=ids["window_id"], pane=ids["pane_id"])
        for a in HOOK_SCOPES[scope]
    ]
    private_tmux.bare("set-hook", *where, hook, _mark_command(private_tmux))
    with pytest.raises(ConfigurationChanged) as info:
        await client.run(cmd("list-panes", "-a", F="#{pane_id}"))
    assert "hook" in info.value.message and "restart tmuxmcp" in info.value.message
    assert "no longer hold" in info.value.message
    assert _marks(private_tmux) == 0
    # Control: the hooked command from a plain client does run the hook.
    private_tmux.bare(hook.removeprefix("after-"), "-s" if hook == "after-show-options" else "-a")
    with trio.fail_after(10):
        while _marks(private_tmux) == 0:
            await trio.sleep(0.01)
    # Every later call is refused without running tmux.
    with pytest.raises(ConfigurationChanged):
        await client.run(cmd("list-sessions", F="#{session_id}"))


async def test_an_alias_added_after_startup_refuses_the_call(private_tmux: PrivateTmux) -> None:
    client, _ = await _watched(private_tmux)
    alias = f"list-panes={_mark_command(private_tmux)} ; list-panes"
    private_tmux.bare("set-option", "-s", "command-alias[100]", alias)
    with pytest.raises(ConfigurationChanged) as info:
        await client.run(cmd("list-panes", "-a", F="#{pane_id}"))
    assert "alias" in info.value.message
    assert _marks(private_tmux) == 0
    private_tmux.bare("list-panes", "-a")  # control: the alias does run a command
    assert _marks(private_tmux) == 1


async def test_a_changed_default_alias_refuses_the_call(private_tmux: PrivateTmux) -> None:
    """Changing an alias, not only adding one, changes what a command name runs."""
    client, _ = await _watched(private_tmux)
    private_tmux.bare("set-option", "-s", "command-alias[0]", "split-pane=kill-server")
    with pytest.raises(ConfigurationChanged):
        await client.run(cmd("list-sessions", F="#{session_id}"))


async def test_the_limits_of_an_in_band_check_are_one_call(private_tmux: PrivateTmux) -> None:
    """What no command in the invocation can stop (rule 3, why (b) stays).

    An alias on the gate's own command is expanded at parse time, before the
    gate runs; a ``command-error`` hook runs when the refusing gate fails.
    Both run once, at the refused call; later calls never reach tmux.
    """
    client, _ = await _watched(private_tmux)
    private_tmux.bare("set-hook", "-g", "command-error", _mark_command(private_tmux))
    with pytest.raises(ConfigurationChanged):
        await client.run(cmd("list-sessions", F="#{session_id}"))
    with trio.fail_after(10):
        while _marks(private_tmux) < 1:
            await trio.sleep(0.01)
    with pytest.raises(ConfigurationChanged):
        await client.run(cmd("list-sessions", F="#{session_id}"))
    assert _marks(private_tmux) == 1

    other, _ = await _watched_again(private_tmux)
    gate_alias = f"show-options={_mark_command(private_tmux)} ; show-options"
    private_tmux.bare("set-option", "-s", "command-alias[100]", gate_alias)
    with pytest.raises(ConfigurationChanged):
        await other.run(cmd("list-sessions", F="#{session_id}"))
    assert _marks(private_tmux) == 2  # the alias ran first, then the gate refused


async def _watched_again(tmux: PrivateTmux) -> tuple[TmuxClient, None]:
    """A fresh client on a fresh minimal server, with the check on."""
    tmux.bare("set-hook", "-gu", "command-error")
    tmux.kill_server()
    client = _client(tmux)
    facts = await binding.establish(client)
    assert facts.aliases is not None
    client.watch = ConfigWatch(facts.aliases)
    return client, None


@pytest.mark.parametrize(
    ("hook", "scope"),
    [("window-renamed", "-w"), ("window-renamed", "-p"), ("session-renamed", "-t")],
)
async def test_an_event_hook_on_an_inactive_window_refuses_a_changing_call(
    private_tmux: PrivateTmux, hook: str, scope: str
) -> None:
    """Notification hooks (notify.c) a changing command raises are checked in
    every pane of every window, not only the active one's options."""
    client, ids = await _watched(private_tmux)
    other = private_tmux.bare(
        "new-window", "-d", "-t", ids["session_id"], "-P", "-F", "#{window_id} #{pane_id}", "sh"
    ).stdout.split()
    target = {"-w": other[0], "-p": other[1], "-t": ids["session_id"]}[scope]
    flags = [] if scope == "-t" else [scope]
    private_tmux.bare("set-hook", *flags, "-t", target, hook, _mark_command(private_tmux))
    rename = (
        cmd("rename-window", t=other[0], args=["renamed"])
        if hook == "window-renamed"
        else cmd("rename-session", t=ids["session_id"], args=["renamed"])
    )
    with pytest.raises(ConfigurationChanged):
        await client.run(rename)
    assert _marks(private_tmux) == 0
    names = private_tmux.bare("list-windows", "-a", "-F", "#{session_name} #{window_name}").stdout
    assert "renamed" not in names
    # Control: the same rename from a plain client runs the hook.
    private_tmux.bare(*rename.render())
    with trio.fail_after(10):
        while _marks(private_tmux) == 0:
            await trio.sleep(0.01)


async def test_an_observing_call_is_not_refused_for_an_event_hook(
    private_tmux: PrivateTmux,
) -> None:
    """A listing raises no notification, so a rename hook does not concern it."""
    client, ids = await _watched(private_tmux)
    private_tmux.bare("set-hook", "-g", "session-renamed", _mark_command(private_tmux))
    out = await client.run(cmd("list-sessions", F="#{session_id}"))
    assert out.stdout.split() == [ids["session_id"]]


def test_the_hook_table_names_every_notification_hook_of_this_tmux(
    private_tmux: PrivateTmux,
) -> None:
    """``hooks.NOTIFY_HOOKS`` for the running release is what tmux itself lists
    (``show-hooks -g`` and ``-gw``), less the command hooks the queue fires."""
    table = notify_hooks_of(private_tmux)
    private_tmux.new_session("s")
    listed = {
        line.split()[0].partition("[")[0]
        for scope in ("-g", "-gw")
        for line in private_tmux.bare("show-hooks", scope).stdout.splitlines()
        if line.strip()
    }
    listed -= {name for name in listed if name.startswith("after-")}
    listed.discard("command-error")
    assert table == listed


CALL_RAISED = (
    ("window-unlinked", lambda ids: cmd("kill-window", t=ids["window_id"])),
    ("window-renamed", lambda ids: cmd("rename-window", t=ids["window_id"], args=["r"])),
)
"""A hook each, set after startup, and a call whose tmux command raises it."""


@pytest.mark.parametrize(("hook", "call"), CALL_RAISED, ids=[h for h, _ in CALL_RAISED])
async def test_a_notification_hook_the_call_raises_refuses_it(
    private_tmux: PrivateTmux, hook: str, call: Any
) -> None:
    """Issue 18 R2: ``window-unlinked`` (kill-window) ran its command on every call."""
    client, ids = await _watched(private_tmux)
    private_tmux.bare("new-window", "-d", "-a", "-t", "s")  # killing the first keeps the session
    private_tmux.bare("set-hook", "-g", hook, _mark_command(private_tmux))
    with pytest.raises(ConfigurationChanged):
        await client.run(call(ids))
    assert _marks(private_tmux) == 0
    # Control: the same command from a plain client runs the hook.
    private_tmux.bare(*render([call(ids)]))
    with trio.fail_after(10):
        while _marks(private_tmux) == 0:
            await trio.sleep(0.01)


def test_every_call_raised_notification_hook_is_checked() -> None:
    """Every notification hook of the table that is not ambient is in the gate's list
    for a state-changing command."""
    checked = set(hooks_for(["kill-window"]))
    for release, names in hooks.NOTIFY_HOOKS.items():
        assert names - hooks.AMBIENT <= checked, release
    assert {"window-unlinked", "pane-focus-in", "pane-focus-out", "client-active"} <= checked


def test_every_notification_hook_is_filed_by_what_raises_it() -> None:
    """Issue 27 N2: each hook of every release has its call sites filed
    (``hooks.RAISED_FROM``), and only a hook no state change reaches is ambient."""
    assert set(hooks.RAISED_FROM) == frozenset().union(*hooks.NOTIFY_HOOKS.values())
    for hook in hooks.AMBIENT:
        assert hooks.Source.STATE not in hooks.RAISED_FROM[hook], hook
    assert "client-active" not in hooks.AMBIENT, "a client that leaves raises it (N2)"


def test_the_hooks_of_an_attaching_command_are_checked_only_with_it() -> None:
    """``client-attached`` (and what a client's terminal answers at attach) comes from
    a command that attaches a client: checked for a list that runs one."""
    assert "client-attached" not in hooks_for(["kill-session"])
    for hook in ("client-attached", "client-resized", "client-focus-in"):
        assert hook in hooks_for(["attach-session"]), hook
        assert hook in hooks_for(["new-session"]), hook


@pytest.mark.parametrize("hook", ["pane-focus-in", "pane-focus-out"])
async def test_a_focus_hook_with_a_client_attached_refuses_select_pane(
    private_tmux: PrivateTmux, hook: str
) -> None:
    """Issue 18 R2: with a real client attached (a pty) and ``focus-events`` on,
    ``select-pane`` raises the focus hooks; they were treated as ambient."""
    client, ids = await _watched(private_tmux)
    other = private_tmux.bare("split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "s")
    async with focus_client(private_tmux, "s"):
        private_tmux.bare("set-hook", "-g", hook, _mark_command(private_tmux))
        with pytest.raises(ConfigurationChanged):
            await client.run(cmd("select-pane", t=other.stdout.strip()))
        assert _marks(private_tmux) == 0
        # Control: the same selection from a plain client raises the hook.
        private_tmux.bare("select-pane", "-t", other.stdout.strip())
        private_tmux.bare("select-pane", "-t", ids["pane_id"])
        with trio.fail_after(10):
            while _marks(private_tmux) == 0:
                await trio.sleep(0.01)
