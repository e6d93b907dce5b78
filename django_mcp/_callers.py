"""Who is calling: one rule for a caller's address and the names it is known by.

Every part of the server that must tell callers apart (the rate limit, the
2025-11-25 sessions each caller opens, the binding of a signed
``requestState``, the owner of a task) asks here:

* ``client_address(source)``: ``MCP_CLIENT_IP``'s function, given Django's
  request, when the setting names one (behind a proxy: read the header that
  proxy sets, trusting it only from the proxy's address); else the peer's
  address (``REMOTE_ADDR``). None outside HTTP (STDIO, the test client).
* ``user_identity(user)``: ``"user:<pk>"`` for an authenticated user.
* ``caller_identity(user, address)``: what counters count, ``user:<pk>``,
  else ``ip:<address>``, else ``"anonymous"`` (every caller without an
  address shares it).
* ``caller_principal(user, address)``: what a signed state or a task is
  bound to, ``user:<pk>``, else ``anonymous:<address>``. Callers behind one
  proxy or NAT share an address.
* ``anonymous_caller()``: the caller nobody identified, ``AnonymousUser``
  (None without ``django.contrib.auth``: no identity at all).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django_mcp.conf import get_client_ip, get_django_settings

if TYPE_CHECKING:
    from django_mcp._types import HttpSource

__all__ = ["anonymous_caller", "caller_identity", "caller_principal", "client_address", "user_identity"]


def anonymous_caller() -> Any:
    """Return the anonymous caller: ``AnonymousUser``, or None without ``django.contrib.auth``."""
    if not get_django_settings().auth_installed:
        # No identity at all: servers that need none accept the caller.
        return None
    from django.contrib.auth.models import AnonymousUser

    return AnonymousUser()


def client_address(source: HttpSource | None) -> str | None:
    """Return the caller's address for ``source`` (``MCP_CLIENT_IP``, else the peer's)."""
    if source is None:
        return None
    resolve = get_client_ip()
    request = source.django_request() if resolve is not None else None
    if resolve is None or request is None:  # no setting, or no Django request to give it (in-process)
        return source.client or None
    address = resolve(request)
    return str(address) if address else None


def user_identity(user: Any) -> str | None:
    """Return ``"user:<pk>"`` for an authenticated user, else None."""
    if user is not None and getattr(user, "is_authenticated", False) and user.pk is not None:
        return f"user:{user.pk}"
    return None


def caller_identity(user: Any, address: str | None) -> str:
    """Return whom to count for: the user, else the client address, else ``"anonymous"``."""
    identity = user_identity(user)
    if identity is not None:
        return identity
    return f"ip:{address}" if address else "anonymous"


def caller_principal(user: Any, address: str | None) -> str:
    """Return who is calling: ``user:<pk>``, else ``anonymous:<address>``."""
    if getattr(user, "is_authenticated", False):
        return f"user:{getattr(user, 'pk', None)}"
    return f"anonymous:{address or ''}"
