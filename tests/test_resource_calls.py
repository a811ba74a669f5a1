"""Resource requests served like tool calls (issue 21.4): audited, one error path.

Pure logic over the pane resource's declaration with its lister replaced
(the real listing and reads over tmux are in ``test_resources.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
import trio

from tmuxmcp import resource_calls
from tmuxmcp.audit import AuditLog
from tmuxmcp.capability.model import ListedResource
from tmuxmcp.definition import RESOURCES
from tmuxmcp.errors import InternalError, InvalidArguments

(INDEX, PANE) = RESOURCES


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_unexpected_listing_failure_is_an_internal_error_without_its_text(
    tmp_path: Path,
) -> None:
    async def broken(context: object) -> list[ListedResource]:
        raise RuntimeError("secret detail")

    spec = msgspec.structs.replace(PANE, lister=broken)
    log = tmp_path / "audit.jsonl"
    audit = AuditLog(str(log))
    with pytest.raises(InternalError) as failed:
        trio.run(resource_calls.listing, spec, None, audit)
    audit.close()  # the records are written by the log's own thread
    assert "secret detail" not in failed.value.for_client()
    assert [(r["tool"], r["outcome"]) for r in _records(log)] == [
        ("resource:pane/list", "internal-error")
    ]


def test_a_bad_uri_is_refused_before_any_handler_and_audited(tmp_path: Path) -> None:
    called: list[object] = []

    async def handler(context: object, args: object) -> object:
        called.append(args)
        raise AssertionError("the handler ran on a bad URI")

    spec = msgspec.structs.replace(PANE, handler=handler)
    log = tmp_path / "audit.jsonl"
    audit = AuditLog(str(log))
    with pytest.raises(InvalidArguments):
        trio.run(resource_calls.read, spec, None, audit, "tmux://pane/%7")
    audit.close()
    assert called == []
    (record,) = _records(log)
    assert (record["tool"], record["outcome"]) == ("resource:pane", "invalid-arguments")
    assert "%7" not in json.dumps(record)
