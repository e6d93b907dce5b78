"""Prompts: ``prompts/list`` and ``prompts/get``.

A ``prompts/get`` (MCP 2026-07-28 server/prompts) names a prompt the caller
may use (an unknown and a hidden prompt answer the same -32602, at the
same cost) and passes string arguments: unknown ones and missing required
ones are -32602. The handler's responses become one message per content
block, each keeping its response's role. An unexpected exception is logged
and answered -32603.
"""

from __future__ import annotations

from typing import Any, cast

from django_mcp.auth import find_usable
from django_mcp.dispatcher.context import Call
from django_mcp.dispatcher.continuation import attach_inputs, finish_input_required
from django_mcp.dispatcher.invoke import invoke, report_failure
from django_mcp.dispatcher.paging import encoded_items, page
from django_mcp.dispatcher.shape import prompt_result
from django_mcp.exceptions import InternalError, InvalidParams, McpError
from django_mcp.protocol.results import GetPromptResult, InputRequiredResult, ListPromptsResult

__all__ = ["get_prompt", "list_prompts"]


async def list_prompts(call: Call) -> ListPromptsResult:
    """Return one page of the prompts this caller may get."""
    entries, cursor = await page(call, tuple(call.compiled.prompts.values()))
    prompts = encoded_items(call, entries)
    return ListPromptsResult(prompts=cast(Any, prompts), next_cursor=cursor)  # encoded JSON


async def get_prompt(call: Call) -> GetPromptResult | InputRequiredResult:
    """Render a prompt's messages."""
    params = call.params
    name = params.get("name")
    if not isinstance(name, str):
        raise InvalidParams("prompts/get needs a string name")
    entry = await find_usable(call.compiled.prompts, name, call.request)
    if entry is None:
        raise InvalidParams(f"Unknown prompt: {name}")
    arguments = params.get("arguments") or {}
    if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
        raise InvalidParams("prompts/get arguments must be an object of strings")
    unknown = sorted(set(arguments) - {a.name for a in entry.arguments})
    if unknown:
        raise InvalidParams(f"Unknown prompt argument: {', '.join(unknown)}")
    missing = [a.name for a in entry.arguments if a.required and a.name not in arguments]
    if missing:
        raise InvalidParams(f"Missing required prompt argument: {', '.join(missing)}")
    call.request.arguments = arguments
    await attach_inputs(call, target=name, arguments=arguments)
    try:
        produced = await invoke(entry.component, entry.handler, call, values=arguments, emit=call.emit)
        result = prompt_result(produced)
    except McpError:
        raise
    except Exception as exc:
        report_failure(call.request, exc, f"prompt {name!r}")
        raise InternalError() from None
    if isinstance(result, InputRequiredResult):
        return finish_input_required(call, result, target=name, arguments=arguments)
    return result
