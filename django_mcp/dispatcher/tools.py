"""Tools: ``tools/list`` and ``tools/call``, one tool call admitted and run.

What happens to a ``tools/call`` (MCP 2026-07-28 server/tools), in order:

1. It is admitted (``admit``), by the gate a task's later run passes too
   (``django_mcp.tasks.run``):

   a. ``params.name`` must name a tool this caller may use; an unknown and
      a hidden tool answer the same -32602 "Unknown tool", at the same cost
      (an unknown name costs the permission lookup a hidden tool would);
   b. a transport's own check of the call (``CallContext.check_call``: over
      HTTP, the ``Mcp-Param-*`` headers) runs for that tool only, so a
      hidden tool answers like an unknown one;
   c. ``MCP_RATE_LIMIT`` is counted for the caller (requests only: a task
      was counted when it was created); over it, an ``isError`` result
      "Rate limit exceeded";
   d. ``params.arguments`` (an object, default ``{}``) is validated against
      the tool's input: a ``Schema`` (types, constraints and rules) or a
      raw JSON Schema; a failure is an ``isError`` result listing every
      failing field (``field_errors_result``: "Invalid tool arguments:",
      then ``- <path>: <problem>`` lines, and ``structuredContent``
      ``{"errors": {path: [problem, ...]}}``), never quoting a value. A
      retry's ``inputResponses`` / ``requestState`` are verified and
      handed to the handler (multi round-trip requests).

2. A tool declaring ``idempotency_keys`` and called with a key in
   ``_meta`` is answered once per caller and key (``idempotency.py``): a
   retry gets the stored result instead of steps 3 and 4.
3. A tool declaring ``task`` support may be answered with a task instead
   (``start_task``: the method table wires in ``extensions.start_task``); its
   handler then runs later, in a Tasks framework worker.
4. Otherwise the handler runs now, as the tool's call plan settled at
   compile time says (``CompiledTool.plan``; ``run``: sync handlers in a thread;
   yielded progress becomes ``notifications/progress``) and what it returned
   becomes a ``CallToolResult`` (or ``InputRequiredResult``, whose
   ``requestState`` is sealed), its structured content checked against the
   output schema. An unexpected exception is logged and answered as
   ``isError`` "Tool execution failed", never with its text; ``McpError``
   passes through as a JSON-RPC error.

With tool search (``Server.tool_search``, ``django_mcp.server.tool_search``)
a caller who may use more than its threshold of tools is listed only the
``always`` tools and the two meta-tools (``listed_tools``), and a valid
``call_tool`` request becomes, before anything serves or observes it, the
``tools/call`` of the tool it names (``unwrap_call_tool``, called at the
top of ``Dispatcher.respond``): every step above then applies to that tool
as to a direct call.

The era finishing (``resultType``, ``_meta`` server info, 2025-11-25
shaping) is ``eras.finish``'s; the usual answer is encoded by ``eras.ToolReplies``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

import msgspec

from django_mcp._sync import run_sync
from django_mcp.auth import can_use, find_usable
from django_mcp.dispatcher.codec import Envelope
from django_mcp.dispatcher.context import Call, CallContext
from django_mcp.dispatcher.continuation import attach_inputs, check_input_requests, finish_input_required
from django_mcp.dispatcher.idempotency import hold, key_of, settle
from django_mcp.dispatcher.invoke import invoke, report_failure
from django_mcp.dispatcher.paging import encoded_items, page
from django_mcp.dispatcher.shape import ShapeError, check_responses, only_result
from django_mcp.exceptions import InvalidParams, McpError, SchemaValidationError, ToolNotFound
from django_mcp.field_errors import field_errors, field_errors_result
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.content import TextContent
from django_mcp.protocol.results import CallToolResult, InputRequiredResult, ListToolsResult
from django_mcp.protocol.tasks import CreateTaskResult
from django_mcp.ratelimit import allow_tool_call
from django_mcp.request import McpRequest
from django_mcp.response import McpResponse, merge_meta
from django_mcp.schemas import Schema, schema_error, validate
from django_mcp.server._call_plan import CallPlan
from django_mcp.server._json_schema_errors import json_schema_error
from django_mcp.server.compiler import CompiledServer, CompiledTool
from django_mcp.server.tool_search import CALL_TOOL, CallToolInput, ToolCatalog

__all__ = [
    "Admitted",
    "StartTask",
    "admit",
    "call_tool",
    "list_tools",
    "listed_tools",
    "payload_for",
    "run",
    "tool_error",
    "tool_failed",
    "tool_result",
    "unwrap_call_tool",
    "visible_tool",
]

logger = logging.getLogger(__name__)

#: Answer a task-capable tool's call with a task (``extensions.start_task``):
#: ``(call, entry, payload, arguments)`` -> a result, or None to run it now.
StartTask = Callable[
    [Call, CompiledTool, Any, dict[str, Any]],
    Awaitable[CallToolResult | InputRequiredResult | CreateTaskResult | None],
]


async def list_tools(call: Call) -> ListToolsResult:
    """Return one page of the tools this caller may use."""
    search = call.compiled.tool_search
    listed = tuple(call.compiled.tools.values()) if search is None else await listed_tools(call, search)
    entries, cursor = await page(call, listed)
    if call.ctx.era == "legacy":
        legacy = call.compiled.legacy_tools
        tools = encoded_items(call, entries, lambda entry: legacy[entry.name])
    else:
        tools = encoded_items(call, entries)
    # Already-encoded JSON: msgspec writes a Raw value as it is.
    return ListToolsResult(tools=cast(Any, tools), next_cursor=cursor)


async def call_tool(
    call: Call, *, start_task: StartTask | None = None
) -> CallToolResult | InputRequiredResult | CreateTaskResult:
    """Run a tool and return its result (tool failures are ``isError``)."""
    admitted = await admit(call)
    if isinstance(admitted, CallToolResult):
        return admitted
    entry = admitted.entry
    held = None
    # Only a tool that opted in looks for a key: any other call pays one
    # attribute read here, and no Python call.
    if entry.idempotency_keys and (key := key_of(call.params)) is not None:
        held = await hold(call, tool=entry.name, arguments=admitted.arguments, key=key)
        if held.answer is not None:
            return held.answer
    answered: CallToolResult | InputRequiredResult | CreateTaskResult | None = None
    try:
        if entry.task is not None and start_task is not None:
            answered = await start_task(call, entry, admitted.payload, admitted.arguments)
        if answered is None:
            answered = await run(call, admitted)
        return answered
    finally:
        if held is not None:
            # A successful direct result is stored with the key; a tool
            # error, a task, a question or an exception frees it.
            await settle(held, answered)


async def listed_tools(call: Call, search: ToolCatalog) -> tuple[CompiledTool, ...]:
    """Return what ``tools/list`` pages for a server with tool search.

    Every tool (``search.entries``) while the caller may use at most
    ``threshold``; above it, the ``always`` tools and the two meta-tools.
    Counting stops at the first tool over the threshold.
    """
    entries, threshold = search.entries, search.threshold
    if len(entries) <= threshold:
        return entries
    if call.compiled.caller_dependent:
        usable = 0
        for entry in entries:
            if await can_use(entry, call.request):
                usable += 1
                if usable > threshold:
                    break
        else:
            return entries
    return (*search.always, *search.meta.values())


def unwrap_call_tool(compiled: CompiledServer, envelope: Envelope, ctx: CallContext) -> Envelope:
    """Return a ``call_tool`` request as the ``tools/call`` of the tool it names.

    Anything else, and a ``call_tool`` whose arguments do not fit its input
    (answered by the meta-tool itself, with the usual field errors), is
    returned as it is. The request keeps its ``_meta`` (progress token,
    idempotency key) and its input responses. The transport's check of
    ``Mcp-Param-*`` headers is dropped: the headers a client sent mirror
    ``call_tool``'s arguments, which declare none.
    """
    params = envelope.params
    if envelope.method != "tools/call" or params.get("name") != CALL_TOOL or compiled.tool_search is None:
        return envelope
    try:
        wanted = msgspec.convert(params.get("arguments") or {}, CallToolInput, strict=True)
    except msgspec.ValidationError:
        return envelope
    if wanted.name == CALL_TOOL:
        return envelope
    ctx.check_call = None
    inner = {**params, "name": wanted.name, "arguments": wanted.arguments}
    return dataclasses.replace(envelope, params=inner)


class Admitted(msgspec.Struct, frozen=True):
    """A tool call past every gate: the tool, its arguments and their validated payload."""

    # A Struct, not a dataclass: built in C, one Python call less per tools/call.
    entry: CompiledTool
    arguments: dict[str, Any]
    payload: Any


async def visible_tool(compiled: CompiledServer, name: object, request: McpRequest) -> CompiledTool | None:
    """Return the tool ``name`` names if this caller may use it, else None.

    An unknown (or non-string) name costs the permission lookup a hidden
    tool would.
    """
    return await find_usable(compiled.tools, name, request)


async def admit(call: Call, *, count_rate: bool = True) -> Admitted | CallToolResult:
    """Pass a ``tools/call`` through the gates; an ``isError`` result when one refuses it.

    ``count_rate`` is False for a task's run, counted when it was created.

    Raises:
        ToolNotFound: an unknown or hidden name.
        InvalidParams: a non-string name; arguments that are not an object;
            a bad retry.
        HeaderMismatch: the transport's own check refused the call.
    """
    params = call.params
    name = params.get("name")
    if not isinstance(name, str):
        raise InvalidParams("tools/call needs a string name")
    # A tool anyone may use needs no lookup; any other name is looked up
    # (a hidden one at the cost of an unknown one, and the other way round).
    entry = call.compiled.open_tools.get(name) or await visible_tool(call.compiled, name, call.request)
    if entry is None:
        raise ToolNotFound(f"Unknown tool: {name}")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise InvalidParams("tools/call arguments must be an object")
    if call.ctx.check_call is not None:
        call.ctx.check_call(entry, arguments)
    rate = call.settings.rate_limit
    if count_rate and rate is not None and not await allow_tool_call(call.request, name, rate=rate):
        return tool_error("Rate limit exceeded: retry later")
    if "inputResponses" in params or "requestState" in params:
        await attach_inputs(call, target=name, arguments=arguments)
    try:
        convert_to = entry.plan.convert_to
        if convert_to is None:
            payload = await payload_for(entry, arguments)
        else:  # settled at compile time: one strict msgspec pass validates and builds it
            payload = _converted_payload(convert_to, arguments)
    except SchemaValidationError as exc:
        refusal = field_errors_result(field_errors(exc.errors))
        return CallToolResult(
            content=refusal.content, structuredContent=refusal.structured_content, isError=True
        )
    return Admitted(entry, arguments, payload)


async def run(call: Call, admitted: Admitted) -> CallToolResult | InputRequiredResult:
    """Run the admitted call's handler and return its result (tool failures are ``isError``).

    An ``InputRequiredResult`` is checked and its ``requestState`` sealed,
    except in a call running as a task, which keeps its state itself.
    """
    entry = admitted.entry
    plan = entry.plan
    try:
        if plan.argument is None:
            produced = await invoke(
                entry.component, entry.handler, call, payload=admitted.payload, emit=call.emit
            )
            result = tool_result(produced)
        else:  # a handler taking its payload (or nothing), called as the plan says
            method = getattr(entry.component(), entry.handler.name)
            kwargs = {plan.argument: admitted.payload} if plan.argument else {}
            value = await method(**kwargs) if plan.is_async else await run_sync(method, **kwargs)
            result = tool_result(value if isinstance(value, list | tuple) else (value,))
        if isinstance(result, InputRequiredResult):
            if call.request.task is not None:
                check_input_requests(result, call.request)
                return result
            return finish_input_required(call, result, target=entry.name, arguments=admitted.arguments)
        if not result.isError and plan.checks_output and not _fits_output(plan, result):
            await _check_output(entry, result)  # raises the ShapeError, or accepts
        return result
    except McpError:
        raise
    except Exception as exc:  # a tool failure is a result, not a protocol error
        return tool_failed(call, entry, exc)


def _fits_output(plan: CallPlan, result: CallToolResult) -> bool:
    """Return True when the plan's one msgspec pass finds the structured content valid.

    False sends the result to ``_check_output``, which words the refusal (or,
    for what the plan does not cover, decides).
    """
    output_to = plan.output_to
    structured = result.structuredContent
    if output_to is None or structured is UNSET:
        return False
    try:
        msgspec.convert(
            msgspec.to_builtins(structured) if plan.output_plain else structured, output_to, strict=True
        )
    except (TypeError, msgspec.ValidationError):
        return False
    return True


def tool_result(produced: Sequence[Any]) -> CallToolResult | InputRequiredResult:
    """Return the tool result for what a handler ``produced``."""
    if len(produced) == 1 and type(produced[0]) is McpResponse:
        # The usual case, one response: its parts as they are.
        response = produced[0]
        return CallToolResult(
            content=response.content,
            structuredContent=response.structured_content,
            isError=response.is_error,
            meta=(merge_meta(produced) or UNSET) if response.meta else UNSET,
        )
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


def tool_error(message: str) -> CallToolResult:
    """Return an ``isError`` result carrying ``message``."""
    return CallToolResult(content=(TextContent(text=message),), isError=True)


def tool_failed(call: Call, entry: CompiledTool, exc: Exception) -> CallToolResult:
    """Log ``exc``, raised by ``entry``'s code, and return the ``isError`` result a client sees.

    A tool failure is a result, not a protocol error, and never carries the
    exception's text.
    """
    report_failure(call.request, exc, f"tool {entry.name!r}")
    return tool_error("Tool execution failed")


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
        try:
            entry.input_validator(arguments)
        except SchemaValidationError:
            # Its messages are jsonschema's, which quote the values (maybe
            # secrets): word them again from the errors themselves.
            raise json_schema_error(input_type, arguments) from None
        return arguments
    if entry.input_rules:
        return await validate(input_type, arguments)
    return _converted_payload(input_type, arguments)


def _converted_payload(input_type: Any, arguments: dict[str, Any]) -> Any:
    """Return ``arguments`` validated and built as ``input_type`` (no rules), in one msgspec pass.

    Raises:
        SchemaValidationError: the arguments do not fit ``input_type``.
    """
    # Decoded JSON is already plain: one msgspec pass validates and builds it.
    try:
        return msgspec.convert(arguments, input_type, strict=True)
    except msgspec.ValidationError as exc:
        # msgspec stopped at the first error; every field's, on this path only.
        raise schema_error(exc, tp=input_type, value=arguments) from None


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
