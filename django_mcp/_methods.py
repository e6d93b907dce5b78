"""The server methods: catalog listings, tools, resources, prompts, completion.

Each function takes the compiled server, the decoded params and the request
context, and returns a result Struct or raises an ``McpError``. Era-specific
decoration (``resultType``, cache hints, server info) is the dispatcher's.

Error paths (MCP 2026-07-28 and the project's seeds):

* unknown or hidden tool/prompt, bad cursor, missing required prompt
  argument, unknown completion argument -> -32602;
* resource not found -> -32602 with ``data.uri`` (-32002 for 2025-11-25);
* invalid tool arguments -> ``isError`` "Invalid tool arguments: <detail>";
* unexpected tool exception -> logged, ``got_request_exception`` sent,
  ``isError`` "Tool execution failed", no exception text;
* unexpected resource/prompt/completion exception -> -32603.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec
from django.core.signals import got_request_exception

from django_mcp import _continuation, _cursor, _shape
from django_mcp._invoke import invoke
from django_mcp.auth import can_use
from django_mcp.conf import get_limits
from django_mcp.context import McpRequest
from django_mcp.exceptions import (
    InternalError,
    InvalidParams,
    McpError,
    ResourceNotFound,
    SchemaValidationError,
)
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.content import TextContent
from django_mcp.protocol.results import (
    CallToolResult,
    CompleteResult,
    CompletionValues,
    InputRequiredResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
)
from django_mcp.ratelimit import allow_tool_call
from django_mcp.schemas import Schema, validate
from django_mcp.server.compiler import CompiledResource, CompiledServer, CompiledTool
from django_mcp.server.primitives import Completion

__all__ = [
    "call_tool",
    "complete",
    "find_resource",
    "get_prompt",
    "list_prompts",
    "list_resource_templates",
    "list_resources",
    "list_tools",
    "read_resource",
]

logger = logging.getLogger(__name__)

Emit = Callable[[str, dict[str, Any]], None]


# ------------------------------------------------------------------ lists


async def _visible(entries: Sequence[Any], request: McpRequest) -> list[Any]:
    return [entry for entry in entries if await can_use(entry, request)]


async def _page(
    compiled: CompiledServer,
    method: str,
    entries: Sequence[Any],
    params: Mapping[str, Any],
    request: McpRequest,
) -> tuple[list[Any], str | Any]:
    limits = get_limits()
    size = max(1, min(limits.default_page_size, limits.max_page_size))
    catalog = f"{compiled.server.__module__}.{compiled.server.__qualname__}"
    cursor = params.get("cursor")
    # An empty string is a valid cursor value (MCP 2026-07-28 pagination).
    offset = 0 if cursor is None else _cursor.decode_cursor(cursor, method, catalog)
    visible = await _visible(entries, request)
    page = visible[offset : offset + size]
    more = offset + size < len(visible)
    return page, _cursor.encode_cursor(method, catalog, offset + size) if more else UNSET


async def list_tools(
    compiled: CompiledServer, params: Mapping[str, Any], request: McpRequest
) -> ListToolsResult:
    """Return one page of the tools this caller may use."""
    page, cursor = await _page(compiled, "tools/list", list(compiled.tools.values()), params, request)
    return ListToolsResult(tools=tuple(e.definition for e in page), next_cursor=cursor)


async def list_resources(
    compiled: CompiledServer, params: Mapping[str, Any], request: McpRequest
) -> ListResourcesResult:
    """Return one page of the fixed resources this caller may read."""
    page, cursor = await _page(compiled, "resources/list", list(compiled.resources.values()), params, request)
    return ListResourcesResult(resources=tuple(e.definition for e in page), next_cursor=cursor)


async def list_resource_templates(
    compiled: CompiledServer, params: Mapping[str, Any], request: McpRequest
) -> ListResourceTemplatesResult:
    """Return one page of the resource templates this caller may read."""
    page, cursor = await _page(
        compiled, "resources/templates/list", list(compiled.templates.values()), params, request
    )
    return ListResourceTemplatesResult(
        resource_templates=tuple(e.definition for e in page), next_cursor=cursor
    )


async def list_prompts(
    compiled: CompiledServer, params: Mapping[str, Any], request: McpRequest
) -> ListPromptsResult:
    """Return one page of the prompts this caller may get."""
    page, cursor = await _page(compiled, "prompts/list", list(compiled.prompts.values()), params, request)
    return ListPromptsResult(prompts=tuple(e.definition for e in page), next_cursor=cursor)


# ------------------------------------------------------------ continuation


def _continuation_inputs(
    params: Mapping[str, Any], request: McpRequest, *, method: str, target: str, arguments: Any
) -> None:
    """Verify and attach ``inputResponses``/``requestState`` of a retry."""
    responses = params.get("inputResponses")
    if responses is not None and not isinstance(responses, dict):
        raise InvalidParams("inputResponses must be an object")
    request.input_responses = responses or {}
    if "requestState" in params:
        request.request_state = _continuation.unseal_state(
            params["requestState"], method=method, target=target, arguments=arguments, user=request.user
        )


def is_continuation(params: Mapping[str, Any]) -> bool:
    """Return True for a retry carrying input responses or request state."""
    return "inputResponses" in params or "requestState" in params


def _finish_input_required(
    result: InputRequiredResult, request: McpRequest, *, method: str, target: str, arguments: Any
) -> InputRequiredResult:
    _continuation.check_input_requests(result, request)
    if result.request_state is UNSET:
        return result
    sealed = _continuation.seal_state(
        result.request_state, method=method, target=target, arguments=arguments, user=request.user
    )
    return msgspec.structs.replace(result, request_state=sealed)


# ------------------------------------------------------------------ tools


async def call_tool(
    compiled: CompiledServer, params: Mapping[str, Any], request: McpRequest, emit: Emit | None
) -> CallToolResult | InputRequiredResult:
    """Run a tool and return its result (tool failures are ``isError``)."""
    name = params.get("name")
    if not isinstance(name, str):
        raise InvalidParams("tools/call needs a string name")
    entry = compiled.tools.get(name)
    if entry is None or not await can_use(entry, request):
        raise InvalidParams(f"Unknown tool: {name}")
    if not await allow_tool_call(request, name):
        return _tool_error("Rate limit exceeded: retry later")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise InvalidParams("tools/call arguments must be an object")
    _continuation_inputs(params, request, method="tools/call", target=name, arguments=arguments)

    try:
        payload = await _tool_payload(entry, arguments)
    except SchemaValidationError as exc:
        return _tool_error(f"Invalid tool arguments: {exc}")

    try:
        produced = await invoke(entry.component, entry.handler, request, payload=payload, emit=emit)
        result = _shape.tool_result(produced)
        if isinstance(result, InputRequiredResult):
            return _finish_input_required(
                result, request, method="tools/call", target=name, arguments=arguments
            )
        if not result.isError and entry.output_type is not None:
            await _validate_output(entry, result)
        return result
    except McpError:
        raise
    except Exception as exc:  # a tool failure is a result, not a protocol error
        _report(request, exc, f"tool {name!r}")
        return _tool_error("Tool execution failed")


async def _tool_payload(entry: CompiledTool, arguments: dict[str, Any]) -> Any:
    input_type = entry.input_type
    if input_type is None:
        if arguments:
            raise SchemaValidationError([(key, "unknown field") for key in sorted(arguments)])
        return None
    if isinstance(input_type, dict):
        _validate_raw(input_type, arguments)
        return arguments
    return await validate(input_type, arguments)


def _validate_raw(schema: dict[str, Any], value: Any) -> None:
    """Validate against a raw JSON Schema when python-jsonschema is installed."""
    try:
        import jsonschema
        import referencing
    except ImportError:  # optional: raw schemas are then only checked as objects
        return
    validator_cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    # An empty registry: never fetch remote $refs (MCP 2026-07-28 server/tools).
    validator = validator_cls(schema, registry=referencing.Registry())
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if errors:
        raise SchemaValidationError(
            [(".".join(str(p) for p in error.absolute_path), error.message) for error in errors[:5]]
        )


async def _validate_output(entry: CompiledTool, result: CallToolResult) -> None:
    if result.structuredContent is UNSET:
        raise _shape.ShapeError(
            f"tool {entry.name!r} declares an output schema but returned no structured() content"
        )
    output_type = entry.output_type
    try:
        if isinstance(output_type, dict):
            _validate_raw(output_type, result.structuredContent)
        elif isinstance(output_type, type) and issubclass(output_type, Schema):
            await validate(output_type, result.structuredContent)
        else:
            msgspec.convert(result.structuredContent, output_type, strict=True)
    except (SchemaValidationError, msgspec.ValidationError) as exc:
        raise _shape.ShapeError(
            f"tool {entry.name!r} output does not match its output schema: {exc}"
        ) from None


def _tool_error(message: str) -> CallToolResult:
    return CallToolResult(content=(TextContent(text=message),), isError=True)


def _report(request: McpRequest, exc: BaseException, what: str) -> None:
    logger.error("Unexpected error in %s", what, exc_info=exc)
    # Let Sentry-style handlers that listen to Django's signal see it too.
    got_request_exception.send(sender=None, request=request.http_request)


# -------------------------------------------------------------- resources


async def find_resource(
    compiled: CompiledServer, uri: str, request: McpRequest
) -> tuple[CompiledResource, dict[str, Any]]:
    """Return the resource serving ``uri`` and its variables, or raise not found."""
    entry = compiled.resources.get(uri)
    if entry is not None and await can_use(entry, request):
        return entry, {}
    for template_entry in compiled.templates.values():
        assert template_entry.template is not None
        variables = template_entry.template.match(uri)
        if variables is not None and await can_use(template_entry, request):
            return template_entry, variables
    raise ResourceNotFound(data={"uri": uri})


async def read_resource(
    compiled: CompiledServer, params: Mapping[str, Any], request: McpRequest, emit: Emit | None
) -> tuple[Any, CompiledResource]:
    """Read a resource; return its result and the entry that served it."""
    uri = params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise InvalidParams("resources/read needs a string uri")
    entry, variables = await find_resource(compiled, uri, request)
    request.uri = uri
    request.uri_variables = variables
    _continuation_inputs(params, request, method="resources/read", target=uri, arguments=None)
    try:
        produced = await invoke(entry.component, entry.handler, request, values=variables, emit=emit)
        result = _shape.resource_result(produced, uri, entry.mime_type)
        if isinstance(result, InputRequiredResult):
            return _finish_input_required(
                result, request, method="resources/read", target=uri, arguments=None
            ), entry
        if not result.contents:
            # Never answer a read with empty contents (MCP 2026-07-28 resources).
            raise ResourceNotFound(data={"uri": uri})
        return result, entry
    except McpError:
        raise
    except Exception as exc:
        _report(request, exc, f"resource {uri!r}")
        raise InternalError() from None


# ---------------------------------------------------------------- prompts


async def get_prompt(
    compiled: CompiledServer, params: Mapping[str, Any], request: McpRequest, emit: Emit | None
) -> Any:
    """Render a prompt's messages."""
    name = params.get("name")
    if not isinstance(name, str):
        raise InvalidParams("prompts/get needs a string name")
    entry = compiled.prompts.get(name)
    if entry is None or not await can_use(entry, request):
        raise InvalidParams(f"Unknown prompt: {name}")
    arguments = params.get("arguments") or {}
    if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
        raise InvalidParams("prompts/get arguments must be an object of strings")
    declared = {a.name for a in entry.arguments}
    unknown = sorted(set(arguments) - declared)
    if unknown:
        raise InvalidParams(f"Unknown prompt argument: {', '.join(unknown)}")
    missing = [a.name for a in entry.arguments if a.required and a.name not in arguments]
    if missing:
        raise InvalidParams(f"Missing required prompt argument: {', '.join(missing)}")
    request.arguments = arguments
    _continuation_inputs(params, request, method="prompts/get", target=name, arguments=arguments)
    try:
        produced = await invoke(entry.component, entry.handler, request, values=arguments, emit=emit)
        result = _shape.prompt_result(produced)
        if isinstance(result, InputRequiredResult):
            return _finish_input_required(
                result, request, method="prompts/get", target=name, arguments=arguments
            )
        return result
    except McpError:
        raise
    except Exception as exc:
        _report(request, exc, f"prompt {name!r}")
        raise InternalError() from None


# ------------------------------------------------------------- completion


async def complete(
    compiled: CompiledServer, params: Mapping[str, Any], request: McpRequest
) -> CompleteResult:
    """Suggest values for a prompt argument or a template variable."""
    ref = params.get("ref")
    argument = params.get("argument")
    if not isinstance(ref, dict) or not isinstance(argument, dict):
        raise InvalidParams("completion/complete needs ref and argument objects")
    arg_name, value = argument.get("name"), argument.get("value")
    if not isinstance(arg_name, str) or not isinstance(value, str):
        raise InvalidParams("argument.name and argument.value must be strings")
    entry: Any
    if ref.get("type") == "ref/prompt":
        entry = compiled.prompts.get(ref.get("name"))  # type: ignore[arg-type]
        if entry is None or not await can_use(entry, request):
            raise InvalidParams(f"Unknown prompt: {ref.get('name')}")
        names: tuple[str, ...] = tuple(a.name for a in entry.arguments)
    elif ref.get("type") == "ref/resource":
        uri = ref.get("uri")
        entry = compiled.templates.get(uri) if isinstance(uri, str) else None
        if entry is None or not await can_use(entry, request):
            raise InvalidParams(f"Unknown resource template: {uri}")
        names = entry.template.variable_names
    else:
        raise InvalidParams("ref.type must be ref/prompt or ref/resource")
    if arg_name not in names:
        raise InvalidParams(f"Unknown completion argument: {arg_name}")
    context = params.get("context") or {}
    resolved = context.get("arguments") if isinstance(context, dict) else None
    request.arguments = {**(resolved if isinstance(resolved, dict) else {}), arg_name: value}
    if entry.completer is None:
        return CompleteResult(completion=CompletionValues(values=()))
    try:
        produced = await invoke(
            entry.component, entry.completer, request, values={"argument": arg_name, "value": value}
        )
        return CompleteResult(completion=_completion(produced))
    except McpError:
        raise
    except Exception as exc:
        _report(request, exc, f"completion for {arg_name!r}")
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
