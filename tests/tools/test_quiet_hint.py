"""A quiet pane costs the activity hint almost nothing, and output still wakes it (issue
29's neighbour: a wait on a quiet pane read its counters 500 times a second).

The hint sleeps on the pane's doorbell (``driver.doorbell``: inotify on its
terminal) once nothing has happened for ``activity.IDLE_S``, and reads its
counters when it rings or every ``activity.BACKSTOP``. These tests count the
hint's readings (``ActivityHint._event``) while a real pane on a private
tmux prints nothing, and check that each kind of output still ends a watch:
the pane's own program, a process outside the pane writing to its terminal,
and the terminal's own echo of typed input (which rings nothing, and is seen
by the backstop through the server's counter). No timing is asserted: a
watch that missed its output would run to its 20 s end and return None.
"""

from __future__ import annotations

import inspect
import shutil
import threading
import time
from collections.abc import Callable, Iterator

import pytest
import trio

from tests.support import PrivateTmux, serve, structured
from tmuxmcp.driver import binding, doorbell
from tmuxmcp.driver.argv import cmd
from tmuxmcp.driver.client import TmuxClient
from tmuxmcp.driver.socket import select_socket
from tmuxmcp.panes import activity
from tmuxmcp.panes.activity import ActivityHint, Seen

WATCH_S = 1.0
PER_SECOND = 100
"""At most this many readings a second of a quiet pane: the backstop's 50, with room."""
LONG_S = 20.0


def _server(tmux: PrivateTmux) -> tuple[int, int]:
    pid, start = tmux.bare("display-message", "-p", "#{pid} #{start_time}").stdout.split()
    return int(pid), int(start)


@pytest.fixture
def quiet(private_tmux: PrivateTmux) -> Iterator[tuple[ActivityHint, dict[str, str]]]:
    """A hint following a pane whose program (``cat``) prints nothing until told."""
    pane = private_tmux.new_session("quiet", "tmuxmcp", "cat")
    pid = int(
        private_tmux.bare("display-message", "-p", "-t", pane["pane_id"], "#{pane_pid}").stdout
    )
    hint = ActivityHint.open(*_server(private_tmux))
    if hint is None:
        pytest.skip("no activity hint here (no /proc for this server)")
    with hint:
        hint.follow(pid)
        pane["tty"] = private_tmux.bare(
            "display-message", "-p", "-t", pane["pane_id"], "#{pane_tty}"
        ).stdout.strip()
        yield hint, pane


async def test_a_quiet_pane_is_read_a_few_times_a_second_not_every_period(
    quiet: tuple[ActivityHint, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On c37ff53 the counters were read every ``PERIOD`` (2 ms): about 500 readings in a
    second of a quiet pane (fewer on a loaded machine, never near the bound here)."""
    hint, _ = quiet
    readings = []
    event = ActivityHint._event

    def counted(self: ActivityHint, fd: int, now: float, periods: int) -> bool | None:
        readings.append(now)
        return event(self, fd, now, periods)

    monkeypatch.setattr(ActivityHint, "_event", counted)
    began = time.monotonic()
    assert await hint.watch(WATCH_S, first_change=False) is None
    seconds = time.monotonic() - began
    bound = seconds * PER_SECOND
    assert len(readings) <= bound, f"{len(readings)} readings in {seconds:.2f} s"


async def _watch_then(
    hint: ActivityHint,
    act: Callable[[], object],
    monkeypatch: pytest.MonkeyPatch,
    woken: list[bool] | None = None,
) -> Seen | None:  # ``act`` may return an awaitable: it is awaited
    """A watch of up to ``LONG_S`` in which ``act`` runs once the watch sleeps on the
    doorbell (its first wait for a ring), so what ``act`` does must wake it."""
    asleep = threading.Event()
    ring = doorbell.wait_ring

    def spied(fds: tuple[int, ...], seconds: float) -> bool:
        asleep.set()
        rang = ring(fds, seconds)
        if woken is not None:
            woken.append(rang)
        return rang

    monkeypatch.setattr(doorbell, "wait_ring", spied)
    hint.settle()
    found: list[Seen | None] = []
    async with trio.open_nursery() as nursery:

        async def later() -> None:
            assert await trio.to_thread.run_sync(asleep.wait, LONG_S), "the watch never slept"
            done = act()
            if inspect.isawaitable(done):
                await done

        nursery.start_soon(later)
        found.append(await hint.watch(LONG_S, first_change=True))
    return found[0]


async def test_the_pane_programs_output_wakes_a_sleeping_watch(
    quiet: tuple[ActivityHint, dict[str, str]],
    private_tmux: PrivateTmux,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hint, pane = quiet
    send = ("send-keys", "-t", pane["pane_id"], "line", "Enter")
    seen = await _watch_then(hint, lambda: private_tmux.bare(*send), monkeypatch)
    assert isinstance(seen, Seen) and seen.pane


async def test_a_write_from_outside_the_pane_wakes_a_sleeping_watch(
    quiet: tuple[ActivityHint, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process outside the pane's tree writes to its terminal: the doorbell rings."""
    hint, pane = quiet

    def write() -> None:
        with open(pane["tty"], "w") as terminal:
            terminal.write("from outside\n")

    assert isinstance(await _watch_then(hint, write, monkeypatch), Seen)


async def test_the_terminals_own_echo_wakes_a_sleeping_watch(
    quiet: tuple[ActivityHint, dict[str, str]],
    private_tmux: PrivateTmux,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Typed text ``cat`` has not read yet (no Enter): the kernel echoes it, no process
    writes, nothing rings; the backstop reads the server's counter, which moved when tmux
    read the echo."""
    hint, pane = quiet
    send = ("send-keys", "-t", pane["pane_id"], "abc")
    assert isinstance(await _watch_then(hint, lambda: private_tmux.bare(*send), monkeypatch), Seen)


async def test_keys_this_process_sends_stir_a_sleeping_watch(
    quiet: tuple[ActivityHint, dict[str, str]],
    private_tmux: PrivateTmux,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``doorbell`` Rule 2a: with the backstop out of reach, the echo of keys sent through
    tmuxmcp's own client still wakes the watch, since the client stirs the doorbells
    after a ``send-keys``."""
    hint, pane = quiet
    monkeypatch.setattr(activity, "BACKSTOP", 3600.0)
    tmux = shutil.which("tmux")
    assert tmux is not None
    client = TmuxClient(tmux, select_socket(None, None), private_tmux.env, timeout=10)
    await binding.establish(client)
    typed = cmd("send-keys", "-l", t=pane["pane_id"], args=["abc"])
    woken: list[bool] = []
    seen = await _watch_then(hint, lambda: client.run(typed), monkeypatch, woken)
    assert isinstance(seen, Seen)
    assert any(woken), "the watch slept to its end: nothing stirred it"


QUIET_WAIT_S = 6.0
LOOKS = 9
"""At most this many looks (tmux clients) in a ``QUIET_WAIT_S`` wait on a quiet pane: the
first, then safety looks 0.5, 1, 2, 2 s apart, the last at the deadline, and room for
two more (on c37ff53, one every 0.5 s: about 14)."""


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("wait_for_text", {"pattern": "never printed"}),
        ("wait_for_state", {"states": ["dead"]}),
    ],
)
async def test_a_wait_on_a_quiet_pane_looks_less_and_less_often(
    private_tmux: PrivateTmux, tool: str, arguments: dict[str, object]
) -> None:
    """Issue 29's neighbour: while looks find nothing new, the safety looks back off
    (``observation.Pacer.looked``), and a progress report is no reason to look; the
    tool reports its looks as ``polls``."""
    pane = private_tmux.new_session("quiet", "tmuxmcp", "cat")["pane_id"]
    async with serve(private_tmux) as session:
        args = {"pane_id": pane, "timeout": QUIET_WAIT_S, **arguments}
        result = structured(await session.call_tool(tool, args))
    assert result["outcome"] == "timeout", result
    assert result["watch"] == "activity-hint"
    assert result["polls"] <= LOOKS, result
