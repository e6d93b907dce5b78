"""The request path: one JSON-RPC request in, one encoded response out.

``Dispatcher(compiled).respond(envelope, ctx, emit)`` serves one request of
either protocol era, whatever the transport. In order:

1. **Admit** it: at most ``MCP_MAX_CONCURRENT_REQUESTS`` requests are in
   flight per process (-32603 with HTTP 503 beyond that).
2. **Route** it through ``METHODS``, the one method table: a method this
   server does not serve in the caller's era, or whose feature it does not
   offer, is -32601.
3. **Run** the feature module's handler (``tools.py``, ``resources.py``,
   ``prompts.py``, ``completion.py``, ``lifecycle.py``) with a ``Call``.
   A 2025-11-25 request whose handler needs input asks its client with
   server-to-client requests (``continuation.py``).
4. **Finish** the result for the era (``eras.py``): ``resultType``, cache
   hints and server info for 2026-07-28, the older shapes for 2025-11-25.
5. **Encode** it (``codec.py``), refusing results over
   ``MCP_MAX_METADATA_SIZE`` / ``MCP_MAX_RESPONSE_SIZE`` with -32603.

Every ``McpError`` becomes a JSON-RPC error (mapped for 2025-11-25); any
other exception is logged and answered -32603 without its text.
Notifications a handler sends (progress, log messages) go to ``emit``.
``listen()`` serves ``subscriptions/listen`` streams. Transports frame
bytes (``django_mcp.transports``); this package never imports
``django.http``. Settings arrive as one ``McpSettings`` value, re-read
after Django's ``setting_changed``.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Final

from django.core.signals import setting_changed

from django_mcp.conf import McpSettings, get_settings
from django_mcp.dispatcher import completion, lifecycle, prompts, resources, subscriptions, tools
from django_mcp.dispatcher.codec import (
    Envelope,
    Reply,
    encode_response,
    encoded_size,
    error_reply,
    parse_message,
)
from django_mcp.dispatcher.context import META_SERVER_INFO, Call, CallContext, Emit, Era, modern_context
from django_mcp.dispatcher.continuation import ask_legacy_client
from django_mcp.dispatcher.eras import finish, legacy_error
from django_mcp.dispatcher.sessions import LegacyCalls, PendingRequests
from django_mcp.exceptions import InternalError, McpError, MethodNotFound, ResourceNotFound
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.definitions import ServerCapabilities
from django_mcp.protocol.results import InputRequiredResult
from django_mcp.request import McpRequest
from django_mcp.server.compiler import CompiledServer

__all__ = [
    "METHODS",
    "CallContext",
    "Dispatcher",
    "Dispatchers",
    "InFlight",
    "Method",
    "ServerBusy",
    "dispatchers",
    "modern_context",
    "parse_message",
]

logger = logging.getLogger(__name__)

MODERN: Final = frozenset({"modern"})
LEGACY: Final = frozenset({"legacy"})
BOTH: Final = MODERN | LEGACY

Handler = Callable[[Call], Awaitable[Any]]


@dataclasses.dataclass(frozen=True, slots=True)
class Method:
    """One row of the method table."""

    name: str
    #: The ``ServerCapabilities`` member the server must offer ("" = always served).
    feature: str
    #: The protocol eras that have this method.
    eras: frozenset[str]
    #: Serves the request; None for a stream (``subscriptions/listen``).
    handler: Handler | None
    #: True when the handler may answer ``InputRequiredResult`` (multi round-trip).
    asks_input: bool = False


METHODS: Final[Mapping[str, Method]] = {
    row.name: row
    for row in (
        Method("server/discover", "", MODERN, lifecycle.discover),
        Method("ping", "", LEGACY, lifecycle.ping),
        Method("logging/setLevel", "logging", LEGACY, lifecycle.set_level),
        Method("tools/list", "tools", BOTH, tools.list_tools),
        Method("tools/call", "tools", BOTH, tools.call_tool, asks_input=True),
        Method("resources/list", "resources", BOTH, resources.list_resources),
        Method("resources/templates/list", "resources", BOTH, resources.list_resource_templates),
        Method("resources/read", "resources", BOTH, resources.read_resource, asks_input=True),
        Method("resources/subscribe", "resources", LEGACY, resources.subscribe),
        Method("resources/unsubscribe", "resources", LEGACY, resources.unsubscribe),
        Method("prompts/list", "prompts", BOTH, prompts.list_prompts),
        Method("prompts/get", "prompts", BOTH, prompts.get_prompt, asks_input=True),
        Method("completion/complete", "completions", BOTH, completion.complete),
        Method("subscriptions/listen", "", MODERN, None),
    )
}
"""Every method this package serves: feature, eras, handler, input rounds."""


class ServerBusy(InternalError):
    """More requests are in flight than ``MCP_MAX_CONCURRENT_REQUESTS``."""

    default_message = "Server busy: too many concurrent requests, retry later"
    http_status = 503


class InFlight:
    """Count the requests in flight in this process, across threads.

    Threaded WSGI servers run views in many threads at once, so the count
    is guarded by a lock.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def enter(self, limit: int) -> bool:
        """Admit one more request unless ``limit`` are in flight."""
        with self._lock:
            if self.count >= limit:
                return False
            self.count += 1
            return True

    def leave(self) -> None:
        """Mark one request done."""
        with self._lock:
            self.count -= 1


IN_FLIGHT: Final = InFlight()
"""The process-wide count every dispatcher shares by default."""


class Dispatcher:
    """Serve one compiled server: route, run, finish and encode."""

    def __init__(
        self,
        compiled: CompiledServer,
        *,
        settings: McpSettings | Callable[[], McpSettings] = get_settings,
        in_flight: InFlight = IN_FLIGHT,
    ) -> None:
        self.compiled = compiled
        # A fixed value, or a provider re-read after setting_changed.
        self._provider = settings if callable(settings) else None
        #: The settings this dispatcher applies now.
        self.settings: McpSettings = settings() if callable(settings) else settings
        if self._provider is not None:
            # Held weakly: a dispatcher nobody uses any more just goes away.
            setting_changed.connect(self._reload_settings)
        self.in_flight = in_flight
        # {"io.modelcontextprotocol/serverInfo": ...} is the same bytes in
        # every 2026-07-28 result: measure it once.
        self._info_size = encoded_size({META_SERVER_INFO: compiled.info})
        #: 2025-11-25 server-to-client requests waiting for their answers.
        self.pending = PendingRequests()
        #: 2025-11-25 requests in flight, for ``notifications/cancelled``.
        self.legacy_calls = LegacyCalls()

    def __repr__(self) -> str:
        return f"Dispatcher({self.compiled.key})"

    def _reload_settings(self, **kwargs: Any) -> None:
        # Connected after conf's own receiver, which has cleared its cache.
        assert self._provider is not None
        self.settings = self._provider()

    @property
    def capabilities(self) -> ServerCapabilities:
        """Return the capabilities ``server/discover`` advertises."""
        return self.compiled.capabilities

    @property
    def listens(self) -> bool:
        """Return True when ``subscriptions/listen`` is served."""
        return self.compiled.listens

    # ------------------------------------------------------------ routing

    def route(self, method: str, era: Era) -> Method:
        """Return the table row serving ``method`` or raise ``MethodNotFound``."""
        row = METHODS.get(method)
        if row is None or era not in row.eras:
            raise MethodNotFound(f"Method not found: {method}")
        if row.feature and getattr(self.compiled.capabilities, row.feature) is UNSET:
            raise MethodNotFound(f"Method not found: {method} ({row.feature} not offered)")
        if row.handler is None and not self.compiled.listens:
            raise MethodNotFound(f"Method not found: {method}")
        return row

    def check_method(self, method: str, era: Era) -> None:
        """Raise ``MethodNotFound`` for a method this server does not serve."""
        self.route(method, era)

    def asks_input(self, method: str) -> bool:
        """Return True when ``method`` may need input from the client."""
        row = METHODS.get(method)
        return row is not None and row.asks_input

    # ------------------------------------------------------------ serving

    async def respond(self, envelope: Envelope, ctx: CallContext, emit: Emit | None = None) -> Reply:
        """Serve one request and return its encoded response; never raises McpError."""
        settings = self.settings
        if not self.in_flight.enter(settings.limits.max_concurrent_requests):
            return error_reply(envelope.id, ServerBusy())
        try:
            row = self.route(envelope.method, ctx.era)
            if row.handler is None:
                raise MethodNotFound(f"Method not found: {envelope.method} is a stream")
            call = Call(
                self.compiled,
                settings,
                envelope,
                envelope.params,
                ctx,
                self._request(envelope, ctx, emit),
                emit,
            )
            result = await row.handler(call)
            if isinstance(result, InputRequiredResult) and ctx.era == "legacy":
                result = await ask_legacy_client(call, result, row.handler, self._retry)
            self._check_meta_size(getattr(result, "meta", UNSET), settings, ctx.era)
            return self.encode_result(envelope, finish(call, result))
        except McpError as error:
            return error_reply(envelope.id, legacy_error(error) if ctx.era == "legacy" else error)
        except Exception:  # the last line of defence: never a traceback to a client
            logger.exception("Unexpected error while serving %s", envelope.method)
            return error_reply(envelope.id, InternalError())
        finally:
            self.in_flight.leave()

    def _request(self, envelope: Envelope, ctx: CallContext, emit: Emit | None) -> McpRequest:
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

    def request_for(self, envelope: Envelope, ctx: CallContext, emit: Emit | None = None) -> McpRequest:
        """Return the ``McpRequest`` handlers of this call receive."""
        return self._request(envelope, ctx, emit)

    def _retry(self, call: Call, params: dict[str, Any]) -> Call:
        envelope = dataclasses.replace(call.envelope, params=params)
        request = self._request(envelope, call.ctx, call.emit)
        return dataclasses.replace(call, envelope=envelope, params=params, request=request)

    def _check_meta_size(self, meta: Any, settings: McpSettings, era: Era) -> None:
        """Refuse a result whose ``_meta`` (server info included) is over the limit.

        The size is computed without encoding the finished ``_meta``: the
        server-info member is always the same bytes, measured once.
        """
        with_info = settings.server_info and era == "modern"
        size = encoded_size(meta) if meta else 2  # "{}"
        if with_info:
            size += self._info_size - (1 if meta else 2)
        if (meta or with_info) and size > settings.limits.max_metadata_size:
            raise InternalError("Result metadata exceeds MCP_MAX_METADATA_SIZE")

    def encode_result(self, envelope: Envelope, result: Any) -> Reply:
        """Encode a finished result, within ``MCP_MAX_RESPONSE_SIZE``."""
        limits = self.settings.limits
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

    def encode_raw_result(self, request_id: Any, result: Any) -> bytes:
        """Encode a result object verbatim (the legacy handshake, a listen's end)."""
        return encode_response(request_id, result)

    # ------------------------------------------------------------ streams

    def listen(self, envelope: Envelope, ctx: CallContext) -> AsyncIterator[bytes]:
        """Return the encoded messages of a ``subscriptions/listen`` stream.

        Raises ``MethodNotFound``/``InvalidParams`` before the stream starts.
        """
        self.route(envelope.method, ctx.era)
        honoured = subscriptions.honoured_filter(self.compiled, envelope.params.get("notifications"))
        request = self._request(envelope, ctx, None)

        async def readable(uri: str) -> bool:
            try:
                await resources.find_resource(self.compiled, uri, request)
            except ResourceNotFound:
                return False
            return True

        return subscriptions.listen(self.compiled, envelope.id, honoured, readable)

    def session_notifications(self, current: Callable[[], Awaitable[Any]]) -> AsyncIterator[bytes]:
        """Return a 2025-11-25 session's stream of change notifications."""
        return subscriptions.session_notifications(self.compiled, current)

    def initialize(self, params: Mapping[str, Any]) -> lifecycle.Handshake:
        """Negotiate a 2025-11-25 session (``initialize``); raise ``InvalidParams``."""
        return lifecycle.initialize(self.compiled, params)


class Dispatchers:
    """One ``Dispatcher`` per server class, built on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_server: dict[type[Any], Dispatcher] = {}

    def get(self, server: type[Any]) -> Dispatcher:
        """Return the dispatcher serving ``server`` (compiled once)."""
        dispatcher = self._by_server.get(server)
        if dispatcher is None:
            with self._lock:
                dispatcher = self._by_server.get(server)
                if dispatcher is None:
                    dispatcher = self._by_server[server] = Dispatcher(server.compiled())
        return dispatcher


dispatchers: Final = Dispatchers()
"""The process-wide dispatchers the transports serve."""
