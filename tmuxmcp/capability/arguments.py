"""``Arguments``: the base of every tool's argument Struct (issue 21.3, CM-5).

What every argument Struct shares is declared here once:

* **Rule 1: unknown fields are refused.** A misspelt parameter is an error
  that names it, never silently ignored (``forbid_unknown_fields``).
* **Rule 2: arguments are frozen.** The encoding step (``encode``) replaces
  values, it never mutates them, and a handler cannot either.
* **Rule 3: fields are keyword-only**, so a required field may follow one
  with a default, and a call spells every name. msgspec inherits
  ``forbid_unknown_fields`` and ``frozen`` to subclasses, but ``kw_only``
  applies only to the fields of the class that sets it: the metaclass sets
  it for every subclass, and ``dataclass_transform`` tells the type checker
  what the runtime does (frozen, keyword-only).
  ``tests/capability/test_arguments.py`` checks every declared Struct.
* **Rule 4: a rule over several fields lives in the Struct.** Its
  ``__post_init__`` raises ``ArgumentConflict`` (via ``conflict``); msgspec
  runs it on every decode and on ``structs.replace``, so the check holds for
  the decoded and for the encoded arguments, and the decoder
  (``decode``) raises the conflict unchanged: the client gets
  ``[invalid-arguments]`` naming the parameters. A handler never re-checks.

A cross-field rule must be pure and cheap (it runs twice per call) and must
hold for the encoded values as well as the decoded ones.
"""

from __future__ import annotations

from typing import Any, NoReturn, dataclass_transform

import msgspec

from tmuxmcp.errors import ArgumentConflict


class _KeywordOnly(msgspec.StructMeta):
    """Makes every Struct class it creates keyword-only unless it says otherwise (Rule 3)."""

    def __new__(
        mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **config: Any
    ) -> Any:
        config.setdefault("kw_only", True)
        return super().__new__(mcls, name, bases, namespace, **config)


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(msgspec.field,))
class Arguments(msgspec.Struct, metaclass=_KeywordOnly, forbid_unknown_fields=True, frozen=True):
    """Base of a tool's argument Struct: unknown fields refused, frozen, keyword-only."""


def conflict(message: str, *params: str) -> NoReturn:
    """Refuse a combination of parameters; ``message`` opens with the first of ``params``."""
    raise ArgumentConflict(message, params=params)


def given(*values: object) -> int:
    """How many of ``values`` the caller gave (are not ``None``)."""
    return sum(value is not None for value in values)


def not_together(args: Arguments, first: str, second: str, *, neither: str = "") -> None:
    """Refuse ``args`` when both fields ``first`` and ``second`` are given.

    The message leads with ``second`` (the one to drop) and, with ``neither``,
    says what giving neither means.
    """
    if given(getattr(args, first), getattr(args, second)) > 1:
        also = f" (neither: {neither})" if neither else ""
        conflict(f"`{second}`: give {first} or {second}, not both{also}", second, first)
