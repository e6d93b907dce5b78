"""``completion/complete``: suggest values for a prompt argument or a template variable.

The reference (``ref/prompt`` by name, ``ref/resource`` by URI template)
must name a component the caller may use, and the argument must be one it
declares (-32602 otherwise, hidden like unknown, at the same cost). Already
resolved arguments (``context.arguments``) reach the completer through
``request.arguments``. A component without ``complete()`` suggests nothing
(MCP 2026-07-28 server/utilities/completion).
"""

from __future__ import annotations

from typing import Any

from django_mcp.auth import find_usable
from django_mcp.dispatcher.context import Call
from django_mcp.dispatcher.invoke import invoke, report_failure
from django_mcp.exceptions import InternalError, InvalidParams, McpError
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.results import CompleteResult, CompletionValues
from django_mcp.server.primitives import Completion

__all__ = ["complete"]


async def complete(call: Call) -> CompleteResult:
    """Suggest values for a prompt argument or a template variable."""
    params = call.params
    compiled = call.compiled
    ref = params.get("ref")
    argument = params.get("argument")
    if not isinstance(ref, dict) or not isinstance(argument, dict):
        raise InvalidParams("completion/complete needs ref and argument objects")
    arg_name, value = argument.get("name"), argument.get("value")
    if not isinstance(arg_name, str) or not isinstance(value, str):
        raise InvalidParams("argument.name and argument.value must be strings")
    entry: Any
    if ref.get("type") == "ref/prompt":
        name = ref.get("name")
        entry = await find_usable(compiled.prompts, name, call.request)
        if entry is None:
            raise InvalidParams(f"Unknown prompt: {name}")
        names: tuple[str, ...] = tuple(a.name for a in entry.arguments)
    elif ref.get("type") == "ref/resource":
        uri = ref.get("uri")
        entry = await find_usable(compiled.templates, uri, call.request)
        if entry is None:
            raise InvalidParams(f"Unknown resource template: {uri}")
        names = entry.template.variable_names
    else:
        raise InvalidParams("ref.type must be ref/prompt or ref/resource")
    if arg_name not in names:
        raise InvalidParams(f"Unknown completion argument: {arg_name}")
    context = params.get("context") or {}
    resolved = context.get("arguments") if isinstance(context, dict) else None
    call.request.arguments = {**(resolved if isinstance(resolved, dict) else {}), arg_name: value}
    if entry.completer is None:
        return CompleteResult(completion=CompletionValues(values=()))
    try:
        produced = await invoke(
            entry.component, entry.completer, call, values={"argument": arg_name, "value": value}
        )
        return CompleteResult(completion=_completion(produced))
    except McpError:
        raise
    except Exception as exc:
        report_failure(call.request, exc, f"completion for {arg_name!r}")
        raise InternalError() from None


def _completion(produced: list[Any]) -> CompletionValues:
    if len(produced) == 1 and isinstance(produced[0], Completion):
        completion = produced[0]
    else:
        # A list/tuple of strings was spread by invoke(); validate it whole.
        completion = Completion(values=tuple(produced))
    return CompletionValues(
        values=completion.values,
        total=UNSET if completion.total is None else completion.total,
        has_more=UNSET if completion.has_more is None else completion.has_more,
    )
