"""The example calls in docs/patterns.md run against real tmux and return what they show.

Issue 14.6: the agent-patterns page shows sequences of tool calls and their
results; this test parses them and executes each sequence over a real stdio
client (``tests.support.serve``) against a fresh tmux server of its own, so
the page cannot drift from the server's behaviour.

Page format (documented at the top of the page):

* ``<!-- example: NAME [needs=tool.param,tool,...] -->`` opens an example and
  ``<!-- end example -->`` closes it;
* inside, a ```json block ``{"call": TOOL, "arguments": {...}}`` is a call and
  the block after it, ``{"result": {...}}``, the fields its structured result
  must have (nested objects compare field by field, lists of the same length item
  by item, ``"…"`` is any value);
* a string ``"<field>"`` in a call's arguments is that field of the latest
  result that had it;
* ``needs`` names a tool, or a tool's input parameter or result field, that
  not every build has: the example is skipped when the server lacks one;
* a block ``{"person": {"pane_id": ..., "types": TEXT, "enter": true}}`` alone
  (no result block) is a person at an attached client typing into the pane:
  the test types it with bare tmux ``send-keys``, never through tmuxmcp.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from mcp import ClientSession

from tests.support import PrivateTmux, error_text, serve, temporary_tmux

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "patterns.md"
ANY = "…"

_EXAMPLE = re.compile(
    r"<!-- example: (?P<name>[a-z-]+)(?: needs=(?P<needs>[\w.,]+))? -->\n"
    r"(?P<body>.*?)<!-- end example -->",
    re.S,
)
_JSON = re.compile(r"```json\n(.*?)```", re.S)
_PLACEHOLDER = re.compile(r"^<(\w+)>$")
PERSON = "<person>"
"""The step of a person typing at an attached client (not a tool call)."""


class Step(NamedTuple):
    tool: str
    arguments: dict[str, Any]
    expected: dict[str, Any]


class Example(NamedTuple):
    name: str
    needs: tuple[str, ...]
    steps: tuple[Step, ...]


def parse_examples(page: str) -> list[Example]:
    """Every example on the page; malformed ones fail loudly."""
    examples = []
    for match in _EXAMPLE.finditer(page):
        blocks = [json.loads(b) for b in _JSON.findall(match["body"])]
        steps = []
        while blocks:
            call = blocks.pop(0)
            if set(call) == {"person"}:
                assert set(call["person"]) <= {"pane_id", "types", "enter"}, call
                steps.append(Step(PERSON, call["person"], {}))
                continue
            assert blocks, f"{match['name']}: every call needs its result"
            result = blocks.pop(0)
            assert set(call) == {"call", "arguments"}, call
            assert set(result) == {"result"}, result
            steps.append(Step(call["call"], call["arguments"], result["result"]))
        needs = tuple(n for n in (match["needs"] or "").split(",") if n)
        examples.append(Example(match["name"], needs, tuple(steps)))
    return examples


def mismatches(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Where ``actual`` differs from the documented ``expected`` (a subset match)."""
    if expected == ANY:
        return [] if actual is not None else [f"{where}: expected a value, got null"]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {actual!r}"]
        found = []
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{where}.{key}: missing")
            else:
                found += mismatches(value, actual[key], f"{where}.{key}")
        return found
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [
            p
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for p in mismatches(e, a, f"{where}[{i}]")
        ]
    return [] if expected == actual else [f"{where}: documented {expected!r}, got {actual!r}"]


def substitute(arguments: dict[str, Any], seen: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in arguments.items():
        out[key] = value
        if isinstance(value, str) and (m := _PLACEHOLDER.match(value)):
            assert m[1] in seen, f"no earlier result has {m[1]!r}"
            out[key] = seen[m[1]]
    return out


def missing_needs(needs: tuple[str, ...], tools: dict[str, Any]) -> list[str]:
    """The needs the server does not offer: ``tool`` or ``tool.field``."""
    missing = []
    for need in needs:
        tool, _, field = need.partition(".")
        listed = tools.get(tool)
        if listed is None:
            missing.append(need)
        elif field:
            fields = set(listed.input_schema.get("properties", {}))
            fields |= set((listed.output_schema or {}).get("properties", {}))
            if field not in fields:
                missing.append(need)
    return missing


EXAMPLES = parse_examples(PAGE.read_text(encoding="utf-8"))


@pytest.fixture
def fresh_tmux() -> Iterator[PrivateTmux]:
    """A private tmux directory and an empty HOME, so pane shells read no rc files."""
    with temporary_tmux("tmxdoc") as tmux:
        tmux.private_home(shutil.which("bash") or "/bin/sh")
        yield tmux


async def run_example(session: ClientSession, example: Example, tmux: PrivateTmux) -> None:
    seen: dict[str, Any] = {}
    for number, step in enumerate(example.steps, 1):
        if step.tool == PERSON:
            # What a person's keystrokes in an attached client do: keys into the pane.
            pane = step.arguments["pane_id"]
            tmux.bare("send-keys", "-t", pane, "-l", step.arguments.get("types", ""))
            if step.arguments.get("enter"):
                tmux.bare("send-keys", "-t", pane, "Enter")
            continue
        result = await session.call_tool(step.tool, substitute(step.arguments, seen))
        if result.is_error:
            raise AssertionError(f"step {number} ({step.tool}) failed: {error_text(result)}")
        body = result.structured_content
        assert isinstance(body, dict)
        problems = mismatches(step.expected, body, f"step {number} {step.tool}")
        assert not problems, problems
        seen.update(body)


def test_the_page_has_the_patterns_the_issue_asks_for() -> None:
    names = {e.name for e in EXAMPLES}
    assert {"run", "long", "cursor", "repl", "state", "quiet"} <= names
    page = PAGE.read_text(encoding="utf-8")
    for heading in ("Watching with attach", "Several agents on one machine", "A remote host"):
        assert f"\n## {heading}\n" in page
    assert '"ssh"' in page and '"-T"' in page
    steps = {s.tool for e in EXAMPLES for s in e.steps}
    assert {
        "run_command",
        "wait_for_command",
        "send_keys",
        "wait_for_text",
        "wait_for_state",
    } <= steps


def test_the_comparison_rejects_a_wrong_result() -> None:
    assert mismatches({"a": 1, "b": ANY}, {"a": 1, "b": "x", "c": 3}) == []
    assert mismatches({"a": 1}, {"a": 2}) != []
    assert mismatches({"a": ANY}, {"a": None}) != []
    assert mismatches({"m": {"line": "42"}}, {"m": {"line": "41"}}) != []
    assert mismatches({"a": 1}, {}) != []
    assert mismatches({"l": [{"a": 1}]}, {"l": [{"a": 1, "b": 2}]}) == []
    assert mismatches({"l": [{"a": 1}]}, {"l": [{"a": 2}]}) != []
    assert mismatches({"l": [{"a": 1}]}, {"l": [{"a": 1}, {"a": 1}]}) != []


@pytest.mark.tmux
@pytest.mark.parametrize("example", [pytest.param(e, id=e.name) for e in EXAMPLES])
async def test_the_example_runs_as_documented(fresh_tmux: PrivateTmux, example: Example) -> None:
    async with serve(fresh_tmux) as session:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        missing = missing_needs(example.needs, listed)
        if missing:
            pytest.skip(f"this server does not offer {', '.join(missing)} yet")
        await run_example(session, example, fresh_tmux)


# ------------------------------------------------------------- ssh -T host


def _sshd() -> str | None:
    """The sshd binary, installed from the distribution if possible; None if not."""
    for path in ("/usr/sbin/sshd", shutil.which("sshd")):
        if path and os.access(path, os.X_OK):
            return path
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return None
    # policy-rc.d answering 101 keeps the package from starting a system sshd.
    policy = Path("/usr/sbin/policy-rc.d")
    created = not policy.exists()
    if created:
        policy.write_text("#!/bin/sh\nexit 101\n")
        policy.chmod(0o755)
    try:
        done = subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "openssh-server"],
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
            capture_output=True,
            timeout=600,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None
    finally:
        if created:
            policy.unlink()
    if done.returncode != 0:
        return None
    return "/usr/sbin/sshd" if os.access("/usr/sbin/sshd", os.X_OK) else None


def _wait_listening(daemon: subprocess.Popen[bytes]) -> None:
    """Block (with a deadline) until ``sshd -D -e`` says it is listening."""
    import select

    assert daemon.stderr is not None
    seen = b""
    deadline = 30.0
    while b"Server listening" not in seen:
        readable, _, _ = select.select([daemon.stderr], [], [], deadline)
        assert readable, f"sshd did not start listening: {seen!r}"
        chunk = os.read(daemon.stderr.fileno(), 4096)
        assert chunk, f"sshd exited: {seen!r}"
        seen += chunk


@pytest.mark.tmux
async def test_the_server_runs_over_ssh_t(fresh_tmux: PrivateTmux) -> None:
    """The remote-host pattern: ``ssh -T host tmuxmcp`` as the client's server command."""
    import sys

    import trio
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    sshd = _sshd()
    if sshd is None or shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        pytest.skip("no ssh server could be installed from the distribution")
    work = Path(fresh_tmux.directory)
    for name in ("host", "user"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(work / name)], check=True
        )
    (work / "authorized").write_text((work / "user.pub").read_text())
    (work / "authorized").chmod(0o600)
    port = 20000 + os.getpid() % 20000
    config = work / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {work / 'host'}\n"
        f"AuthorizedKeysFile {work / 'authorized'}\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
        f"PidFile {work / 'sshd.pid'}\nPermitRootLogin prohibit-password\n"
        "AcceptEnv none\n"
    )
    os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege-separation directory
    daemon = subprocess.Popen([sshd, "-D", "-e", "-f", str(config)], stderr=subprocess.PIPE)
    try:
        # The remote command fixes the server's environment (ssh passes none).
        remote = (
            f"env -u TMUX -u TMUX_PANE TMUX_TMPDIR={fresh_tmux.directory} "
            f"HOME={fresh_tmux.env['HOME']} {sys.executable} -m tmuxmcp"
        )
        params = StdioServerParameters(
            command="ssh",
            args=[
                "-T",
                "-p",
                str(port),
                "-i",
                str(work / "user"),
                "-o",
                "BatchMode=yes",
                "-o",
                "StrictHostKeyChecking=no",
                "-o",
                f"UserKnownHostsFile={work / 'known_hosts'}",
                "127.0.0.1",
                remote,
            ],
            env=fresh_tmux.env,
        )
        _wait_listening(daemon)
        # A login whose shell start-up never finishes cannot serve anything; a slow one
        # (rc files that wait for a lock, up to a minute) is waited for.
        try:
            subprocess.run(["ssh", *params.args[:-1], "true"], timeout=90, check=True)
        except (subprocess.TimeoutExpired, subprocess.CalledProcessError) as failed:
            pytest.skip(f"a local ssh login does not complete here: {failed}")
        with trio.fail_after(100):
            async with (
                stdio_client(params) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                created = await session.call_tool("create_session", {"name": "remote"})
                assert not created.is_error, error_text(created)
        # The session exists on the tmux server the ssh-started tmuxmcp used.
        names = fresh_tmux.bare("list-sessions", "-F", "#{session_name}").stdout.split()
        assert names == ["remote"]
    finally:
        daemon.terminate()
        daemon.wait(timeout=20)
        if daemon.stderr is not None:
            daemon.stderr.close()
