"""The 2025-11-25 sessions of the Streamable HTTP view.

MCP 2025-11-25 basic/transports ("Streamable HTTP", "Session Management"):
``initialize`` mints an ``Mcp-Session-Id`` kept in Django's cache, bound to
its caller (another user's, or an anonymous caller's, request finds no such
session: 404), within ``MCP_MAX_SESSION_SIZE`` (-32602 beyond) and
``MCP_MAX_SESSIONS_PER_CLIENT`` per ``MCP_SESSION_TIMEOUT`` (429 beyond).
A POST naming the session is served in it (its responses and notifications
are relayed to the request they concern); GET opens the session's one
notification stream (409 while it is open; resource updates only for URIs
the GET's own caller may read), DELETE ends the session and its stream;
server-to-client requests travel on the POST's SSE stream
(``client_requester``).

``LegacySessionMixin`` holds these handlers; ``McpView`` (``http.py``)
inherits it and routes a POST to them.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase

from django_mcp.dispatcher import Dispatcher, ServerBusy
from django_mcp.dispatcher.codec import CLIENT_REQUEST_TIMEOUT, Envelope, encode_request
from django_mcp.dispatcher.context import CallContext, legacy_context
from django_mcp.dispatcher.sessions import ClientRequestFailed, LegacySession
from django_mcp.exceptions import InternalError, InvalidRequest, McpError
from django_mcp.protocol.versions import LEGACY_VERSIONS
from django_mcp.ratelimit import caller_identity, count_in_window, user_identity
from django_mcp.transports._auth import authenticate
from django_mcp.transports._replies import (
    JSON,
    SSE,
    Finished,
    busy,
    empty,
    json_error,
    not_allowed,
    sse_response,
    started,
    with_keepalive,
)

__all__ = ["SESSION_HEADER", "LegacySessionMixin", "client_requester"]

# The view's logger: one name for the whole HTTP transport, as configured.
logger = logging.getLogger("django_mcp.transports.http")

SESSION_HEADER = "Mcp-Session-Id"
# Counter scope of the sessions each caller opened (ratelimit.count_in_window).
_SESSIONS_COUNTED = "django_mcp:sessions-opened"


class LegacySessionMixin:
    """``McpView``'s 2025-11-25 session handlers: initialize, session POSTs, GET, DELETE."""

    if TYPE_CHECKING:
        # McpView's own (http.py).
        def _dispatcher(self) -> Dispatcher: ...

        def _refuse(self, request: HttpRequest, dispatcher: Dispatcher) -> HttpResponse | None: ...

        async def _run(
            self,
            request: HttpRequest,
            dispatcher: Dispatcher,
            envelope: Envelope,
            ctx: CallContext,
            *,
            legacy_session: LegacySession | None = None,
        ) -> HttpResponseBase: ...

    # ---------------------------------------------------------------- POST

    async def _initialize(
        self, request: HttpRequest, dispatcher: Dispatcher, envelope: Envelope, user: Any
    ) -> HttpResponseBase:
        if envelope.kind != "request":
            return json_error(envelope.id, InvalidRequest("initialize must be a request"), 400)
        settings = dispatcher.settings
        try:
            handshake = dispatcher.initialize(envelope.params, max_size=settings.max_session_size)
        except McpError as error:
            return json_error(envelope.id, error, 200)
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
            refused = json_error(
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
            return json_error(envelope.id, InvalidRequest("Session not found: initialize again"), 404)
        if version_header is not None and version_header not in LEGACY_VERSIONS:
            return json_error(
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
                return busy(None, error)
            return empty(202)
        if envelope.method == "initialize":
            return json_error(envelope.id, InvalidRequest("Session already initialized"), 400)
        ctx = legacy_context(envelope, session, http_request=request, user=user)
        return await self._run(request, dispatcher, envelope, ctx, legacy_session=session)

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
            return not_allowed("POST, DELETE")
        if SSE not in request.headers.get("Accept", ""):
            return json_error(None, InvalidRequest(f"Accept must allow {SSE}"), 406)
        settings = dispatcher.settings
        keepalive = settings.sse_keepalive
        # The cross-process mark survives one missed renewal.
        claim = await dispatcher.session_streams.claim(
            session.id, cache_alias=settings.session_cache, lifetime=math.ceil(2 * keepalive) + 1
        )
        if claim is None:
            return json_error(None, InvalidRequest("Conflict: the session's GET stream is already open"), 409)

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
            stream = await started(notifications)
        except ServerBusy as error:  # MCP_MAX_STREAMS, or no working event backend
            await claim.arelease()
            return busy(None, error)
        except BaseException:
            await claim.arelease()
            raise
        events = with_keepalive(stream, keepalive, alive=alive, ended=claim.ended)
        return sse_response(events, claim=claim)

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
        return empty(204)

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
            return not_allowed()
        user, denied = await authenticate(
            request, dispatcher.compiled.server, backends=dispatcher.settings.authentication_backends
        )
        if denied is not None:
            return denied
        session = await _load_session(dispatcher, session_id, user_identity(user))
        if session is None:
            return json_error(None, InvalidRequest("Session not found"), 404)
        return session, user


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


def client_requester(
    dispatcher: Dispatcher, session: LegacySession, queue: asyncio.Queue[bytes | Finished]
) -> Callable[[str, dict[str, Any]], Awaitable[Any]]:
    """Return the function a handler awaits to ask the client (on the POST's SSE stream).

    The client answers in a POST of its own (possibly to another worker,
    relayed back) that completes the request's future in
    ``dispatcher.pending``; a refusal, or no answer within
    ``CLIENT_REQUEST_TIMEOUT``, is an internal error.
    """
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
