"""Serve an MCP endpoint without Django's request handler: shared by ``asgi.py`` and ``wsgi.py``.

Both fast paths build Django's own request object (``ASGIRequest`` or
``WSGIRequest``), run the identity and header parts of the project's
middleware that an MCP endpoint depends on, and call the resolved view
function itself, so every rule, limit, header and error is the view's.

Middleware: of ``settings.MIDDLEWARE`` only these run, in their order, with
their own ``process_request`` and ``process_response`` (``DIRECT_MIDDLEWARE``):

* ``SecurityMiddleware``: the HTTPS redirect and the security headers;
* ``SessionMiddleware``: ``request.session`` from the session cookie (the
  response is saved and ``Vary: Cookie`` added as Django would);
* ``CommonMiddleware``: disallowed user agents, ``Content-Length``;
* ``AuthenticationMiddleware``: ``request.user`` and ``request.auser``;
* ``XFrameOptionsMiddleware``: ``X-Frame-Options``.

Every other middleware is skipped for MCP paths: ``CsrfViewMiddleware``
does nothing for the view (it is CSRF-exempt), ``MessageMiddleware`` stores
nothing for it; a project middleware of its own (GZip, locale, logging,
custom) does not see MCP requests. Under ASGI neither ``request_started``
nor ``request_finished`` is sent for a served request (``request_finished``
only when a stream response closes, by its ``close()``): their receivers do
not run (with ``DEBUG`` on, ``reset_queries``: the query log keeps its last
9000 queries); the connections a request's sync work opened are closed
after it by ``McpASGIApp`` itself. Under WSGI both signals are sent.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, Final

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.sessions.middleware import SessionMiddleware
from django.core.handlers.exception import response_for_exception
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.http.response import HttpResponseBase
from django.urls import Resolver404, ResolverMatch, resolve
from django.utils.module_loading import import_string

from django_mcp.dispatcher.codec import encode_error
from django_mcp.exceptions import InternalError
from django_mcp.transports.http import McpView

__all__ = ["DIRECT_MIDDLEWARE", "Endpoint", "endpoint", "request_error", "serve"]

logger = logging.getLogger(__name__)

#: The middleware whose request and response hooks the fast paths run.
DIRECT_MIDDLEWARE: Final = frozenset(
    {
        "django.middleware.security.SecurityMiddleware",
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "django.middleware.clickjacking.XFrameOptionsMiddleware",
    }
)
#: Distinct paths whose verdict (MCP endpoint or not) is remembered.
_CACHED_PATHS: Final = 1024


class Endpoint:
    """A path that resolves to an ``McpView``: its match and view function."""

    __slots__ = ("match", "view")

    def __init__(self, match: ResolverMatch) -> None:
        self.match = match
        self.view: Callable[..., Any] = match.func


@functools.lru_cache(maxsize=_CACHED_PATHS)
def endpoint(path_info: str) -> Endpoint | None:
    """Return the MCP endpoint at ``path_info``, or None for any other path."""
    try:
        match = resolve(path_info)
    except Resolver404:
        return None
    view_class = getattr(match.func, "view_class", None)
    if isinstance(view_class, type) and issubclass(view_class, McpView):
        return Endpoint(match)
    return None


@functools.cache
def _middleware() -> tuple[Any, ...]:
    """Return instances of the configured ``DIRECT_MIDDLEWARE``, in settings order."""
    return tuple(
        import_string(path)(_never_called) for path in settings.MIDDLEWARE if path in DIRECT_MIDDLEWARE
    )


def _never_called(request: HttpRequest) -> HttpResponse:  # pragma: no cover - a placeholder
    raise AssertionError("the fast path calls the view itself")


@receiver(setting_changed)
def _forget(*, setting: str, **kwargs: Any) -> None:
    if setting == "ROOT_URLCONF":
        endpoint.cache_clear()
    elif setting == "MIDDLEWARE":
        _middleware.cache_clear()


async def serve(request: HttpRequest, found: Endpoint) -> HttpResponseBase:
    """Answer ``request`` with the endpoint's view, inside the direct middleware.

    The one core of both fast paths: under WSGI it is driven without an
    event loop while it does not suspend (``wsgi.py``).
    """
    match = found.match
    request.resolver_match = match
    middleware = _middleware()
    response: HttpResponseBase | None = None
    ran = 0  # middleware whose process_response runs
    for instance in middleware:
        process_request = getattr(instance, "process_request", None)
        if process_request is not None:
            try:
                response = process_request(request)
            except Exception as exc:  # noqa: BLE001 - as Django's handler
                response = await _exception_response(request, exc)
                break
        ran += 1
        if response is not None:
            break
    if response is None:
        # The view answers every failure of its own (JSON -32603).
        response = await found.view(request, *match.args, **match.kwargs)
    for instance in reversed(middleware[:ran]):
        process_response = getattr(instance, "process_response", None)
        if process_response is None:
            continue
        try:
            if _saves_session(instance, request):
                # Saving touches the session store: not in the event loop.
                response = await sync_to_async(process_response)(request, response)
            else:
                response = process_response(request, response)
        except Exception as exc:  # noqa: BLE001 - as Django's handler
            response = await _exception_response(request, exc)
    assert response is not None
    return response


async def _exception_response(request: HttpRequest, exc: Exception) -> HttpResponseBase:
    """Return Django's response to a middleware's exception (a disallowed Host: 400).

    As Django's handler, which wraps each middleware: the middleware
    outside the failing one still process the response.
    """
    return await sync_to_async(response_for_exception, thread_sensitive=False)(request, exc)


def _saves_session(instance: Any, request: HttpRequest) -> bool:
    session = getattr(request, "session", None)
    return (
        isinstance(instance, SessionMiddleware)
        and session is not None
        and (session.modified or settings.SESSION_SAVE_EVERY_REQUEST)
    )


def request_error(status: int) -> HttpResponse:
    """Return the answer to a request Django cannot even build (400), or a failure (500)."""
    if status == 400:
        return HttpResponseBadRequest()
    return HttpResponse(encode_error(None, InternalError()), status=status, content_type="application/json")
