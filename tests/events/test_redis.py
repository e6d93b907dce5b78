"""The Redis event backend carries change events between processes.

Two backend instances stand for two worker processes: what one publishes,
the other's listeners receive. The first tests use the shared Redis
(skipped with a reason where none answers on MCP_REDIS_URL; CI starts one).
Fault tests run a private ``redis-server`` (``private_redis``: skipped
without one), which they kill, restart or pause; every wait is bounded.
Several real worker processes are in ``tests/live/test_workers.py``.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from typing import Any

import pytest
from asgiref.sync import async_to_sync

import django_mcp
from django_mcp.events import Event, EventsLost, EventsUnavailable, ForwardFailed, on_forwarded
from tests.events.backend_contract import a_subscribe_routes_later_updates_to_the_sessions_stream

redis = pytest.importorskip("redis", reason="the redis extra is not installed")

URL = os.environ.get("MCP_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _redis_up() -> bool:
    try:
        return bool(redis.Redis.from_url(URL, socket_timeout=0.5).ping())
    except redis.exceptions.ConnectionError:
        return False


shared_redis = pytest.mark.skipif(
    not _redis_up() and not os.environ.get("CI"), reason=f"no Redis server answers at {URL}"
)


@pytest.fixture
def backends(settings):  # type: ignore[no-untyped-def]
    settings.MCP_REDIS_URL = URL
    from django_mcp.events.redis import RedisEventBackend

    return RedisEventBackend(), RedisEventBackend()


@shared_redis
async def test_event_published_by_one_worker_reaches_listeners_of_another(backends) -> None:  # type: ignore[no-untyped-def]
    publisher, listener = backends
    event = Event("app.mcp.Server", "resource_updated", "demo://x")
    async with listener.listen() as events:
        publisher.publish(event)
        received = await asyncio.wait_for(anext(events), timeout=5)
    assert received == event


@shared_redis
async def test_a_task_event_reaches_another_worker_with_its_task_id(backends) -> None:  # type: ignore[no-untyped-def]
    publisher, listener = backends
    event = Event("", "task", task_id="kW3Zs9")
    async with listener.listen() as events:
        publisher.publish(event)
        received = await asyncio.wait_for(anext(events), timeout=5)
    assert received == event
    assert received.uri is None


@shared_redis
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


# ------------------------------------------------------- private Redis

WAIT = 5.0  # seconds: upper bound of every wait below


class AnnouncedServer(django_mcp.Server):
    name = "announced"


def _backend(settings: Any, url: str) -> Any:
    from django_mcp.events.redis import RedisEventBackend

    settings.MCP_REDIS_URL = url
    return RedisEventBackend()


@pytest.fixture
def redis_backends(settings: Any, private_redis: Any) -> tuple[Any, Any]:
    """Return two backends (two "workers") on the private Redis."""
    settings.MCP_EVENT_BACKEND = "django_mcp.events.redis.RedisEventBackend"
    return _backend(settings, private_redis.url), _backend(settings, private_redis.url)


async def test_a_lost_subscription_ends_its_listeners_then_listening_works_again(
    redis_backends: tuple[Any, Any], private_redis: Any
) -> None:
    publisher, listener = redis_backends
    async with listener.listen() as events:
        publisher.publish(Event("s", "tools"))
        assert await asyncio.wait_for(anext(events), WAIT) == Event("s", "tools")

        private_redis.client().client_kill_filter(_type="pubsub")

        with pytest.raises(EventsLost):
            await asyncio.wait_for(anext(events), WAIT)

    async def listening_again() -> Event:
        while True:
            try:
                async with listener.listen() as events:
                    publisher.publish(Event("s", "prompts"))
                    return await anext(events)  # type: ignore[no-any-return]
            except EventsUnavailable:
                await asyncio.sleep(0.05)

    assert await asyncio.wait_for(listening_again(), WAIT) == Event("s", "prompts")


async def test_listening_while_redis_is_down_is_refused_with_a_retry_hint(
    redis_backends: tuple[Any, Any], private_redis: Any
) -> None:
    _, listener = redis_backends
    private_redis.stop()

    started = time.monotonic()
    with pytest.raises(EventsUnavailable) as refused:
        async with listener.listen():
            pytest.fail("listening while Redis is down")

    assert time.monotonic() - started < WAIT
    assert refused.value.retry_after >= 1


async def test_the_first_listener_waits_for_a_slow_first_attempt_to_subscribe(
    redis_backends: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that just started (redis-py still importing, a busy machine)
    admits its first listener once subscribed, not refuses it as "starting"."""
    from django_mcp.events import redis as redis_events

    publisher, listener = redis_backends
    subscribe = redis_events._Subscription._subscribe

    async def slow_subscribe(self: Any, pubsub: Any) -> None:
        await asyncio.sleep(redis_events.LISTEN_WAIT * 1.5)
        await subscribe(self, pubsub)

    monkeypatch.setattr(redis_events._Subscription, "_subscribe", slow_subscribe)

    async with listener.listen() as events:
        publisher.publish(Event("s", "tools"))
        assert await asyncio.wait_for(anext(events), WAIT) == Event("s", "tools")


def _announce_in_short_lived_loops(count: int) -> None:
    """Announce from coroutines of event loops that end right after (a task, a command)."""

    async def announce() -> None:
        django_mcp.tools_changed(AnnouncedServer)

    for index in range(count):
        if index % 2:
            asyncio.run(announce())
        else:
            async_to_sync(announce)()


async def test_announcing_from_short_lived_event_loops_delivers_every_event(
    redis_backends: tuple[Any, Any],
) -> None:
    _, listener = redis_backends
    async with listener.listen() as events:
        await asyncio.to_thread(_announce_in_short_lived_loops, 10)
        received = [await asyncio.wait_for(anext(events), WAIT) for _ in range(10)]

    assert received == [Event(django_mcp.events.server_key(AnnouncedServer), "tools")] * 10


async def test_announcing_from_async_code_reuses_one_connection(
    redis_backends: tuple[Any, Any], private_redis: Any
) -> None:
    publisher, _ = redis_backends
    client = private_redis.client()
    publisher.publish(Event("s", "tools"))  # the publishing connection opens once
    await asyncio.to_thread(_flushed, publisher)
    before = client.info("stats")["total_connections_received"]

    for _ in range(20):
        publisher.publish(Event("s", "tools"))
    await asyncio.to_thread(_flushed, publisher)

    assert client.info("stats")["total_connections_received"] == before


def _flushed(backend: Any) -> None:
    from django_mcp.events.redis import _publisher

    assert _publisher(backend.url).flush(WAIT)


def test_announcing_returns_at_once_while_redis_is_paused(
    redis_backends: tuple[Any, Any], private_redis: Any
) -> None:
    publisher, _ = redis_backends
    private_redis.client().client_pause(3000)  # milliseconds, every command

    started = time.monotonic()
    for _ in range(5):
        publisher.publish(Event("s", "tools"))
    elapsed = time.monotonic() - started

    assert elapsed < 0.2


async def test_two_deployments_sharing_one_redis_never_hear_each_other(
    settings: Any, private_redis: Any
) -> None:
    settings.SECRET_KEY = "first-project-" + "x" * 40
    first = _backend(settings, private_redis.url)
    settings.SECRET_KEY = "second-project-" + "y" * 40
    second = _backend(settings, private_redis.url)
    assert first.events_channel != second.events_channel

    async with first.listen() as first_events, second.listen() as second_events:
        second.publish(Event("s", "tools"))
        first.publish(Event("s", "prompts"))
        got = await asyncio.wait_for(asyncio.gather(anext(first_events), anext(second_events)), WAIT)

    assert got == [Event("s", "prompts"), Event("s", "tools")]


def test_the_event_namespace_setting_names_the_channels(settings: Any, private_redis: Any) -> None:
    settings.MCP_EVENT_NAMESPACE = "shop-prod"

    backend = _backend(settings, private_redis.url)

    assert (backend.events_channel, backend.control_channel) == (
        "django_mcp:shop-prod:events",
        "django_mcp:shop-prod:control",
    )


class Taker:
    """Takes forwarded messages addressed to it, once each."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.taken: list[Any] = []
        self.lock = threading.Lock()
        on_forwarded(self.take)

    def take(self, message: Any) -> bool:
        with self.lock:
            if message.get("to") != self.name or message in self.taken:
                return False
            self.taken.append(message)
            return True


async def test_a_forwarded_message_is_taken_by_the_process_it_concerns(
    redis_backends: tuple[Any, Any],
) -> None:
    forwarder, other = redis_backends
    taker = Taker("holder")
    async with other.listen():  # the other "worker" is subscribed too
        assert await forwarder.forward({"to": "holder", "n": 1}) is True
        assert await forwarder.forward({"to": "nobody", "n": 2}) is False

    assert taker.taken == [{"to": "holder", "n": 1}]


async def test_forwarding_while_redis_is_down_fails(
    redis_backends: tuple[Any, Any], private_redis: Any
) -> None:
    forwarder, _ = redis_backends
    private_redis.stop()

    with pytest.raises(ForwardFailed):
        await asyncio.wait_for(forwarder.forward({"to": "holder"}), WAIT)


@shared_redis
async def test_a_subscribe_in_one_worker_routes_later_updates_to_the_sessions_stream_in_another(
    backends,
) -> None:  # type: ignore[no-untyped-def]
    publisher, listener = backends
    await a_subscribe_routes_later_updates_to_the_sessions_stream(publisher, listener, wait=WAIT)
