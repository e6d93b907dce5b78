"""Fixtures of the system check tests: each django_mcp check ID, as exact lists of messages.

Settings are changed with pytest-django's ``settings`` fixture; servers are
put straight into ``registry._registry`` (between ``snapshot()`` and
``restore()``) because ``web()``/``local()`` refuse servers that do not
compile.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from django_mcp.registry import registry

#: Sessions in a cache of their own that every worker shares (no W004/W005).
SHARED_CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "mcp-sessions": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:6379/1",
    },
}


@pytest.fixture(autouse=True)
def servers() -> Iterator[None]:
    """Give every test an empty registry it may fill freely, restored afterwards.

    Empty, so that the test project's own servers (the demo library has task
    tools: W006, E023, E024) never add messages to a test's, and servers a
    URLconf mounted with ``as_view()`` are set aside meanwhile.
    """
    saved = registry.snapshot()
    registry.restore({"web": {}, "local": {}, "view": {}})
    try:
        yield
    finally:
        registry.restore(saved)


@pytest.fixture
def shared_sessions(settings: Any) -> None:
    """Keep sessions in a shared cache of their own, so W004 and W005 stay quiet."""
    settings.CACHES = SHARED_CACHES
    settings.MCP_SESSION_CACHE = "mcp-sessions"
