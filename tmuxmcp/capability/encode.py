"""Encoding as a step of the dispatcher (CM-5, issue 10.2).

After ``decode`` has turned a call's JSON into the tool's argument Struct,
``encode_arguments`` replaces every parameter's value with what its declared
encoding's encoder returns (``sinks.encoders.ENCODERS``) and hands back the
same Struct type. The dispatcher passes only that to the handler, so a handler
never sees a raw caller string and cannot forget a safety step: what a
parameter's type declares is what is done to it.

Rules kept here:
* every declared parameter whose value is not ``None`` goes through its
  encoder, list elements one by one; nothing else is touched;
* the plan for an argument type is derived once from its declarations
  (``model.params_of_args``) and cached;
* an encoder's ``UnsafeValue`` propagates unchanged: it names the parameter
  and is an ``isError`` result for the client;
* the encoders are pure; a fact of the host an encoding needs (an existing
  start directory) is asked after its encoder accepted the value
  (``HOST_CHECKS``, answered by the driver), never inside a sink.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

import msgspec

from tmuxmcp.capability.model import ParamSpec, params_of_args
from tmuxmcp.driver.host import require_directory
from tmuxmcp.sinks import Encoding
from tmuxmcp.sinks.encoders import ENCODERS, Encoder

A = TypeVar("A", bound=msgspec.Struct)


@cache
def _plan(args_type: type[msgspec.Struct]) -> tuple[ParamSpec, ...]:
    return params_of_args(args_type, args_type.__name__)


HOST_CHECKS: dict[Encoding, Callable[[Any, str], None]] = {
    Encoding.DIRECTORY: require_directory,
}
"""What an encoding needs the host to confirm about the caller's value (IO, in the driver)."""


def _encoded(encoder: Encoder, param: ParamSpec, value: Any) -> Any:
    encoded = encoder(value, param.rule)
    check = HOST_CHECKS.get(param.encoding)
    if check is not None:
        check(value, param.rule.param)
    return encoded


def encode_arguments(args: A) -> A:
    """``args`` with every declared parameter encoded for its sink."""
    changes = {}
    for param in _plan(type(args)):
        value = getattr(args, param.attr)
        if value is None:
            continue
        encoder = ENCODERS[param.encoding]
        if param.elements:
            changes[param.attr] = [_encoded(encoder, param, item) for item in value]
        else:
            changes[param.attr] = _encoded(encoder, param, value)
    return msgspec.structs.replace(args, **changes)
