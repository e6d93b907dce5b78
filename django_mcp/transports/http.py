"""Streamable HTTP transport: one async Django view per MCP server.

This module frames; ``django_mcp.dispatcher`` serves. Both protocol eras
share one endpoint:

* 2026-07-28 (stateless): every POST names its version in ``params._meta``
  and the ``MCP-Protocol-Version`` header; ``Mcp-Method``, ``Mcp-Name`` and
  ``Mcp-Param-*`` must agree with the body (``_headers.py``; ``Mcp-Param-*``
  only for a tool the caller may use, so a hidden tool answers like an
  unknown one); GET and DELETE are 405 for it.
* 2025-11-25 (sessions): ``initialize`` mints an ``Mcp-Session-Id`` kept in
  Django's cache, bound to its caller (another user's, or an anonymous
  caller's, request finds no such session: 404), within
  ``MCP_MAX_SESSION_SIZE`` (-32602 beyond) and ``MCP_MAX_SESSIONS_PER_CLIENT``
  per ``MCP_SESSION_TIMEOUT`` (429 beyond); GET opens the session's one
  notification stream (409 while it is open; resource updates only for URIs
  the GET's own caller may read), DELETE ends the session and its stream;
  server-to-client requests travel on the POST's SSE stream.

A POST is answered with ``application/json``. It becomes a
``text/event-stream`` only when something can be sent before the result
(a progress token or a log level was given, or a 2025-11-25 handler may ask
its client for input) and is: then the answer streams, ending with the
response. Only that case runs the request in a task of its own. Closing a
2026-07-28 response stream cancels the request; a 2025-11-25 request runs
to completion (only ``notifications/cancelled`` cancels it there, 2025-11-25
transports) and its result is dropped. ``subscriptions/listen`` is
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
import functools
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, ClassVar

from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.urls import Resolver404, resolve
from django.utils.decorators import classonlymethod
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from django_mcp.dispatcher import Dispatcher, ServerBusy, dispatchers
from django_mcp.dispatcher.closing import install_signal_handlers
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
from django_mcp.dispatcher.sessions import ClientRequestFailed, LegacySession, StreamClaim
from django_mcp.exceptions import HeaderMismatch, InternalError, InvalidRequest, McpError, MethodNotFound
from django_mcp.protocol.versions import LEGACY_VERSIONS, is_legacy
from django_mcp.ratelimit import caller_identity, count_in_window, user_identity
from django_mcp.server.server import Server
from django_mcp.transports import _sse
from django_mcp.transports._auth import authenticate
from django_mcp.transports._headers import McpHeaders, validate_headers
from django_mcp.transports._origin import origin_allowed
from django_mcp.transports._threads import release_request_thread

__all__ = ["McpView", "is_mcp_path"]

logger = logging.getLogger(__name__)

JSON = "application/json"
SSE = "text/event-stream"
SESSION_HEADER = "Mcp-Session-Id"
#: Seconds a client refused as busy should wait before retrying.
RETRY_AFTER = "1"
# Counter scope of the sessions each caller opened (ratelimit.count_in_window).
_SESSIONS_COUNTED = "django_mcp:sessions-opened"


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

    async def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:  # type: ignore[override]
        """Serve the request; an unexpected failure is a JSON -32603, never HTML.

        Django would answer it with its 500 page (a traceback under
        ``DEBUG``); an MCP client gets a JSON-RPC error without details.
        """
        try:
            # Every handler of this view is async: View.dispatch returns an awaitable.
            answer: Awaitable[HttpResponseBase] = super().dispatch(request, *args, **kwargs)  # type: ignore[assignment]
            return await answer
        except Exception:
            logger.exception("Unexpected error in the MCP view %s", type(self).__name__)
            return _json_error(None, InternalError(), 500)

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
            envelope = parse_message(body, max_depth=settings.limits.max_json_depth)
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
            return await self._initialize(request, dispatcher, envelope, user)
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
            return _empty(202)
        try:
            ctx = modern_context(
                envelope, http_request=request, user=user, version_header=version_header, header_required=True
            )
            param_headers = None
            if envelope.method == "tools/call" and dispatcher.mirrors_arguments:
                # Mirrored arguments are checked only for a tool this caller
                # may use: a hidden tool answers like an unknown one (and an
                # unknown name costs the same lookup), from the dispatcher.
                tool = await dispatcher.visible_tool(envelope, ctx)
                param_headers = dispatcher.compiled.tool_headers.get(tool.name) if tool else None
            validate_headers(
                headers,
                method=envelope.method,
                params=envelope.params,
                param_headers=param_headers,
            )
        except McpError as error:
            return _json_error(envelope.id, error, error.http_status)
        if envelope.method == "subscriptions/listen":
            return await self._listen(request, dispatcher, envelope, ctx)
        # An unknown method is answered by the dispatcher (-32601, HTTP 404).
        return await self._run(request, dispatcher, envelope, ctx)

    async def _listen(
        self, request: HttpRequest, dispatcher: Dispatcher, envelope: Envelope, ctx: CallContext
    ) -> HttpResponseBase:
        if not isinstance(request, ASGIRequest):
            return _json_error(envelope.id, MethodNotFound("subscriptions/listen needs an ASGI server"), 404)
        try:
            stream = await _started(dispatcher.listen(envelope, ctx))
        except MethodNotFound as error:
            return _json_error(envelope.id, error, error.http_status)
        except ServerBusy as error:  # MCP_MAX_STREAMS, or no working event backend
            return _busy(envelope.id, error)
        except McpError as error:
            return _json_error(envelope.id, error, 400)
        return _sse_response(_with_keepalive(stream, dispatcher.settings.sse_keepalive))

    # ------------------------------------------------------------- legacy

    async def _initialize(
        self, request: HttpRequest, dispatcher: Dispatcher, envelope: Envelope, user: Any
    ) -> HttpResponseBase:
        if envelope.kind != "request":
            return _json_error(envelope.id, InvalidRequest("initialize must be a request"), 400)
        settings = dispatcher.settings
        try:
            handshake = dispatcher.initialize(envelope.params, max_size=settings.max_session_size)
        except McpError as error:
            return _json_error(envelope.id, error, 200)
        # Every session takes cache space until it idles out: bound how many
        # one caller (user, else client address) opens per idle lifetime.
        identity = caller_identity(user, request)
        window = max(1, math.ceil(settings.session_timeout))
        opened = await count_in_window(_SESSIONS_COUNTED, identity, window)
        if opened.count > settings.max_sessions_per_client:
            logger.warning(
                "%s opened more than MCP_MAX_SESSIONS_PER_CLIENT (%d) sessions",
                identity,
                settings.max_sessions_per_client,
            )
            refused = _json_error(
                envelope.id, InvalidRequest("Too many sessions: retry after Retry-After seconds"), 429
            )
            refused["Retry-After"] = str(opened.resets_in)
            return refused
        session = await LegacySession.create(
            server=dispatcher.compiled.key,
            version=handshake.version,
            capabilities=handshake.capabilities,
            client_info=handshake.client_info,
            owner=user_identity(user),
            cache_alias=settings.session_cache,
            timeout=settings.session_timeout,
            max_size=settings.max_session_size,
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
        session = await _load_session(dispatcher, session_id, user_identity(user))
        if session is None:
            # Another caller's session is answered exactly like an unknown one.
            return _json_error(envelope.id, InvalidRequest("Session not found: initialize again"), 404)
        if version_header is not None and version_header not in LEGACY_VERSIONS:
            return _json_error(
                envelope.id, InvalidRequest(f"Unsupported MCP-Protocol-Version {version_header!r}"), 400
            )
        if envelope.kind != "request":
            # The request concerned may be served by another worker (relay.py).
            try:
                if envelope.kind == "response":
                    await dispatcher.relay.answer(
                        session.id, envelope.id, result=envelope.result, error=envelope.error
                    )
                elif envelope.method == "notifications/cancelled":
                    await dispatcher.relay.cancel(session.id, envelope.params.get("requestId"))
            except ServerBusy as error:  # AnswerNotDelivered
                return _busy(None, error)
            return _empty(202)
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
        if legacy_session is not None:
            # Its answers and cancellation may reach another worker first.
            await dispatcher.relay.ready()
        task = asyncio.ensure_future(dispatcher.respond(envelope, ctx, emit))
        if legacy_session is not None:
            dispatcher.legacy_calls.add(legacy_session.id, envelope.id, task)
        task.add_done_callback(lambda _t: queue.put_nowait(_FINAL))
        cancel_on_close = legacy_session is None
        try:
            first = await queue.get()
        except asyncio.CancelledError:
            _client_left(task, cancel=cancel_on_close)
            raise
        if isinstance(first, _Final):
            return _json_reply(_reply_of(task), ctx)
        return _sse_response(_stream(first, queue, task, cancel_on_close=cancel_on_close))

    # ------------------------------------------------------ GET and DELETE

    async def get(self, request: HttpRequest) -> HttpResponseBase:
        """Open a legacy session's notification stream (405 without a session).

        One stream per session (2025-11-25 transports: a message goes to one
        stream): a second GET while one is open is 409. The stream ends when
        the session does: at once for a DELETE served by this process, else
        at the next keep-alive interval, which re-checks the session.
        """
        dispatcher = self._dispatcher()
        found = await self._session(request, dispatcher)
        if isinstance(found, HttpResponse):
            return found
        session, user = found
        if not isinstance(request, ASGIRequest):
            # A WSGI worker cannot hold a stream open; legacy clients accept
            # 405 as "no standalone stream" (2025-11-25 transports), and GET
            # is then not among the allowed methods.
            return _not_allowed("POST, DELETE")
        if SSE not in request.headers.get("Accept", ""):
            return _json_error(None, InvalidRequest(f"Accept must allow {SSE}"), 406)
        settings = dispatcher.settings
        keepalive = settings.sse_keepalive
        # The cross-process mark survives one missed renewal.
        claim = await dispatcher.session_streams.claim(
            session.id, cache_alias=settings.session_cache, lifetime=math.ceil(2 * keepalive) + 1
        )
        if claim is None:
            return _json_error(
                None, InvalidRequest("Conflict: the session's GET stream is already open"), 409
            )

        async def current() -> LegacySession | None:
            return await _load_session(dispatcher, session.id, session.owner)

        async def alive() -> bool:
            if await current() is None:
                return False
            await claim.renew()
            return True

        # Resource updates reach the stream only for URIs its own caller
        # may read, whoever subscribed them.
        try:
            notifications = dispatcher.session_notifications(current, user=user, http_request=request)
            stream = await _started(notifications)
        except ServerBusy as error:  # MCP_MAX_STREAMS, or no working event backend
            await claim.arelease()
            return _busy(None, error)
        except BaseException:
            await claim.arelease()
            raise
        events = _with_keepalive(stream, keepalive, alive=alive, ended=claim.ended)
        return _sse_response(events, claim=claim)

    async def delete(self, request: HttpRequest) -> HttpResponseBase:
        """End a legacy session (405 without a session)."""
        dispatcher = self._dispatcher()
        found = await self._session(request, dispatcher)
        if isinstance(found, HttpResponse):
            return found
        session, _user = found
        await session.delete()
        # This process's GET stream of the session ends now; another
        # process's at its next keep-alive.
        dispatcher.session_streams.end(session.id)
        return _empty(204)

    async def _session(
        self, request: HttpRequest, dispatcher: Dispatcher
    ) -> tuple[LegacySession, Any] | HttpResponse:
        """Return the request's legacy session and user, or the response refusing it.

        Host/Origin are checked first (403); no session header is 405, a
        refused authentication 401, and an unknown or ended session, or one
        another caller opened, 404.
        """
        refused = self._refuse(request, dispatcher)
        if refused is not None:
            return refused
        session_id = request.headers.get(SESSION_HEADER)
        if session_id is None:
            return _not_allowed()
        user, denied = await authenticate(
            request, dispatcher.compiled.server, backends=dispatcher.settings.authentication_backends
        )
        if denied is not None:
            return denied
        session = await _load_session(dispatcher, session_id, user_identity(user))
        if session is None:
            return _json_error(None, InvalidRequest("Session not found"), 404)
        return session, user

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


def is_mcp_path(path_info: str, urlconf: str | None = None) -> bool:
    """Return True when ``path_info`` resolves to an ``McpView`` endpoint."""
    try:
        match = resolve(path_info, urlconf)
    except Resolver404:
        return False
    view_class = getattr(match.func, "view_class", None)
    return isinstance(view_class, type) and issubclass(view_class, McpView)


def _view_for(server: type[Server], **options: Any) -> Any:
    return McpView.as_view(server=server, slot=_DispatcherSlot(), **options)


# Server.as_view() builds its view here: declarations never import a transport.
Server._view_factory = staticmethod(_view_for)


# ------------------------------------------------------------------ helpers


async def _load_session(dispatcher: Dispatcher, session_id: str, owner: str | None) -> LegacySession | None:
    settings = dispatcher.settings
    return await LegacySession.load(
        session_id,
        server=dispatcher.compiled.key,
        owner=owner,
        cache_alias=settings.session_cache,
        timeout=settings.session_timeout,
        max_size=settings.max_session_size,
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
        response["Retry-After"] = RETRY_AFTER
    return response


def _busy(request_id: Any, error: ServerBusy) -> HttpResponse:
    """Return the 503 refusing a request or a stream, with ``Retry-After``."""
    response = _json_error(request_id, error, error.http_status)
    retry_after = getattr(error, "retry_after", None)  # NotificationsUnavailable's
    response["Retry-After"] = RETRY_AFTER if retry_after is None else str(math.ceil(retry_after))
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


def _not_allowed(allow: str = "POST, GET, DELETE") -> HttpResponse:
    response = _empty(405)
    response["Allow"] = allow
    return response


def _empty(status: int) -> HttpResponse:
    """Return a reply without a body, and so without a Content-Type."""
    response = HttpResponse(status=status)
    del response["Content-Type"]  # Django's default is text/html
    return response


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


@functools.lru_cache(maxsize=64)  # clients send the same few Accept values
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


class _ClaimedSseResponse(StreamingHttpResponse):
    """A session's GET stream: frees the session's stream slot when closed.

    Django closes every response it served, also when the client left
    before the first event (when the stream's own ``finally`` never runs).
    """

    def __init__(self, stream: AsyncIterator[bytes], *, claim: StreamClaim, content_type: str) -> None:
        super().__init__(stream, content_type=content_type)
        self._claim = claim

    def close(self) -> None:
        """Free the stream slot, then close as usual."""
        try:
            self._claim.release()
        finally:
            super().close()


async def _released_after(source: AsyncIterator[bytes], claim: StreamClaim) -> AsyncIterator[bytes]:
    """Yield ``source``, then free the session's stream slot."""
    try:
        async for item in source:
            yield item
    finally:
        await claim.arelease()


def _sse_response(stream: AsyncIterator[bytes], *, claim: StreamClaim | None = None) -> StreamingHttpResponse:
    if claim is None:
        response = StreamingHttpResponse(stream, content_type=SSE)
    else:
        response = _ClaimedSseResponse(_released_after(stream, claim), claim=claim, content_type=SSE)
    for name, value in _sse.SSE_HEADERS.items():
        response[name] = value
    return response


async def _stream(
    first: bytes, queue: asyncio.Queue[bytes | _Final], task: asyncio.Future[Reply], *, cancel_on_close: bool
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
        _client_left(task, cancel=cancel_on_close)


def _client_left(task: asyncio.Future[Reply], *, cancel: bool) -> None:
    """Handle a client gone before the request's result (nothing if it is done)."""
    if task.done():
        return
    if cancel:
        # 2026-07-28: closing the response stream cancels the request.
        task.cancel()
    else:
        # 2025-11-25 transports: a disconnection is not a cancellation (only
        # notifications/cancelled is); the handler runs to completion.
        task.add_done_callback(_result_discarded)


def _result_discarded(task: asyncio.Future[Reply]) -> None:
    if not task.cancelled():
        logger.debug("A 2025-11-25 request finished after its client left; its result is discarded")


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


async def _started(stream: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Return ``stream`` once its first item is ready, so a refusal keeps its own status.

    A stream's first step starts listening to change events, which fails
    while the event backend cannot deliver (``NotificationsUnavailable``):
    the client must get that as a 503, not as a 200 stream that ends at
    once. It also makes sure a server shutdown ends the stream
    (``install_signal_handlers``).
    """
    install_signal_handlers()
    try:
        first = await anext(stream)
    except StopAsyncIteration:
        first = None
    return _resumed(first, stream)


async def _resumed(first: bytes | None, rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Yield ``first`` (unless None), then the rest of the stream it came from."""
    try:
        if first is not None:
            yield first
            async for item in rest:
                yield item
    finally:
        aclose = getattr(rest, "aclose", None)
        if aclose is not None:
            await aclose()


async def _with_keepalive(
    source: AsyncIterator[bytes],
    interval: float,
    *,
    alive: Callable[[], Awaitable[bool]] | None = None,
    ended: asyncio.Event | None = None,
) -> AsyncIterator[bytes]:
    """Yield SSE events from ``source``, with a comment when it stays idle.

    An empty item from ``source`` becomes a comment too ("the stream is live").
    ``alive()`` is awaited at least every ``interval`` seconds and ends the
    stream when it returns False; setting ``ended`` ends it at once. A
    long-lived stream holds no thread: the request's is released first.
    """
    release_request_thread()
    iterator = source.__aiter__()
    step: asyncio.Future[bytes] | None = None
    stop = asyncio.ensure_future(ended.wait()) if ended is not None else None
    loop = asyncio.get_running_loop()
    checked = loop.time()
    try:
        while True:
            if step is None:
                step = asyncio.ensure_future(iterator.__anext__())
            waiting: set[asyncio.Future[Any]] = {step} if stop is None else {step, stop}
            done, _ = await asyncio.wait(waiting, timeout=interval, return_when=asyncio.FIRST_COMPLETED)
            if stop is not None and stop.done():
                return
            if alive is not None and (step not in done or loop.time() - checked >= interval):
                checked = loop.time()
                if not await alive():
                    return
            if step not in done:
                yield _sse.KEEPALIVE
                continue
            try:
                item = step.result()
            except StopAsyncIteration:
                return
            step = None
            yield _sse.event(item) if item else _sse.KEEPALIVE
    finally:
        for pending in (step, stop):
            if pending is not None and not pending.done():
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending
