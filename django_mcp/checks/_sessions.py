"""Checks of the cache that keeps MCP sessions (``MCP_SESSION_CACHE``).

- ``E007`` ``MCP_SESSION_CACHE`` is not an alias in ``CACHES``

Deployment (``manage.py check --deploy``):

- ``W004`` ``MCP_SESSION_CACHE`` shares the rate-limit counters' culling cache
- ``W005`` ``MCP_SESSION_CACHE`` is a per-process (or dummy) cache
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.cache.backends.db import DatabaseCache
from django.core.cache.backends.dummy import DummyCache
from django.core.cache.backends.filebased import FileBasedCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.checks import CheckMessage, Error
from django.core.checks import Warning as CheckWarning
from django.utils.translation import gettext as _

from django_mcp.checks._loading import import_dotted
from django_mcp.conf import get_setting
from django_mcp.ratelimit import CACHE_ALIAS

__all__ = ["check_session_cache", "check_session_cache_deploy"]


def check_session_cache() -> list[CheckMessage]:
    """Report an ``MCP_SESSION_CACHE`` that names no cache."""
    alias = get_setting("MCP_SESSION_CACHE")
    caches = settings.CACHES
    if isinstance(alias, str) and alias in caches:
        return []
    known = ", ".join(repr(name) for name in caches) or _("none")
    return [
        Error(
            _("MCP_SESSION_CACHE {alias!r} is not an alias in CACHES.").format(alias=alias),
            hint=_(
                "Set MCP_SESSION_CACHE to one of the configured caches ({known}), or "
                "add that alias to CACHES."
            ).format(known=known),
            id="django_mcp.E007",
        )
    ]


def check_session_cache_deploy() -> list[CheckMessage]:
    """Warn when sessions share a culling cache with the rate-limit counters, or stay in one process."""
    alias = get_setting("MCP_SESSION_CACHE")
    backend = _cache_backend(alias)
    if backend is None:
        return []  # E007 (or Django's own cache checks) report it
    messages: list[CheckMessage] = []
    # These three cull: past MAX_ENTRIES (300 unless set) a write deletes
    # other keys, so anonymous initialize calls could evict counters.
    if issubclass(backend, LocMemCache | FileBasedCache | DatabaseCache) and _same_storage(
        alias, CACHE_ALIAS
    ):
        messages.append(
            CheckWarning(
                _(
                    "MCP_SESSION_CACHE {alias!r} is stored with the rate-limit counters "
                    "(cache {cache_alias!r}) in {backend_name}, which culls entries past "
                    "MAX_ENTRIES: creating sessions can evict rate-limit counters and "
                    "other sessions."
                ).format(alias=alias, cache_alias=CACHE_ALIAS, backend_name=backend.__name__),
                hint=_(
                    'Give sessions a cache alias of their own, e.g. CACHES["mcp-sessions"] '
                    "on a shared Redis or Memcached server and MCP_SESSION_CACHE = "
                    '"mcp-sessions".'
                ),
                id="django_mcp.W004",
            )
        )
    if issubclass(backend, LocMemCache | DummyCache):
        dummy = issubclass(backend, DummyCache)
        problem = (
            _("it stores nothing, so every 2025-11-25 session is unknown (404) right after initialize")
            if dummy
            else _(
                "each worker process has its own, so a 2025-11-25 session is unknown (404) on "
                "every worker but the one that created it"
            )
        )
        messages.append(
            CheckWarning(
                _("MCP_SESSION_CACHE {alias!r} uses {backend_name}: {problem}.").format(
                    alias=alias, backend_name=backend.__name__, problem=problem
                ),
                hint=(
                    _(
                        "Point MCP_SESSION_CACHE at a cache every worker shares (Redis, "
                        "Memcached, the database cache)."
                    )
                    if dummy
                    else _(
                        "Point MCP_SESSION_CACHE at a cache every worker shares (Redis, "
                        'Memcached, the database cache); with a single process, add "django_mcp.W005" '
                        "to SILENCED_SYSTEM_CHECKS."
                    )
                ),
                id="django_mcp.W005",
            )
        )
    return messages


def _cache_backend(alias: Any) -> type | None:
    """Return the backend class of cache ``alias``, or None if unknown."""
    config = settings.CACHES.get(alias) if isinstance(alias, str) else None
    if not isinstance(config, dict):
        return None
    backend, problem = import_dotted(config.get("BACKEND"))
    return backend if problem is None and isinstance(backend, type) else None


def _same_storage(alias: str, other: str) -> bool:
    """Return True when two cache aliases keep their entries in one store."""
    if alias == other:
        return True
    first, second = settings.CACHES.get(alias, {}), settings.CACHES.get(other, {})
    # Two LocMemCache (or file-based) aliases with one LOCATION share it.
    return bool(
        first.get("BACKEND") == second.get("BACKEND")
        and first.get("LOCATION", "") == second.get("LOCATION", "")
    )
