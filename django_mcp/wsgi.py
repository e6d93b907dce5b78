"""Serve MCP endpoints under WSGI without an event loop: ``McpWSGIApp``.

Django runs an async view under WSGI through ``async_to_sync``: an event
loop in a second thread for every request. ``McpWSGIApp`` wraps the
project's WSGI application and serves requests to MCP endpoints itself
(everything else goes to the wrapped application): it builds Django's
``WSGIRequest``, runs the same core as ``McpASGIApp``
(``django_mcp.transports._direct.serve``: the identity and header
middleware, then the view function) and drives that coroutine with
``send(None)``. A request that never waits (an async tool, an anonymous or
token-authenticated caller, no cache or ORM call) completes in that one
step, in the worker's thread. A request that does wait (a sync tool, a
session cookie looked up in the database) is carried on in an event loop
of the worker thread's own; its sync work then runs in one companion thread
of the worker thread, whose old database connections are closed after each
request as ``request_finished`` would (``CONN_MAX_AGE`` holds as usual).

The answers are the view's under WSGI: plain JSON (notifications are
dropped, streams refused). As under Django's handler, ``request_started``
and ``request_finished`` are sent, so database connections are managed as
usual. A ``Content-Length`` above ``MCP_MAX_REQUEST_SIZE`` is refused with
413 before the body is read. Wrap the application in the project's
``wsgi.py``::

    from django.core.wsgi import get_wsgi_application

    from django_mcp.wsgi import McpWSGIApp

    application = McpWSGIApp(get_wsgi_application())
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from asgiref.sync import SyncToAsync
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler, WSGIRequest, get_path_info, get_script_name
from django.db import close_old_connections, connections
from django.http.response import HttpResponseBase
from django.urls import set_script_prefix

from django_mcp.conf import get_settings
from django_mcp.dispatcher.codec import encode_error
from django_mcp.exceptions import InvalidRequest
from django_mcp.transports._direct import endpoint, request_error, serve
from django_mcp.transports._drive import Resumed, first_step, request_context, thread_loop

__all__ = ["McpWSGIApp"]

logger = logging.getLogger(__name__)

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

_local = threading.local()
_T = TypeVar("_T")


class McpWSGIApp:
    """Wrap a WSGI application; serve its MCP endpoints without an event loop."""

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Serve one WSGI request."""
        found = endpoint(get_path_info(environ))
        if found is None or asyncio.events._get_running_loop() is not None:
            # Another path, or a thread that already runs an event loop (no
            # WSGI server's): Django's business.
            return self.app(environ, start_response)
        declared = environ.get("CONTENT_LENGTH") or ""
        if declared.isdigit() and int(declared) > get_settings().limits.max_request_size:
            body = encode_error(None, InvalidRequest("Request exceeds MCP_MAX_REQUEST_SIZE"))
            start_response(
                "413 Request Entity Too Large",
                [
                    ("Content-Type", "application/json"),
                    ("Content-Length", str(len(body))),
                    ("Connection", "close"),
                ],
            )
            return [body]
        set_script_prefix(get_script_name(environ))
        signals.request_started.send(sender=WSGIHandler, environ=environ)
        try:
            request = WSGIRequest(environ)
        except UnicodeDecodeError:
            logger.warning("Bad Request (UnicodeDecodeError)", exc_info=True)
            response: HttpResponseBase = request_error(400)
        else:
            response = _run_to_completion(serve(request, found))
        response._handler_class = WSGIHandler  # type: ignore[attr-defined]
        headers = [
            *response.items(),
            *(("Set-Cookie", c.output(header="")) for c in response.cookies.values()),
        ]
        start_response(f"{response.status_code} {response.reason_phrase}", headers)
        # The server calls close(): request_finished, as under Django's handler.
        return response


def _run_to_completion(coroutine: Coroutine[Any, Any, HttpResponseBase]) -> HttpResponseBase:
    """Return the coroutine's result; without an event loop while it does not wait.

    The first step runs with the thread's own (idle) loop marked running,
    so that whatever the coroutine creates belongs to it; a coroutine that
    waits is then carried on in that loop.
    """
    loop = thread_loop()
    # The request's thread-sensitive sync work goes to the worker thread's
    # companion thread (its database connections live on, as a WSGI
    # thread's do under Django's handler, within CONN_MAX_AGE).
    companion = _companion()
    context, sensitive = request_context(companion)
    try:
        done, value = first_step(coroutine, loop, context)
        if done:
            return value  # type: ignore[no-any-return]
        response: HttpResponseBase = loop.run_until_complete(
            loop.create_task(Resumed(coroutine, value).run(), context=context)
        )
        return response
    finally:
        SyncToAsync.context_to_thread_executor.pop(sensitive, None)
        companion.finish_request()


class _Companion(ThreadPoolExecutor):
    """The one thread a WSGI worker thread's requests run their sync work in."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="mcp-wsgi-sync")
        self.used = False

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        """Run ``fn`` in the companion thread; note that a request used it."""
        self.used = True
        return super().submit(fn, *args, **kwargs)

    def finish_request(self) -> None:
        """Close old database connections as ``request_finished`` would, if the request used the thread."""
        if self.used:
            super().submit(close_old_connections).result()
            self.used = False


class _CompanionHolder:
    """A worker thread's companion thread, let go (its connections closed) when the thread ends."""

    def __init__(self) -> None:
        self.companion = _Companion()

    def __del__(self) -> None:
        try:
            self.companion.submit(connections.close_all)
        except RuntimeError:  # the interpreter is shutting down: no new work
            pass
        self.companion.shutdown(wait=False)


def _companion() -> _Companion:
    """Return this worker thread's companion thread, started on first use."""
    holder: _CompanionHolder | None = getattr(_local, "holder", None)
    if holder is None:
        holder = _local.holder = _CompanionHolder()
    return holder.companion
