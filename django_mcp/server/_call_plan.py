"""A tool's call plan: what a ``tools/call`` does, settled when the tool is compiled.

Everything about a call that does not depend on the request is decided
here, once: how its arguments are validated, how its handler is called and
how its structured content is checked. The dispatcher then serves the usual
call as a short straight line, and anything the plan does not cover (input
rules, a handler taking the ``McpRequest``, generators, a raw JSON Schema
output) through the general path.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django_mcp.schemas import Schema, has_rules
from django_mcp.server.handlers import Handler

__all__ = ["CallPlan", "plan_call"]


@dataclasses.dataclass(frozen=True, slots=True)
class CallPlan:
    """How one tool's call runs, decided at compile time."""

    #: The type one strict ``msgspec.convert`` of the arguments validates
    #: and builds (a ``Schema`` without rules, any msgspec type); None when
    #: the input is absent, a raw JSON Schema or has rules to run.
    convert_to: Any = None
    #: The handler's keyword for the payload when the payload is all it
    #: takes, "" when it takes nothing; None: the general call (``invoke``).
    argument: str | None = None
    #: True when that handler is a coroutine function, False when it is a
    #: plain function (run through ``run_sync``).
    is_async: bool = False
    #: The type one strict ``msgspec.convert`` of the structured content
    #: checks against the output schema; None when there is none or it
    #: needs more (a raw JSON Schema, rules).
    output_to: Any = None
    #: True when the structured content is first made plain JSON values
    #: (``msgspec.to_builtins``), as ``validate()`` does for a ``Schema``.
    output_plain: bool = False
    #: True when the tool declares an output schema (its result must carry
    #: valid structured content).
    checks_output: bool = False


def plan_call(handler: Handler, input_type: Any, output_type: Any) -> CallPlan:
    """Return the call plan of a tool with this handler, input and output."""
    direct = handler.kind in ("async", "sync") and (handler.payload_only is not None or not handler.sources)
    return CallPlan(
        convert_to=_converted(input_type),
        argument=(handler.payload_only or "") if direct else None,
        is_async=handler.kind == "async",
        output_to=_converted(output_type),
        output_plain=isinstance(output_type, type) and issubclass(output_type, Schema),
        checks_output=output_type is not None,
    )


def _converted(tp: Any) -> Any:
    """Return ``tp`` when one strict ``msgspec.convert`` validates a value of it, else None."""
    if tp is None or isinstance(tp, dict) or has_rules(tp):
        return None
    return tp
