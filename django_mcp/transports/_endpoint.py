"""The Streamable HTTP endpoint of one server: every HTTP rule, whatever serves it.

``Endpoint(dispatcher).serve(exchange)`` answers one ``HttpExchange`` with
one ``HttpReply``; the Django view, ``McpASGIApp``, ``McpWSGIApp`` and
``McpTestClient`` only translate to and from those plain values. This module
imports nothing from ``django.http`` and knows no ASGI scope or WSGI
environ. Both protocol eras share the endpoint (MCP 2026-07-28 and
2025-11-25 basic/transports, "Streamable HTTP").

A POST passes these gates, the ones that cost nothing first (a declared
``Content-Length`` over ``MCP_MAX_REQUEST_SIZE`` is refused before any of
them, 413):

1. ``Host`` must pass ``ALLOWED_HOSTS`` and a present ``Origin`` must be a
   loopback origin or listed in ``MCP_ALLOWED_ORIGINS`` (403: DNS
   rebinding).
2. ``Content-Type: application/json`` (415), an ``Accept`` admitting JSON
   or SSE (406).
3. The body within ``MCP_MAX_REQUEST_SIZE``: a declared length over it is
   refused before anything else (gate 0, the body never parsed), a chunked
   body as soon as it passes the limit (413, ``_body.py``).
4. One JSON-RPC message (400 for anything that cannot be served at all),
   ``Mcp-Session-Id`` and ``MCP-Protocol-Version`` at most once each (400).
5. The caller's identity (``_identity.py``: 401/403 with a challenge).
6. The era (``context.era_of``): a 2026-07-28 request needs its ``_meta``
   and the ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name``
   headers agreeing with the body (``_headers.py``: -32020, 400);
   ``Mcp-Param-*`` are checked inside ``tools/call`` for a tool the caller
   may use only, so a hidden tool answers like an unknown one. A 2025-11-25
   request belongs to a session (``_legacy_http.py``).

The 2026-07-28 header rules (``validate_headers``, ``validate_param_headers``):
``MCP-Protocol-Version`` must equal the ``_meta`` protocolVersion,
``Mcp-Method`` the body's ``method`` (values are case-sensitive),
``Mcp-Name`` its ``params.name`` (tools/call, prompts/get), ``params.uri``
(resources/read) or ``params.taskId`` (tasks/get, tasks/update, tasks/cancel
of the tasks extension), surrounding whitespace ignored; ``Mcp-Param-<Name>``
must mirror each argument whose input-schema property carries
``"x-mcp-header": "<Name>"`` and whose value is present and not null (a
header for an absent argument is a mismatch too; the map is compiled per
tool). Values are decoded first (``_headers.decode_value``); a header sent
twice is invalid. Every failure is ``HeaderMismatch`` (-32020, HTTP 400).

A 2026-07-28 POST is answered with ``application/json``. It becomes a
``text/event-stream`` only when something can be sent before the result
(a progress token or a log level was given, or a 2025-11-25 handler may ask
its client for input) and the adapter can stream: then the answer streams,
ending with the response. Only that case runs the request in a task of its
own. ``subscriptions/listen`` is always a stream (404 where the adapter
cannot hold one open: a WSGI server without threads). GET and DELETE serve
2025-11-25 sessions; without one they
are 405 with ``Allow: POST`` and a short page saying what the URL is. Any
unexpected failure is a JSON -32603 with HTTP 500, never a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from django_mcp._callers import anonymous_caller
from django_mcp.conf import get_django_settings
from django_mcp.dispatcher import Dispatcher
from django_mcp.dispatcher.codec import Envelope, parse_message
from django_mcp.dispatcher.context import CallContext, era_of, modern_context
from django_mcp.dispatcher.sessions import LegacySession
from django_mcp.exceptions import (
    HeaderMismatch,
    InternalError,
    InvalidRequest,
    McpError,
    MethodNotFound,
    ServerBusy,
)
from django_mcp.server.compiler import CompiledTool
from django_mcp.transports._body import BodyTooLarge, ChunkedUnsupported
from django_mcp.transports._exchange import NOT_BUILT, HttpExchange, HttpReply
from django_mcp.transports._headers import NAME_KEYS, McpHeaders, decode_value
from django_mcp.transports._identity import authenticate, challenge
from django_mcp.transports._legacy_http import SESSION_HEADER, LegacySessions
from django_mcp.transports._origin import host_allowed, origin_allowed, request_host
from django_mcp.transports._replies import (
    FINISHED,
    JSON,
    JSON_HEADERS,
    SSE,
    Finished,
    busy,
    client_left,
    dispatcher_reply,
    emitter,
    empty,
    json_error,
    length_required,
    message_stream,
    not_allowed,
    reply_of,
    sse_reply,
    started,
    stream_abandoned,
    too_large,
    with_keepalive,
)

__all__ = ["Endpoint", "validate_headers", "validate_param_headers"]

# One name for the whole HTTP transport, as projects configure it.
logger = logging.getLogger("django_mcp.transports.http")


#: The page a browser opening the endpoint's URL gets (with the 405).
_PAGE: Final = (
    "This URL is the MCP endpoint of the server {name!r} (Model Context Protocol, Streamable HTTP).\n"
    "It answers MCP clients, which send JSON-RPC messages with POST; a browser cannot use it.\n"
    "To connect, give this URL to an MCP client (Claude, an IDE, the MCP Inspector) as a\n"
    "Streamable HTTP server.\n"
)


class Endpoint:
    """Serve one server's dispatcher over Streamable HTTP."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher
        #: The 2025-11-25 sessions (``_legacy_http.py``).
        self.sessions = LegacySessions(dispatcher)

    def __repr__(self) -> str:
        return f"Endpoint({self.dispatcher.compiled.key})"

    async def serve(self, exchange: HttpExchange) -> HttpReply:
        """Answer one HTTP request; an unexpected failure is a JSON -32603, never a traceback."""
        try:
            method = exchange.method
            if method == "POST":
                return await self.post(exchange)
            if method == "GET":
                return await self.in_session(exchange, self.sessions.get)
            if method == "DELETE":
                return await self.in_session(exchange, self.sessions.delete)
            return self.not_allowed(exchange)
        except Exception:
            logger.exception("Unexpected error in the MCP endpoint of %s", self.dispatcher.compiled.key)
            return json_error(None, InternalError(), 500)

    # ---------------------------------------------------------------- POST

    async def post(self, exchange: HttpExchange) -> HttpReply:
        """Answer one JSON-RPC message."""
        dispatcher = self.dispatcher
        settings = dispatcher.settings
        limit = settings.limits.max_request_size
        headers = exchange.headers
        declared = headers.content_length
        if declared is not None and declared > limit:
            return too_large(BodyTooLarge())  # before anything else: the body is never read
        if not exchange.in_process:
            refused = self.refuse(exchange)
            if refused is not None:
                return refused
        if headers.content_type != JSON:
            return json_error(None, InvalidRequest(f"Content-Type must be {JSON}"), 415)
        if not _accepts_json_or_sse(headers.accept or "*/*"):
            return json_error(None, InvalidRequest(f"Accept must allow {JSON} or {SSE}"), 406)
        body = exchange.body
        if not isinstance(body, bytes):
            try:
                body = await body.read(limit)
            except BodyTooLarge as error:
                return too_large(error)
            except ChunkedUnsupported as error:
                return length_required(error)
        elif len(body) > limit:
            return too_large(BodyTooLarge())
        exchange.body_bytes = body
        try:
            envelope = parse_message(body, max_depth=settings.limits.max_json_depth)
        except McpError as error:
            # The message cannot be served at all (and so lacks the _meta a
            # modern request needs): always a 400, whatever the code.
            return json_error(getattr(error, "request_id", None), error, 400)
        if headers.era_repeated:
            try:
                headers.check_era_headers()
            except McpError as error:
                return json_error(envelope.id, error, 400)
        user, denied = await self.caller(exchange)
        if denied is not None:
            return denied
        session_id = headers.session_id
        era = era_of(envelope, in_session=session_id is not None, version_header=headers.protocol_version)
        if era == "modern":
            return await self.modern(exchange, envelope, user)
        if era == "initialize":
            return await self.sessions.initialize(exchange, envelope, user)
        if era == "legacy":
            assert session_id is not None
            entered = await self.sessions.enter(exchange, envelope, session_id, user)
            if isinstance(entered, HttpReply):
                return entered
            ctx, session = entered
            return await self.run(exchange, envelope, ctx, legacy_session=session)
        unrouted = InvalidRequest(
            f"Bad request: missing {SESSION_HEADER} (call initialize first) or 2026-07-28 _meta"
        )
        return json_error(envelope.id, unrouted, 400)

    async def modern(self, exchange: HttpExchange, envelope: Envelope, user: Any) -> HttpReply:
        """Serve a 2026-07-28 message."""
        if envelope.kind == "response":
            return json_error(envelope.id, InvalidRequest("Clients do not send responses in 2026-07-28"), 400)
        if envelope.kind == "notification":
            # Core 2026-07-28 defines no client notification on HTTP; accept it.
            return empty(202)
        headers = exchange.headers
        try:
            ctx = modern_context(
                envelope,
                http=exchange,
                user=user,
                version_header=headers.protocol_version,
                header_required=True,
            )
            validate_headers(headers, method=envelope.method, params=envelope.params)
        except McpError as error:
            return json_error(envelope.id, error, error.http_status)
        tool_headers = self.dispatcher.compiled.tool_headers
        if tool_headers and envelope.method == "tools/call":
            ctx.check_call = functools.partial(_check_param_headers, headers, tool_headers)
        if envelope.method == "subscriptions/listen":
            return await self.listen(exchange, envelope, ctx)
        # An unknown method is answered by the dispatcher (-32601, HTTP 404).
        return await self.run(exchange, envelope, ctx)

    async def listen(self, exchange: HttpExchange, envelope: Envelope, ctx: CallContext) -> HttpReply:
        """Open a ``subscriptions/listen`` stream."""
        if not exchange.long_streams:
            # A single-threaded WSGI worker would be held by the stream,
            # blocking the very requests whose changes it reports.
            needs = MethodNotFound("subscriptions/listen needs an ASGI server or a threaded WSGI server")
            return json_error(envelope.id, needs, 404)
        dispatcher = self.dispatcher
        try:
            stream = await started(dispatcher.listen(envelope, ctx))
        except ServerBusy as error:  # MCP_MAX_STREAMS, or no working event backend
            return busy(envelope.id, error)
        except McpError as error:
            return json_error(envelope.id, error, 400 if error.http_status == 200 else error.http_status)
        return sse_reply(with_keepalive(stream, dispatcher.settings.sse_keepalive), long_lived=True)

    async def run(
        self,
        exchange: HttpExchange,
        envelope: Envelope,
        ctx: CallContext,
        *,
        legacy_session: LegacySession | None = None,
    ) -> HttpReply:
        """Run the request; answer JSON unless something is sent before the result."""
        dispatcher = self.dispatcher
        can_stream = exchange.can_stream and SSE in (exchange.headers.accept or "")
        asks_client = legacy_session is not None and dispatcher.asks_input(envelope.method)
        # Progress needs a token and log messages a level: without both
        # nothing can precede the result.
        may_notify = ctx.progress_token is not None or ctx.log_level is not None
        legacy = legacy_session is not None
        if not legacy and not (can_stream and may_notify):
            # One plain JSON answer, served in the caller's own task (a client
            # disconnect cancels it): no task, no queue.
            reply = await dispatcher.respond(envelope, ctx)
            if reply.error is None:
                return HttpReply(200, list(JSON_HEADERS), reply.body)
            return dispatcher_reply(reply, legacy=False)
        queue: asyncio.Queue[bytes | Finished] = asyncio.Queue()
        emit = emitter(queue) if can_stream else None
        if legacy_session is not None:
            if can_stream and asks_client:
                ctx.client_request = self.sessions.client_requester(legacy_session, queue)
            # Its answers and cancellation may reach another worker first.
            await dispatcher.relay.ready()
        task = asyncio.ensure_future(dispatcher.respond(envelope, ctx, emit))
        if legacy_session is not None:
            dispatcher.legacy_calls.add(legacy_session.id, envelope.id, task)
        task.add_done_callback(lambda _t: queue.put_nowait(FINISHED))
        cancel_on_close = not legacy
        try:
            first = await queue.get()
        except asyncio.CancelledError:
            client_left(task, cancel=cancel_on_close)
            raise
        if isinstance(first, Finished):
            return dispatcher_reply(reply_of(task), legacy=legacy)
        stream = message_stream(first, queue, task, cancel_on_close=cancel_on_close)
        return sse_reply(stream, closed=stream_abandoned(task, cancel=cancel_on_close))

    async def in_session(
        self, exchange: HttpExchange, handle: Callable[[HttpExchange, str, Any], Awaitable[HttpReply]]
    ) -> HttpReply:
        """Answer a GET or DELETE with ``handle(exchange, session_id, user)``.

        Host/Origin are checked first (403); no session header is 405 and a
        refused authentication 401.
        """
        refused = self.refuse(exchange)
        if refused is not None:
            return refused
        session_id = exchange.headers.session_id
        if session_id is None:
            return self.not_allowed(exchange, in_session=False)
        user, denied = await self.caller(exchange)
        if denied is not None:
            return denied
        return await handle(exchange, session_id, user)

    async def caller(self, exchange: HttpExchange) -> tuple[Any, HttpReply | None]:
        """Return the caller's user, or the reply refusing the request (``_identity.py``).

        In order: ``MCP_AUTHENTICATION_BACKENDS``, the session user, the
        anonymous caller; then ``login_required``.
        """
        # An in-process call (the test client, the admin playground) names
        # its caller itself: there are no credentials to check.
        backends = () if exchange.in_process else self.dispatcher.settings.authentication_backends
        user = None
        if backends:
            user, denied = await authenticate(exchange, backends)
            if denied is not None:
                return None, denied
        if user is None:
            session_user = exchange.session_user
            user = await session_user() if session_user is not None else anonymous_caller()
        if self.dispatcher.compiled.login_required and not getattr(user, "is_authenticated", False):
            return None, challenge(exchange)
        exchange.user = user
        if exchange.request is not NOT_BUILT and exchange.request is not None:
            exchange.request.user = user  # built for a backend, before the caller was known
        return user, None

    # ---------------------------------------------------------- refusals

    def refuse(self, exchange: HttpExchange) -> HttpReply | None:
        """Return a 403 for a disallowed Host or Origin (DNS rebinding), else None."""
        headers = exchange.headers
        host = headers.host
        if host is None or get_django_settings().use_x_forwarded_host:
            host = request_host(headers, exchange.server, exchange.scheme)
        if not host_allowed(host):  # cached per host
            return json_error(None, InvalidRequest("Forbidden: host not allowed"), 403)
        origin = headers.origin
        if origin is not None and not origin_allowed(origin, self.dispatcher.settings.allowed_origins):
            return json_error(None, InvalidRequest("Forbidden: origin not allowed"), 403)
        return None

    def not_allowed(self, exchange: HttpExchange, *, in_session: bool | None = None) -> HttpReply:
        """Return the 405 for a method this request cannot use, naming those that would work.

        Without a session only POST is served; in one, GET (where the
        adapter can stream) and DELETE too. A session-less GET or DELETE
        (a browser opening the URL) also gets a short page saying what the
        URL is.
        """
        if in_session is None:
            in_session = exchange.headers.session_id is not None
        if not in_session:
            page = _PAGE.format(name=self.dispatcher.compiled.info.name)
            return not_allowed("POST", text=page if exchange.method in ("GET", "DELETE") else "")
        return not_allowed("POST, GET, DELETE" if exchange.long_streams else "POST, DELETE")


def validate_headers(headers: McpHeaders, *, method: str, params: Mapping[str, Any]) -> None:
    """Raise ``HeaderMismatch`` unless ``Mcp-Method`` and ``Mcp-Name`` agree with the body."""
    sent_method = headers.get("Mcp-Method")  # raises for a header sent twice
    if sent_method is None:
        raise HeaderMismatch("Header mismatch: Mcp-Method header is required")
    sent_method = decode_value("Mcp-Method", sent_method)
    if sent_method != method:
        raise HeaderMismatch(
            f"Header mismatch: Mcp-Method header value {sent_method!r} does not match body value {method!r}"
        )
    name_key = NAME_KEYS.get(method)
    if name_key is not None and isinstance(params.get(name_key), str):
        sent_name = headers.get("Mcp-Name")
        if sent_name is None:
            raise HeaderMismatch("Header mismatch: Mcp-Name header is required")
        sent_name = decode_value("Mcp-Name", sent_name)
        if sent_name != params[name_key]:
            raise HeaderMismatch(
                f"Header mismatch: Mcp-Name header value {sent_name!r} does not match body value "
                f"{params[name_key]!r}"
            )


def validate_param_headers(
    headers: McpHeaders, arguments: Mapping[str, Any], param_headers: Mapping[str, tuple[str, str]]
) -> None:
    """Raise ``HeaderMismatch`` unless the ``Mcp-Param-*`` headers mirror a tool's ``arguments``.

    ``param_headers`` is the tool's compiled map ``{header: (property, kind)}``.
    """
    sent = headers.with_prefix("Mcp-Param-")
    for header, (prop, kind) in param_headers.items():
        value = arguments.get(prop)
        raw = sent.get(header)
        if value is None:
            if raw is not None:
                raise HeaderMismatch(f"Header mismatch: Mcp-Param-{header} sent for an absent argument")
            continue
        if raw is None:
            raise HeaderMismatch(f"Header mismatch: Mcp-Param-{header} header is required")
        decoded = decode_value(f"Mcp-Param-{header}", raw)
        if not _same(value, decoded, kind):
            raise HeaderMismatch(
                f"Header mismatch: Mcp-Param-{header} header does not match argument {prop!r}"
            )


def _same(expected: Any, header: str, kind: str) -> bool:
    if kind == "boolean":
        return isinstance(expected, bool) and header == ("true" if expected else "false")
    if kind == "integer":
        try:
            return not isinstance(expected, bool) and float(header) == float(expected)
        except (TypeError, ValueError):
            return False
    return isinstance(expected, str) and header == expected


def _check_param_headers(
    headers: McpHeaders,
    tool_headers: Mapping[str, Mapping[str, tuple[str, str]]],
    entry: CompiledTool,
    arguments: dict[str, Any],
) -> None:
    """Check a ``tools/call``'s ``Mcp-Param-*`` headers once its tool is known to be usable."""
    param_headers = tool_headers.get(entry.name)
    if param_headers:
        validate_param_headers(headers, arguments, param_headers)


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
