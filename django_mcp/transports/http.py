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

This module holds the view and its 2026-07-28 path; the 2025-11-25 session
handlers are ``_legacy_http.py`` (a mixin of the view), the JSON answers
and SSE streams ``_replies.py``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable
from typing import Any, ClassVar, Final

from asgiref.sync import markcoroutinefunction
from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.core.handlers.asgi import ASGIRequest
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.urls import Resolver404, resolve
from django.utils.decorators import classonlymethod
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from django_mcp.dispatcher import Dispatcher, ServerBusy, dispatchers
from django_mcp.dispatcher.codec import Envelope, Reply, parse_message
from django_mcp.dispatcher.context import META_VERSION, CallContext, modern_context
from django_mcp.dispatcher.sessions import LegacySession
from django_mcp.exceptions import HeaderMismatch, InternalError, InvalidRequest, McpError, MethodNotFound
from django_mcp.protocol.versions import is_legacy
from django_mcp.server.server import Server
from django_mcp.transports._auth import authenticate
from django_mcp.transports._drive import drive_in_this_thread
from django_mcp.transports._headers import McpHeaders, validate_headers
from django_mcp.transports._legacy_http import SESSION_HEADER, LegacySessionMixin, client_requester
from django_mcp.transports._origin import origin_allowed
from django_mcp.transports._replies import (
    FINISHED,
    JSON,
    RETRY_AFTER,
    SSE,
    Finished,
    busy,
    client_left,
    emitter,
    empty,
    json_error,
    message_stream,
    not_allowed,
    reply_of,
    sse_response,
    started,
    with_keepalive,
)

__all__ = ["DualView", "McpView", "is_mcp_path"]

logger = logging.getLogger(__name__)


class McpView(LegacySessionMixin, View):
    """Serve one ``Server`` over Streamable HTTP (async; WSGI gives JSON only)."""

    server: ClassVar[type[Server] | None] = None
    #: Resolves the server's dispatcher once per view (``Server.as_view()``).
    slot: ClassVar[_DispatcherSlot | None] = None
    http_method_names = ["post", "get", "delete"]

    @classonlymethod
    def as_view(cls, **initkwargs: Any) -> Any:  # noqa: N805 - a classonlymethod
        """Return the CSRF-exempt view function: async in an event loop, sync outside one.

        Under Django's WSGI handler the view then runs without a new event
        loop thread per request (``DualView``).
        """
        return DualView(csrf_exempt(super().as_view(**initkwargs)))

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
            return json_error(None, InternalError(), 500)

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
            return json_error(None, InvalidRequest(f"Content-Type must be {JSON}"), 415)
        # Headers come from META: request.headers would build a whole
        # HttpHeaders mapping per request for the few values read here.
        accept = request.META.get("HTTP_ACCEPT", "*/*")
        if not _accepts_json_or_sse(accept):
            return json_error(None, InvalidRequest(f"Accept must allow {JSON} or {SSE}"), 406)
        body = _read_body(request, settings.limits.max_request_size)
        if isinstance(body, HttpResponse):
            return body
        try:
            envelope = parse_message(body, max_depth=settings.limits.max_json_depth)
        except McpError as error:
            # The message cannot be served at all (and so lacks the _meta a
            # modern request needs): always a 400, whatever the code.
            return json_error(getattr(error, "request_id", None), error, 400)
        try:
            headers = McpHeaders.from_request(request)
        except HeaderMismatch as error:
            return json_error(envelope.id, error, 400)
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
        return json_error(envelope.id, unrouted, 400)

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
            return json_error(envelope.id, InvalidRequest("Clients do not send responses in 2026-07-28"), 400)
        if envelope.kind == "notification":
            # Core 2026-07-28 defines no client notification on HTTP; accept it.
            return empty(202)
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
            return json_error(envelope.id, error, error.http_status)
        if envelope.method == "subscriptions/listen":
            return await self._listen(request, dispatcher, envelope, ctx)
        # An unknown method is answered by the dispatcher (-32601, HTTP 404).
        return await self._run(request, dispatcher, envelope, ctx)

    async def _listen(
        self, request: HttpRequest, dispatcher: Dispatcher, envelope: Envelope, ctx: CallContext
    ) -> HttpResponseBase:
        if not isinstance(request, ASGIRequest):
            return json_error(envelope.id, MethodNotFound("subscriptions/listen needs an ASGI server"), 404)
        try:
            stream = await started(dispatcher.listen(envelope, ctx))
        except MethodNotFound as error:
            return json_error(envelope.id, error, error.http_status)
        except ServerBusy as error:  # MCP_MAX_STREAMS, or no working event backend
            return busy(envelope.id, error)
        except McpError as error:
            return json_error(envelope.id, error, 400)
        return sse_response(with_keepalive(stream, dispatcher.settings.sse_keepalive))

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
        can_stream = isinstance(request, ASGIRequest) and SSE in request.META.get("HTTP_ACCEPT", "")
        asks_client = legacy_session is not None and dispatcher.asks_input(envelope.method)
        # Progress needs a token and log messages a level: without both
        # nothing can precede the result.
        may_notify = ctx.progress_token is not None or ctx.log_level is not None
        if legacy_session is None and not (can_stream and may_notify):
            # One plain JSON answer, served in the view's own task (a client
            # disconnect cancels it): no task, no queue.
            return _json_reply(await dispatcher.respond(envelope, ctx), ctx)
        queue: asyncio.Queue[bytes | Finished] = asyncio.Queue()
        emit = emitter(queue) if can_stream else None
        if legacy_session is not None and can_stream and asks_client:
            ctx.client_request = client_requester(dispatcher, legacy_session, queue)
        if legacy_session is not None:
            # Its answers and cancellation may reach another worker first.
            await dispatcher.relay.ready()
        task = asyncio.ensure_future(dispatcher.respond(envelope, ctx, emit))
        if legacy_session is not None:
            dispatcher.legacy_calls.add(legacy_session.id, envelope.id, task)
        task.add_done_callback(lambda _t: queue.put_nowait(FINISHED))
        cancel_on_close = legacy_session is None
        try:
            first = await queue.get()
        except asyncio.CancelledError:
            client_left(task, cancel=cancel_on_close)
            raise
        if isinstance(first, Finished):
            return _json_reply(reply_of(task), ctx)
        return sse_response(message_stream(first, queue, task, cancel_on_close=cancel_on_close))

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
            return json_error(None, InvalidRequest("Forbidden: host not allowed"), 403)
        origin = request.META.get("HTTP_ORIGIN")
        if origin is not None and not origin_allowed(origin, dispatcher.settings.allowed_origins):
            return json_error(None, InvalidRequest("Forbidden: origin not allowed"), 403)
        return None

    def http_method_not_allowed(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        """Answer 405 with the methods this endpoint serves.

        Return an awaitable: every handler of this view is async, so
        ``View.dispatch`` awaits whatever it gets (a bare response would
        be a 500).
        """
        response = not_allowed()

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


def _probe() -> None:  # pragma: no cover - never called
    """Marked below to learn what ``iscoroutinefunction()`` looks for."""


# What markcoroutinefunction() sets: ``_is_coroutine`` (asyncio, Python
# 3.11) or ``_is_coroutine_marker`` (inspect, 3.12+), and its value.
_COROUTINE_MARKS: Final = dict(vars(markcoroutinefunction(_probe)))


class DualView:
    """The function ``McpView.as_view()`` returns: async inside an event loop, sync outside one.

    Django decides how to call a view from the callable the URL resolver
    returns: an async one is awaited under ASGI and, under WSGI, run through
    ``async_to_sync``, which starts an event loop in a new thread for every
    request. This callable is a coroutine function only while a loop runs
    (Django's ASGI handler, ``McpASGIApp``, ``McpWSGIApp``). Outside one
    (Django's WSGI handler, the test ``Client``) it is a sync view that
    drives the view's coroutine itself (``_drive``). An ``ASGIRequest``
    always gets the coroutine, so code that awaits the view itself
    (``asyncio.run(view(request))``) keeps working.
    """

    def __init__(self, function: Any) -> None:
        functools.update_wrapper(self, function)  # view_class, csrf_exempt, __name__...
        self.view_class: type[McpView] = function.view_class
        self.view_initkwargs: dict[str, Any] = function.view_initkwargs

    @property
    def _is_coroutine(self) -> Any:
        if asyncio.events._get_running_loop() is None:
            return None
        return _COROUTINE_MARKS.get("_is_coroutine")

    @property
    def _is_coroutine_marker(self) -> Any:
        if asyncio.events._get_running_loop() is None:
            return None
        return _COROUTINE_MARKS.get("_is_coroutine_marker")

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        """Return the view's coroutine; its response for a WSGI request outside a loop."""
        # As View.as_view()'s function does, minus a frame.
        view = self.view_class(**self.view_initkwargs)
        view.setup(request, *args, **kwargs)
        coroutine = view.dispatch(request, *args, **kwargs)
        if asyncio.events._get_running_loop() is not None or not isinstance(request, WSGIRequest):
            return coroutine
        return drive_in_this_thread(coroutine)


def _view_for(server: type[Server], **options: Any) -> Any:
    return McpView.as_view(server=server, slot=_DispatcherSlot(), **options)


# Server.as_view() builds its view here: declarations never import a transport.
Server._view_factory = staticmethod(_view_for)


# ------------------------------------------------------------------ helpers


def _read_body(request: HttpRequest, limit: int) -> bytes | HttpResponse:
    declared = request.META.get("CONTENT_LENGTH")
    if declared and declared.isdigit() and int(declared) > limit:
        return json_error(None, InvalidRequest("Request exceeds MCP_MAX_REQUEST_SIZE"), 413)
    try:
        body = request.body
    except RequestDataTooBig:
        return json_error(None, InvalidRequest("Request exceeds DATA_UPLOAD_MAX_MEMORY_SIZE"), 413)
    if len(body) > limit:
        return json_error(None, InvalidRequest("Request exceeds MCP_MAX_REQUEST_SIZE"), 413)
    return body


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


def _json_reply(reply: Reply, ctx: CallContext) -> HttpResponse:
    """Return the dispatcher's ``reply`` as one JSON answer (``Retry-After`` when busy)."""
    # A 2025-11-25 session always answers JSON-RPC errors with HTTP 200.
    status = 200 if ctx.era == "legacy" and reply.error is not None else reply.status
    response = HttpResponse(reply.body, status=status, content_type=JSON)
    if isinstance(reply.error, ServerBusy):
        response["Retry-After"] = RETRY_AFTER
    return response
