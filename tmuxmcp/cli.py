"""Command line: ``tmuxmcp [serve]``, ``surface``, ``manifest``, ``verify``.

The parser is built from the tables in ``tmuxmcp/settings.py`` (commands,
their flags, help text); ``config.load`` reads the values. Configuration
errors print one line on stderr and exit 2 before anything is served.
``surface`` never starts a tmux server; it reports what ``serve`` would
publish. Imports at the top, but for the one measured exception (issue 30.4):
what a command needs is imported when it runs, so ``tmuxmcp --help`` pays for
none of it; each late import gives its cost, measured with ``python -X
importtime`` after this module (itself 105 ms).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Sequence
from types import FrameType
from typing import TYPE_CHECKING, NoReturn

import trio

import tmuxmcp
from tmuxmcp.errors import ConfigError, TmuxMcpError
from tmuxmcp.settings import COMMANDS, DEFAULT_COMMAND, SETTINGS, TMUX, Command
from tmuxmcp.spool import Spool, SpoolHandler

if TYPE_CHECKING:  # imported late at run time (56 ms): `tmuxmcp --help` needs neither
    from tmuxmcp.config import Config, Options

BY_COMMAND = {command.name: command for command in COMMANDS}

STDERR = Spool(2)
"""Every line tmuxmcp writes on stderr: log records, errors, the watchdog's last word.
Written by the spool's thread, so a client that never reads stderr cannot stop
serving, pings or a stop signal (issue 27 N4); a line past the spool's bound is
dropped."""
STDERR_FLUSH = 1.0
"""Seconds the end of the process waits for stderr lines still queued."""


def _say(text: str, *, wait: bool = False) -> None:
    """One line on stderr, through the spool; ``wait``: for at most ``STDERR_FLUSH``
    seconds, until it is written (a last word before the process ends)."""
    STDERR.put(text.encode("utf-8", "backslashreplace"))
    if wait:
        STDERR.flush(STDERR_FLUSH)


COMMAND_NAMES = tuple(command.name for command in COMMANDS)


def _add_settings(parser: argparse.ArgumentParser, command: Command) -> None:
    """One flag per setting the command takes (``tmuxmcp/settings.py``)."""
    target: argparse.ArgumentParser | argparse._ArgumentGroup = parser
    if command.heading is not None:
        target = parser.add_argument_group(command.heading)
    for setting in command.settings:
        target.add_argument(
            setting.flag, dest=setting.name, metavar=setting.metavar, help=setting.help_line()
        )


def parser() -> argparse.ArgumentParser:
    """The argument parser, built from the command and settings tables."""
    top = argparse.ArgumentParser(
        prog="tmuxmcp",
        description="A stdio MCP server for tmux with declared, checked capabilities.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top.add_argument("--version", action="version", version=f"tmuxmcp {tmuxmcp.__version__}")
    sub = top.add_subparsers(dest="command", metavar="{" + ",".join(COMMAND_NAMES) + "}")
    for command in COMMANDS:
        _add_settings(sub.add_parser(command.name, help=command.help), command)
    # `tmuxmcp --help` shows what `tmuxmcp [serve] --help` shows about serving.
    serving = sub.choices[DEFAULT_COMMAND.name].format_help()
    assert DEFAULT_COMMAND.heading is not None
    top.epilog = (
        f"With no command, `{DEFAULT_COMMAND.name}` runs: "
        f"`tmuxmcp [{DEFAULT_COMMAND.name}] [options]`, where the options are\n\n"
        + serving[serving.index(DEFAULT_COMMAND.heading) :]
    )
    return top


def given_options(ns: argparse.Namespace, command: Command) -> Options:
    """The flags ``ns`` holds for the settings ``command`` takes."""
    from tmuxmcp.config import Options  # late: 56 ms that `--help` does not need

    return Options(**{s.name: getattr(ns, s.name) for s in command.settings})


def _config(ns: argparse.Namespace) -> Config:
    from tmuxmcp.config import load  # late: 56 ms that `--help` does not need

    return load(given_options(ns, BY_COMMAND[ns.command]), os.environ)


def _print_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _exit_after_serving(status: int) -> NoReturn:
    """End the process at once, now that serving is over.

    Interpreter teardown has nothing left to do (with the SDK's module graph,
    which served before issue 19, it took 0.3 s). ``trio.run`` has returned,
    so every task has ended, every tmux child was reaped and every response
    was handed to the kernel; the wire's descriptors are restored; the audit
    log's queued records were given a bounded time to be written.
    What Python still buffers (stdout, stderr, log handlers) is flushed here,
    stderr's spool for at most ``STDERR_FLUSH`` seconds.
    The only other exit hook is multiprocessing's, which tmuxmcp never uses.
    A worker thread still blocked reading a terminal, or writing to a stderr
    or a log nobody reads, is abandoned with it.
    """
    # Flushes the stderr spool too, waiting at most STDERR_FLUSH for a reader.
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
    os._exit(status)


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Each ends serving: calls in flight are cancelled (their tmux children killed
and reaped), the gate option is removed (and the server ended if this process
started it and it holds nothing: ``driver.tenancy``), and the status is 128 + the signal.
If serving has not ended ``STOP_GRACE`` seconds later, the process ends anyway
(``_StopWatchdog``)."""

STOP_GRACE = 5.0
"""Seconds a stop signal leaves serving to end cleanly: cancelling the calls is
immediate and leaving the server (``binding.release``) is two tmux calls of at
most 2 s each."""


class _StopWatchdog:
    """Ends the process when a stop signal is not acted on, even while the trio loop is blocked.

    trio acts on a signal in its loop, so a handler that computes without
    yielding would hold a stop off for as long as it computes (issue 18 R1).
    A Python signal handler runs in the main thread between bytecodes whatever
    the loop does, so the one installed here arms a timer thread before it
    hands the signal to trio's. The timer ends the process with the status the
    signal would give, without the cleanup: a call still computing holds no
    tmux child, but the gate option stays set and children of other calls are
    left to finish on their own (they have deadlines and no reader).
    """

    def __init__(self) -> None:
        self._timer: threading.Timer | None = None

    def install(self) -> None:
        """Wrap the handlers in place (trio's, inside ``open_signal_receiver``)."""
        for signum in STOP_SIGNALS:
            inner = signal.getsignal(signum)

            def handler(num: int, frame: FrameType | None, inner: object = inner) -> None:
                self._arm(num)
                if callable(inner):
                    inner(num, frame)

            signal.signal(signum, handler)

    def _arm(self, signum: int) -> None:
        # Only the first stop counts: clients send SIGINT then SIGTERM 100 ms
        # later and expect the clean exit with SIGINT's status.
        if self._timer is not None:
            return
        self._timer = threading.Timer(STOP_GRACE, self._expire, (signum,))
        self._timer.daemon = True
        self._timer.start()

    def disarm(self) -> None:
        """Serving ended: the timer has nothing left to stop."""
        if self._timer is not None:
            self._timer.cancel()

    @staticmethod
    def _expire(signum: int) -> None:
        # Bounded: a stderr nobody reads must not keep the process from ending.
        _say(
            f"tmuxmcp: serving did not stop within {STOP_GRACE:g} s of signal {signum}; "
            "exiting without cleanup (the gate option may stay set)\n",
            wait=True,
        )
        os._exit(128 + signum)


def banner() -> str:
    """The one line shown when stdin is a terminal: a person, not a client, started us."""
    return (
        f"tmuxmcp {tmuxmcp.__version__}: an MCP server for tmux. It speaks MCP (JSON-RPC) "
        "on stdin/stdout and is meant to be started by an MCP client; "
        "press Ctrl-C or Ctrl-D to stop.\n"
    )


@contextlib.asynccontextmanager
async def _sole_error() -> AsyncIterator[None]:
    """Unwrap a task group's single error, so that ``main`` reports it in one line."""
    try:
        yield
    except BaseExceptionGroup as group:
        leaves: list[BaseException] = []
        pending: list[BaseException] = [group]
        while pending:
            item = pending.pop()
            if isinstance(item, BaseExceptionGroup):
                pending.extend(item.exceptions)
            else:
                leaves.append(item)
        if len(leaves) == 1:
            raise leaves[0] from None
        raise


async def _serve(ns: argparse.Namespace) -> int:
    # Late: only serving needs these (runtime 234 ms, server 202 ms, binding 65 ms,
    # overlapping; together most of the server's start-up).
    from tmuxmcp import runtime
    from tmuxmcp.driver import binding
    from tmuxmcp.server import serve_stdio

    config = _config(ns)
    if os.isatty(0):
        _say(banner())
    stopped_by: list[int] = []
    bound: list[runtime.Runtime] = []
    watchdog = _StopWatchdog()
    with trio.open_signal_receiver(*STOP_SIGNALS) as signals:
        watchdog.install()
        async with _sole_error(), trio.open_nursery() as nursery:

            async def stop_on_signal() -> None:
                async for signum in signals:
                    stopped_by.append(signum)
                    nursery.cancel_scope.cancel()
                    return

            nursery.start_soon(stop_on_signal)
            bound.append(await runtime.start(config))
            await serve_stdio(bound[0])
            nursery.cancel_scope.cancel()
        if bound:
            await binding.release(bound[0].context.client, bound[0].context.facts)
    watchdog.disarm()
    return 128 + stopped_by[0] if stopped_by else 0


async def _surface(ns: argparse.Namespace) -> None:
    from tmuxmcp import runtime  # late: 234 ms, for `surface` only

    _print_json(await runtime.predict(_config(ns)))


VALUE_FLAGS = frozenset(setting.flag for setting in SETTINGS)
"""Flags that take the next argument as their value, unless given as ``--flag=value``."""


def command_first(args: Sequence[str]) -> list[str]:
    """``args`` with the command moved to the front, or ``serve`` put there if none is named.

    argparse reads a command's options only after the command, so
    ``tmuxmcp --socket-name x surface`` would otherwise be read as ``serve``
    with a stray ``surface`` (issue 18.5). The command is the first argument
    that is not a flag or a flag's value; a value that happens to spell a
    command (``--socket-name surface``) stays a value. Options the command
    does not take are still refused, by the command's own parser.
    """
    rest = list(args)
    index = 0
    while index < len(rest):
        arg = rest[index]
        if arg in COMMAND_NAMES:
            return [arg, *rest[:index], *rest[index + 1 :]]
        if arg in ("-h", "--help", "--version") and index == 0:
            return rest
        index += 2 if arg in VALUE_FLAGS else 1
    return [DEFAULT_COMMAND.name, *rest]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = command_first(sys.argv[1:] if argv is None else argv)
    ns = parser().parse_args(args)
    logging.basicConfig(
        level=logging.WARNING,
        handlers=[SpoolHandler(STDERR, STDERR_FLUSH)],
        format="tmuxmcp: %(levelname)s: %(message)s",
    )
    try:
        if ns.command == "manifest":
            # Late, for `manifest` only: definition 161 ms, capability.manifest 28 ms.
            from tmuxmcp.capability.manifest import definition_manifest
            from tmuxmcp.definition import DEFINITION, RESOURCES

            _print_json(definition_manifest(DEFINITION, RESOURCES))
        elif ns.command == "verify":
            # Late, for `verify` only: config 56 ms, verify.runner 61 ms.
            from tmuxmcp.config import read
            from tmuxmcp.verify import runner

            command = BY_COMMAND["verify"]
            chosen = read(given_options(ns, command), os.environ, command.settings)
            return runner.main(chosen[TMUX.name])
        elif ns.command == "surface":
            trio.run(_surface, ns)
        else:
            _exit_after_serving(trio.run(_serve, ns))
    except ConfigError as exc:
        _say(f"tmuxmcp: error: {exc.message}\n", wait=True)
        return 2
    except TmuxMcpError as exc:
        _say(f"tmuxmcp: error: {exc.for_client()}\n", wait=True)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
