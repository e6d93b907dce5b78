"""Settings for django_mcp: defaults, lazy access, reload on change.

This is the only module that reads ``django.conf.settings``. Every setting is
a top-level ``MCP_*`` name; values are read when first needed (never at
import time) and re-read after ``setting_changed`` so ``override_settings``
and pytest-django's ``settings`` fixture work.

Limits (all enforced per request, exceeding one gives a specific error):

``MCP_MAX_REQUEST_SIZE``        1 MiB   bytes of one incoming message
``MCP_MAX_RESPONSE_SIZE``       4 MiB   bytes of one encoded response
``MCP_MAX_METADATA_SIZE``       64 KiB  bytes of a result's encoded ``_meta``
``MCP_DEFAULT_PAGE_SIZE``       50      list items per page
``MCP_MAX_PAGE_SIZE``           100     upper bound for any page
``MCP_MAX_CONCURRENT_REQUESTS`` 32      requests in flight per process
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Final

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

__all__ = ["DEFAULT_LIMITS", "DEFAULTS", "Limits", "McpSettings", "get_limits", "get_setting", "get_settings"]

KiB: Final = 1024
MiB: Final = 1024 * KiB


@dataclasses.dataclass(frozen=True, slots=True)
class Limits:
    """Resource bounds applied to every request."""

    max_request_size: int = 1 * MiB  # bytes
    max_response_size: int = 4 * MiB  # bytes
    max_metadata_size: int = 64 * KiB  # bytes
    default_page_size: int = 50  # items
    max_page_size: int = 100  # items
    max_concurrent_requests: int = 32  # per process


DEFAULT_LIMITS: Final = Limits()
"""The limits used when no ``MCP_*`` limit setting is given."""

DEFAULTS: Final[dict[str, Any]] = {
    "MCP_MAX_REQUEST_SIZE": DEFAULT_LIMITS.max_request_size,
    "MCP_MAX_RESPONSE_SIZE": DEFAULT_LIMITS.max_response_size,
    "MCP_MAX_METADATA_SIZE": DEFAULT_LIMITS.max_metadata_size,
    "MCP_DEFAULT_PAGE_SIZE": DEFAULT_LIMITS.default_page_size,
    "MCP_MAX_PAGE_SIZE": DEFAULT_LIMITS.max_page_size,
    "MCP_MAX_CONCURRENT_REQUESTS": DEFAULT_LIMITS.max_concurrent_requests,
    # Origins allowed besides loopback ones, e.g. ["https://app.example.com"].
    "MCP_ALLOWED_ORIGINS": [],
    # Seconds a signed requestState (multi round-trip) stays valid.
    "MCP_REQUEST_STATE_MAX_AGE": 600,
    # Cache alias holding 2025-11-25 sessions, and their idle lifetime (s).
    "MCP_SESSION_CACHE": "default",
    "MCP_SESSION_TIMEOUT": 3600,
    # Dotted path of the change-notification backend.
    "MCP_EVENT_BACKEND": "django_mcp.events.memory.MemoryEventBackend",
    # Redis URL for django_mcp.events.redis.RedisEventBackend.
    "MCP_REDIS_URL": "redis://127.0.0.1:6379/0",
    # Dotted paths of request authenticators tried in order (bearer tokens).
    "MCP_AUTHENTICATION_BACKENDS": [],
    # OAuth 2.0 Protected Resource Metadata (RFC 9728) for 401 challenges.
    "MCP_RESOURCE_METADATA": None,
    # Tool calls per identity, e.g. "60/m" (None: unlimited).
    "MCP_RATE_LIMIT": None,
    # Seconds between SSE keep-alive comments on long-lived streams.
    "MCP_SSE_KEEPALIVE": 20,
    # Put io.modelcontextprotocol/serverInfo in every result's _meta.
    "MCP_SERVER_INFO": True,
}
"""Every ``MCP_*`` setting with its default."""


def get_setting(name: str) -> Any:
    """Return the value of setting ``name`` (project value or default)."""
    if name not in DEFAULTS:
        raise KeyError(f"unknown django_mcp setting {name!r}")
    return _read(name)


@functools.cache
def _read(name: str) -> Any:
    return getattr(settings, name, DEFAULTS[name])


@functools.cache
def get_limits() -> Limits:
    """Return the configured ``Limits`` (cached until a setting changes)."""
    return Limits(
        max_request_size=get_setting("MCP_MAX_REQUEST_SIZE"),
        max_response_size=get_setting("MCP_MAX_RESPONSE_SIZE"),
        max_metadata_size=get_setting("MCP_MAX_METADATA_SIZE"),
        default_page_size=get_setting("MCP_DEFAULT_PAGE_SIZE"),
        max_page_size=get_setting("MCP_MAX_PAGE_SIZE"),
        max_concurrent_requests=get_setting("MCP_MAX_CONCURRENT_REQUESTS"),
    )


@dataclasses.dataclass(frozen=True, slots=True)
class McpSettings:
    """Every setting the request path reads, as one value.

    The dispatcher and the transports receive this value instead of reading
    Django's settings on each request; ``get_settings()`` builds it once and
    again after ``setting_changed``.
    """

    limits: Limits = DEFAULT_LIMITS
    allowed_origins: tuple[str, ...] = ()
    request_state_max_age: int = 600  # seconds
    session_cache: str = "default"
    session_timeout: int = 3600  # seconds
    authentication_backends: tuple[str, ...] = ()
    rate_limit: str | None = None
    sse_keepalive: float = 20  # seconds
    server_info: bool = True


@functools.cache
def get_settings() -> McpSettings:
    """Return the configured ``McpSettings`` (cached until a setting changes)."""
    return McpSettings(
        limits=get_limits(),
        allowed_origins=tuple(get_setting("MCP_ALLOWED_ORIGINS")),
        request_state_max_age=get_setting("MCP_REQUEST_STATE_MAX_AGE"),
        session_cache=get_setting("MCP_SESSION_CACHE"),
        session_timeout=get_setting("MCP_SESSION_TIMEOUT"),
        authentication_backends=tuple(get_setting("MCP_AUTHENTICATION_BACKENDS")),
        rate_limit=get_setting("MCP_RATE_LIMIT"),
        sse_keepalive=get_setting("MCP_SSE_KEEPALIVE"),
        server_info=bool(get_setting("MCP_SERVER_INFO")),
    )


@receiver(setting_changed)
def _reload(*, setting: str, **kwargs: Any) -> None:
    if setting.startswith("MCP_") or setting in ("SECRET_KEY", "DEBUG"):
        _read.cache_clear()
        get_limits.cache_clear()
        get_settings.cache_clear()
