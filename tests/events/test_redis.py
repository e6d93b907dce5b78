"""The Redis event backend carries change events between processes.

Two backend instances stand for two worker processes: what one publishes,
the other's listeners receive. Skipped with a reason where no Redis server
answers on MCP_REDIS_URL; CI starts one.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from django_mcp.events import Event

redis = pytest.importorskip("redis", reason="the redis extra is not installed")

URL = os.environ.get("MCP_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _redis_up() -> bool:
    try:
        return bool(redis.Redis.from_url(URL, socket_timeout=0.5).ping())
    except redis.exceptions.ConnectionError:
        return False


pytestmark = pytest.mark.skipif(
    not _redis_up() and not os.environ.get("CI"), reason=f"no Redis server answers at {URL}"
)


@pytest.fixture
def backends(settings):  # type: ignore[no-untyped-def]
    settings.MCP_REDIS_URL = URL
    from django_mcp.events.redis import RedisEventBackend

    return RedisEventBackend(), RedisEventBackend()


async def test_event_published_by_one_worker_reaches_listeners_of_another(backends) -> None:  # type: ignore[no-untyped-def]
    publisher, listener = backends
    event = Event("app.mcp.Server", "resource_updated", "demo://x")
    async with listener.listen() as events:
        publisher.publish(event)
        received = await asyncio.wait_for(anext(events), timeout=5)
    assert received == event


def test_publishing_from_sync_code_reaches_async_listeners(backends) -> None:  # type: ignore[no-untyped-def]
    publisher, listener = backends

    async def scenario() -> Event:
        async with listener.listen() as events:
            await asyncio.to_thread(publisher.publish, Event("s", "tools"))
            return await asyncio.wait_for(anext(events), timeout=5)

    assert asyncio.run(scenario()) == Event("s", "tools")


def test_backend_check_reports_a_malformed_url(settings) -> None:  # type: ignore[no-untyped-def]
    settings.MCP_REDIS_URL = "http://not-redis"
    from django_mcp.events.redis import RedisEventBackend

    assert [m.id for m in RedisEventBackend().check()] == ["django_mcp.E021"]


def test_backend_check_reports_a_missing_redis_package(settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import builtins

    from django_mcp.events.redis import RedisEventBackend

    real_import = builtins.__import__

    def no_redis(name, *args, **kwargs):  # type: ignore[no-untyped-def]
        if name == "redis" or name.startswith("redis."):
            raise ImportError("No module named 'redis'")
        return real_import(name, *args, **kwargs)

    backend = RedisEventBackend()
    monkeypatch.setattr(builtins, "__import__", no_redis)
    assert [m.id for m in backend.check()] == ["django_mcp.E020"]
