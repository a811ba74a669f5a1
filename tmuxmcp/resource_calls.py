"""Resource requests served like tool calls: from the definition, audited, one error path.

``resources/read`` and ``resources/list`` of a declared resource
(``definition.RESOURCES``, a ``ResourceSpec``) are answered here; the MCP
layer (``server``) only turns the outcome into protocol messages.

Rules kept here (issue 21.4):

* **Rule 1: the declaration is the implementation.** A read decodes the URI's
  variables with the spec's ``variables``, encodes them for their declared
  sinks (``capability.encode``) and calls the spec's ``handler``; a listing
  calls the spec's ``lister``. Nothing here knows which resources exist.
* **Rule 2: every request is audited**, as a tool call is: a read as
  ``resource:<name>`` with the declared variable (so the audit log applies
  that variable's rule, never echoing an undeclared key), a listing as
  ``resource:<name>/list``; the outcome is ``ok``, ``cancelled`` or the
  error's reference.
* **Rule 3: one error path.** A ``TmuxMcpError`` propagates unchanged; any
  other exception is logged here and becomes ``InternalError``, whose
  message carries none of its text.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec

from tmuxmcp.audit import AuditLog
from tmuxmcp.capability.encode import encode_arguments
from tmuxmcp.capability.model import ListedResource, ResourceSpec
from tmuxmcp.errors import InternalError, TmuxMcpError

log = logging.getLogger("tmuxmcp.resources")


class ResourceText(msgspec.Struct, frozen=True, kw_only=True):
    """What a read returns: the text of one resource."""

    uri: str
    mime_type: str
    text: str


class _Outcome:
    value = "cancelled"


@asynccontextmanager
async def _audited(
    audit: AuditLog | None,
    name: str,
    spec: ResourceSpec[Any, Any],
    arguments: dict[str, Any],
) -> AsyncIterator[_Outcome]:
    """Rules 2 and 3 around one request."""
    began = time.monotonic()
    outcome = _Outcome()
    try:
        yield outcome
    except TmuxMcpError as exc:
        outcome.value = exc.reference
        raise
    except Exception:
        log.exception("unexpected error serving %s", name)
        failure = InternalError()
        outcome.value = failure.reference
        raise failure from None
    else:
        outcome.value = "ok"
    finally:
        if audit is not None:
            audit.record(
                tool=name,
                spec=spec,
                arguments=arguments,
                outcome=outcome.value,
                duration=time.monotonic() - began,
            )


def _variables_of(spec: ResourceSpec[Any, Any], uri: str) -> dict[str, Any]:
    """The URI's variables by name, for the audit record, as far as they can be told."""
    prefix = spec.uri_template.partition("{")[0]
    names = [field.encode_name for field in msgspec.structs.fields(spec.args)]
    if len(names) == 1 and uri.startswith(prefix):
        return {names[0]: uri.removeprefix(prefix)}
    return {"uri": uri}


async def read(
    spec: ResourceSpec[Any, Any], context: Any, audit: AuditLog | None, uri: str
) -> ResourceText:
    """``resources/read`` of ``uri`` (Rule 1), audited (Rules 2 and 3)."""
    async with _audited(audit, f"resource:{spec.name}", spec, _variables_of(spec, uri)):
        content = await spec.handler(context, encode_arguments(spec.variables(uri)))
        text = getattr(content, "text", None)
        if not isinstance(text, str):
            raise TypeError(f"{spec.name}: its result holds no text")
    return ResourceText(uri=uri, mime_type=spec.mime_type, text=text)


async def listing(
    spec: ResourceSpec[Any, Any], context: Any, audit: AuditLog | None
) -> list[ListedResource]:
    """``resources/list`` of the template ``spec`` (Rule 1), audited (Rules 2 and 3)."""
    async with _audited(audit, f"resource:{spec.name}/list", spec, {}):
        found = await spec.lister(context)
    return found
