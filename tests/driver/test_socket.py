"""``driver.socket``: one validated socket per process (ADR 0001, CM-1).

Research §6: tmux does not validate ``-L`` (``make_label`` joins
``base/label``, so ``../x`` escapes the socket directory); labels are
restricted to ``[A-Za-z0-9_-]{1,64}`` and paths must be absolute and fit a
Unix socket address.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest

from tmuxmcp.driver.socket import (
    DEFAULT_SOCKET_NAME,
    SocketKind,
    SocketSelection,
    select_socket,
)
from tmuxmcp.errors import ConfigError


def test_default_is_the_dedicated_label() -> None:
    """CM-1: the default configuration selects a product-scoped dedicated socket."""
    selection = select_socket(None, None)
    assert selection == SocketSelection(SocketKind.NAME, "tmuxmcp")
    assert DEFAULT_SOCKET_NAME == "tmuxmcp"
    assert selection.is_dedicated_default
    assert selection.argv() == ["-L", "tmuxmcp"]
    assert selection.describe() == "-L tmuxmcp"


@pytest.mark.parametrize("label", ["work", "a", "A-Z_0-9", "x" * 64, "-leading-dash", "_"])
def test_valid_labels(label: str) -> None:
    selection = select_socket(label, None)
    assert selection.kind is SocketKind.NAME
    assert selection.value == label
    assert selection.argv() == ["-L", label]
    assert selection.is_dedicated_default is (label == "tmuxmcp")


@pytest.mark.parametrize(
    "label",
    [
        "",
        "../x",
        "..",
        ".",
        "a/b",
        "/abs",
        "a b",
        "a.b",
        "x" * 65,
        "a\n",
        "\na",
        "a\x00",
        "é",
        "\u0661",  # ARABIC-INDIC DIGIT ONE
        "a;",
        "$HOME",
        "~",
    ],
)
def test_invalid_labels_are_config_errors(label: str) -> None:
    with pytest.raises(ConfigError) as info:
        select_socket(label, None)
    assert "--socket-name" in info.value.message
    assert info.value.reference == "config-error"


def test_an_explicit_default_label_is_the_dedicated_default() -> None:
    assert select_socket("tmuxmcp", None).is_dedicated_default


def test_both_name_and_path_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not both"):
        select_socket("work", str(tmp_path / "sock"))
    with pytest.raises(ConfigError, match="not both"):
        select_socket("tmuxmcp", str(tmp_path / "sock"))


def test_absolute_path_in_an_existing_directory(tmp_path: Path) -> None:
    path = str(tmp_path / "sock")
    selection = select_socket(None, path)
    assert selection == SocketSelection(SocketKind.PATH, path)
    assert selection.argv() == ["-S", path]
    assert selection.describe() == f"-S {path}"
    assert not selection.is_dedicated_default


def test_paths_are_normalised(tmp_path: Path) -> None:
    messy = f"{tmp_path}//sub/..//./sock"
    assert select_socket(None, messy).value == str(tmp_path / "sock")


@pytest.mark.parametrize("path", ["", "sock", "./sock", "../sock", "~/sock", "tmp/sock"])
def test_relative_paths_are_config_errors(path: str) -> None:
    with pytest.raises(ConfigError, match="absolute"):
        select_socket(None, path)


def test_a_path_with_nul_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        select_socket(None, f"{tmp_path}/so\x00ck")


def test_a_path_in_a_missing_directory_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="existing directory"):
        select_socket(None, str(tmp_path / "missing" / "sock"))


def test_path_length_limit_counts_bytes_of_the_normalised_path() -> None:
    base = "/tmp/"
    fits = base + "x" * (100 - len(base))
    assert len(fits.encode()) == 100
    assert select_socket(None, fits).value == fits
    with pytest.raises(ConfigError, match="longer than 100 bytes"):
        select_socket(None, fits + "x")
    wide = base + "é" * 48  # 53 characters but 101 bytes
    assert len(wide) < 100 < len(wide.encode())
    with pytest.raises(ConfigError, match="too long"):
        select_socket(None, wide)
    # Normalisation happens first: a long spelling of a short path is fine.
    long_spelling = "/tmp/" + "./" * 60 + "s"
    assert select_socket(None, long_spelling).value == "/tmp/s"


def test_selection_is_frozen() -> None:
    selection = select_socket(None, None)
    with pytest.raises(AttributeError):
        selection.value = "other"  # type: ignore[misc]
    assert msgspec.json.decode(msgspec.json.encode(selection), type=SocketSelection) == selection


def test_select_socket_does_not_touch_the_filesystem(tmp_path: Path) -> None:
    before = sorted(os.listdir(tmp_path))
    select_socket(None, str(tmp_path / "sock"))
    assert sorted(os.listdir(tmp_path)) == before
