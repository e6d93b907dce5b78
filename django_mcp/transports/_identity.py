"""Who sends an HTTP request: Django auth's answers, and the challenge refusing one.

The endpoint asks in this order (``Endpoint.caller``), the same on every way
to serve:

1. ``authenticate()``: the authenticators listed in
   ``MCP_AUTHENTICATION_BACKENDS``, dotted paths to classes with
   ``authenticate(request)`` (sync or async) taking Django's
   ``HttpRequest`` and returning a user or None; the first user wins.
   Django's request is built for them only when some are configured (the
   fast paths build none otherwise). Bearer tokens are never read from the
   query string. An ``AuthenticationFailed`` is answered at once with its
   status and a ``WWW-Authenticate`` challenge.
2. Otherwise the session user, as Django's ``AuthenticationMiddleware``
   sets it: under Django's handler ``request.auser()``; on the fast paths
   ``find_session(exchange)``: the session cookie read with
   Django's own session engine and ``aget_user()``, when ``MIDDLEWARE`` has both the session and
   the authentication middleware (as they would then run). Without a
   session cookie no session is looked up at all.
3. No user: the anonymous caller, ``AnonymousUser``, or None without
   ``django.contrib.auth`` (no identity at all).

A server with ``login_required`` answers anonymous callers with 401 and a
``challenge()`` pointing at the protected resource metadata (RFC 9728).
"""

from __future__ import annotations

import functools
import importlib
import inspect
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.http import parse_cookie
from django.utils.module_loading import import_string

from django_mcp._sync import run_sync, sync_or_async
from django_mcp.conf import get_django_settings, get_setting
from django_mcp.dispatcher.codec import encode_error
from django_mcp.exceptions import AuthenticationFailed, InvalidRequest
from django_mcp.transports._exchange import HttpExchange, HttpReply
from django_mcp.transports._origin import request_host, request_scheme
from django_mcp.transports._replies import json_reply

__all__ = ["attach_caller", "authenticate", "challenge", "find_session", "get_authenticators", "session_user"]


@functools.cache
def _load(paths: tuple[str, ...]) -> tuple[Any, ...]:
    out = []
    for path in paths:
        try:
            out.append(import_string(path)())
        except ImportError as exc:
            raise ImproperlyConfigured(
                f"MCP_AUTHENTICATION_BACKENDS: cannot import {path!r}: {exc}"
            ) from None
    return tuple(out)


def get_authenticators(paths: tuple[str, ...] | None = None) -> tuple[Any, ...]:
    """Return instances of the authenticators at ``paths`` (default: the setting)."""
    return _load(tuple(get_setting("MCP_AUTHENTICATION_BACKENDS")) if paths is None else paths)


async def authenticate(exchange: HttpExchange, backends: tuple[str, ...]) -> tuple[Any, HttpReply | None]:
    """Return ``(user or None, None)`` from the ``backends``, or ``(None, challenge)`` when one refuses."""
    request = exchange.django_request()
    for authenticator in get_authenticators(backends):
        method = authenticator.authenticate
        try:
            if inspect.iscoroutinefunction(method):
                user = await method(request)
            else:
                user = await run_sync(method, request)
        except AuthenticationFailed as exc:
            # An invalid or expired token is refused even where anonymous
            # callers are welcome (MCP 2026-07-28 authorization, "Error Handling").
            return None, challenge(
                exchange, scope=exc.scope, error=exc.error, description=exc.message, status=exc.status
            )
        if user is not None:
            request.user = user
            return user, None
    return None, None


def find_session(exchange: HttpExchange) -> None:
    """Give a fast path's exchange the session its cookie names (not loaded yet) and its user.

    Sets ``exchange.session`` and ``exchange.session_user``, or leaves both
    None when there is no session to find: no session cookie, or no session
    and authentication middleware that would read one.
    """
    django = get_django_settings()
    cookies = exchange.headers.joined("cookie", "; ") if django.session_auth else None
    key = parse_cookie(cookies).get(django.session_cookie_name) if cookies else None
    if not key or not django.auth_installed:
        return
    session = exchange.session = importlib.import_module(django.session_engine).SessionStore(key)
    exchange.session_user = functools.partial(session_user, session)


async def session_user(session: Any) -> Any:
    """Return the user ``session`` is logged in as (``AnonymousUser`` when none), as ``aget_user`` does."""
    from django.contrib.auth import aget_user, get_user

    # They read the request's .session only.
    return await sync_or_async(get_user, aget_user, _WithSession(session))


def attach_caller(request: Any, exchange: HttpExchange) -> None:
    """Give a Django request built on a fast path what the middleware would have set.

    ``request.session`` is the caller's session (changes to it are not
    saved: no ``SessionMiddleware`` runs) and ``request.user`` the caller,
    once the endpoint knows it.
    """
    if exchange.session is not None:
        request.session = exchange.session
    if exchange.user is not None:
        request.user = exchange.user


class _WithSession:
    """What ``aget_user()`` reads of a request: its session."""

    __slots__ = ("session",)

    def __init__(self, session: Any) -> None:
        self.session = session


def challenge(
    exchange: HttpExchange,
    *,
    scope: str | None = None,
    error: str | None = None,
    description: str | None = None,
    status: int = 401,
) -> HttpReply:
    """Return a 401 (or ``status``) with a Bearer challenge naming the resource metadata."""
    host = request_host(exchange.headers, exchange.server, exchange.scheme)
    scheme = request_scheme(exchange.scheme, exchange.headers)
    metadata = f"{scheme}://{host}/.well-known/oauth-protected-resource{exchange.path.rstrip('/')}"
    params = []
    if error:
        params.append(f'error="{_quotable(error)}"')
    if description:
        params.append(f'error_description="{_quotable(description)}"')
    params.append(f'resource_metadata="{metadata}"')
    if scope:
        params.append(f'scope="{_quotable(scope)}"')
    body = encode_error(None, InvalidRequest(description or "Authentication required"))
    return json_reply(body, status, ("WWW-Authenticate", "Bearer " + ", ".join(params)))


def _quotable(text: str) -> str:
    # RFC 6750 section 3: error, error_description and scope values use only
    # %x20-21 / %x23-5B / %x5D-7E (printable ASCII without '"' and '\').
    return "".join(char for char in str(text) if " " <= char <= "~" and char not in '"\\')
