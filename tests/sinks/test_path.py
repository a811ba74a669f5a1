"""Start directories: the pure rule in the sink, existence asked of the host (issue 21.4, CM-5).

``sinks.path`` decides from the value alone; ``driver.host`` asks the
filesystem, from the encoding step, after the rule accepted the value.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tmuxmcp.capability.encode import encode_arguments
from tmuxmcp.errors import UnsafeValue
from tmuxmcp.sinks.path import encode_directory
from tmuxmcp.tools import manage


def test_the_sink_decides_without_touching_the_filesystem(monkeypatch: pytest.MonkeyPatch) -> None:
    touched: list[str] = []

    def no_filesystem(name: str) -> object:
        def refuse(*_: object, **__: object) -> None:
            touched.append(name)
            raise OSError("a sink touched the filesystem")

        return refuse

    with monkeypatch.context() as patched:
        for name in ("stat", "lstat", "listdir", "scandir", "open", "access"):
            patched.setattr(os, name, no_filesystem(name))
        accepted = encode_directory("/no/such/dir#{x}", "start_directory")
        try:
            encode_directory("relative", "start_directory")
        except UnsafeValue as exc:
            refused: UnsafeValue | None = exc
        else:
            refused = None
    assert touched == []
    assert accepted == "/no/such/dir##{x}"
    assert refused is not None and "must be an absolute path" in refused.message


def test_the_encoding_step_refuses_a_directory_that_does_not_exist(tmp_path: Path) -> None:
    missing = str(tmp_path / "gone")
    with pytest.raises(UnsafeValue) as refused:
        encode_arguments(manage.CreateSessionArgs(start_directory=missing))
    assert refused.value.message == "`start_directory` is not an existing directory"
    assert missing not in refused.value.message


def test_the_encoding_step_passes_an_existing_directory(tmp_path: Path) -> None:
    here = tmp_path / "a#b"
    here.mkdir()
    encoded = encode_arguments(manage.CreateSessionArgs(start_directory=str(here)))
    assert encoded.start_directory == str(here).replace("#", "##")
    assert os.path.isdir(str(here))


def test_the_pure_rule_is_asked_before_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """A relative path is refused by the rule; the host is never asked about it."""
    from tmuxmcp.capability import encode

    asked: list[str] = []
    monkeypatch.setattr(
        encode, "HOST_CHECKS", dict.fromkeys(encode.HOST_CHECKS, lambda v, p: asked.append(v))
    )
    with pytest.raises(UnsafeValue, match="absolute"):
        encode_arguments(manage.CreateSessionArgs(start_directory="rel/dir"))
    assert asked == []
