"""Transport-agnostic JSON-RPC dispatch for one compiled server.

One message in; one encoded response out, with request-scoped
notifications (progress, log messages) handed to an ``emit`` callback on
the way. Transports (HTTP, STDIO, the test client) parse bytes with
``parse_message``, build a ``CallContext`` (``modern_context`` for
2026-07-28 requests, a legacy session for 2025-11-25 ones), await
``Dispatcher.respond`` and write the bytes it returns.

Validation order for modern requests follows the project checklist
(SERVER-CHECKLIST §13): JSON (-32700) -> envelope (-32600) -> required
``_meta`` keys (-32602) -> version (-32022) -> method and capability
(-32601) -> params (-32602 / -32021) -> dispatch. Every result gets
``resultType``; discover, list and read results get ``ttlMs`` and
``cacheScope``; ``io.modelcontextprotocol/serverInfo`` goes in ``_meta``.
Legacy results carry none of those. ``dispatcher`` never imports
``django.http``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

import msgspec

from django_mcp import _methods
from django_mcp.conf import get_limits, get_setting
from django_mcp.context import LOG_LEVELS, McpRequest
from django_mcp.envelope import (
    META_SERVER_INFO,
    CallContext,
    Emit,
    Envelope,
    Era,
    Reply,
    encode_response,
    encoded_size,
    error_reply,
    modern_context,
    parse_message,
)
from django_mcp.exceptions import (
    InternalError,
    InvalidParams,
    McpError,
    MethodNotFound,
    MissingClientCapability,
    ResourceNotFound,
)
from django_mcp.protocol import jsonrpc
from django_mcp.protocol._base import UNSET
from django_mcp.protocol._base import UnsetType as _UnsetType
from django_mcp.protocol.definitions import ServerCapabilities, ToolDefinition
from django_mcp.protocol.results import (
    CallToolResult,
    DiscoverResult,
    EmptyResult,
    InputRequiredResult,
    ListToolsResult,
    ReadResourceResult,
)
from django_mcp.protocol.versions import SUPPORTED_VERSIONS, negotiate_legacy
from django_mcp.server.compiler import CompiledServer

# CallContext, modern_context and parse_message are re-exported: serving a
# message takes all four names, and the docs import them from here.
__all__ = ["CallContext", "Dispatcher", "ServerBusy", "modern_context", "parse_message"]

logger = logging.getLogger(__name__)


class ServerBusy(InternalError):
    """More requests are in flight than ``MCP_MAX_CONCURRENT_REQUESTS``."""

    default_message = "Server busy: too many concurrent requests, retry later"
    http_status = 503


# ------------------------------------------------------------- dispatcher

_in_flight = 0


class Dispatcher:
    """Serve one compiled server: route, call, decorate and encode."""

    def __init__(self, compiled: CompiledServer) -> None:
        self.compiled = compiled
        self.capabilities = self._capabilities()
        self.legacy_capabilities = msgspec.structs.replace(self.capabilities, extensions=UNSET)

    def _capabilities(self) -> ServerCapabilities:
        compiled = self.compiled
        server = compiled.server
        changed = {"listChanged": True} if server.list_changed else {}
        resources: dict[str, Any] = dict(changed)
        if server.subscribe:
            resources["subscribe"] = True
        has_resources = bool(compiled.resources or compiled.templates)
        return ServerCapabilities(
            tools=dict(changed) if compiled.tools else UNSET,
            resources=resources if has_resources else UNSET,
            prompts=dict(changed) if compiled.prompts else UNSET,
            completions={} if (compiled.prompts or compiled.templates) else UNSET,
            logging={},
        )

    @property
    def listens(self) -> bool:
        """Return True when ``subscriptions/listen`` is served."""
        server = self.compiled.server
        return bool(
            server.list_changed or (server.subscribe and (self.compiled.resources or self.compiled.templates))
        )

    # ------------------------------------------------------------ routing

    def check_method(self, method: str, era: Era) -> None:
        """Raise ``MethodNotFound`` for a method this server does not serve."""
        table = _MODERN_METHODS if era == "modern" else _LEGACY_METHODS
        feature = table.get(method)
        if feature is None:
            raise MethodNotFound(f"Method not found: {method}")
        if feature and getattr(self.capabilities, feature) is UNSET:
            raise MethodNotFound(f"Method not found: {method} ({feature} not offered)")
        if method == "subscriptions/listen" and not self.listens:
            raise MethodNotFound("Method not found: subscriptions/listen")

    async def respond(self, envelope: Envelope, ctx: CallContext, emit: Emit | None = None) -> Reply:
        """Serve one request and return its encoded response; never raises McpError."""
        global _in_flight
        limits = get_limits()
        if _in_flight >= limits.max_concurrent_requests:
            return error_reply(envelope.id, ServerBusy())
        _in_flight += 1
        try:
            self.check_method(envelope.method, ctx.era)
            result = await self.call(envelope, ctx, emit)
            return self.encode_result(envelope, ctx, result)
        except McpError as error:
            return error_reply(envelope.id, self._era_error(error, ctx))
        except Exception:  # the last line of defence: never a traceback to a client
            logger.exception("Unexpected error while serving %s", envelope.method)
            return error_reply(envelope.id, InternalError())
        finally:
            _in_flight -= 1

    def _era_error(self, error: McpError, ctx: CallContext) -> McpError:
        """Return ``error`` as a legacy (2025-11-25) session must see it.

        That revision has neither -32602 for a missing resource (it used
        -32002) nor -32021, which became an invalid-params error there.
        """
        if ctx.era != "legacy":
            return error
        if isinstance(error, ResourceNotFound):
            legacy = McpError(error.message, data=error.data)
            legacy.code = jsonrpc.LEGACY_RESOURCE_NOT_FOUND  # type: ignore[misc]
            return legacy
        if isinstance(error, MissingClientCapability):
            return InvalidParams(error.message, data=error.data)
        return error

    def request_for(self, envelope: Envelope, ctx: CallContext, emit: Emit | None) -> McpRequest:
        """Return the ``McpRequest`` handlers of this call receive."""
        return McpRequest(
            method=envelope.method,
            params=envelope.params,
            meta=ctx.meta,
            protocol_version=ctx.protocol_version,
            client_capabilities=ctx.client_capabilities,
            client_info=ctx.client_info,
            request_id=envelope.id,
            http_request=ctx.http_request,
            user=ctx.user,
            log_level=ctx.log_level,
            progress_token=ctx.progress_token,
            server=self.compiled,
            emit=emit,
        )

    async def call(self, envelope: Envelope, ctx: CallContext, emit: Emit | None = None) -> Any:
        """Run the method and return its (undecorated) result Struct."""
        method = envelope.method
        params = envelope.params
        compiled = self.compiled
        if method == "server/discover":
            return DiscoverResult(
                supported_versions=SUPPORTED_VERSIONS,
                capabilities=self.capabilities,
                instructions=compiled.server.instructions or UNSET,
            )
        if method == "ping":
            return EmptyResult()
        if method in ("logging/setLevel", "resources/subscribe", "resources/unsubscribe"):
            return await self._session_method(method, params, ctx)
        request = self.request_for(envelope, ctx, emit)
        if method == "tools/list":
            return await _methods.list_tools(compiled, params, request)
        if method == "resources/list":
            return await _methods.list_resources(compiled, params, request)
        if method == "resources/templates/list":
            return await _methods.list_resource_templates(compiled, params, request)
        if method == "prompts/list":
            return await _methods.list_prompts(compiled, params, request)
        if method == "completion/complete":
            return await _methods.complete(compiled, params, request)
        if method in _MRTR_METHODS:
            return await self._call_with_input(envelope, ctx, request, emit)
        raise MethodNotFound(f"Method not found: {method}")  # pragma: no cover - check_method guards

    async def _session_method(self, method: str, params: Mapping[str, Any], ctx: CallContext) -> Any:
        if ctx.session is None:
            raise MethodNotFound(f"Method not found: {method} needs a session")
        if method == "logging/setLevel":
            level = params.get("level")
            if level not in LOG_LEVELS:
                raise InvalidParams(f"Invalid params: unknown log level {level!r}")
            await ctx.session.set_log_level(level)
        else:
            uri = params.get("uri")
            if not isinstance(uri, str) or not uri:
                raise InvalidParams(f"{method} needs a string uri")
            if method == "resources/subscribe":
                await ctx.session.subscribe(uri)
            else:
                await ctx.session.unsubscribe(uri)
        return EmptyResult()

    async def _call_with_input(
        self, envelope: Envelope, ctx: CallContext, request: McpRequest, emit: Emit | None
    ) -> Any:
        method = envelope.method
        result, entry = await self._run_mrtr(method, envelope.params, request, emit)
        if ctx.era == "modern" or not isinstance(result, InputRequiredResult):
            return _CacheHinted(result, entry) if entry is not None else result
        # Legacy clients cannot parse InputRequiredResult: ask them with real
        # server-to-client requests on this stream, then re-run the handler
        # (SERVER-CHECKLIST §16).
        params = dict(envelope.params)
        for _round in range(10):
            if ctx.client_request is None:
                raise MissingClientCapability("This request needs input the client cannot provide here")
            responses: dict[str, Any] = {}
            for key, item in (result.input_requests or {}).items():
                responses[key] = await ctx.client_request(item.method, item.params or {})
            params["inputResponses"] = responses
            if result.request_state is not UNSET:
                params["requestState"] = result.request_state
            else:
                params.pop("requestState", None)
            retry = dataclasses.replace(envelope, params=params)
            request = self.request_for(retry, ctx, emit)
            result, entry = await self._run_mrtr(method, params, request, emit)
            if not isinstance(result, InputRequiredResult):
                return result
        raise InternalError("Too many input rounds")

    async def _run_mrtr(
        self, method: str, params: Mapping[str, Any], request: McpRequest, emit: Emit | None
    ) -> tuple[Any, Any]:
        compiled = self.compiled
        if method == "tools/call":
            return await _methods.call_tool(compiled, params, request, emit), None
        if method == "resources/read":
            return await _methods.read_resource(compiled, params, request, emit)
        return await _methods.get_prompt(compiled, params, request, emit), None

    # ------------------------------------------------------------ results

    def encode_result(self, envelope: Envelope, ctx: CallContext, result: Any) -> Reply:
        """Decorate ``result`` for the caller's era and encode the response."""
        entry = None
        if isinstance(result, _CacheHinted):
            result, entry = result.result, result.entry
        if ctx.era == "legacy":
            result = self._legacy(result)
        else:
            result = self._modern(envelope, result, entry)
        limits = get_limits()
        meta = getattr(result, "meta", UNSET)
        if meta is not UNSET and meta and encoded_size(meta) > limits.max_metadata_size:
            return error_reply(envelope.id, InternalError("Result metadata exceeds MCP_MAX_METADATA_SIZE"))
        body = encode_response(envelope.id, result)
        if len(body) > limits.max_response_size:
            logger.error(
                "Response to %s is %d bytes, above MCP_MAX_RESPONSE_SIZE (%d)",
                envelope.method,
                len(body),
                limits.max_response_size,
            )
            return error_reply(envelope.id, InternalError("Response exceeds MCP_MAX_RESPONSE_SIZE"))
        return Reply(body)

    def _modern(self, envelope: Envelope, result: Any, entry: Any) -> Any:
        changes: dict[str, Any] = {}
        if hasattr(result, "ttl_ms") and not isinstance(result, InputRequiredResult):
            ttl, scope = self._cache_hint(envelope, result, entry)
            changes["ttl_ms"] = ttl
            changes["cache_scope"] = scope
        if get_setting("MCP_SERVER_INFO") and hasattr(result, "meta"):
            meta = {} if result.meta is UNSET else dict(result.meta)
            meta[META_SERVER_INFO] = self.compiled.info
            changes["meta"] = meta
        return msgspec.structs.replace(result, **changes) if changes else result

    def _cache_hint(self, envelope: Envelope, result: Any, entry: Any) -> tuple[int, str]:
        compiled = self.compiled
        if isinstance(result, ReadResourceResult):
            if _methods.is_continuation(envelope.params):
                return 0, "private"
            hint = entry.cache if entry is not None else None
            if result.ttl_ms is not UNSET and result.cache_scope is not UNSET:
                ttl, scope = result.ttl_ms, result.cache_scope
            elif hint is not None:
                ttl, scope = hint.ttl_ms, hint.scope
            else:
                ttl, scope = 0, "private"
            if entry is not None and (
                entry.permissions or entry.has_authorize or compiled.server.login_required
            ):
                scope = "private"
            return ttl, scope
        hint = compiled.cache
        scope = "private" if compiled.caller_dependent else hint.scope
        return hint.ttl_ms, scope

    def _legacy(self, result: Any) -> Any:
        if isinstance(result, EmptyResult):
            return {}
        changes: dict[str, Any] = {"result_type": UNSET}
        if hasattr(result, "ttl_ms"):
            changes["ttl_ms"] = UNSET
            changes["cache_scope"] = UNSET
        # 2025-11-25 requires object structuredContent and object output
        # schemas; a non-object value stays available as the JSON text block.
        if isinstance(result, CallToolResult) and not isinstance(result.structuredContent, dict | _UnsetType):
            changes["structuredContent"] = UNSET
        if isinstance(result, ListToolsResult):
            changes["tools"] = tuple(_legacy_tool(tool) for tool in result.tools)
        return msgspec.structs.replace(result, **changes)

    # ------------------------------------------------------------- legacy

    def initialize_result(self, params: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """Return the negotiated version and the 2025-11-25 ``InitializeResult``."""
        version = negotiate_legacy(params.get("protocolVersion"))
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": self.legacy_capabilities,
            "serverInfo": self.compiled.info,
        }
        if self.compiled.server.instructions:
            result["instructions"] = self.compiled.server.instructions
        return version, result

    def encode_raw_result(self, request_id: Any, result: Any) -> bytes:
        """Encode a result object verbatim (legacy handshake results)."""
        return encode_response(request_id, result)


def _legacy_tool(tool: ToolDefinition) -> ToolDefinition:
    schema = tool.output_schema
    if schema is UNSET or (isinstance(schema, dict) and schema.get("type") == "object"):
        return tool
    return msgspec.structs.replace(tool, output_schema=UNSET)


@dataclasses.dataclass(frozen=True, slots=True)
class _CacheHinted:
    """A read result travelling with the resource entry that produced it."""

    result: Any
    entry: Any


# Method -> capability that must be advertised ("" = always served).
_MODERN_METHODS: Mapping[str, str] = {
    "server/discover": "",
    "tools/list": "tools",
    "tools/call": "tools",
    "resources/list": "resources",
    "resources/templates/list": "resources",
    "resources/read": "resources",
    "prompts/list": "prompts",
    "prompts/get": "prompts",
    "completion/complete": "completions",
    "subscriptions/listen": "",
}
_LEGACY_METHODS: Mapping[str, str] = {
    **{k: v for k, v in _MODERN_METHODS.items() if k not in ("server/discover", "subscriptions/listen")},
    "ping": "",
    "logging/setLevel": "logging",
    "resources/subscribe": "resources",
    "resources/unsubscribe": "resources",
}
_MRTR_METHODS = frozenset({"tools/call", "resources/read", "prompts/get"})
