"""The 2025-11-25 sessions of the Streamable HTTP endpoint.

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
(``dispatcher/asking.py``, as on STDIO).

``LegacySessions`` holds these handlers for one dispatcher; the
``Endpoint`` (``_endpoint.py``) holds one, checks what every request needs
(Host/Origin, the caller) and routes to it. The handlers never call back
into the endpoint: a session POST gets back what to run, in its session.
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import TYPE_CHECKING, Any, Final

from django_mcp._callers import caller_identity, client_address, user_identity
from django_mcp.dispatcher.asking import client_requester
from django_mcp.dispatcher.codec import Envelope
from django_mcp.dispatcher.context import CallContext, ClientRequest, legacy_context
from django_mcp.dispatcher.sessions import LegacySession
from django_mcp.exceptions import InvalidRequest, McpError, ServerBusy
from django_mcp.protocol.versions import LEGACY_VERSIONS
from django_mcp.ratelimit import count_in_window
from django_mcp.transports._exchange import HttpExchange, HttpReply
from django_mcp.transports._replies import (
    SSE,
    Finished,
    busy,
    empty,
    json_error,
    json_reply,
    not_allowed,
    sse_reply,
    started,
    with_keepalive,
)

if TYPE_CHECKING:
    from django_mcp.dispatcher import Dispatcher

__all__ = ["SESSION_HEADER", "LegacySessions"]

# One name for the whole HTTP transport, as projects configure it.
logger = logging.getLogger("django_mcp.transports.http")

SESSION_HEADER: Final = "Mcp-Session-Id"
# Counter scope of the sessions each caller opened (ratelimit.count_in_window).
_SESSIONS_COUNTED: Final = "django_mcp:sessions-opened"


class LegacySessions:
    """One dispatcher's 2025-11-25 session handlers: initialize, session POSTs, GET, DELETE."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher

    def __repr__(self) -> str:
        return f"LegacySessions({self.dispatcher.compiled.key})"

    # ---------------------------------------------------------------- POST

    async def initialize(self, exchange: HttpExchange, envelope: Envelope, user: Any) -> HttpReply:
        """Open a session (``initialize``)."""
        if envelope.kind != "request":
            return json_error(envelope.id, InvalidRequest("initialize must be a request"), 400)
        dispatcher = self.dispatcher
        settings = dispatcher.settings
        try:
            handshake = dispatcher.initialize(envelope.params, max_size=settings.max_session_size)
        except McpError as error:
            return json_error(envelope.id, error, 200)
        # Every session takes cache space until it idles out: bound how many
        # one caller (user, else client address) opens per idle lifetime.
        identity = caller_identity(user, client_address(exchange))
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
            refused.headers.append(("Retry-After", str(opened.resets_in)))
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
        body = dispatcher.encode_raw_result(envelope.id, handshake.result)
        return json_reply(body, 200, (SESSION_HEADER, session.id))

    async def enter(
        self, exchange: HttpExchange, envelope: Envelope, session_id: str, user: Any
    ) -> HttpReply | tuple[CallContext, LegacySession]:
        """Take a message inside a session: the reply, or the request's context and session to run it in.

        A client's answer or cancellation is relayed to the request it
        concerns (202); an unknown session is 404.
        """
        dispatcher = self.dispatcher
        session = await self._load(session_id, user_identity(user))
        if session is None:
            # Another caller's session is answered exactly like an unknown one.
            return json_error(envelope.id, InvalidRequest("Session not found: initialize again"), 404)
        version = exchange.headers.protocol_version
        if version is not None and version not in LEGACY_VERSIONS:
            return json_error(
                envelope.id, InvalidRequest(f"Unsupported MCP-Protocol-Version {version!r}"), 400
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
        return legacy_context(envelope, session, http=exchange, user=user), session

    def client_requester(
        self, session: LegacySession, queue: asyncio.Queue[bytes | Finished]
    ) -> ClientRequest:
        """Return the function a handler awaits to ask its client, on the POST's SSE stream.

        The client answers in a POST of its own (possibly to another worker,
        relayed back) that completes the request's future in
        ``dispatcher.pending``.
        """
        return client_requester(self.dispatcher.pending, session.id, queue.put_nowait)

    # ------------------------------------------------------ GET and DELETE

    async def get(self, exchange: HttpExchange, session_id: str, user: Any) -> HttpReply:
        """Open a session's notification stream for its ``user``.

        One stream per session (2025-11-25 transports: a message goes to one
        stream): a second GET while one is open is 409. The stream ends when
        the session does: at once for a DELETE served by this process, else
        at the next keep-alive interval, which re-checks the session.
        """
        session = await self._session(session_id, user)
        if isinstance(session, HttpReply):
            return session
        if not exchange.long_streams:
            # A single-threaded WSGI worker cannot hold a stream open; legacy
            # clients accept 405 as "no standalone stream" (2025-11-25
            # transports), and GET is then not among the allowed methods.
            return not_allowed("POST, DELETE")
        if SSE not in (exchange.headers.joined("accept") or ""):
            return json_error(None, InvalidRequest(f"Accept must allow {SSE}"), 406)
        dispatcher = self.dispatcher
        keepalive = dispatcher.settings.sse_keepalive
        # The cross-process mark survives one missed renewal.
        claim = await dispatcher.session_streams.claim(
            session.id, cache_alias=dispatcher.settings.session_cache, lifetime=math.ceil(2 * keepalive) + 1
        )
        if claim is None:
            return json_error(None, InvalidRequest("Conflict: the session's GET stream is already open"), 409)

        async def current() -> LegacySession | None:
            return await self._load(session.id, session.owner)

        async def alive() -> bool:
            if await current() is None:
                return False
            await claim.renew()
            return True

        # Resource updates reach the stream only for URIs its own caller
        # may read, whoever subscribed them.
        try:
            stream = await started(dispatcher.session_notifications(current, user=user, http=exchange))
        except ServerBusy as error:  # MCP_MAX_STREAMS, or no working event backend
            await claim.arelease()
            return busy(None, error)
        except BaseException:
            await claim.arelease()
            raise
        events = with_keepalive(stream, keepalive, alive=alive, ended=claim.ended)
        return sse_reply(_released_after(events, claim), closed=claim.release, long_lived=True)

    async def delete(self, exchange: HttpExchange, session_id: str, user: Any) -> HttpReply:
        """End a session, for its ``user``."""
        session = await self._session(session_id, user)
        if isinstance(session, HttpReply):
            return session
        await session.delete()
        # This process's GET stream of the session ends now; another
        # process's at its next keep-alive.
        self.dispatcher.session_streams.end(session.id)
        return empty(204)

    async def _session(self, session_id: str, user: Any) -> LegacySession | HttpReply:
        """Return the session, or the 404 for an unknown or ended one, or one another caller opened."""
        session = await self._load(session_id, user_identity(user))
        if session is None:
            return json_error(None, InvalidRequest("Session not found"), 404)
        return session

    async def _load(self, session_id: str, owner: str | None) -> LegacySession | None:
        settings = self.dispatcher.settings
        return await LegacySession.load(
            session_id,
            server=self.dispatcher.compiled.key,
            owner=owner,
            cache_alias=settings.session_cache,
            timeout=settings.session_timeout,
            max_size=settings.max_session_size,
        )


async def _released_after(source: Any, claim: Any) -> Any:
    """Yield ``source``, then free the session's stream slot."""
    try:
        async for item in source:
            yield item
    finally:
        await claim.arelease()
