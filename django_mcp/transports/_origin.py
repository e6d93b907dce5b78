"""Host and Origin validation against DNS rebinding (MCP 2026-07-28 streamable-http).

The host a request names is Django's rule, applied the way
``request.get_host()`` applies it: ``X-Forwarded-Host`` under
``USE_X_FORWARDED_HOST``, else ``Host``, else ``SERVER_NAME`` and
``SERVER_PORT``; it must match ``ALLOWED_HOSTS`` (Django's own
``validate_host``; under ``DEBUG`` with none set, the loopback names). The
verdict is cached per host until a setting changes. The scheme follows
``SECURE_PROXY_SSL_HEADER``.

A present ``Origin`` header is allowed when it is a loopback origin
(``http(s)://localhost``, ``127.0.0.0/8``, ``[::1]``, any port) or listed
exactly in ``MCP_ALLOWED_ORIGINS``. Anything else, ``null`` included, is
refused. An absent ``Origin`` (non-browser clients) is fine.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http.request import split_domain_port, validate_host

from django_mcp.conf import get_django_settings
from django_mcp.transports._headers import McpHeaders

__all__ = [
    "host_allowed",
    "is_loopback_host",
    "normalize_origin",
    "origin_allowed",
    "request_host",
    "request_scheme",
]


def request_host(headers: McpHeaders, server: tuple[str, str], scheme: str) -> str:
    """Return the host a request names, as Django's ``request.get_host()`` reads it (unvalidated).

    ``scheme`` is the one the server saw (a proxy's header applies here).
    """
    django = get_django_settings()
    forwarded = headers.joined("x-forwarded-host") if django.use_x_forwarded_host else None
    host = forwarded or headers.joined("host")
    if host:
        return host
    name, port = server
    if django.use_x_forwarded_port:
        port = headers.joined("x-forwarded-port") or port
    default = "443" if request_scheme(scheme, headers) == "https" else "80"
    return name if port in ("", default) else f"{name}:{port}"


@functools.lru_cache(maxsize=256)  # clients send the same few Host values
def host_allowed(host: str) -> bool:
    """Return True when ``host`` matches ``ALLOWED_HOSTS`` (Django's rule)."""
    domain, _port = split_domain_port(host)
    return bool(domain) and validate_host(domain, get_django_settings().allowed_hosts)


def request_scheme(scheme: str, headers: McpHeaders) -> str:
    """Return ``https`` when the request is secure, also behind a proxy (``SECURE_PROXY_SSL_HEADER``)."""
    proxy = get_django_settings().secure_proxy_ssl_header
    if proxy is not None:
        sent = headers.joined(proxy[0])
        if sent is not None:
            return "https" if sent.split(",")[0].strip() == proxy[1] else "http"
    return scheme


@receiver(setting_changed)
def _forget(**kwargs: Any) -> None:
    # Any setting may be one host_allowed() depends on; it is cheap to refill.
    host_allowed.cache_clear()


def normalize_origin(origin: str) -> str | None:
    """Return ``scheme://host[:port]`` lowercased, or None if malformed."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def is_loopback_host(host: str) -> bool:
    """Return True for localhost, 127.0.0.0/8 and ::1."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def origin_allowed(origin: str, allowed: Iterable[str]) -> bool:
    """Return True when ``origin`` may call the MCP endpoint."""
    normalized = normalize_origin(origin)
    if normalized is None:
        return False
    host = urlsplit(normalized).hostname or ""
    if is_loopback_host(host):
        return True
    return normalized in {normalize_origin(item) for item in allowed}
