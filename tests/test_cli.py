"""The command line: manifest, surface, startup validation (CM-3, CM-5, CM-7)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.raw_client import handshake, raw_exchange
from tests.support import PrivateTmux, serve, structured
from tmuxmcp.capability.manifest import definition_manifest
from tmuxmcp.definition import BY_NAME, DEFINITION, RESOURCES
from tmuxmcp.settings import COMMANDS, Command


def _run(tmux: PrivateTmux, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tmuxmcp", *args],
        capture_output=True,
        text=True,
        env=tmux.env,
        input=stdin,
        timeout=60,
        check=False,
    )


def test_version_and_help(private_tmux: PrivateTmux) -> None:
    done = _run(private_tmux, "--version")
    assert done.returncode == 0
    assert done.stdout.startswith("tmuxmcp ")
    for command in ("serve", "surface", "manifest"):
        helped = _run(private_tmux, command, "--help")
        assert helped.returncode == 0, helped.stderr
        assert "usage: tmuxmcp" in helped.stdout
    assert "--exclude-tools" in _run(private_tmux, "serve", "--help").stdout


def test_top_level_help_shows_the_serving_options(private_tmux: PrivateTmux) -> None:
    """Issue 14: `tmuxmcp --help` must not hide the options of the default command."""
    top = _run(private_tmux, "--help").stdout
    serve_help = _run(private_tmux, "serve", "--help").stdout
    flags = [word for word in serve_help.split() if word.startswith("--") and word != "--help"]
    assert "--socket-name" in flags and "--toolsets" in flags
    for flag in flags:
        assert flag in top, flag


@pytest.mark.parametrize("command", [c for c in COMMANDS if c.settings], ids=lambda c: c.name)
def test_help_shows_every_options_default(private_tmux: PrivateTmux, command: Command) -> None:
    """Issue 18.5: each option's help ends with its default, also where it is "not set"."""
    for args in (["--help"], [command.name, "--help"]):
        shown = " ".join(_run(private_tmux, *args).stdout.split())
        for setting in command.settings:
            start = shown.index(f"{setting.flag} {setting.metavar} ")
            entry = shown[start:].split(")", 1)[0]
            assert re.search(r"; default: [^;)\s]", entry), (args, entry)


@pytest.mark.parametrize(
    "args",
    [
        ["--socket-name", "picked", "surface"],
        ["surface", "--socket-name", "picked"],
        ["--socket-name=picked", "surface"],
    ],
    ids=["options-first", "command-first", "flag-equals-value"],
)
def test_options_work_before_and_after_the_command(
    private_tmux: PrivateTmux, args: list[str]
) -> None:
    """Issue 18.5: argparse alone reads ``--socket-name x surface`` as serve plus a stray word."""
    done = _run(private_tmux, *args)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["socket"]["value"] == "picked"


def test_a_flag_value_that_spells_a_command_stays_a_value(private_tmux: PrivateTmux) -> None:
    done = _run(private_tmux, "--socket-name", "verify", "surface")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["socket"]["value"] == "verify"


@pytest.mark.parametrize("options_first", [True, False], ids=["options-first", "command-first"])
def test_verify_takes_its_tmux_flag_on_either_side(
    private_tmux: PrivateTmux, options_first: bool
) -> None:
    flag = ["--tmux", "/nonexistent/tmux-for-verify"]
    done = _run(private_tmux, *([*flag, "verify"] if options_first else ["verify", *flag]))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("tmuxmcp: error: tmux executable not found"), done.stderr


def test_an_option_the_command_does_not_take_is_named_in_the_error(
    private_tmux: PrivateTmux,
) -> None:
    """verify runs on a throwaway socket, so a socket flag before it is refused, not ignored."""
    done = _run(private_tmux, "--socket-name", "x", "verify")
    assert done.returncode == 2
    assert "--socket-name" in done.stderr.splitlines()[-1]


def test_manifest_prints_the_whole_definition(private_tmux: PrivateTmux) -> None:
    done = _run(private_tmux, "manifest")
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed == json.loads(json.dumps(definition_manifest(DEFINITION, RESOURCES)))
    assert [t["name"] for t in printed["tools"]] == [s.name for s in DEFINITION]
    assert [r["uri_template"] for r in printed["resources"]] == ["tmux://panes", "tmux://pane/{n}"]
    assert "host-command" in printed["vocabulary"]["prohibited_process_reach"]


@pytest.mark.parametrize("toolsets", [(), ("--toolsets", "inspect")], ids=["default", "inspect"])
async def test_the_manifest_annotations_are_what_tools_list_sends(
    private_tmux: PrivateTmux, toolsets: tuple[str, ...]
) -> None:
    """CM-4, CM-5.2: each tool's title and four hints in ``tmuxmcp manifest`` (and so
    in docs/capabilities.json) are those ``tools/list`` sends, in the case the start
    met: cautious with a process tool served or no per-call check, else narrow."""
    done = _run(private_tmux, "manifest")
    assert done.returncode == 0, done.stderr
    declared = {t["name"]: t["annotations"] for t in json.loads(done.stdout)["tools"]}
    async with serve(private_tmux, *toolsets) as session:
        listed = (await session.list_tools()).tools
        info = structured(await session.call_tool("server_info", {"detail": True}))
    narrow = info["info"]["annotation_evidence"]["narrow_hints_allowed"]
    case = "with_evidence" if narrow else "cautious"
    assert listed
    for tool in listed:
        assert tool.annotations is not None, tool.name
        sent = tool.annotations.model_dump(by_alias=True, exclude_none=True)
        assert sent == declared[tool.name][case]


def test_surface_reports_without_starting_a_server(private_tmux: PrivateTmux) -> None:
    done = _run(private_tmux, "surface")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["socket"]["value"] == "tmuxmcp"
    assert report["socket"]["dedicated_default"] is True
    assert report["server"]["running"] is False
    assert set(report["surface"]["toolsets"]) == {"inspect", "manage", "execute", "teardown"}
    probe = private_tmux.bare("list-sessions", check=False)
    assert probe.returncode != 0, "tmuxmcp surface must not start a tmux server"


def test_surface_on_an_existing_server_reports_unknown_provenance(
    private_tmux: PrivateTmux,
) -> None:
    private_tmux.start_foreign_server()
    report = json.loads(_run(private_tmux, "surface").stdout)
    assert report["server"]["provenance"] == "unknown"
    assert "teardown" not in report["surface"]["toolsets"]
    for tool in report["surface"]["tools"]:
        assert tool["annotations"] == {
            "title": BY_NAME[tool["name"]].title,
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": False,
            "openWorldHint": True,
        }


@pytest.mark.parametrize(
    ("args", "bad", "valid"),
    [
        (["--toolsets", "inspect,readonly"], "readonly", "teardown"),
        (["--include-tools", "nope"], "nope", "list_panes"),
        (["--exclude-tools", "capture_panes"], "capture_panes", "capture_pane"),
    ],
)
def test_unknown_names_exit_before_serving(
    private_tmux: PrivateTmux, args: list[str], bad: str, valid: str
) -> None:
    """CM-3: reject unknown names at startup with one line naming bad and valid values."""
    request = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    done = _run(private_tmux, *args, stdin=request)
    assert done.returncode == 2
    assert done.stdout == "", "nothing may be served"
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert bad in lines[0]
    assert valid in lines[0]
    assert private_tmux.bare("list-sessions", check=False).returncode != 0


def test_environment_variables_select_the_surface(private_tmux: PrivateTmux) -> None:
    private_tmux.env["TMUXMCP_TOOLSETS"] = "inspect"
    private_tmux.env["TMUXMCP_EXCLUDE_TOOLS"] = "capture_pane"
    report = json.loads(_run(private_tmux, "surface").stdout)
    names = [t["name"] for t in report["surface"]["tools"]]
    assert "capture_pane" not in names
    assert "list_panes" in names
    flagged = json.loads(_run(private_tmux, "surface", "--exclude-tools", "list_panes").stdout)
    names = [t["name"] for t in flagged["surface"]["tools"]]
    assert "list_panes" not in names, "a flag overrides its environment variable"
    assert "capture_pane" in names


@pytest.mark.parametrize(
    "args",
    [
        ["--socket-name", "../escape"],
        ["--socket-name", ""],
        ["--socket-path", "relative/sock"],
        ["--socket-name", "a", "--socket-path", "/tmp/x"],
        ["--tmux", "/nonexistent/tmux"],
        ["--timeout", "soon"],
        ["--toolsets", ""],
    ],
)
def test_invalid_configuration_is_one_line_and_exit_2(
    private_tmux: PrivateTmux, args: list[str]
) -> None:
    done = _run(private_tmux, "surface", *args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("tmuxmcp: error: ")


@pytest.mark.parametrize("source", ["flag", "environment"])
def test_verify_reads_its_tmux_setting_from_flag_and_environment(
    private_tmux: PrivateTmux, source: str
) -> None:
    """``tmuxmcp verify`` takes ``--tmux`` / ``TMUXMCP_TMUX`` like serve; a bad one exits 2."""
    missing = "/nonexistent/tmux-for-verify"
    if source == "environment":
        private_tmux.env["TMUXMCP_TMUX"] = missing
    done = _run(private_tmux, "verify", *(["--tmux", missing] if source == "flag" else []))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("tmuxmcp: error: tmux executable not found")


SDK_MODULES = ("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio")
"""The SDK and what it runs on: none of it is on the serving path (issue 19.1)."""


def test_a_serving_process_loads_no_sdk_module(private_tmux: PrivateTmux) -> None:
    """Issue 19.1: a real ``serve`` that answered the calls a client makes first imported
    nothing from the ``mcp`` SDK, its types, pydantic or anyio.

    The process's own import log (``-X importtime``, on stderr) names every module it
    imported; it is read after the last reply, so whatever serving needed is in it.
    """
    env = {**private_tmux.env, "PYTHONPROFILEIMPORTTIME": "1"}
    replies, stderr = raw_exchange(
        env,
        ["serve"],
        [
            *handshake("test", "2025-11-25"),
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "list_sessions", "arguments": {}},
            },
            {"jsonrpc": "2.0", "id": 4, "method": "resources/list"},
        ],
    )
    assert {t["name"] for t in replies[2]["result"]["tools"]} >= {"list_panes", "capture_pane"}
    assert replies[3]["result"]["isError"] is False
    # An empty server lists the pane index only (issue 29.3).
    assert [r["uri"] for r in replies[4]["result"]["resources"]] == ["tmux://panes"]
    imported = {
        line.rpartition("|")[2].strip() for line in stderr.splitlines() if "import time:" in line
    }
    assert {"trio", "msgspec", "tmuxmcp.protocol.wire"} <= imported, "the log is an import log"
    roots = {name.split(".")[0] for name in imported}
    assert roots.isdisjoint(SDK_MODULES), sorted(roots & set(SDK_MODULES))


def _old_tmux(directory: Path) -> tuple[str, Path]:
    """A fake ``tmux`` that reports 3.1c and logs each argv; every other call fails."""
    log = directory / "argv.log"
    script = directory / "tmux"
    script.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$*" >> "{log}"\n'
        'if [ "$1" = "-V" ]; then echo "tmux 3.1c"; exit 0; fi\n'
        "echo 'tmux: unknown option -- N' >&2\n"
        "exit 1\n"
    )
    script.chmod(0o755)
    return str(script), log


@pytest.mark.parametrize("command", ["serve", "surface"])
def test_a_tmux_older_than_3_2_is_refused_at_startup_in_one_line(
    private_tmux: PrivateTmux, tmp_path: Path, command: str
) -> None:
    """Rule 1 of ``driver.versions``: before any server is asked (only ``tmux -V`` ran),
    one line naming the version found and the oldest supported one.

    Before, a 3.1c binary got ``[tmux-command-failed] tmux reported an error:
    tmux: unknown option -- N usage: ...`` (measured on a 3.1c build).
    """
    fake, log = _old_tmux(tmp_path)
    done = _run(private_tmux, command, "--tmux", fake)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        "tmuxmcp: error: [tmux-unsupported] tmux 3.1c is older than 3.2, the oldest tmux "
        "tmuxmcp supports (every call passes -N, which tmux 3.2 added); install a newer "
        "tmux or name one with --tmux"
    ]
    assert done.stdout == ""
    assert log.read_text() == "-V\n"


def test_verify_refuses_a_tmux_older_than_3_2_in_one_fail_line(
    private_tmux: PrivateTmux, tmp_path: Path
) -> None:
    fake, log = _old_tmux(tmp_path)
    private_tmux.env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    done = _run(private_tmux, "verify", "--tmux", fake)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [
        "FAIL supported-version: tmux is 3.2 or later (tmux 3.1c): [tmux-unsupported] "
        "tmux 3.1c is older than 3.2, the oldest tmux tmuxmcp supports (every call passes "
        "-N, which tmux 3.2 added); install a newer tmux or name one with --tmux"
    ]
    assert log.read_text() == "-V\n"  # no lab server was started
