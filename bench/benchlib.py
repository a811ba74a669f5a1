"""The benchmarks' shared library: private tmux, servers over stdio, statistics, /proc.

Every script in ``bench/`` runs as ``python bench/<script>.py`` from the repo
root, so this directory is first on ``sys.path`` and ``import benchlib``
finds this module; it puts the repo root on ``sys.path`` in turn, so the
benchmarks use the tests' one private-tmux helper (``tests.support``) and
one raw JSON-RPC client (``tests.raw_client``) rather than copies. The rules
every benchmark keeps through it:

* Rule 1: never the user's tmux. ``bench_tmux`` makes a ``PrivateTmux`` in a
  fresh ``TMUX_TMPDIR`` under /tmp, so the default dedicated label ``-L
  tmuxmcp`` is a private socket; its servers are killed and the directory
  removed at exit.
* Rule 2: a tool's latency is what an MCP client sees: ``serve`` is the
  official SDK client over stdio (under trio) on a fresh ``python -m tmuxmcp
  serve`` child, its tool list fetched so the client has the output schemas.
* Rule 3: the baseline is what any program does: ``bare_call`` is
  ``subprocess.run`` of a plain ``tmux -L tmuxmcp`` argv (``PrivateTmux.argv``)
  with captured output, decoded as UTF-8.
* Rule 4: a failed call measures nothing: ``structured`` stops the run.
* Rule 5: processes are counted by a ``--tmux`` wrapper script
  (``SpawnCounter``), in a phase of its own, so its cost never reaches a
  latency.
* Rule 6: CPU comes from ``/proc/<pid>/stat`` (10 ms ticks), Linux only.

It also holds what more than one benchmark measures: the inspect cases
(``cases``: each tool call and the bare tmux command it wraps) that
``bench_inspect.py``, ``bench_ab.py`` and ``profile_call.py`` share, and the
pane full of output they read (``fill_pane``).
"""

from __future__ import annotations

import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, TextIO

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from mcp import ClientSession, StdioServerParameters  # noqa: E402 (after the path above)
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.types import CallToolResult  # noqa: E402

from tests.raw_client import RawClient  # noqa: E402
from tests.support import DEDICATED, PrivateTmux, temporary_tmux, tmux_wrapper  # noqa: E402
from tmuxmcp.panes import records as inspect_records  # noqa: E402
from tmuxmcp.tools import capture as capture_tools  # noqa: E402

__all__ = [  # the shared helpers of tests/, offered to the benchmarks, and this module's own
    "DEDICATED",
    "FILLER",
    "Case",
    "PrivateTmux",
    "RawClient",
    "SpawnCounter",
    "bare_call",
    "bench_tmux",
    "cases",
    "children_of",
    "fill_pane",
    "loadavg",
    "p90",
    "proc_cpu",
    "rotated",
    "serve",
    "server_params",
    "server_pid",
    "server_pids",
    "structured",
    "summary",
    "write_json",
]

FILLER = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod"


# -- private tmux ------------------------------------------------------------------


@contextmanager
def bench_tmux(prefix: str = "tmb") -> Iterator[PrivateTmux]:
    """A private tmux for one benchmark run (Rule 1); stops the run if tmux is missing."""
    with temporary_tmux(prefix) as tmux:
        if not os.path.isabs(tmux.binary):
            raise SystemExit("bench: tmux is not installed")
        yield tmux


def bare_call(tmux: PrivateTmux, argv: list[str]) -> str:
    """The baseline: what any program does to run a tmux command and read its output."""
    done = subprocess.run(
        argv, stdin=subprocess.DEVNULL, capture_output=True, env=tmux.env, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"bench: {shlex.join(argv)} failed: {done.stderr.decode()}")
    return done.stdout.decode("utf-8", errors="replace")


def fill_pane(
    tmux: PrivateTmux, lines: int, width: int, height: int, filler: str = FILLER
) -> dict[str, str]:
    """Start a minimal server with a session whose pane holds ``lines`` lines of output."""
    program = f"seq -f 'line %g {filler}' 1 {lines}; exec cat"
    ids = tmux.bare(
        "-f", "/dev/null",
        "start-server", ";",
        "set-option", "-g", "history-limit", str(lines + 5000), ";",
        "new-session", "-d", "-s", "bench", "-x", str(width), "-y", str(height),
        "-P", "-F", "#{session_id} #{window_id} #{pane_id}", program,
    ).stdout.split()  # fmt: skip
    pane = ids[2]
    # Bounded poll: seq writes faster than tmux parses; wait for the last line.
    deadline = time.monotonic() + 30
    want = lines - height + 1
    while True:
        size = int(tmux.bare("display-message", "-p", "-t", pane, "#{history_size}").stdout)
        if size >= want and f"line {lines} " in tmux.bare("capture-pane", "-p", "-t", pane).stdout:
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"bench: pane history reached only {size} of {want} lines")
        time.sleep(0.02)
    return {"session_id": ids[0], "window_id": ids[1], "pane_id": pane, "history_size": str(size)}


class SpawnCounter:
    """A ``--tmux`` wrapper that logs each exec and then runs the real tmux (Rule 5).

    ``skip_panes`` leaves out the tmux clients a pane's shell starts (they have
    ``TMUX_PANE`` set; tmuxmcp's own children never do).
    """

    def __init__(self, directory: str, binary: str, *, skip_panes: bool = False) -> None:
        self.log = os.path.join(directory, "spawns")
        guard = '[ -n "$TMUX_PANE" ] || ' if skip_panes else ""
        self.wrapper = tmux_wrapper(
            os.path.join(directory, "tmux-count"),
            f"{guard}echo x >> {shlex.quote(self.log)}",
            binary,
        )

    def count(self) -> int:
        """Execs logged so far."""
        try:
            with open(self.log) as f:
                return sum(1 for _ in f)
        except FileNotFoundError:
            return 0

    def reset(self) -> None:
        """Forget the execs logged so far."""
        if os.path.exists(self.log):
            os.unlink(self.log)


# -- tmuxmcp over stdio ------------------------------------------------------------


def server_params(
    env: dict[str, str], *args: str, tree: str | None = None
) -> StdioServerParameters:
    """How to start ``python -m tmuxmcp serve args`` (from source tree ``tree``, if given)."""
    if tree is not None:
        env = {**env, "PYTHONPATH": tree}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "tmuxmcp", "serve", *args], env=env, cwd=tree
    )


@asynccontextmanager
async def serve(
    env: dict[str, str],
    *args: str,
    tree: str | None = None,
    errlog: TextIO = sys.stderr,
    read_timeout: float = 60,
) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session on a fresh tmuxmcp process (Rule 2)."""
    async with (
        stdio_client(server_params(env, *args, tree=tree), errlog=errlog) as (read, write),
        ClientSession(read, write, read_timeout_seconds=read_timeout) as session,
    ):
        await session.initialize()
        await session.list_tools()  # caches output schemas for the client's result check
        yield session


def structured(label: str, result: CallToolResult) -> dict[str, Any]:
    """The structured result, or stop the benchmark: failed calls measure nothing (Rule 4)."""
    if result.is_error or not isinstance(result.structured_content, dict):
        text = " ".join(getattr(block, "text", "") for block in result.content)
        raise SystemExit(f"bench: {label} failed: {text[:300]}")
    return result.structured_content


# -- statistics --------------------------------------------------------------------


def p90(values: Sequence[float]) -> float:
    """The 90th percentile, interpolated between samples (inclusive method)."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    return statistics.quantiles(ordered, n=10, method="inclusive")[8]


def summary(seconds: Sequence[float], suffix: str = "_ms") -> dict[str, float]:
    """Count, median, p90, min and max of ``seconds``, in milliseconds."""
    ms = sorted(s * 1000 for s in seconds)
    return {
        "n": len(ms),
        f"median{suffix}": statistics.median(ms),
        f"p90{suffix}": p90(ms),
        f"min{suffix}": ms[0],
        f"max{suffix}": ms[-1],
    }


def rotated(names: Sequence[str], iteration: int) -> list[str]:
    """``names`` rotated by ``iteration``: each goes first equally often, so load hits all alike."""
    shift = iteration % len(names)
    return [*names[shift:], *names[:shift]]


def write_json(path: str, result: dict[str, Any]) -> None:
    """Write ``result`` as indented JSON to ``path`` (making its directory) and say where."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(f"\nJSON written to {path}")


def loadavg() -> str:
    """The load averages, as ``uptime`` prints them."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# -- processes (/proc, Linux) ------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat_fields(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after ``pid (comm)``: state first."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rpartition(")")[2].split()


def proc_cpu(pid: int | None) -> tuple[float, float] | None:
    """(own, reaped children) CPU seconds of ``pid`` from /proc; None off Linux (Rule 6)."""
    if pid is None:
        return None
    try:
        fields = _stat_fields(pid)
    except OSError:
        return None
    # utime, stime, cutime, cstime are fields 14..17 of the whole line.
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime) / _TICK, (cutime + cstime) / _TICK


def children_of(pid: int, match: Callable[[bytes], bool] = lambda cmdline: True) -> list[int]:
    """The live children of ``pid`` whose command line ``match`` accepts, by pid."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if int(_stat_fields(int(entry))[1]) != pid:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if match(cmdline):
            found.append(int(entry))
    return sorted(found)


def server_pids() -> list[int]:
    """The tmuxmcp servers this process spawned (the SDK client spawns them directly)."""
    try:
        return children_of(os.getpid(), lambda cmdline: b"tmuxmcp" in cmdline)
    except OSError:
        return []


def server_pid() -> int | None:
    """The pid of the one tmuxmcp server this process spawned; None off Linux."""
    pids = server_pids()
    return pids[0] if pids else None


# -- the inspect cases ---------------------------------------------------------------


def _template(table: str) -> str:
    """A plain ``-F`` template of the tmux variables one of the tools asks for.

    Reading the tool's own field table keeps the baseline asking tmux for
    exactly the same fields (the tables were private before they were public).
    """
    fields = getattr(inspect_records, table)
    return "\x1f".join(f"#{{{variable}}}" for variable in fields.values())


@dataclass(frozen=True)
class Case:
    """One tool call and the bare tmux command it wraps."""

    row: str
    tool: str
    arguments: dict[str, Any]
    bare: tuple[str, ...]
    check: Callable[[dict[str, Any]], bool]


def cases(ids: dict[str, str], scrollback: int) -> list[Case]:
    """The benchmarked inspect calls, against the pane ``fill_pane`` made."""
    pane = ids["pane_id"]
    return [
        Case("list_sessions", "list_sessions", {},
             ("list-sessions", "-F", _template("SESSION_FIELDS")),
             lambda s: len(s["sessions"]) == 1),
        Case("list_windows", "list_windows", {},
             ("list-windows", "-a", "-F", _template("WINDOW_FIELDS")),
             lambda s: len(s["windows"]) == 1),
        Case("list_panes", "list_panes", {},
             ("list-panes", "-a", "-F", _template("PANE_FIELDS")),
             lambda s: len(s["panes"]) == 1),
        Case("list_panes one pane", "list_panes", {"pane_id": pane},
             ("list-panes", "-t", pane, "-F", _template("PANE_FIELDS")),
             lambda s: s["panes"][0]["pane_id"] == pane),
        Case("capture_pane visible", "capture_pane", {"pane_id": pane},
             ("capture-pane", "-p", "-t", pane),
             lambda s: not s["truncated"] and s["lines"] > 0),
        Case("capture_pane scrollback", "capture_pane",
             {"pane_id": pane, "start": -scrollback,
              "max_lines": capture_tools.MAX_CAPTURE_LINES,  # the default keeps 500
              "max_chars": capture_tools.MAX_CAPTURE_BYTES},  # and 36,000 characters
             ("capture-pane", "-p", "-t", pane, "-S", str(-scrollback)),
             lambda s: not s["truncated"] and s["captured_lines"] >= scrollback),
        Case("server_info", "server_info", {},
             ("display-message", "-p", "#{pid}:#{start_time}"),
             lambda s: s["server_state"] == "bound"),
    ]  # fmt: skip


def run_meta(script: str, tmux: PrivateTmux, iterations: int, cold_starts: int) -> dict[str, Any]:
    """What a peers-style run records about itself: command, tmux, Python, machine, load."""
    return {
        "command": shlex.join(["python", f"bench/{script}", *(sys.argv[1:])]),
        "tmux": subprocess.run(
            [tmux.binary, "-V"], capture_output=True, text=True, check=False
        ).stdout.strip(),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_before": loadavg(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "iterations": iterations,
        "cold_starts": cold_starts,
    }


def run_in_bench_tmux(prefix: str, run: Callable[..., Any], *args: Any) -> dict[str, Any]:
    """``trio.run(run, tmux, *args, errlog)`` on a bench tmux, the servers' stderr in a file."""
    import trio

    with (
        bench_tmux(prefix) as tmux,
        open(os.path.join(tmux.directory, "servers.stderr"), "w") as errlog,
    ):
        result: dict[str, Any] = trio.run(run, tmux, *args, errlog)
    return result


def print_header(result: dict[str, Any], unit: str) -> None:
    """The run's meta line and its servers, as the tables in bench/README.md open."""
    meta = result["meta"]
    print()
    print(
        f"`{meta['command']}`: {meta['tmux']}, Python {meta['python']}, {meta['cpus']} CPUs, "
        f"load {meta['load_before']} before, {meta['load_after']} after; "
        f"{meta['iterations']} calls per cell, {meta['cold_starts']} cold starts; {unit}"
    )
    print()
    for name, version in result["servers"].items():
        print(f"- {name} {version}")
    print()
