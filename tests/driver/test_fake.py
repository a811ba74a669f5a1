"""``driver.fake``: the scripted tmux records what it is asked and refuses surprises.

The fake is test equipment, so its own promises are tested here, without
tmux: an unexpected command or an unused expectation fails loudly; ``rows``
answers expand a template as tmux's list commands do; a stopped or replaced
server answers as the tmux client does, so the real client's error mapping
turns it into the error a real answer gives (CM-1). The runtime's startup
runs on it too: the version check, the probe, the marking and the alias
read reach the runner, in that order, with nothing started.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.fake_support import fake_config, words
from tmuxmcp import runtime
from tmuxmcp.driver.argv import cmd
from tmuxmcp.driver.binding import Provenance
from tmuxmcp.driver.client import ServerIdentity, classify_failure
from tmuxmcp.driver.fake import (
    ANY,
    FakeCall,
    FakeFormatError,
    FakeTmux,
    Reply,
    UnexpectedCommand,
    Word,
    expand_format,
)
from tmuxmcp.driver.pristine import BUILTIN_ALIASES
from tmuxmcp.errors import BoundServerLost, ObjectNotFound, ServerGone, TmuxCommandFailed


async def test_an_unexpected_command_fails_as_tmux_would_and_check_names_it() -> None:
    """The call fails (status 1) and ``check`` raises naming the words run."""
    fake = FakeTmux()
    client = fake.client()
    with pytest.raises(TmuxCommandFailed):
        await client.run(cmd("kill-server"))
    with pytest.raises(UnexpectedCommand, match=r"unexpected tmux command: \['kill-server'\]"):
        fake.check()


def test_an_expectation_left_unrun_fails_the_block() -> None:
    """Leaving ``with FakeTmux()`` with an expected command unrun is a failure."""
    fake = FakeTmux()
    fake.expect("list-panes")
    with pytest.raises(UnexpectedCommand, match="expected but not run: \\['list-panes'\\]"), fake:
        pass


async def test_words_after_the_gate_are_matched_exactly_with_any_for_one_word() -> None:
    """``ANY`` stands for exactly one word; the gate's line is printed before the output."""
    fake = FakeTmux()
    client = fake.client()
    fake.expect("display-message", "-p", "-t", ANY, "--", "x", stdout="x\n")
    out = await client.run(cmd("display-message", "-p", t="%4", args=["x"]))
    assert out.stdout == "x\n"
    (call,) = fake.calls
    assert call.gated and call.words == ("display-message", "-p", "-t", "%4", "--", "x")
    fake.expect("display-message", "-p", "-t", ANY, "--", "x")
    with pytest.raises(TmuxCommandFailed):
        await client.run(cmd("display-message", "-p", t="%4", args=["x", "y"]))
    assert len(fake.unexpected) == 1


def test_a_template_expands_variables_and_doubles_backslashes_where_asked() -> None:
    """``#{name}`` as it is, ``#{s/\\\\/\\\\\\\\/:name}`` with each backslash doubled."""
    template = "S1#{s/\\\\/\\\\\\\\/:pane_title}F1#{pane_id}E1"
    assert expand_format(template, {"pane_title": "a\\b", "pane_id": "%1"}) == "S1a\\\\bF1%1E1"


@pytest.mark.parametrize(
    ("template", "values"),
    [
        ("#{pane_id}", {}),
        ("#{?pane_active,yes,no}", {"pane_active": "1"}),
        ("#{W:#{window_id}}", {"window_id": "@1"}),
    ],
)
def test_a_format_the_fake_cannot_expand_is_refused(template: str, values: dict[str, str]) -> None:
    """A missing value or a conditional, a loop: refused, never guessed."""
    with pytest.raises(FakeFormatError):
        expand_format(template, values)


async def test_a_stopped_server_reads_as_gone_to_the_real_classifier() -> None:
    """After ``stop_server`` the answer is the tmux client's own "no server" line."""
    fake = FakeTmux()
    fake.stop_server()
    done = await fake(
        [fake.binary, "-u", "-N", "-L", "tmuxmcp", "list-sessions"], env={}, seconds=1
    )
    assert done.returncode == 1
    assert isinstance(classify_failure(done.stderr.decode(), fake.socket), ServerGone)
    with pytest.raises(BoundServerLost):
        await fake.client().run(cmd("list-sessions"))


async def test_a_replaced_server_fails_the_gate() -> None:
    """The gate names the bound identity; a replacement's answer is refused by the client."""
    fake = FakeTmux()
    client = fake.client()
    fake.replace_server(ServerIdentity(7, 8))
    with pytest.raises(BoundServerLost, match="replaced"):
        await client.run(cmd("list-sessions"))
    assert fake.unexpected == []


async def test_an_error_answer_is_mapped_by_the_client() -> None:
    """Scripted stderr goes through ``classify_failure`` like real tmux's."""
    fake = FakeTmux()
    fake.expect("kill-pane", "-t", "%9", stderr="can't find pane: %9\n", status=1)
    with pytest.raises(ObjectNotFound, match="%9"):
        await fake.client().run(cmd("kill-pane", t="%9"))


def _probe_answer(
    identity: ServerIdentity, version: str, config_files: str
) -> Callable[[FakeCall], Reply]:
    """The answer of a server with these facts to startup's probe (a ``-F`` template)."""
    facts = {
        "pid": str(identity.pid),
        "start_time": str(identity.start_time),
        "version": version,
        "socket_path": "/nonexistent/tmux-1000/tmuxmcp",
        "config_files": config_files,
    }
    return lambda call: Reply(stdout=expand_format(call.words[3], facts) + "\n")


def _expect_mark(fake: FakeTmux, identity: ServerIdentity | None, stderr: str = "") -> None:
    """Startup marks the server with its nonce option, registers this process as
    serving there (``driver.tenancy``) and reads back the identity; with no
    identity, the server is gone and tmux says ``stderr``."""
    fake.expect(
        *words("set-option -s -F --"),
        ANY,
        "#{pid}:#{start_time}",
        *words("; set-option -s -a -- @tmuxmcp-serving"),
        ANY,
        *words("; show-options -s -v --"),
        ANY,
        stdout="" if identity is None else f"{identity.pid}:{identity.start_time}\n",
        stderr=stderr,
        status=1 if identity is None else 0,
    )


async def test_startup_on_the_fake_finds_a_running_server_and_binds_to_it() -> None:
    """``runtime.start``: the version check, the probe, the mark and the alias read, in
    order, through the runner; a server found running has unknown provenance (CM-3), and
    the client is bound to the identity the mark read back (CM-1)."""
    running = ServerIdentity(4242, 1700000001)
    with FakeTmux() as fake:
        fake.expect("-V", stdout="tmux 3.3a\n")
        probe = _probe_answer(running, "3.3a", "/home/u/.tmux.conf")
        fake.expect("display-message", "-p", "--", ANY, answer=probe)
        _expect_mark(fake, running)
        fake.expect(
            *words("display-message -p -- #{command-alias} ; show-options -s -v -- command-alias"),
            stdout="\nsplit-pane=split-window\n",
        )
        started = await runtime.start(fake_config(fake, env={"LANG": "C.UTF-8"}), runner=fake)
    facts = started.context.facts
    assert facts.provenance is Provenance.UNKNOWN
    assert facts.identity == ServerIdentity(4242, 1700000001)
    assert started.context.client.bound == ServerIdentity(4242, 1700000001)
    assert facts.aliases is None, "3.3a expands no whole array option"
    assert [call.gated for call in fake.calls] == [False] * 4
    assert all(call.env == {"LANG": "C.UTF-8"} for call in fake.calls)
    marker = fake.calls[2].words[4]
    assert marker.startswith("@tmuxmcp_") and fake.calls[2].words[-1] == marker


_PRISTINE_READ: tuple[Word, ...] = (
    *words("display-message -p --"),
    ANY,
    *words("; show-options -s -v -- command-alias ; display-message -p --"),
    ANY,
    *words("; show-hooks -g ; show-hooks -g -w ; display-message -p --"),
    ANY,
    *words("; list-sessions -F"),
    ANY,
    *words("; display-message -p --"),
    ANY,
    *words("; show-options -g -v -- default-command ; display-message -p --"),
    ANY,
    *words("; show-options -s ; show-options -g ; show-options -g -w"),
)
"""``driver.pristine.departures``: one invocation, each section after a marker line."""


def _pristine_answer(aliases: tuple[str, ...]) -> Callable[[FakeCall], Reply]:
    """A server holding ``aliases``, no hook, no session, no default-command, no job."""

    def answer(call: FakeCall) -> Reply:
        w = call.words
        markers = [w[i + 1] for i in range(1, len(w) - 1) if w[i - 1 : i + 1] == ("-p", "--")]
        hooks, sessions, command, options = markers[1:]
        head = [markers[0], *aliases, hooks, "after-new-session", sessions, command]
        lines = [*head, options, "exit-empty off", ""]
        return Reply(stdout="\n".join(lines))

    return answer


async def test_startup_on_the_fake_starts_a_minimal_server_when_none_answers() -> None:
    """No server on the socket: the one spawn without ``-N`` starts it with
    ``-f /dev/null`` and a start nonce in its environment; the server holding that
    nonce is the one this process started, so provenance is minimal and all four
    toolsets are served (CM-1, CM-3); a 3.5 alias list is read for the per-call check."""

    def nonce_answer(call: FakeCall) -> Reply:
        started = fake.calls[-2].env["TMUXMCP_START"]
        return Reply(stdout=f"TMUXMCP_START={started}\n")

    started_here = ServerIdentity(5150, 1700000002)
    with FakeTmux() as fake:
        fake.expect("-V", stdout="tmux 3.5a\n")
        fake.expect(
            "display-message",
            "-p",
            "--",
            ANY,
            stderr="no server running on /tmp/tmux-1000/tmuxmcp\n",
            status=1,
        )
        fake.expect(
            *words("-u -f /dev/null -L tmuxmcp start-server ; set-option -s -- exit-empty off"),
            *words("; set-option -g -- history-limit 50000"),
        )
        fake.expect(*words("show-environment -g -- TMUXMCP_START"), answer=nonce_answer)
        fake.expect(*words("set-environment -g -u -- TMUXMCP_START"))
        fake.expect(
            "display-message", "-p", "--", ANY, answer=_probe_answer(started_here, "3.5a", "")
        )
        _expect_mark(fake, started_here)
        # What tmux itself defines, read back in one invocation (issue 27 N1).
        fake.expect(*_PRISTINE_READ, answer=_pristine_answer(BUILTIN_ALIASES[(3, 5)]))
        # 3.5 expands the whole array, space-joined; show-options lists one per line.
        listed = list(BUILTIN_ALIASES[(3, 5)])
        fake.expect(
            *words("display-message -p -- #{command-alias} ; show-options -s -v -- command-alias"),
            stdout=" ".join(listed) + "\n" + "".join(f"{alias}\n" for alias in listed),
        )
        started = await runtime.start(fake_config(fake), runner=fake)
    start = fake.calls[2]
    assert "-N" not in start.argv, "the one call that may start a server"
    assert len(start.env["TMUXMCP_START"]) == 32
    facts = started.context.facts
    assert (facts.provenance, facts.created_by_tmuxmcp) == (Provenance.MINIMAL, True)
    assert facts.aliases == " ".join(listed)
    assert set(started.surface.toolsets) == {"inspect", "manage", "execute", "teardown"}


async def test_a_found_server_that_ends_before_binding_is_looked_for_again() -> None:
    """Issue 27.3: the tmuxmcp that started the found server may end it at its exit
    (empty) between this start's probe and its mark; the start looks again and
    starts its own server, minimal, instead of failing."""

    def nonce_answer(call: FakeCall) -> Reply:
        started = fake.calls[-2].env["TMUXMCP_START"]
        return Reply(stdout=f"TMUXMCP_START={started}\n")

    ended = ServerIdentity(4242, 1700000001)
    started_here = ServerIdentity(5150, 1700000002)
    gone = "no server running on /tmp/tmux-1000/tmuxmcp\n"
    with FakeTmux() as fake:
        fake.expect("-V", stdout="tmux 3.3a\n")
        fake.expect("display-message", "-p", "--", ANY, answer=_probe_answer(ended, "3.3a", ""))
        _expect_mark(fake, None, stderr=gone)
        fake.expect("display-message", "-p", "--", ANY, stderr=gone, status=1)
        fake.expect(
            *words("-u -f /dev/null -L tmuxmcp start-server ; set-option -s -- exit-empty off"),
            *words("; set-option -g -- history-limit 50000"),
        )
        fake.expect(*words("show-environment -g -- TMUXMCP_START"), answer=nonce_answer)
        fake.expect(*words("set-environment -g -u -- TMUXMCP_START"))
        fake.expect(
            "display-message", "-p", "--", ANY, answer=_probe_answer(started_here, "3.3a", "")
        )
        _expect_mark(fake, started_here)
        fake.expect(*_PRISTINE_READ, answer=_pristine_answer(BUILTIN_ALIASES[(3, 3)]))
        fake.expect(
            *words("display-message -p -- #{command-alias} ; show-options -s -v -- command-alias"),
            stdout="\nsplit-pane=split-window\n",
        )
        started = await runtime.start(fake_config(fake), runner=fake)
    facts = started.context.facts
    assert (facts.provenance, facts.created_by_tmuxmcp) == (Provenance.MINIMAL, True)
    assert facts.identity == started_here
