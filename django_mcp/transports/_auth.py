"""Authenticate an HTTP request: resolve its user, or answer with a challenge.

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
from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.utils.module_loading import import_string

from django_mcp.conf import get_setting
from django_mcp.dispatcher.codec import encode_error
from django_mcp.exceptions import AuthenticationFailed, InvalidRequest

__all__ = ["authenticate", "challenge", "get_authenticators"]


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


async def authenticate(
    request: Any, server: Any, *, backends: tuple[str, ...] | None = None
) -> tuple[Any, HttpResponse | None]:
    """Return ``(user, None)``, or ``(None, response)`` when access is refused.

    ``backends`` are the authenticator paths (``MCP_AUTHENTICATION_BACKENDS``
    by default). A server with ``login_required`` answers anonymous callers
    with 401 and a ``WWW-Authenticate`` challenge pointing at the protected
    resource metadata (RFC 9728).
    """
    user = None
    for authenticator in get_authenticators(backends) if backends != () else ():
        method = authenticator.authenticate
        try:
            if inspect.iscoroutinefunction(method):
                user = await method(request)
            else:
                user = await sync_to_async(method, thread_sensitive=True)(request)
        except AuthenticationFailed as exc:
            # An invalid or expired token is refused even where anonymous
            # callers are welcome (MCP 2026-07-28 authorization, "Error Handling").
            return None, challenge(
                request, scope=exc.scope, error=exc.error, description=exc.message, status=exc.status
            )
        if user is not None:
            request.user = user
            break
    if user is None:
        auser = getattr(request, "auser", None)
        if auser is not None:
            user = await auser()
        elif apps.is_installed("django.contrib.auth"):
            from django.contrib.auth.models import AnonymousUser

            user = AnonymousUser()
        # Without django.contrib.auth there is no identity: the caller is
        # anonymous (None), which servers without identity needs accept.
    if getattr(server, "login_required", False) and not getattr(user, "is_authenticated", False):
        return None, challenge(request)
    return user, None


def challenge(
    request: Any,
    *,
    scope: str | None = None,
    error: str | None = None,
    description: str | None = None,
    status: int = 401,
) -> HttpResponse:
    """Return a 401 (or ``status``) with a Bearer challenge naming the resource metadata."""
    response = HttpResponse(
        encode_error(None, InvalidRequest(description or "Authentication required")),
        status=status,
        content_type="application/json",
    )
    metadata = request.build_absolute_uri("/.well-known/oauth-protected-resource" + request.path.rstrip("/"))
    params = []
    if error:
        params.append(f'error="{_quotable(error)}"')
    if description:
        params.append(f'error_description="{_quotable(description)}"')
    params.append(f'resource_metadata="{metadata}"')
    if scope:
        params.append(f'scope="{_quotable(scope)}"')
    response["WWW-Authenticate"] = "Bearer " + ", ".join(params)
    return response


def _quotable(text: str) -> str:
    # RFC 6750 section 3: error, error_description and scope values use only
    # %x20-21 / %x23-5B / %x5D-7E (printable ASCII without '"' and '\').
    return "".join(char for char in str(text) if " " <= char <= "~" and char not in '"\\')
