"""System checks of the session cache (E007, W004, W005)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.checks import Error, Warning

from django_mcp.checks import check_deploy, check_settings
from tests.checks.components import SILENT_BACKEND

# ------------------------------------------------------------------ E007


def test_session_cache_missing_from_caches_is_e007(settings: Any) -> None:
    settings.MCP_SESSION_CACHE = "sessions"
    assert check_settings() == [
        Error(
            "MCP_SESSION_CACHE 'sessions' is not an alias in CACHES.",
            hint="Set MCP_SESSION_CACHE to one of the configured caches ('default'), "
            "or add that alias to CACHES.",
            id="django_mcp.E007",
        )
    ]


def test_session_cache_naming_a_configured_alias_passes(settings: Any) -> None:
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "sessions": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "s"},
    }
    settings.MCP_SESSION_CACHE = "sessions"
    assert check_settings() == []


# ----------------------------------------------------------- W004 / W005


LOCMEM = "django.core.cache.backends.locmem.LocMemCache"


W005_HINT = (
    "Point MCP_SESSION_CACHE at a cache every worker shares (Redis, Memcached, the database cache); "
    'with a single process, add "django_mcp.W005" to SILENCED_SYSTEM_CHECKS.'
)


def w004(alias: str, backend: str) -> Warning:
    return Warning(
        f"MCP_SESSION_CACHE {alias!r} is stored with the rate-limit counters (cache 'default') in "
        f"{backend}, which culls entries past MAX_ENTRIES: creating sessions can evict rate-limit "
        "counters and other sessions.",
        hint='Give sessions a cache alias of their own, e.g. CACHES["mcp-sessions"] on a shared Redis '
        'or Memcached server and MCP_SESSION_CACHE = "mcp-sessions".',
        id="django_mcp.W004",
    )


def w005(alias: str) -> Warning:
    return Warning(
        f"MCP_SESSION_CACHE {alias!r} uses LocMemCache: each worker process has its own, so a "
        "2025-11-25 session is unknown (404) on every worker but the one that created it.",
        hint=W005_HINT,
        id="django_mcp.W005",
    )


@pytest.fixture
def quiet_events(settings: Any) -> None:
    """Leave the sessions as the test sets them; silence W001 and W002."""
    settings.ALLOWED_HOSTS = ["localhost"]
    settings.MCP_EVENT_BACKEND = SILENT_BACKEND


def test_sessions_in_the_default_local_memory_cache_are_w004_and_w005(
    settings: Any, quiet_events: None
) -> None:
    settings.CACHES = {"default": {"BACKEND": LOCMEM}}
    settings.MCP_SESSION_CACHE = "default"
    assert check_deploy() == [w004("default", "LocMemCache"), w005("default")]


def test_alias_sharing_the_default_local_memory_store_is_w004(settings: Any, quiet_events: None) -> None:
    # Two LocMemCache aliases with one LOCATION ("" unless set) are one store.
    settings.CACHES = {"default": {"BACKEND": LOCMEM}, "sessions": {"BACKEND": LOCMEM}}
    settings.MCP_SESSION_CACHE = "sessions"
    assert check_deploy() == [w004("sessions", "LocMemCache"), w005("sessions")]


@pytest.mark.parametrize(
    ("backend", "name"),
    [
        ("django.core.cache.backends.filebased.FileBasedCache", "FileBasedCache"),
        ("django.core.cache.backends.db.DatabaseCache", "DatabaseCache"),
    ],
)
def test_sessions_in_a_culling_shared_default_cache_are_w004(
    settings: Any, quiet_events: None, backend: str, name: str
) -> None:
    settings.CACHES = {"default": {"BACKEND": backend, "LOCATION": "mcp_cache"}}
    settings.MCP_SESSION_CACHE = "default"
    assert check_deploy() == [w004("default", name)]


def test_sessions_in_a_local_memory_cache_of_their_own_are_w005(settings: Any, quiet_events: None) -> None:
    settings.CACHES = {"default": {"BACKEND": LOCMEM}, "sessions": {"BACKEND": LOCMEM, "LOCATION": "s"}}
    settings.MCP_SESSION_CACHE = "sessions"
    assert check_deploy() == [w005("sessions")]


def test_sessions_in_a_dummy_cache_are_w005(settings: Any, quiet_events: None) -> None:
    settings.CACHES = {
        "default": {"BACKEND": LOCMEM},
        "sessions": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"},
    }
    settings.MCP_SESSION_CACHE = "sessions"
    assert check_deploy() == [
        Warning(
            "MCP_SESSION_CACHE 'sessions' uses DummyCache: it stores nothing, so every 2025-11-25 "
            "session is unknown (404) right after initialize.",
            hint="Point MCP_SESSION_CACHE at a cache every worker shares (Redis, Memcached, "
            "the database cache).",
            id="django_mcp.W005",
        )
    ]


def test_sessions_in_a_shared_cache_of_their_own_pass(
    settings: Any, quiet_events: None, shared_sessions: None
) -> None:
    assert check_deploy() == []
