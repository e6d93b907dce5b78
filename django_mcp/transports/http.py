"""Streamable HTTP transport: one async Django view per MCP server.

Both protocol eras are served on one endpoint:

* 2026-07-28 (stateless): every POST names its version in ``params._meta``
  and the ``MCP-Protocol-Version`` header; ``Mcp-Method``, ``Mcp-Name`` and
  ``Mcp-Param-*`` must agree with the body; GET and DELETE are 405 for it.
* 2025-11-25 (sessions): ``initialize`` mints an ``Mcp-Session-Id`` kept in
  Django's cache; GET opens the session's notification stream, DELETE ends
  it; server-to-client requests travel on the POST's SSE stream.

A POST is answered with ``application/json`` unless the handler emits a
notification (progress, log) or a server-to-client request before its
result, in which case the answer becomes ``text/event-stream`` ending with
the response; ``subscriptions/listen`` is always a stream. Closing a
2026-07-28 response stream cancels the request. Under WSGI the view still
serves plain JSON request/response (notifications are dropped).

Security: a present ``Origin`` must be a loopback origin or listed in
``MCP_ALLOWED_ORIGINS`` (403 otherwise); ``Host`` must pass Django's
``ALLOWED_HOSTS``. The view is CSRF-exempt because MCP clients are not
browsers with cookies; authentication is per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any, ClassVar

from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils.decorators import classonlymethod
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from django_mcp import subscriptions
from django_mcp.auth import authenticate_request
from django_mcp.conf import get_limits, get_setting
from django_mcp.dispatcher import Dispatcher, ServerBusy
from django_mcp.envelope import (
    CLIENT_REQUEST_TIMEOUT,
    META_VERSION,
    CallContext,
    Envelope,
    Reply,
    check_version,
    encode_error,
    encode_notification,
    encode_request,
    error_reply,
    legacy_context,
    parse_message,
    read_meta,
)
from django_mcp.events import get_backend, server_key
from django_mcp.exceptions import (
    HeaderMismatch,
    InternalError,
    InvalidParams,
    InvalidRequest,
    McpError,
    MethodNotFound,
)
from django_mcp.protocol._base import UNSET
from django_mcp.protocol.versions import LEGACY_VERSIONS, is_legacy
from django_mcp.server.server import Server
from django_mcp.transports import _sse
from django_mcp.transports._headers import McpHeaders, header_params, validate_headers
from django_mcp.transports._origin import origin_allowed
from django_mcp.transports._sessions import ClientRequestFailed, LegacySession, pending

__all__ = ["McpView", "get_dispatcher"]

logger = logging.getLogger(__name__)

JSON = "application/json"
SSE = "text/event-stream"
SESSION_HEADER = "Mcp-Session-Id"

_dispatchers: dict[type[Server], Dispatcher] = {}


def get_dispatcher(server: type[Server]) -> Dispatcher:
    """Return the process-wide dispatcher of ``server`` (compiled once)."""
    dispatcher = _dispatchers.get(server)
    if dispatcher is None:
        dispatcher = _dispatchers[server] = Dispatcher(server.compiled())
    return dispatcher


class _Final:
    """Marks the end of a request's outgoing messages."""


_FINAL = _Final()


class McpView(View):
    """Serve one ``Server`` over Streamable HTTP (async; WSGI gives JSON only)."""

    server: ClassVar[type[Server] | None] = None
    http_method_names = ["post", "get", "delete"]

    @classonlymethod
    def as_view(cls, **initkwargs: Any) -> Any:  # noqa: N805 - a classonlymethod
        """Return the CSRF-exempt async view function."""
        return csrf_exempt(super().as_view(**initkwargs))

    # ---------------------------------------------------------------- POST

    async def post(self, request: HttpRequest) -> HttpResponseBase:
        """Answer one JSON-RPC message."""
        dispatcher = self._dispatcher()
        refused = self._refuse(request)
        if refused is not None:
            return refused
        user, denied = await authenticate_request(request, dispatcher.compiled.server)
        if isinstance(denied, HttpResponseBase):
            return denied
        content_type = request.content_type or ""
        if content_type.lower() != JSON:
            return _json_error(None, InvalidRequest(f"Content-Type must be {JSON}"), 415)
        if not _accepts_json_or_sse(request.headers.get("Accept", "*/*")):
            return _json_error(None, InvalidRequest(f"Accept must allow {JSON} or {SSE}"), 406)
        body = self._read_body(request)
        if isinstance(body, HttpResponse):
            return body
        try:
            envelope = parse_message(body)
        except McpError as error:
            # The message cannot be served at all (and so lacks the _meta a
            # modern request needs): always a 400, whatever the code.
            return _json_error(getattr(error, "request_id", None), error, 400)
        headers = McpHeaders.from_request(request)
        try:
            session_id = headers.get(SESSION_HEADER)
            version_header = headers.get("MCP-Protocol-Version")
        except HeaderMismatch as error:
            return _json_error(envelope.id, error, 400)
        meta = envelope.params.get("_meta")
        modern_meta = isinstance(meta, dict) and META_VERSION in meta
        if session_id is not None:
            return await self._legacy(request, dispatcher, envelope, session_id, version_header, user)
        if envelope.method == "initialize" and not modern_meta:
            return await self._initialize(request, dispatcher, envelope)
        if (version_header is not None or isinstance(meta, dict)) and not (
            not modern_meta and version_header is not None and is_legacy(version_header)
        ):
            return await self._modern(request, dispatcher, envelope, headers, version_header, user)
        unrouted = InvalidRequest(
            f"Bad request: missing {SESSION_HEADER} (call initialize first) or 2026-07-28 _meta"
        )
        return _json_error(envelope.id, unrouted, 400)

    def _read_body(self, request: HttpRequest) -> bytes | HttpResponse:
        limit = get_limits().max_request_size
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
            if isinstance(envelope.params.get("_meta"), dict) and version_header is None:
                raise HeaderMismatch("Header mismatch: MCP-Protocol-Version header is required")
            meta = read_meta(envelope)
            if version_header is not None and version_header != meta.protocol_version:
                raise HeaderMismatch(
                    f"Header mismatch: MCP-Protocol-Version header value {version_header!r} does not "
                    f"match body value {meta.protocol_version!r}"
                )
            check_version(meta.protocol_version)
            validate_headers(
                headers,
                method=envelope.method,
                params=envelope.params,
                param_headers=self._param_headers(dispatcher, envelope),
            )
            dispatcher.check_method(envelope.method, "modern")
        except McpError as error:
            return _json_error(envelope.id, error, error.http_status)
        ctx = meta.context(http_request=request, user=user)
        if envelope.method == "subscriptions/listen":
            return await self._listen(request, dispatcher, envelope, ctx)
        return await self._run(request, dispatcher, envelope, ctx)

    def _param_headers(
        self, dispatcher: Dispatcher, envelope: Envelope
    ) -> Mapping[str, tuple[str, str]] | None:
        if envelope.method != "tools/call":
            return None
        entry = dispatcher.compiled.tools.get(envelope.params.get("name"))  # type: ignore[arg-type]
        if entry is None:
            return None
        return header_params(entry.definition.input_schema)

    async def _listen(
        self, request: HttpRequest, dispatcher: Dispatcher, envelope: Envelope, ctx: CallContext
    ) -> HttpResponseBase:
        if not isinstance(request, ASGIRequest):
            return _json_error(envelope.id, MethodNotFound("subscriptions/listen needs an ASGI server"), 404)
        try:
            subscriptions.honoured_filter(dispatcher, envelope.params.get("notifications"))
        except McpError as error:
            return _json_error(envelope.id, error, 400)
        stream = _with_keepalive(subscriptions.listen(dispatcher, envelope, ctx))
        return _sse_response(stream)

    # ------------------------------------------------------------- legacy

    async def _initialize(
        self, request: HttpRequest, dispatcher: Dispatcher, envelope: Envelope
    ) -> HttpResponseBase:
        if envelope.kind != "request":
            return _json_error(envelope.id, InvalidRequest("initialize must be a request"), 400)
        params = envelope.params
        capabilities = params.get("capabilities")
        if not isinstance(capabilities, dict):
            return _json_error(envelope.id, InvalidParams("initialize needs a capabilities object"), 200)
        version, result = dispatcher.initialize_result(params)
        client_info = params.get("clientInfo")
        session = await LegacySession.create(
            server=server_key(dispatcher.compiled.server),
            version=version,
            capabilities=capabilities,
            client_info=client_info if isinstance(client_info, dict) else None,
        )
        response = HttpResponse(dispatcher.encode_raw_result(envelope.id, result), content_type=JSON)
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
        session = await LegacySession.load(session_id, server=server_key(dispatcher.compiled.server))
        if session is None:
            return _json_error(envelope.id, InvalidRequest("Session not found: initialize again"), 404)
        if version_header is not None and version_header not in LEGACY_VERSIONS:
            return _json_error(
                envelope.id, InvalidRequest(f"Unsupported MCP-Protocol-Version {version_header!r}"), 400
            )
        if envelope.kind == "response":
            pending.resolve(session.id, envelope.id, result=envelope.result, error=envelope.error)
            return HttpResponse(status=202)
        if envelope.kind == "notification":
            if envelope.method == "notifications/cancelled":
                _cancel_legacy(session.id, envelope.params.get("requestId"))
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
        queue: asyncio.Queue[bytes | _Final] = asyncio.Queue()
        can_stream = isinstance(request, ASGIRequest) and SSE in request.headers.get("Accept", "")

        loop = asyncio.get_running_loop()

        def emit(method: str, params: dict[str, Any]) -> None:
            if not can_stream:
                return
            message = encode_notification(method, params)
            if _running_loop() is loop:
                queue.put_nowait(message)
            else:
                # A sync handler logs from sync_to_async's worker thread:
                # asyncio queues are not thread-safe.
                loop.call_soon_threadsafe(queue.put_nowait, message)

        if legacy_session is not None and can_stream:
            ctx.client_request = _client_requester(legacy_session, queue)
        task = asyncio.ensure_future(dispatcher.respond(envelope, ctx, emit))
        if legacy_session is not None:
            _legacy_tasks[(legacy_session.id, str(envelope.id))] = task
            task.add_done_callback(lambda _t: _legacy_tasks.pop((legacy_session.id, str(envelope.id)), None))
        task.add_done_callback(lambda _t: queue.put_nowait(_FINAL))
        try:
            first = await queue.get()
        except asyncio.CancelledError:
            task.cancel()
            raise
        if isinstance(first, _Final):
            reply = _reply_of(task)
            status = 200 if ctx.era == "legacy" and reply.error is not None else reply.status
            response = HttpResponse(reply.body, status=status, content_type=JSON)
            if isinstance(reply.error, ServerBusy):
                response["Retry-After"] = "1"
            return response
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
        return _sse_response(_with_keepalive(_session_stream(dispatcher, session)))

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
        refused = self._refuse(request)
        if refused is not None:
            return refused
        session_id = request.headers.get(SESSION_HEADER)
        if session_id is None:
            return _not_allowed()
        session = await LegacySession.load(session_id, server=server_key(dispatcher.compiled.server))
        if session is None:
            return _json_error(None, InvalidRequest("Session not found"), 404)
        return session

    # ------------------------------------------------------------ helpers

    def _dispatcher(self) -> Dispatcher:
        if self.server is None:
            raise TypeError("McpView needs a server: use MyServer.as_view()")
        return get_dispatcher(self.server)

    def _refuse(self, request: HttpRequest) -> HttpResponse | None:
        """Return a 403 for a disallowed Host or Origin (DNS rebinding)."""
        try:
            request.get_host()
        except DisallowedHost:
            return _json_error(None, InvalidRequest("Forbidden: host not allowed"), 403)
        origin = request.headers.get("Origin")
        if origin is not None and not origin_allowed(origin, get_setting("MCP_ALLOWED_ORIGINS")):
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


# ------------------------------------------------------------------ helpers

_legacy_tasks: dict[tuple[str, str], asyncio.Future[Reply]] = {}


def _cancel_legacy(session_id: str, request_id: Any) -> None:
    task = _legacy_tasks.get((session_id, str(request_id)))
    if task is not None:
        task.cancel()


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


def _client_requester(session: LegacySession, queue: asyncio.Queue[bytes | _Final]) -> Any:
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


async def _with_keepalive(source: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Yield SSE events from ``source``, with a comment when it stays idle.

    An empty item from ``source`` becomes a comment too ("the stream is live").
    """
    interval = get_setting("MCP_SSE_KEEPALIVE")
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


async def _session_stream(dispatcher: Dispatcher, session: LegacySession) -> AsyncIterator[bytes]:
    """Yield a legacy session's change notifications (no subscription ids).

    List changes only for features advertised with ``listChanged``; resource
    updates for subscribed URIs and their sub-resources (2025-11-25
    server/resources). The stream ends at the first event after the session
    is gone.
    """
    key = server_key(dispatcher.compiled.server)
    methods = {
        kind: method
        for kind, method in _LIST_CHANGED.items()
        if dispatcher.compiled.server.list_changed and getattr(dispatcher.capabilities, kind) is not UNSET
    }
    async with get_backend().listen() as events:
        # A comment once listening: headers and a first byte flush through
        # proxies, and the client knows no change can be missed from now on.
        yield b""
        async for event in events:
            if event.server != key or (event.kind != "resource_updated" and event.kind not in methods):
                continue
            current = await LegacySession.load(session.id, server=key)
            if current is None:
                return
            if event.kind != "resource_updated":
                yield encode_notification(methods[event.kind])
            elif event.uri is not None and subscriptions.watches(current.subscriptions, event.uri):
                yield encode_notification("notifications/resources/updated", {"uri": event.uri})


_LIST_CHANGED = {
    "tools": "notifications/tools/list_changed",
    "prompts": "notifications/prompts/list_changed",
    "resources": "notifications/resources/list_changed",
}
