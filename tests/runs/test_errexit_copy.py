"""The command's copy for a shell under errexit (``runscript.errexit_copy``, Rule 3).

No tmux: which command texts may take one more line, the status line, without
that line becoming part of them. A copy wrongly made would put the status line
into a here-document's data or onto a continued line (its text in the output);
a copy wrongly refused costs a refusal under errexit only, so the check errs
that way.
"""

from __future__ import annotations

import pytest

from tmuxmcp.runs import runscript

COMPLETE = [
    "echo hi",
    "echo hi\n",
    "test -f /nonexistent && echo yes",
    "printf '%s\\n' 'a\\' b",
    "echo ends-in-two \\\\",
    "cat <<EOF\nabc\nEOF",
    "cat <<'EOF'\n$x\nEOF\necho after",
    'cat <<"E"\nE',
    "cat <<-EOF\n\tabc\n\tEOF",
    "cat <<A <<B\na\nA\nb\nB",
    "cat 2<<EOF\nEOF",
    "cat <<<here-string",
    "cat <<EOF\n<<NOT-AN-OPERATOR\nEOF",
]
OPEN = [
    "echo hi \\",
    "echo hi \\\\\\",
    "cat <<EOF\nabc",
    "cat <<EOF\nabc\nEOF2",
    "cat <<EOF\nabc\n EOF",
    "cat <<EOF\n\tEOF",
    "cat <<A <<B\na\nA\nb",
    "cat <<'EOF'\nx",
    "echo $((1<<2))",
]


@pytest.mark.parametrize("command", COMPLETE)
def test_a_complete_command_gets_the_status_line_after_its_text(command: str) -> None:
    text = command if command.endswith("\n") else command + "\n"
    assert runscript.errexit_copy(command) == text + "tmuxmcp_release=$?\n"


@pytest.mark.parametrize("command", OPEN)
def test_an_open_here_document_or_continued_line_gets_no_copy(command: str) -> None:
    """The last case is a false alarm, on purpose: `<<` in arithmetic looks like an
    operator whose word never stands alone on a later line."""
    assert runscript.errexit_copy(command) is None


@pytest.mark.parametrize("shell", ["sh", "dash", "bash", "zsh"])
def test_the_script_sources_the_copy_only_under_errexit(shell: str) -> None:
    files = {key: f"/run/x/{key}1" for key in "rcesgt"}
    with_copy = runscript.script(files=files, fence="f", shell=shell, errexit_copy=True)
    without = runscript.script(files=files, fence="f", shell=shell, errexit_copy=False)
    assert "/run/x/e1" in with_copy and "X errexit" not in with_copy
    assert "/run/x/e1" not in without and "X errexit" in without
    assert "X errreturn" not in with_copy + without  # issue 31.2: ERR_RETURN runs


@pytest.mark.parametrize("shell", ["sh", "dash", "bash", "zsh"])
def test_the_typed_line_gives_the_status_back_in_an_and_or_list(shell: str) -> None:
    """The last step of the typed line is `. "$tmuxmcp_t" && :`: a non-zero status
    there ends no shell under errexit, and the script before it always ends with
    status 0, setting `tmuxmcp_t` to `t` as its last step, after the command (issue
    31.3: the line names tmuxmcp's directory once); `t` unsets it."""
    files = {key: f"/run/x/{key}1" for key in "rcesgt"}
    line = runscript.typed_line("false", files, shell=shell, suppress_history=False)
    start = (
        "_=false . /run/x/r1"
        if shell in ("sh", "dash")
        else '_=false tmuxmcp_status=$?; eval "$(</run/x/r1)"'
    )
    assert line == f'{{ {start}; . "$tmuxmcp_t" && :; }} 7>&1 8>&2 >/dev/null 2>&1\n'
    for copy in (True, False):
        script = runscript.script(files=files, fence="f", shell=shell, errexit_copy=copy)
        assert script.endswith("\ntmuxmcp_t=/run/x/t1\n")
    for status in (None, 3):
        assert "unset tmuxmcp_t" in runscript.status_return(status, None, shell).replace(
            "tmuxmcp_status ", ""
        )


@pytest.mark.parametrize("shell", ["sh", "dash", "bash", "zsh"])
def test_a_disarmed_script_runs_nothing_and_gives_the_status_back(shell: str) -> None:
    """A line the shell reads after its run was disarmed finds `r` inert: it points the
    typed line at `t` alone, which gives back the status the line kept (issue 31.3)."""
    files = {key: f"/run/x/{key}1" for key in "rcesgt"}
    inert = runscript.inert(files, shell)
    assert "/run/x/c1" not in inert and "/run/x/e1" not in inert
    assert inert.endswith("tmuxmcp_t=/run/x/t1\n")
    assert ("tmuxmcp_status=$?" in inert) is (shell in ("sh", "dash"))
