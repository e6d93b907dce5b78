"""Resolve the identity of an HTTP request and challenge anonymous callers.

Authenticators listed in ``MCP_AUTHENTICATION_BACKENDS`` are dotted paths
to classes with ``authenticate(request)`` (sync or async) returning a user
or None; the first user wins. Otherwise the session user set by Django's
``AuthenticationMiddleware`` is used. Bearer tokens are never read from the
query string.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from asgiref.sync import sync_to_async
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.utils.module_loading import import_string

from django_mcp.conf import get_setting
from django_mcp.dispatcher import encode_error
from django_mcp.exceptions import InvalidRequest

__all__ = ["authenticate", "challenge", "get_authenticators"]


@functools.cache
def _load(paths: tuple[str, ...]) -> tuple[Any, ...]:
    out = []
    for path in paths:
        try:
            out.append(import_string(path)())
        except ImportError as exc:
            raise ImproperlyConfigured(f"MCP_AUTHENTICATION_BACKENDS: cannot import {path!r}: {exc}") from None
    return tuple(out)


def get_authenticators() -> tuple[Any, ...]:
    """Return instances of the configured authenticators."""
    return _load(tuple(get_setting("MCP_AUTHENTICATION_BACKENDS")))


async def authenticate(request: Any, server: Any) -> tuple[Any, HttpResponse | None]:
    """Return ``(user, None)``, or ``(None, response)`` when access is refused."""
    user = None
    for authenticator in get_authenticators():
        method = authenticator.authenticate
        if inspect.iscoroutinefunction(method):
            user = await method(request)
        else:
            user = await sync_to_async(method, thread_sensitive=True)(request)
        if user is not None:
            request.user = user
            break
    if user is None:
        auser = getattr(request, "auser", None)
        if auser is not None:
            user = await auser()
        else:
            from django.contrib.auth.models import AnonymousUser

            user = AnonymousUser()
    if getattr(server, "login_required", False) and not getattr(user, "is_authenticated", False):
        return None, challenge(request)
    return user, None


def challenge(request: Any, *, scope: str | None = None) -> HttpResponse:
    """Return a 401 with a Bearer challenge naming the resource metadata."""
    response = HttpResponse(
        encode_error(None, InvalidRequest("Authentication required")),
        status=401,
        content_type="application/json",
    )
    metadata = request.build_absolute_uri("/.well-known/oauth-protected-resource" + request.path.rstrip("/"))
    value = f'Bearer resource_metadata="{metadata}"'
    if scope:
        value += f', scope="{scope}"'
    response["WWW-Authenticate"] = value
    return response
