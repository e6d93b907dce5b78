"""Serve MCP endpoints under WSGI without an event loop: ``McpWSGIApp``.

``McpWSGIApp`` wraps the project's WSGI application and answers requests to
MCP endpoints itself (everything else goes to the wrapped application)::

    from django.core.wsgi import get_wsgi_application

    from django_mcp.wsgi import McpWSGIApp

    application = McpWSGIApp(get_wsgi_application())

It translates the WSGI environ into an ``HttpExchange`` for the same
endpoint as the view (``django_mcp.transports._endpoint``) and its reply
back, building no Django ``HttpRequest`` or ``HttpResponse`` (Django's
request only if something asks for it, as on ``McpASGIApp``) and running
no middleware. The endpoint's coroutine is driven by
``_bridge.SyncDriver``: a request whose work is sync (a sync tool, a
session read) or that never waits completes in the worker's thread, the
sync work called inline, with no thread started and no event loop run; one
that awaits the loop itself (an async tool that sleeps) carries on in a
loop while its sync work runs in the worker's thread, whose database
connection it shares. As under Django's WSGI handler, ``request_started``
and ``request_finished`` are sent, so database connections are opened,
reused and closed as usual (``CONN_MAX_AGE``, ``CONN_HEALTH_CHECKS``).

An answer that streams (progress or log notifications before the result)
is sent event by event from the worker's thread, which is the request's
until the result has been sent. A long-lived stream
(``subscriptions/listen``, a 2025-11-25 session's ``GET``) holds a thread
for as long as it is open, so it is served only where the server has
threads to spare (``wsgi.multithread``, as gunicorn's ``--threads``); a
single-threaded server answers ``subscriptions/listen`` with -32601 (HTTP
404) and a session's ``GET`` with 405. A declared ``Content-Length`` over
``MCP_MAX_REQUEST_SIZE`` is refused (413) before the body is read; a
chunked body is read as it comes when the server decodes it
(``wsgi.input_terminated``, as gunicorn does), refused as soon as it
passes the limit, and refused with 411 where the server does not. Before a
refusal goes, what the client still sends is read and discarded (within
``DRAIN_BYTES`` and ``DRAIN_SECONDS``, ``_body.py``) so the answer reaches
it. Constructing the app loads the URLconf: a server mounted with
``as_view()`` that does not compile stops it starting.
"""

from __future__ import annotations

import functools
import http
import io
from collections.abc import Generator, Iterator
from typing import Any, Final

from django.core import signals
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest, get_path_info, get_script_name
from django.urls import get_resolver, set_script_prefix

from django_mcp._types import Environ, StartResponse, WSGIApp
from django_mcp.registry import registry
from django_mcp.transports._body import wsgi_body
from django_mcp.transports._bridge import SyncDriver, loop_is_running
from django_mcp.transports._endpoint import Endpoint
from django_mcp.transports._exchange import HttpExchange, HttpReply
from django_mcp.transports._headers import McpHeaders
from django_mcp.transports._identity import attach_caller, find_session
from django_mcp.transports.http import endpoint_at

__all__ = ["McpWSGIApp"]

#: ``"200 OK"`` and the like: the status lines a WSGI server is given.
_STATUS_LINES: Final = {int(status): f"{status.value} {status.phrase}" for status in http.HTTPStatus}


class McpWSGIApp:
    """Wrap a WSGI application; serve its MCP endpoints without an event loop."""

    def __init__(self, app: WSGIApp) -> None:
        self.app = app
        get_resolver().url_patterns  # noqa: B018 - loads the URLconf: as_view() compiles its servers
        registry.check_mounted()

    def __call__(self, environ: Environ, start_response: StartResponse) -> Any:
        """Serve one WSGI request."""
        path_info = get_path_info(environ)
        endpoint = endpoint_at(path_info)
        if endpoint is None or loop_is_running():
            # Another path, or a thread that already runs an event loop (no
            # WSGI server's): Django's business.
            return self.app(environ, start_response)
        script_name = get_script_name(environ)
        set_script_prefix(script_name)
        signals.request_started.send(sender=WSGIHandler, environ=environ)
        exchange = _exchange_of(environ, script_name, path_info or "/")
        driver = SyncDriver()
        try:
            reply = driver.run(functools.partial(_serve, endpoint, exchange))
        except BaseException:
            driver.close()
            raise
        status = _STATUS_LINES.get(reply.status) or f"{reply.status} Unknown"
        if reply.stream is None:
            driver.close()
            start_response(status, [*reply.headers, ("Content-Length", str(len(reply.body)))])
        else:
            start_response(status, reply.headers)
        # The server calls close(): request_finished, as under Django's handler.
        return _Answer(reply, driver)


async def _serve(endpoint: Endpoint, exchange: HttpExchange) -> HttpReply:
    reply = await endpoint.serve(exchange)
    body = exchange.body
    if reply.refused_early and not isinstance(body, bytes):
        # Read before the answer goes (bounded); a body left unread is the
        # server's to close on (gunicorn does: a hop-by-hop Connection
        # header is not the application's to send under WSGI).
        await body.drain()
    return reply


def _exchange_of(environ: Environ, script_name: str, path_info: str) -> HttpExchange:
    headers = McpHeaders.from_environ(environ)
    exchange = HttpExchange(
        method=str(environ.get("REQUEST_METHOD", "GET")).upper(),
        path="{}/{}".format(script_name.rstrip("/"), path_info.replace("/", "", 1)),
        headers=headers,
        body=wsgi_body(environ, headers.content_length),
        client=environ.get("REMOTE_ADDR") or None,
        scheme=environ.get("wsgi.url_scheme", "http"),
        can_stream=True,
        long_streams=bool(environ.get("wsgi.multithread")),
        server=(str(environ.get("SERVER_NAME", "")), str(environ.get("SERVER_PORT", ""))),
        build_request=functools.partial(_django_request, environ),
    )
    find_session(exchange)
    return exchange


def _django_request(environ: Environ, exchange: HttpExchange) -> WSGIRequest:
    """Return Django's request for the environ (its body the one already read), with the caller."""
    body = exchange.body_bytes
    request = WSGIRequest({**environ, "wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body))})
    attach_caller(request, exchange)
    return request


class _Answer:
    """The response body, or its event stream; ``close()`` ends the request.

    A stream is sent event by event (the worker thread is the request's for
    as long as it lasts); ``close()`` frees what the stream held and sends
    ``request_finished``, as Django's responses do.
    """

    __slots__ = ("driver", "events", "reply")

    def __init__(self, reply: HttpReply, driver: SyncDriver) -> None:
        self.reply = reply
        self.driver = driver
        #: The event stream being sent, once the server iterates it.
        self.events: Generator[bytes, None, None] | None = None

    def __iter__(self) -> Iterator[bytes]:
        if self.reply.stream is None:
            return iter((self.reply.body,))
        self.events = self.driver.stream(self.reply.stream)
        return self.events

    def close(self) -> None:
        """End the request for Django (``request_finished``: connections closed as usual)."""
        try:
            if self.reply.stream is not None:
                try:
                    # A stream the client left: closing it ends (or awaits) its request.
                    if self.events is not None:
                        self.events.close()
                    if self.reply.closed is not None:
                        self.reply.closed()
                finally:
                    self.driver.close()
        finally:
            signals.request_finished.send(sender=WSGIHandler)
