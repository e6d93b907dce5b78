"""The in-process event backend and the public notify functions."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import django_mcp
from django_mcp.events import Event, EventsLost, get_backend, server_key
from django_mcp.events.memory import MemoryEventBackend
from django_mcp.server.server import Server


class NotifyingServer(Server):
    name = "notifying"


async def test_every_listener_receives_a_published_event() -> None:
    backend = MemoryEventBackend()
    async with backend.listen() as first, backend.listen() as second:
        backend.publish(Event("s", "tools"))
        got = await asyncio.wait_for(asyncio.gather(anext(first), anext(second)), timeout=2)
    assert got == [Event("s", "tools"), Event("s", "tools")]


async def test_events_published_from_another_thread_are_delivered() -> None:
    backend = MemoryEventBackend()
    async with backend.listen() as events:
        thread = threading.Thread(target=backend.publish, args=(Event("s", "prompts"),))
        thread.start()
        thread.join(timeout=2)
        assert await asyncio.wait_for(anext(events), timeout=2) == Event("s", "prompts")


async def test_a_closed_listener_no_longer_receives_events() -> None:
    backend = MemoryEventBackend()
    async with backend.listen():
        pass
    backend.publish(Event("s", "tools"))  # nobody listening: no error
    assert backend._listeners == set()


async def test_notify_functions_publish_events_keyed_by_server() -> None:
    key = server_key(NotifyingServer)
    async with get_backend().listen() as events:
        django_mcp.tools_changed(NotifyingServer)
        django_mcp.prompts_changed(NotifyingServer)
        django_mcp.resources_changed(NotifyingServer)
        django_mcp.resource_updated(NotifyingServer, "demo://a")
        got = [await asyncio.wait_for(anext(events), timeout=2) for _ in range(4)]
    assert got == [
        Event(key, "tools"),
        Event(key, "prompts"),
        Event(key, "resources"),
        Event(key, "resource_updated", "demo://a"),
    ]


def test_resource_updated_refuses_a_missing_uri() -> None:
    with pytest.raises(ValueError, match="URI"):
        django_mcp.resource_updated(NotifyingServer, "")


def test_unknown_event_backend_setting_is_a_configuration_error(settings) -> None:  # type: ignore[no-untyped-def]
    from django.core.exceptions import ImproperlyConfigured

    settings.MCP_EVENT_BACKEND = "nowhere.Backend"
    with pytest.raises(ImproperlyConfigured):
        get_backend()


@pytest.mark.parametrize(("published", "received"), [(3, ["demo://0", "demo://1", "demo://2"]), (5, None)])
async def test_a_listener_gets_every_event_within_its_buffer_and_loses_its_stream_past_it(
    settings: Any, published: int, received: list[str] | None
) -> None:
    settings.MCP_STREAM_BUFFER = 3
    backend = MemoryEventBackend()
    async with backend.listen() as events:
        for index in range(published):
            backend.publish(Event("s", "resource_updated", f"demo://{index}"))
        if received is None:  # nothing is skipped silently: the stream is lost
            with pytest.raises(EventsLost, match="MCP_STREAM_BUFFER"):
                await asyncio.wait_for(anext(events), timeout=2)
        else:
            got = [await asyncio.wait_for(anext(events), timeout=2) for _ in received]
            assert [event.uri for event in got] == received
