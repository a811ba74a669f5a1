"""Pane resources: ``tmux://pane/{n}`` is the visible text of the pane ``%n``.

Declared in the capability definition (``RESOURCES``) like a tool: no
process reach, observe, terminal content, untrusted, may expose secrets.
Reading one is ``capture_pane`` of the visible screen; listing them is
``list_panes``, and a listed resource carries only tmux ids and sizes (no
titles or commands, which pane programs choose).

The ``n`` of a URI is caller input. It is decoded against ``PaneResourceArgs``
(the target sink, ids only) and the dispatcher's encoding step turns it into
the pane id ``%n`` through the pane-id encoder, so only a canonical id ever
reaches tmux; any other URI is refused with a message that says what a valid
one looks like.
"""

from __future__ import annotations

import re
from typing import Annotated

import msgspec
from msgspec import Meta

from tmuxmcp.capability.arguments import Arguments
from tmuxmcp.capability.decode import decode_arguments
from tmuxmcp.capability.encode import encode_arguments
from tmuxmcp.capability.model import ListedResource
from tmuxmcp.capability.params import sink
from tmuxmcp.capability.results import Terminal, TmuxId
from tmuxmcp.errors import InvalidArguments
from tmuxmcp.sinks import Encoding, Sink
from tmuxmcp.sinks.target import ID_PATTERNS, IdKind
from tmuxmcp.tools import capture, inspect
from tmuxmcp.tools.context import ToolContext

PANE_TEMPLATE = "tmux://pane/{n}"
_PREFIX = "tmux://pane/"
# The pane pattern without its '%': the same digits the pane-id sink accepts.
PANE_NUMBER = "^" + ID_PATTERNS[IdKind.PANE].removeprefix("^%")
_MAX_URI_CHARS = 64

PaneNumber = Annotated[
    str,
    Meta(
        pattern=PANE_NUMBER,
        description="The number of the pane id: 3 for %3.",
        extra=sink(Sink.TARGET, Encoding.ID_ONLY, id_kind=IdKind.PANE.value, prefix="%"),
    ),
]


class PaneResourceArgs(Arguments):
    """The variables of ``tmux://pane/{n}``."""

    n: PaneNumber


class PaneScreen(msgspec.Struct, frozen=True, kw_only=True):
    """What reading a pane resource returns."""

    pane_id: TmuxId
    text: Terminal


def pane_uri(pane_id: str) -> str:
    """The resource URI of a pane id such as ``%3``."""
    return _PREFIX + pane_id.removeprefix("%")


def args_of_uri(uri: str) -> PaneResourceArgs:
    """The decoded (not yet encoded) variables of a resource URI, or ``InvalidArguments``."""
    shown = uri if len(uri) <= _MAX_URI_CHARS and uri.isprintable() else uri[:_MAX_URI_CHARS]
    shown = shown.encode("unicode_escape", "replace").decode("ascii")
    if not uri.startswith(_PREFIX):
        raise InvalidArguments(
            f"unknown resource URI {shown!r}: pane resources look like tmux://pane/3 "
            "(the pane %3); resources/list returns them"
        )
    n = uri[len(_PREFIX) :]
    if re.fullmatch(PANE_NUMBER.removesuffix("$").removeprefix("^"), n) is None:
        raise InvalidArguments(
            f"resource URI {shown!r}: n must be the number of a pane id, such as 3 for %3 "
            "(no '%', no leading zeros); list_panes returns pane ids"
        )
    args = decode_arguments("pane resource", PaneResourceArgs, {"n": n})
    assert isinstance(args, PaneResourceArgs)
    return args


async def read_pane_resource(ctx: ToolContext, args: PaneResourceArgs) -> PaneScreen:
    """The visible screen of the pane: capture_pane with its defaults, in its text form.

    So the inline budget of capture_pane holds here too (issue 18.2), and a
    screen cut to its last lines opens with capture_pane's marker saying so.
    ``args.n`` has been encoded into the pane id ``%n``.
    """
    defaults = encode_arguments(capture.CapturePaneArgs(pane_id=args.n))
    result = await capture.capture_pane(ctx, defaults)
    return PaneScreen(pane_id=result.pane_id, text=result.text_form())


async def list_pane_resources(ctx: ToolContext) -> list[ListedResource]:
    """Every pane on the socket as a resource: list_panes with its defaults.

    Only tmux ids and sizes are shown; titles and commands are chosen by pane
    programs and stay out of the listing.
    """
    result = await inspect.list_panes(ctx, inspect.ListPanesArgs())
    return [
        ListedResource(
            uri=pane_uri(p.pane_id),
            name=p.pane_id,
            title=f"Pane {p.pane_id}",
            description=(
                f"Visible text of pane {p.pane_id} (window {p.window_id}, session "
                f"{p.session_id}, {p.width}x{p.height}); untrusted, may expose secrets."
            ),
        )
        for p in result.panes
    ]
