"""The Streamable HTTP endpoint as a Django view: ``Server.as_view()`` and ``django_mcp.urls``.

The view only translates: Django's ``HttpRequest`` becomes an
``HttpExchange`` (its headers, its body as Django reads it, the session
user ``AuthenticationMiddleware`` set), the endpoint (``_endpoint.py``)
answers, and its ``HttpReply`` becomes an ``HttpResponse`` or, for an event
stream, a ``StreamingHttpResponse``. Every rule is the endpoint's.

One view callable serves both handlers: under Django's ASGI handler (or
inside any running event loop) it is a coroutine function, awaited as an
async view; under Django's WSGI handler it is a sync view that drives the
endpoint itself (``_bridge.SyncDriver``), its sync work called inline, with
no event loop thread per request. An ``ASGIRequest`` always gets the coroutine, so code that awaits
the view itself keeps working. The view is CSRF-exempt: MCP clients are
not browsers with cookies; authentication is per request (``_identity.py``).

``endpoint_at(path)`` tells whether a path is an MCP endpoint (the fast
paths, ``django_mcp.wellknown``, ``django_mcp.views.bad_request``).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Final

from django.core.exceptions import RequestDataTooBig
from django.core.handlers.asgi import ASGIRequest
from django.core.handlers.wsgi import WSGIRequest
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.urls import Resolver404, resolve

from django_mcp.transports._body import Body, BodyTooLarge, wsgi_body
from django_mcp.transports._bridge import SyncDriver, coroutine_marks, loop_is_running
from django_mcp.transports._endpoint import Endpoint
from django_mcp.transports._exchange import HttpExchange, HttpReply
from django_mcp.transports._headers import McpHeaders

__all__ = ["McpView", "endpoint_at", "response_of"]

#: Distinct paths whose verdict (MCP endpoint or not) is remembered.
_CACHED_PATHS: Final = 1024


class McpView:
    """The view serving one server's ``Endpoint``: async in an event loop, sync under WSGI."""

    csrf_exempt: Final = True

    def __init__(self, endpoint: Endpoint, *, name: str) -> None:
        #: What the fast paths serve for this view's URL.
        self.endpoint = endpoint
        self.__name__ = self.__qualname__ = name
        self.__module__ = __name__

    def __repr__(self) -> str:
        return f"<McpView {self.endpoint!r}>"

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        """Return the view's coroutine; its response for a WSGI request outside a loop."""
        exchange = _exchange_of(request)
        if isinstance(request, ASGIRequest) or loop_is_running():
            return self._respond(exchange)
        driver = SyncDriver()
        try:
            reply = driver.run(functools.partial(self._reply, exchange))
        except BaseException:
            driver.close()
            raise
        if reply.stream is None:
            driver.close()
            return response_of(reply)
        # Django's WSGI handler sends the stream from this thread; the
        # response's close() ends the request (its loop, its sync work).
        return response_of(reply, stream=driver.stream(reply.stream), ended=driver.close)

    async def _respond(self, exchange: HttpExchange) -> HttpResponseBase:
        return response_of(await self._reply(exchange))

    async def _reply(self, exchange: HttpExchange) -> HttpReply:
        reply = await self.endpoint.serve(exchange)
        body = exchange.body
        if reply.refused_early and isinstance(body, _DjangoBody):
            await body.drain()  # before the answer goes (_body.py)
        return reply


coroutine_marks(McpView)


def response_of(
    reply: HttpReply, *, stream: Iterator[bytes] | None = None, ended: Callable[[], None] | None = None
) -> HttpResponseBase:
    """Return the endpoint's ``reply`` as Django's response.

    Under WSGI its event stream is sent through ``stream`` (the sync driver's
    iterator over it) and ``ended`` runs once the response is closed.
    """
    response: HttpResponseBase
    # The content type goes to the constructor: Django would otherwise set
    # its default (text/html), to be deleted again.
    content_type = None
    headers = reply.headers
    if headers and headers[0][0] == "Content-Type":  # where the endpoint puts it
        content_type, headers = headers[0][1], headers[1:]
    else:
        for name, value in headers:
            if name == "Content-Type":
                content_type = value
                headers = [header for header in headers if header[0] != "Content-Type"]
                break
    if reply.stream is not None:
        closing = [reply.closed] if reply.closed is not None else []
        if ended is not None:
            closing.append(ended)
        events = reply.stream if stream is None else stream
        response = _StreamedReply(events, closing, status=reply.status, content_type=content_type)
    else:
        response = HttpResponse(reply.body, status=reply.status, content_type=content_type)
    if content_type is None:
        del response["Content-Type"]  # a reply without a body has none
    for name, value in headers:
        response[name] = value
    return response


class _StreamedReply(StreamingHttpResponse):
    """An event stream that runs what it must when Django closes the response.

    Django closes every response it served, also when the client left before
    the first event (when the stream's own ``finally`` never runs).
    """

    def __init__(
        self,
        stream: AsyncIterator[bytes] | Iterator[bytes],
        closing: list[Callable[[], None]],
        *,
        status: int,
        content_type: str | None,
    ) -> None:
        super().__init__(stream, status=status, content_type=content_type)
        self._closing = closing

    def close(self) -> None:
        """Run what the stream must run when over, then close as usual."""
        try:
            for ending in self._closing:
                ending()
        finally:
            super().close()


def _exchange_of(request: HttpRequest) -> HttpExchange:
    """Return the exchange of a Django request."""
    meta = request.META
    # The scheme the server saw (a proxy's header is applied where the
    # scheme is needed: _origin.request_scheme).
    if isinstance(request, ASGIRequest):
        # The raw header list: exact names, repeats kept.
        headers = McpHeaders.from_asgi(request.scope["headers"])
        scheme = request.scope.get("scheme") or "http"
    else:
        headers = McpHeaders.from_environ(meta)
        scheme = meta.get("wsgi.url_scheme") or "http"
    body: Body | bytes
    try:
        # Django's ASGI handler has read the whole body already.
        is_asgi = isinstance(request, ASGIRequest)
        body = request.body if is_asgi else _DjangoBody(request, headers.content_length)
    except RequestDataTooBig:
        # Refuses it, naming DATA_UPLOAD_MAX_MEMORY_SIZE.
        body = _DjangoBody(request, headers.content_length)
    return HttpExchange(
        method=request.method or "GET",
        path=request.path,
        headers=headers,
        body=body,
        client=meta.get("REMOTE_ADDR") or None,
        scheme=scheme,
        server=(str(meta.get("SERVER_NAME", "")), str(meta.get("SERVER_PORT", ""))),
        can_stream=True,
        long_streams=isinstance(request, ASGIRequest) or bool(meta.get("wsgi.multithread")),
        session_user=getattr(request, "auser", None),
        request=request,
    )


class _DjangoBody:
    """The body of a Django request, as Django's handler makes it readable."""

    __slots__ = ("_source", "declared", "request")

    def __init__(self, request: HttpRequest, declared: int | None) -> None:
        self.request = request
        self.declared = declared
        #: The WSGI server's stream, where this view reads past Django.
        self._source: Body | None = None

    def _wsgi_source(self, request: WSGIRequest) -> Body:
        if self._source is None:
            self._source = wsgi_body(request.environ, self.declared)
        return self._source

    async def read(self, limit: int) -> bytes:
        """Return the body; raise ``BodyTooLarge`` past ``limit`` (or ``DATA_UPLOAD_MAX_MEMORY_SIZE``)."""
        if self.declared is None and isinstance(self.request, WSGIRequest):
            # Django's WSGI handler reads no body without Content-Length:
            # read a chunked one from the server, when it decodes them.
            return await self._wsgi_source(self.request).read(limit)
        if self.declared is not None and self.declared > limit:
            raise BodyTooLarge()
        try:
            body = self.request.body
        except RequestDataTooBig:
            raise BodyTooLarge("DATA_UPLOAD_MAX_MEMORY_SIZE") from None
        if len(body) > limit:
            raise BodyTooLarge()
        return body

    async def drain(self) -> bool:
        """Discard what the client still sends of a refused body (WSGI: Django read none of it).

        Return True once it is read to its end (``Body.drain``).
        """
        if not isinstance(self.request, WSGIRequest):
            return True  # Django's ASGI handler has read the whole body already
        return await self._wsgi_source(self.request).drain()


@functools.lru_cache(maxsize=_CACHED_PATHS)
def endpoint_at(path_info: str) -> Endpoint | None:
    """Return the MCP endpoint ``path_info`` resolves to (``ROOT_URLCONF``), None for any other path."""
    try:
        match = resolve(path_info)
    except Resolver404:
        return None
    view = match.func
    return view.endpoint if isinstance(view, McpView) else None


@receiver(setting_changed)
def _forget(*, setting: str, **kwargs: Any) -> None:
    if setting == "ROOT_URLCONF":
        endpoint_at.cache_clear()
