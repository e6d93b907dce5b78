"""Tools: ``tools/list`` and ``tools/call``.

What happens to a ``tools/call`` (MCP 2026-07-28 server/tools), in order:

1. ``params.name`` must name a tool this caller may use; an unknown and a
   hidden tool answer the same -32602 "Unknown tool", at the same cost (an
   unknown name costs the permission lookup a hidden tool would).
2. ``MCP_RATE_LIMIT`` is counted for the caller; over it, an ``isError``
   result "Rate limit exceeded".
3. ``params.arguments`` (an object, default ``{}``) is validated against
   the tool's input: a ``Schema`` (types, constraints and rules) or a raw
   JSON Schema; a failure is an ``isError`` result "Invalid tool arguments:
   <path>: <problem>". A retry's ``inputResponses``/``requestState`` are
   verified and handed to the handler (multi round-trip requests).
4. The handler runs (sync handlers in a thread); yielded progress becomes
   ``notifications/progress``.
5. What it returned becomes a ``CallToolResult`` (or ``InputRequiredResult``,
   whose ``requestState`` is sealed); structured content is checked against
   the output schema.
6. An unexpected exception is logged and answered as ``isError`` "Tool
   execution failed", never with its text. ``McpError`` passes through as a
   JSON-RPC error.

A tool declaring ``task`` support may instead be answered with a task
(``tasks.py``) between steps 3 and 4: its handler then runs later, in a
Tasks framework worker, through ``run_handler()`` as well.

The era finishing (``resultType``, ``_meta`` server info, 2025-11-25
shaping) is the dispatcher kernel's (``_finish`` in ``__init__.py``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, cast

import msgspec

from django_mcp.auth import find_usable
from django_mcp.dispatcher.context import Call
from django_mcp.dispatcher.continuation import attach_inputs, check_input_requests, finish_input_required
from django_mcp.dispatcher.invoke import invoke, report_failure
from django_mcp.dispatcher.paging import encoded_items, page
from django_mcp.dispatcher.shape import ShapeError, check_responses, only_result
from django_mcp.dispatcher.tasks import start_if_task
from django_mcp.exceptions import InvalidParams, McpError, SchemaValidationError
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.content import TextContent
from django_mcp.protocol.results import CallToolResult, InputRequiredResult, ListToolsResult
from django_mcp.protocol.tasks import CreateTaskResult
from django_mcp.ratelimit import allow_tool_call
from django_mcp.request import McpRequest
from django_mcp.response import McpResponse, merge_meta
from django_mcp.schemas import Schema, schema_error, validate
from django_mcp.server.compiler import CompiledServer, CompiledTool

__all__ = [
    "call_tool",
    "find_tool",
    "list_tools",
    "payload_for",
    "run_handler",
    "tool_result",
    "visible_tool",
]

logger = logging.getLogger(__name__)


async def list_tools(call: Call) -> ListToolsResult:
    """Return one page of the tools this caller may use."""
    entries, cursor = await page(call, tuple(call.compiled.tools.values()))
    if call.ctx.era == "legacy":
        legacy = call.compiled.legacy_tools
        tools = encoded_items(call, entries, lambda entry: legacy[entry.name])
    else:
        tools = encoded_items(call, entries)
    # Already-encoded JSON: msgspec writes a Raw value as it is.
    return ListToolsResult(tools=cast(Any, tools), next_cursor=cursor)


async def visible_tool(compiled: CompiledServer, name: str, request: McpRequest) -> CompiledTool | None:
    """Return the tool ``name`` names if this caller may use it, else None.

    An unknown name costs the permission lookup a hidden tool would.
    """
    return await find_usable(compiled.tools, name, request)


async def find_tool(call: Call, name: Any) -> CompiledTool:
    """Return the tool ``name`` names for this caller, or raise -32602."""
    if not isinstance(name, str):
        raise InvalidParams("tools/call needs a string name")
    entry = await visible_tool(call.compiled, name, call.request)
    if entry is None:
        raise InvalidParams(f"Unknown tool: {name}")
    return entry


async def call_tool(call: Call) -> CallToolResult | InputRequiredResult | CreateTaskResult:
    """Run a tool and return its result (tool failures are ``isError``)."""
    params = call.params
    entry = await find_tool(call, params.get("name"))
    name = entry.name
    rate = call.settings.rate_limit
    if rate is not None and not await allow_tool_call(call.request, name, rate=rate):
        return _tool_error("Rate limit exceeded: retry later")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise InvalidParams("tools/call arguments must be an object")
    if "inputResponses" in params or "requestState" in params:
        await attach_inputs(call, target=name, arguments=arguments)
    try:
        payload = await payload_for(entry, arguments)
    except SchemaValidationError as exc:
        return _tool_error(f"Invalid tool arguments: {exc}")
    if entry.task is not None:
        answered = await start_if_task(call, entry, payload, arguments)
        if answered is not None:
            return answered
    return await run_handler(call, entry, payload, arguments)


def tool_result(produced: Sequence[Any]) -> CallToolResult | InputRequiredResult:
    """Return the tool result for ``produced``."""
    if not produced or not all(type(item) is McpResponse for item in produced):
        special = only_result(produced, CallToolResult, "tool")
        if special is not None:
            return special  # type: ignore[no-any-return]
        check_responses(produced, "tool")  # raises: something else was returned
    content: list[Any] = []
    structured: Any = UNSET
    is_error = with_meta = False
    for response in produced:
        if response.structured_content is not UNSET:
            if structured is not UNSET:
                raise ShapeError("a tool may return only one structured() result per call")
            structured = response.structured_content
        content.extend(response.content)
        is_error = is_error or response.is_error
        with_meta = with_meta or bool(response.meta)
    return CallToolResult(
        content=tuple(content),
        structuredContent=structured,
        isError=is_error,
        meta=(merge_meta(produced) or UNSET) if with_meta else UNSET,
    )


async def run_handler(
    call: Call, entry: CompiledTool, payload: Any, arguments: dict[str, Any]
) -> CallToolResult | InputRequiredResult:
    """Run the tool's handler and return its result (tool failures are ``isError``).

    An ``InputRequiredResult`` is checked and its ``requestState`` sealed,
    except in a call running as a task, which keeps its state itself.
    """
    try:
        produced = await invoke(entry.component, entry.handler, call.request, payload=payload, emit=call.emit)
        result = tool_result(produced)
        if isinstance(result, InputRequiredResult):
            if call.request.task is not None:
                check_input_requests(result, call.request)
                return result
            return finish_input_required(call, result, target=entry.name, arguments=arguments)
        if not result.isError and entry.output_type is not None:
            await _check_output(entry, result)
        return result
    except McpError:
        raise
    except Exception as exc:  # a tool failure is a result, not a protocol error
        report_failure(call.request, exc, f"tool {entry.name!r}")
        return _tool_error("Tool execution failed")


async def payload_for(entry: CompiledTool, arguments: dict[str, Any]) -> Any:
    """Return the tool's validated payload built from ``arguments``.

    Raises:
        SchemaValidationError: the arguments do not fit the tool's input.
    """
    input_type = entry.input_type
    if input_type is None:
        if arguments:
            raise SchemaValidationError([(key, "unknown field") for key in sorted(arguments)])
        return None
    if entry.input_validator is not None:  # a raw JSON Schema
        entry.input_validator(arguments)
        return arguments
    if entry.input_rules:
        return await validate(input_type, arguments)
    # Decoded JSON is already plain: one msgspec pass validates and builds it.
    try:
        return msgspec.convert(arguments, input_type, strict=True)
    except msgspec.ValidationError as exc:
        raise schema_error(exc) from None


async def _check_output(entry: CompiledTool, result: CallToolResult) -> None:
    if result.structuredContent is UNSET:
        raise ShapeError(
            f"tool {entry.name!r} declares an output schema but returned no structured() content"
        )
    output_type = entry.output_type
    try:
        if entry.output_validator is not None:
            entry.output_validator(result.structuredContent)
        elif isinstance(output_type, type) and issubclass(output_type, Schema):
            await validate(output_type, result.structuredContent)
        else:
            msgspec.convert(result.structuredContent, output_type, strict=True)
    except (SchemaValidationError, msgspec.ValidationError) as exc:
        raise ShapeError(f"tool {entry.name!r} output does not match its output schema: {exc}") from None


def _tool_error(message: str) -> CallToolResult:
    return CallToolResult(content=(TextContent(text=message),), isError=True)
