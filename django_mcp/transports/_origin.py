"""Origin validation against DNS rebinding (MCP 2026-07-28 streamable-http).

A present ``Origin`` header is allowed when it is a loopback origin
(``http(s)://localhost``, ``127.0.0.0/8``, ``[::1]``, any port) or listed
exactly in ``MCP_ALLOWED_ORIGINS``. Anything else, ``null`` included, is
refused. An absent ``Origin`` (non-browser clients) is fine.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

__all__ = ["is_loopback_host", "normalize_origin", "origin_allowed"]


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
