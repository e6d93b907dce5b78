"""The request path: one JSON-RPC request in, one encoded response out.

``Dispatcher(compiled).respond(envelope, ctx, emit)`` serves one request of
either protocol era, whatever the transport. In order:

1. **Admit** it: at most ``MCP_MAX_CONCURRENT_REQUESTS`` requests are in
   flight per process; one more waits up to ``MCP_QUEUE_TIMEOUT`` seconds
   for a slot, then gets -32603 with HTTP 503 (``InFlight``, below).
2. **Route** it through ``METHODS``, the one method table: a method this
   server does not serve in the caller's era, or whose feature it does not
   offer, is -32601.
3. **Run** the feature module's handler (``tools.py``, ``resources.py``,
   ``prompts.py``, ``completion.py``, ``lifecycle.py``, ``skills.py``) with
   a ``Call``. A 2025-11-25 request whose handler needs input asks its
   client with server-to-client requests (``continuation.py``). The tasks
   extension's methods, and the answer of a tool call with a task, are
   served by ``django_mcp.tasks``, installed when Django is ready
   (``extensions.TaskSupport``); the task's call runs later, in a Tasks
   framework job.
4. **Finish** the result for the era (``eras.finish()``): ``resultType``, cache
   hints and server info for 2026-07-28, the older shapes for 2025-11-25.
5. **Encode** it (``codec.py``), refusing results over
   ``MCP_MAX_METADATA_SIZE`` / ``MCP_MAX_RESPONSE_SIZE`` with -32603.

Every ``McpError`` becomes a JSON-RPC error (mapped for 2025-11-25); any
other exception is logged and answered -32603 without its text.
Notifications a handler sends (progress, log messages) go to ``emit``.
``respond`` calls the request chain, built once (``load_chain()``, as
Django's ``load_middleware``) around the steps above, and again after what
observes requests changes: ``django_mcp.observability``'s link is in it only
while anything observes (OpenTelemetry, ``django_mcp.calls``, signals, audit).
``listen()`` serves ``subscriptions/listen`` streams and
``session_notifications()`` a 2025-11-25 session's; both deliver only
updates of URIs their caller may read, and end on the server's side when
events were lost or the server shuts down (``subscriptions.py``); at most
``MCP_MAX_STREAMS`` are open per process (``admission.py``). A
2025-11-25 client's answer or cancellation reaches the worker whose request
it concerns through ``relay`` (``relay.py``). Dispatchers are built by
``django_mcp._serving``, one per registered server. Transports frame
bytes (``django_mcp.transports``); this package never imports
``django.http``. Settings arrive as one ``McpSettings`` value, re-read
after Django's ``setting_changed``.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import functools
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from typing import Any, Final

from django.core.signals import setting_changed

from django_mcp._types import HttpSource
from django_mcp.conf import McpSettings, get_settings
from django_mcp.dispatcher import (
    codec,
    completion,
    extensions,
    lifecycle,
    prompts,
    resources,
    skills,
    subscriptions,
    tools,
)
from django_mcp.dispatcher.admission import OPEN_STREAMS, OpenStreams
from django_mcp.dispatcher.codec import (
    Envelope,
    Reply,
    Response,
    encode_response,
    encoded_size,
    error_reply,
)
from django_mcp.dispatcher.context import Call, CallContext, Emit, Era, legacy_context
from django_mcp.dispatcher.continuation import ask_legacy_client
from django_mcp.dispatcher.eras import ToolReplies, finish, legacy_error
from django_mcp.dispatcher.relay import Relay
from django_mcp.dispatcher.sessions import LegacyCalls, PendingRequests, SessionStreams
from django_mcp.exceptions import (
    InternalError,
    McpError,
    MethodNotFound,
    ResourceNotFound,
    ServerBusy,
)
from django_mcp.observability import refresh
from django_mcp.observability._hooks import observing
from django_mcp.observability._state import OBSERVATION, reconsider
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.definitions import ServerCapabilities
from django_mcp.protocol.meta import META_SERVER_INFO
from django_mcp.protocol.results import CallToolResult, InputRequiredResult
from django_mcp.protocol.skills import EXTENSION as SKILLS_EXTENSION
from django_mcp.protocol.tasks import EXTENSION as TASKS_EXTENSION
from django_mcp.request import McpRequest
from django_mcp.server.compiler import CompiledServer

__all__ = ["IN_FLIGHT", "METHODS", "Dispatcher", "InFlight", "Method", "Respond"]

logger = logging.getLogger(__name__)

MODERN: Final = frozenset({"modern"})
LEGACY: Final = frozenset({"legacy"})
BOTH: Final = MODERN | LEGACY

Handler = Callable[[Call], Awaitable[Any]]

Respond = Callable[[Envelope, CallContext, Emit | None], Coroutine[Any, Any, Reply]]
"""One link of a dispatcher's request chain: serves a request, returns its encoded reply."""


# ------------------------------------------------------------- admission
#
# At most MCP_MAX_CONCURRENT_REQUESTS requests are served at the same time.
# One over the limit waits for a slot, first come first served, for at most
# MCP_QUEUE_TIMEOUT seconds; then it is refused with ServerBusy (-32603, HTTP
# 503 with Retry-After). A timeout of 0 refuses at once. Waiting costs no
# thread and no polling: a waiter is a future of its own event loop, and the
# request that leaves hands its slot straight to the oldest waiter with
# call_soon_threadsafe. So the count holds across threads (a threaded WSGI
# server runs each request in an event loop of its own) and across loops,
# and a waiter that is cancelled or times out never keeps a slot.


@dataclasses.dataclass(eq=False, slots=True)
class _Waiter:
    """A request waiting for a slot, woken on its own loop."""

    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[None]
    #: Set (under the lock) when a leaving request handed its slot over.
    granted: bool = False


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class InFlight:
    """Count the requests in flight in this process; queue the excess.

    The count and the queue are guarded by one lock: requests enter and
    leave from any thread and any event loop.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0
        self._waiters: collections.deque[_Waiter] = collections.deque()

    @property
    def waiting(self) -> int:
        """Return how many requests wait for a slot."""
        return len(self._waiters)

    def enter(self, limit: int) -> bool:
        """Admit one more request now unless ``limit`` are in flight."""
        with self._lock:
            if self.count >= limit:
                return False
            self.count += 1
            return True

    async def acquire(self, limit: int, timeout: float) -> bool:
        """Admit one more request, waiting up to ``timeout`` seconds for a slot.

        Return False when no slot came in time. Each True must be matched
        by one ``leave()``; a caller cancelled while waiting holds no slot.
        """
        with self._lock:
            if self.count < limit:
                self.count += 1
                return True
            if timeout <= 0 or limit < 1:
                return False
            loop = asyncio.get_running_loop()
            waiter = _Waiter(loop, loop.create_future())
            self._waiters.append(waiter)
        timer = loop.call_later(timeout, _wake, waiter.future)
        try:
            await waiter.future
        except BaseException:  # cancelled: hand on a slot that arrived meanwhile
            if self._withdraw(waiter):
                self.leave()
            raise
        finally:
            timer.cancel()
        # Woken by leave() or by the timer; only the flag says which.
        return self._withdraw(waiter)

    def _withdraw(self, waiter: _Waiter) -> bool:
        """Stop ``waiter`` waiting; return True when it was given a slot."""
        with self._lock:
            if not waiter.granted:
                self._waiters.remove(waiter)
            return waiter.granted

    def leave(self) -> None:
        """Mark one request done; its slot goes to the oldest waiter, if any."""
        while True:
            with self._lock:
                if not self._waiters:
                    self.count -= 1
                    return
                waiter = self._waiters.popleft()
                waiter.granted = True  # the count stays: the slot changes hands
            try:
                waiter.loop.call_soon_threadsafe(_wake, waiter.future)
            except RuntimeError:  # that waiter's loop has closed: try the next
                continue
            return


IN_FLIGHT: Final = InFlight()
"""The process-wide request count every dispatcher shares by default."""


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
    #: The extension the method belongs to ("" = none): served only while
    #: the server serves it (``extensions.served``).
    extension: str = ""


METHODS: Final[Mapping[str, Method]] = {
    row.name: row
    for row in (
        Method("server/discover", "", MODERN, lifecycle.discover),
        Method("ping", "", LEGACY, lifecycle.ping),
        Method("logging/setLevel", "logging", LEGACY, lifecycle.set_level),
        Method("tools/list", "tools", BOTH, tools.list_tools),
        Method(
            "tools/call",
            "tools",
            BOTH,
            # A task-capable tool may be answered with a task (django_mcp.tasks).
            functools.partial(tools.call_tool, start_task=extensions.start_task),
            asks_input=True,
        ),
        Method("resources/list", "resources", BOTH, resources.list_resources),
        Method("resources/templates/list", "resources", BOTH, resources.list_resource_templates),
        Method("resources/read", "resources", BOTH, resources.read_resource, asks_input=True),
        Method("resources/subscribe", "resources", LEGACY, resources.subscribe),
        Method("resources/unsubscribe", "resources", LEGACY, resources.unsubscribe),
        Method("prompts/list", "prompts", BOTH, prompts.list_prompts),
        Method("prompts/get", "prompts", BOTH, prompts.get_prompt, asks_input=True),
        Method("completion/complete", "completions", BOTH, completion.complete),
        Method("subscriptions/listen", "", MODERN, None),
        # The io.modelcontextprotocol/tasks extension (SEP-2663), django_mcp.tasks.
        *(
            Method(name, "extensions", MODERN, extensions.task_method(name), extension=TASKS_EXTENSION)
            for name in ("tasks/get", "tasks/update", "tasks/cancel")
        ),
        # The io.modelcontextprotocol/skills extension (SEP-2640), skills.py.
        Method("skills/list", "extensions", MODERN, skills.list_skills, extension=SKILLS_EXTENSION),
        Method("skills/get", "extensions", MODERN, skills.get_skill, extension=SKILLS_EXTENSION),
        Method(
            "resources/directory/read",
            "extensions",
            MODERN,
            skills.read_directory,
            extension=SKILLS_EXTENSION,
        ),
    )
}
"""Every method this package serves: feature, eras, handler, input rounds."""


class Dispatcher:
    """Serve one compiled server: route, run, finish and encode."""

    def __init__(
        self,
        compiled: CompiledServer,
        *,
        settings: McpSettings | Callable[[], McpSettings] = get_settings,
        in_flight: InFlight = IN_FLIGHT,
        streams: OpenStreams = OPEN_STREAMS,
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
        #: The open ``subscriptions/listen`` and 2025-11-25 GET streams.
        self.streams = streams
        # {"io.modelcontextprotocol/serverInfo": ...} is the same bytes in
        # every 2026-07-28 result: measure it once.
        self._info_size = encoded_size({META_SERVER_INFO: compiled.info})
        self._tool_replies = ToolReplies(compiled, self.settings)
        #: 2025-11-25 server-to-client requests waiting for their answers.
        self.pending = PendingRequests()
        #: 2025-11-25 requests in flight, for ``notifications/cancelled``.
        self.legacy_calls = LegacyCalls()
        #: Hands answers and cancellations to the worker they concern.
        self.relay = Relay(compiled.key, self.pending, self.legacy_calls)
        #: The open GET streams of 2025-11-25 sessions (one per session).
        self.session_streams = SessionStreams()
        # (envelope, method era) -> its row, once routed under these settings.
        self._routes: dict[tuple[str, Era], Method] = {}
        #: The request chain ``respond`` calls: built by the first request.
        self._chain: Respond = self._load_and_serve
        OBSERVATION.watch(self)
        # The next request decides again what observes requests (a
        # provider configured since the last one is seen).
        reconsider()

    def __repr__(self) -> str:
        return f"Dispatcher({self.compiled.key})"

    def _reload_settings(self, **kwargs: Any) -> None:
        # Connected after conf's own receiver, which has cleared its cache.
        assert self._provider is not None
        self.settings = self._provider()
        self._tool_replies = ToolReplies(self.compiled, self.settings)
        self._routes = {}  # an extension may have been turned off

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
        if row.extension and extensions.disabled(self.compiled, self.settings, row.extension):
            raise MethodNotFound(f"Method not found: {method} ({row.extension} is turned off)")
        if row.handler is None and not (
            self.compiled.listens or extensions.offered(self.compiled, TASKS_EXTENSION)
        ):
            raise MethodNotFound(f"Method not found: {method}")
        return row

    def asks_input(self, method: str) -> bool:
        """Return True when ``method`` may need input from the client."""
        row = METHODS.get(method)
        return row is not None and row.asks_input

    # ------------------------------------------------------------ serving

    def respond(
        self, envelope: Envelope, ctx: CallContext, emit: Emit | None = None
    ) -> Coroutine[Any, Any, Reply]:
        """Serve one request through the request chain; the coroutine never raises McpError."""
        return self._chain(envelope, ctx, emit)

    def load_chain(self) -> Respond:
        """Build and return the request chain: ``_serve``, observed while anything observes.

        ``call_tool`` is rewritten outermost: it is served and observed as
        the ``tools/call`` it wraps.
        """
        state = OBSERVATION
        if state.stale:
            refresh()
        epoch = state.epoch
        chain: Respond = self._serve
        if state.active:
            chain = observing(self, chain)
        if self.compiled.tool_search is not None:
            chain = _unwrapping_call_tool(self.compiled, chain)
        with state.lock:
            if state.epoch == epoch:  # else what observes changed meanwhile: build again next time
                self._chain = chain
        return chain

    def unload_chain(self) -> None:
        """Build the request chain again on the next request (what observes requests changed)."""
        self._chain = self._load_and_serve

    async def _load_and_serve(self, envelope: Envelope, ctx: CallContext, emit: Emit | None) -> Reply:
        return await self.load_chain()(envelope, ctx, emit)

    async def _serve(self, envelope: Envelope, ctx: CallContext, emit: Emit | None) -> Reply:
        """The core of the chain: admit, route, run, finish and encode one request."""
        settings = self.settings
        if not await self.in_flight.acquire(settings.limits.max_concurrent_requests, settings.queue_timeout):
            return error_reply(envelope.id, ServerBusy())
        try:
            key = (envelope.method, ctx.era)
            row = self._routes.get(key) or self._routes.setdefault(key, self.route(*key))
            if row.handler is None:
                raise MethodNotFound(f"Method not found: {envelope.method} is a stream")
            call = Call(self.compiled, settings, envelope, envelope.params, ctx, emit)
            if row.extension:
                extensions.check_client(call, row.extension)
            result = await row.handler(call)
            if isinstance(result, InputRequiredResult) and ctx.era == "legacy":
                result = await ask_legacy_client(call, result, row.handler, self._retry)
            meta = getattr(result, "meta", UNSET)
            # Without handler metadata, only the server info could be too big.
            if meta or self._info_size > settings.limits.max_metadata_size:
                self._check_meta_size(meta, settings, ctx.era)
            if type(result) is CallToolResult and ctx.era == "modern":
                # The usual tools/call answer: its constant bytes are encoded already.
                reply = self._tool_replies.reply(envelope.id, envelope.method, result)
                if reply is not None:
                    return reply
            return self.encode_result(envelope, finish(call, result))
        except McpError as error:
            return error_reply(envelope.id, legacy_error(error) if ctx.era == "legacy" else error)
        except Exception:  # the last line of defence: never a traceback to a client
            logger.exception("Unexpected error while serving %s", envelope.method)
            return error_reply(envelope.id, InternalError())
        finally:
            self.in_flight.leave()

    def _retry(self, call: Call, params: dict[str, Any]) -> Call:
        envelope = dataclasses.replace(call.envelope, params=params)
        return dataclasses.replace(call, envelope=envelope, params=params, built=None)

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
        # One C call, as encode_response() would make it.
        body = codec.encode_message(Response(jsonrpc="2.0", id=envelope.id, result=result))
        if len(body) > limits.max_response_size:
            refusal = codec.oversized(
                len(body), limits.max_response_size, what="Response", label=f"Response to {envelope.method}"
            )
            if refusal is not None:
                return error_reply(envelope.id, refusal)
        return Reply(body, result=result)

    def encode_raw_result(self, request_id: Any, result: Any) -> bytes:
        """Encode a result object verbatim (the legacy handshake, a listen's end)."""
        return encode_response(request_id, result)

    # ------------------------------------------------------------ streams

    def listen(self, envelope: Envelope, ctx: CallContext) -> AsyncIterator[bytes]:
        """Return the encoded messages of a ``subscriptions/listen`` stream.

        Raises ``MethodNotFound``/``InvalidParams`` before the stream starts,
        and ``TooManyStreams`` when ``MCP_MAX_STREAMS`` streams are open; its
        first item raises ``NotificationsUnavailable`` while the event
        backend cannot deliver. Its last item, when the server ends it, is
        the request's result.
        """
        self.route(envelope.method, ctx.era)
        request = McpRequest.of(self.compiled, envelope, ctx)
        honoured = subscriptions.honoured_filter(self.compiled, envelope.params.get("notifications"), request)

        async def readable(uri: str) -> bool:
            try:
                await resources.find_resource(self.compiled, uri, request)
            except ResourceNotFound:
                return False
            return True

        stream = subscriptions.listen(self.compiled, envelope.id, honoured, readable, request)
        return self.streams.open(stream, self.settings.max_streams)

    def session_notifications(
        self, current: Callable[[], Awaitable[Any]], *, user: Any = None, http: HttpSource | None = None
    ) -> AsyncIterator[bytes]:
        """Return a 2025-11-25 session's stream of change notifications.

        Resource updates reach it only for URIs ``user`` (the stream's
        caller; None is anonymous) may read. Raises ``TooManyStreams`` when
        ``MCP_MAX_STREAMS`` streams are open.
        """
        contexts: list[CallContext] = []

        async def readable(uri: str) -> bool:
            if not contexts:
                session = await current()
                if session is None:
                    return False
                contexts.append(legacy_context(_READ, session, http=http, user=user))
            request = McpRequest.of(
                self.compiled, dataclasses.replace(_READ, params={"uri": uri}), contexts[0]
            )
            request.uri = uri
            try:
                await resources.find_resource(self.compiled, uri, request)
            except ResourceNotFound:
                return False
            return True

        stream = subscriptions.session_notifications(self.compiled, current, readable)
        return self.streams.open(stream, self.settings.max_streams)

    def initialize(self, params: Mapping[str, Any], *, max_size: int | None = None) -> lifecycle.Handshake:
        """Negotiate a 2025-11-25 session (``initialize``); raise ``InvalidParams``.

        ``max_size`` bounds what the session stores (``MCP_MAX_SESSION_SIZE``).
        """
        return lifecycle.initialize(self.compiled, params, max_size=max_size)


def _unwrapping_call_tool(compiled: CompiledServer, serve: Respond) -> Respond:
    """Return the chain link serving a ``call_tool`` request as the ``tools/call`` it wraps."""

    def unwrapped(envelope: Envelope, ctx: CallContext, emit: Emit | None) -> Coroutine[Any, Any, Reply]:
        return serve(tools.unwrap_call_tool(compiled, envelope, ctx), ctx, emit)

    return unwrapped


# The message a session stream checks readability with (its uri varies).
_READ: Final = Envelope(kind="request", method="resources/read")
