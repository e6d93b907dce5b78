"""Streamable HTTP transport: one async Django view per MCP server.

This module frames; ``django_mcp.dispatcher`` serves. Both protocol eras
share one endpoint:

* 2026-07-28 (stateless): every POST names its version in ``params._meta``
  and the ``MCP-Protocol-Version`` header; ``Mcp-Method``, ``Mcp-Name`` and
  ``Mcp-Param-*`` must agree with the body (``_headers.py``); GET and DELETE
  are 405 for it.
* 2025-11-25 (sessions): ``initialize`` mints an ``Mcp-Session-Id`` kept in
  Django's cache; GET opens the session's notification stream, DELETE ends
  it; server-to-client requests travel on the POST's SSE stream.

A POST is answered with ``application/json``. It becomes a
``text/event-stream`` only when something can be sent before the result
(a progress token or a log level was given, or a 2025-11-25 handler may ask
its client for input) and is: then the answer streams, ending with the
response. Only that case runs the request in a task of its own. Closing a
2026-07-28 response stream cancels the request. ``subscriptions/listen`` is
always a stream. Under WSGI the view serves plain JSON (notifications are
dropped, streams refused).

Security: a present ``Origin`` must be a loopback origin or listed in
``MCP_ALLOWED_ORIGINS`` (403 otherwise); ``Host`` must pass Django's
``ALLOWED_HOSTS``. The view is CSRF-exempt because MCP clients are not
browsers with cookies; authentication is per request (``_auth.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, ClassVar

from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils.decorators import classonlymethod
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from django_mcp.dispatcher import Dispatcher, ServerBusy, dispatchers
from django_mcp.dispatcher.codec import (
    CLIENT_REQUEST_TIMEOUT,
    Envelope,
    Reply,
    encode_error,
    encode_notification,
    encode_request,
    error_reply,
    parse_message,
)
from django_mcp.dispatcher.context import META_VERSION, CallContext, legacy_context, modern_context
from django_mcp.dispatcher.sessions import ClientRequestFailed, LegacySession
from django_mcp.exceptions import HeaderMismatch, InternalError, InvalidRequest, McpError, MethodNotFound
from django_mcp.protocol.versions import LEGACY_VERSIONS, is_legacy
from django_mcp.server.server import Server
from django_mcp.transports import _sse
from django_mcp.transports._auth import authenticate
from django_mcp.transports._headers import McpHeaders, validate_headers
from django_mcp.transports._origin import origin_allowed

__all__ = ["McpView"]

logger = logging.getLogger(__name__)

JSON = "application/json"
SSE = "text/event-stream"
SESSION_HEADER = "Mcp-Session-Id"


class _Final:
    """Marks the end of a request's outgoing messages."""


_FINAL = _Final()


class McpView(View):
    """Serve one ``Server`` over Streamable HTTP (async; WSGI gives JSON only)."""

    server: ClassVar[type[Server] | None] = None
    #: Resolves the server's dispatcher once per view (``Server.as_view()``).
    slot: ClassVar[_DispatcherSlot | None] = None
    http_method_names = ["post", "get", "delete"]

    @classonlymethod
    def as_view(cls, **initkwargs: Any) -> Any:  # noqa: N805 - a classonlymethod
        """Return the CSRF-exempt async view function."""
        return csrf_exempt(super().as_view(**initkwargs))

    # ---------------------------------------------------------------- POST

    async def post(self, request: HttpRequest) -> HttpResponseBase:
        """Answer one JSON-RPC message."""
        dispatcher = self._dispatcher()
        settings = dispatcher.settings
        refused = self._refuse(request, dispatcher)
        if refused is not None:
            return refused
        user, denied = await authenticate(
            request, dispatcher.compiled.server, backends=settings.authentication_backends
        )
        if denied is not None:
            return denied
        if (request.content_type or "").lower() != JSON:
            return _json_error(None, InvalidRequest(f"Content-Type must be {JSON}"), 415)
        accept = request.headers.get("Accept", "*/*")
        if not _accepts_json_or_sse(accept):
            return _json_error(None, InvalidRequest(f"Accept must allow {JSON} or {SSE}"), 406)
        body = _read_body(request, settings.limits.max_request_size)
        if isinstance(body, HttpResponse):
            return body
        try:
            envelope = parse_message(body)
        except McpError as error:
            # The message cannot be served at all (and so lacks the _meta a
            # modern request needs): always a 400, whatever the code.
            return _json_error(getattr(error, "request_id", None), error, 400)
        try:
            headers = McpHeaders.from_request(request)
        except HeaderMismatch as error:
            return _json_error(envelope.id, error, 400)
        session_id, version_header = headers.session_id, headers.protocol_version
        meta = envelope.params.get("_meta")
        modern_meta = isinstance(meta, dict) and META_VERSION in meta
        if session_id is not None:
            return await self._legacy(request, dispatcher, envelope, session_id, version_header, user)
        if envelope.method == "initialize" and not modern_meta:
            return await self._initialize(dispatcher, envelope)
        if (version_header is not None or isinstance(meta, dict)) and not (
            not modern_meta and version_header is not None and is_legacy(version_header)
        ):
            return await self._modern(request, dispatcher, envelope, headers, version_header, user)
        unrouted = InvalidRequest(
            f"Bad request: missing {SESSION_HEADER} (call initialize first) or 2026-07-28 _meta"
        )
        return _json_error(envelope.id, unrouted, 400)

    # ------------------------------------------------------------- modern

    async def _modern(
        self,
        request: HttpRequest,
        dispatcher: Dispatcher,
        envelope: Envelope,
        headers: McpHeaders,
        version_header: str | None,
        user: Any,
    ) -> HttpResponseBase:
        if envelope.kind == "response":
            return _json_error(
                envelope.id, InvalidRequest("Clients do not send responses in 2026-07-28"), 400
            )
        if envelope.kind == "notification":
            # Core 2026-07-28 defines no client notification on HTTP; accept it.
            return HttpResponse(status=202)
        try:
            ctx = modern_context(
                envelope, http_request=request, user=user, version_header=version_header, header_required=True
            )
            name = envelope.params.get("name") if envelope.method == "tools/call" else None
            validate_headers(
                headers,
                method=envelope.method,
                params=envelope.params,
                param_headers=dispatcher.compiled.tool_headers.get(name) if isinstance(name, str) else None,
            )
        except McpError as error:
            return _json_error(envelope.id, error, error.http_status)
        if envelope.method == "subscriptions/listen":
            return self._listen(request, dispatcher, envelope, ctx)
        # An unknown method is answered by the dispatcher (-32601, HTTP 404).
        return await self._run(request, dispatcher, envelope, ctx)

    def _listen(
        self, request: HttpRequest, dispatcher: Dispatcher, envelope: Envelope, ctx: CallContext
    ) -> HttpResponseBase:
        if not isinstance(request, ASGIRequest):
            return _json_error(envelope.id, MethodNotFound("subscriptions/listen needs an ASGI server"), 404)
        try:
            stream = dispatcher.listen(envelope, ctx)
        except MethodNotFound as error:
            return _json_error(envelope.id, error, error.http_status)
        except McpError as error:
            return _json_error(envelope.id, error, 400)
        return _sse_response(_with_keepalive(stream, dispatcher.settings.sse_keepalive))

    # ------------------------------------------------------------- legacy

    async def _initialize(self, dispatcher: Dispatcher, envelope: Envelope) -> HttpResponseBase:
        if envelope.kind != "request":
            return _json_error(envelope.id, InvalidRequest("initialize must be a request"), 400)
        try:
            handshake = dispatcher.initialize(envelope.params)
        except McpError as error:
            return _json_error(envelope.id, error, 200)
        settings = dispatcher.settings
        session = await LegacySession.create(
            server=dispatcher.compiled.key,
            version=handshake.version,
            capabilities=handshake.capabilities,
            client_info=handshake.client_info,
            cache_alias=settings.session_cache,
            timeout=settings.session_timeout,
        )
        response = HttpResponse(
            dispatcher.encode_raw_result(envelope.id, handshake.result), content_type=JSON
        )
        response[SESSION_HEADER] = session.id
        return response

    async def _legacy(
        self,
        request: HttpRequest,
        dispatcher: Dispatcher,
        envelope: Envelope,
        session_id: str,
        version_header: str | None,
        user: Any,
    ) -> HttpResponseBase:
        session = await _load_session(dispatcher, session_id)
        if session is None:
            return _json_error(envelope.id, InvalidRequest("Session not found: initialize again"), 404)
        if version_header is not None and version_header not in LEGACY_VERSIONS:
            return _json_error(
                envelope.id, InvalidRequest(f"Unsupported MCP-Protocol-Version {version_header!r}"), 400
            )
        if envelope.kind == "response":
            dispatcher.pending.resolve(session.id, envelope.id, result=envelope.result, error=envelope.error)
            return HttpResponse(status=202)
        if envelope.kind == "notification":
            if envelope.method == "notifications/cancelled":
                dispatcher.legacy_calls.cancel(session.id, envelope.params.get("requestId"))
            return HttpResponse(status=202)
        if envelope.method == "initialize":
            return _json_error(envelope.id, InvalidRequest("Session already initialized"), 400)
        ctx = legacy_context(envelope, session, http_request=request, user=user)
        return await self._run(request, dispatcher, envelope, ctx, legacy_session=session)

    # ---------------------------------------------------------- execution

    async def _run(
        self,
        request: HttpRequest,
        dispatcher: Dispatcher,
        envelope: Envelope,
        ctx: CallContext,
        *,
        legacy_session: LegacySession | None = None,
    ) -> HttpResponseBase:
        """Run the request; answer JSON unless something is sent before the result."""
        can_stream = isinstance(request, ASGIRequest) and SSE in request.headers.get("Accept", "")
        asks_client = legacy_session is not None and dispatcher.asks_input(envelope.method)
        # Progress needs a token and log messages a level: without both
        # nothing can precede the result.
        may_notify = ctx.progress_token is not None or ctx.log_level is not None
        if legacy_session is None and not (can_stream and may_notify):
            # One plain JSON answer, served in the view's own task (a client
            # disconnect cancels it): no task, no queue.
            return _json_reply(await dispatcher.respond(envelope, ctx), ctx)
        queue: asyncio.Queue[bytes | _Final] = asyncio.Queue()
        emit = _emitter(queue) if can_stream else None
        if legacy_session is not None and can_stream and asks_client:
            ctx.client_request = _client_requester(dispatcher, legacy_session, queue)
        task = asyncio.ensure_future(dispatcher.respond(envelope, ctx, emit))
        if legacy_session is not None:
            dispatcher.legacy_calls.add(legacy_session.id, envelope.id, task)
        task.add_done_callback(lambda _t: queue.put_nowait(_FINAL))
        try:
            first = await queue.get()
        except asyncio.CancelledError:
            task.cancel()
            raise
        if isinstance(first, _Final):
            return _json_reply(_reply_of(task), ctx)
        return _sse_response(_stream(first, queue, task))

    # ------------------------------------------------------ GET and DELETE

    async def get(self, request: HttpRequest) -> HttpResponseBase:
        """Open a legacy session's notification stream (405 without a session)."""
        dispatcher = self._dispatcher()
        session = await self._session(request, dispatcher)
        if not isinstance(session, LegacySession):
            return session
        if not isinstance(request, ASGIRequest):
            # A WSGI worker cannot hold a stream open; legacy clients accept
            # 405 as "no standalone stream" (2025-11-25 transports).
            return _not_allowed()
        if SSE not in request.headers.get("Accept", ""):
            return HttpResponse(status=406)
        stream = dispatcher.session_notifications(lambda: _load_session(dispatcher, session.id))
        return _sse_response(_with_keepalive(stream, dispatcher.settings.sse_keepalive))

    async def delete(self, request: HttpRequest) -> HttpResponseBase:
        """End a legacy session (405 without a session)."""
        session = await self._session(request, self._dispatcher())
        if not isinstance(session, LegacySession):
            return session
        await session.delete()
        return HttpResponse(status=204)

    async def _session(self, request: HttpRequest, dispatcher: Dispatcher) -> LegacySession | HttpResponse:
        """Return the request's legacy session, or the response refusing it.

        Host/Origin are checked first (403); no session header is 405, an
        unknown or ended session 404.
        """
        refused = self._refuse(request, dispatcher)
        if refused is not None:
            return refused
        session_id = request.headers.get(SESSION_HEADER)
        if session_id is None:
            return _not_allowed()
        session = await _load_session(dispatcher, session_id)
        if session is None:
            return _json_error(None, InvalidRequest("Session not found"), 404)
        return session

    # ------------------------------------------------------------ helpers

    def _dispatcher(self) -> Dispatcher:
        slot = self.slot
        if slot is not None and slot.dispatcher is not None:
            return slot.dispatcher
        if self.server is None:
            raise TypeError("McpView needs a server: use MyServer.as_view()")
        dispatcher = dispatchers.get(self.server)
        if slot is not None:
            slot.dispatcher = dispatcher
        return dispatcher

    def _refuse(self, request: HttpRequest, dispatcher: Dispatcher) -> HttpResponse | None:
        """Return a 403 for a disallowed Host or Origin (DNS rebinding)."""
        try:
            request.get_host()
        except DisallowedHost:
            return _json_error(None, InvalidRequest("Forbidden: host not allowed"), 403)
        origin = request.headers.get("Origin")
        if origin is not None and not origin_allowed(origin, dispatcher.settings.allowed_origins):
            return _json_error(None, InvalidRequest("Forbidden: origin not allowed"), 403)
        return None

    def http_method_not_allowed(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        """Answer 405 with the methods this endpoint serves.

        Return an awaitable: every handler of this view is async, so
        ``View.dispatch`` awaits whatever it gets (a bare response would
        be a 500).
        """
        response = _not_allowed()

        async def answer() -> HttpResponse:
            return response

        return answer()


class _DispatcherSlot:
    """Where one view keeps its server's dispatcher once resolved."""

    __slots__ = ("dispatcher",)

    def __init__(self) -> None:
        self.dispatcher: Dispatcher | None = None


def _view_for(server: type[Server], **options: Any) -> Any:
    return McpView.as_view(server=server, slot=_DispatcherSlot(), **options)


# Server.as_view() builds its view here: declarations never import a transport.
Server._view_factory = staticmethod(_view_for)


# ------------------------------------------------------------------ helpers


async def _load_session(dispatcher: Dispatcher, session_id: str) -> LegacySession | None:
    settings = dispatcher.settings
    return await LegacySession.load(
        session_id,
        server=dispatcher.compiled.key,
        cache_alias=settings.session_cache,
        timeout=settings.session_timeout,
    )


def _read_body(request: HttpRequest, limit: int) -> bytes | HttpResponse:
    declared = request.headers.get("Content-Length")
    if declared and declared.isdigit() and int(declared) > limit:
        return _json_error(None, InvalidRequest("Request exceeds MCP_MAX_REQUEST_SIZE"), 413)
    try:
        body = request.body
    except RequestDataTooBig:
        return _json_error(None, InvalidRequest("Request exceeds DATA_UPLOAD_MAX_MEMORY_SIZE"), 413)
    if len(body) > limit:
        return _json_error(None, InvalidRequest("Request exceeds MCP_MAX_REQUEST_SIZE"), 413)
    return body


def _json_reply(reply: Reply, ctx: CallContext) -> HttpResponse:
    # A 2025-11-25 session always answers JSON-RPC errors with HTTP 200.
    status = 200 if ctx.era == "legacy" and reply.error is not None else reply.status
    response = HttpResponse(reply.body, status=status, content_type=JSON)
    if isinstance(reply.error, ServerBusy):
        response["Retry-After"] = "1"
    return response


def _emitter(queue: asyncio.Queue[bytes | _Final]) -> Callable[[str, dict[str, Any]], None]:
    loop = asyncio.get_running_loop()

    def emit(method: str, params: dict[str, Any]) -> None:
        message = encode_notification(method, params)
        if _running_loop() is loop:
            queue.put_nowait(message)
        else:
            # A sync handler logs from sync_to_async's worker thread:
            # asyncio queues are not thread-safe.
            loop.call_soon_threadsafe(queue.put_nowait, message)

    return emit


def _not_allowed() -> HttpResponse:
    response = HttpResponse(status=405)
    response["Allow"] = "POST, GET, DELETE"
    return response


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _accepts_json_or_sse(accept: str) -> bool:
    """Return True when an Accept header admits JSON or SSE answers."""
    for item in accept.split(","):
        media, *parameters = (part.strip() for part in item.split(";"))
        if media.lower() not in (JSON, SSE, "*/*", "application/*", "text/*"):
            continue
        refused = any(p.replace(" ", "").lower() in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in parameters)
        if not refused:
            return True
    return False


def _reply_of(task: asyncio.Future[Reply]) -> Reply:
    if task.cancelled():
        return error_reply(None, InternalError("Request cancelled"))
    return task.result()


def _json_error(request_id: Any, error: McpError, status: int) -> HttpResponse:
    return HttpResponse(encode_error(request_id, error), status=status, content_type=JSON)


def _sse_response(stream: AsyncIterator[bytes]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(stream, content_type=SSE)
    for name, value in _sse.SSE_HEADERS.items():
        response[name] = value
    return response


async def _stream(
    first: bytes, queue: asyncio.Queue[bytes | _Final], task: asyncio.Future[Reply]
) -> AsyncIterator[bytes]:
    """Yield queued messages as SSE events, ending with the response."""
    try:
        yield _sse.event(first)
        while True:
            item = await queue.get()
            if isinstance(item, _Final):
                yield _sse.event(_reply_of(task).body)
                return
            yield _sse.event(item)
    finally:
        # The client went away (2026-07-28: that cancels the request).
        if not task.done():
            task.cancel()


def _client_requester(
    dispatcher: Dispatcher, session: LegacySession, queue: asyncio.Queue[bytes | _Final]
) -> Callable[[str, dict[str, Any]], Awaitable[Any]]:
    pending = dispatcher.pending

    async def client_request(method: str, params: dict[str, Any]) -> Any:
        request_id = pending.new_id()
        future = pending.expect(session.id, request_id)
        queue.put_nowait(encode_request(request_id, method, params))
        try:
            return await asyncio.wait_for(future, CLIENT_REQUEST_TIMEOUT)
        except ClientRequestFailed:
            raise InternalError(f"The client refused {method}") from None
        except TimeoutError:
            raise InternalError(f"The client did not answer {method} in time") from None

    return client_request


async def _with_keepalive(source: AsyncIterator[bytes], interval: float) -> AsyncIterator[bytes]:
    """Yield SSE events from ``source``, with a comment when it stays idle.

    An empty item from ``source`` becomes a comment too ("the stream is live").
    """
    iterator = source.__aiter__()
    step: asyncio.Future[bytes] | None = None
    try:
        while True:
            if step is None:
                step = asyncio.ensure_future(iterator.__anext__())
            done, _ = await asyncio.wait({step}, timeout=interval)
            if not done:
                yield _sse.KEEPALIVE
                continue
            try:
                item = step.result()
            except StopAsyncIteration:
                return
            step = None
            yield _sse.event(item) if item else _sse.KEEPALIVE
    finally:
        if step is not None and not step.done():
            step.cancel()
            with contextlib.suppress(BaseException):
                await step
