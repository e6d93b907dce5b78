"""The in-process event backend and the public notify functions."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

import pytest

import django_mcp
from django_mcp.events import Event, EventsLost, Interest, get_backend, server_key
from django_mcp.events.memory import MemoryEventBackend, _Listener
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


# ------------------------------------------------------ fan-out by interest


async def _offers_for_one_event(monkeypatch: pytest.MonkeyPatch, uninterested: int) -> tuple[int, Event]:
    """Publish one update with 1 interested and ``uninterested`` other listeners; count the offers."""
    offers: list[Event] = []
    offer = _Listener.offer

    def counted(listener: _Listener, event: Event) -> None:
        offers.append(event)
        offer(listener, event)

    monkeypatch.setattr(_Listener, "offer", counted)
    backend = MemoryEventBackend()
    async with contextlib.AsyncExitStack() as stack:
        for n in range(uninterested):  # other URIs, lists, tasks, sessions and servers
            interest = [
                Interest("s", uris=frozenset({f"demo://other/{n}"})),
                Interest("s", lists=frozenset({"prompts"}), session=f"session-{n}"),
                Interest("", tasks=frozenset({f"task-{n}"})),
                Interest("another.Server", uris=frozenset({"demo://watched"}), lists=frozenset({"tools"})),
            ][n % 4]
            await stack.enter_async_context(backend.listen(interest))
        events = await stack.enter_async_context(
            backend.listen(Interest("s", uris=frozenset({"demo://watched"})))
        )
        backend.publish(Event("s", "resource_updated", "demo://watched/item"))
        received = await asyncio.wait_for(anext(events), timeout=2)
    return len(offers), received


async def test_an_event_visits_only_the_listeners_that_asked_for_it_however_many_others_listen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    alone = await _offers_for_one_event(monkeypatch, uninterested=0)
    crowded = await _offers_for_one_event(monkeypatch, uninterested=500)

    assert alone == crowded == (1, Event("s", "resource_updated", "demo://watched/item"))


async def test_a_listener_gets_the_events_of_its_interest_and_nothing_else() -> None:
    backend = MemoryEventBackend()
    interest = Interest(
        "s", lists=frozenset({"tools"}), uris=frozenset({"demo://a"}), tasks=frozenset({"t1"})
    )
    async with backend.listen(interest) as events:
        for event in [
            Event("s", "prompts"),
            Event("other", "tools"),
            Event("s", "resource_updated", "demo://b"),
            Event("", "task", task_id="t2"),
            Event("s", "tools"),
            Event("s", "resource_updated", "demo://a/1"),
            Event("", "task", task_id="t1"),
        ]:
            backend.publish(event)
        got = [await asyncio.wait_for(anext(events), timeout=2) for _ in range(3)]
        backend.publish(Event("s", "tools"))  # a marker: nothing was queued before it
        marker = await asyncio.wait_for(anext(events), timeout=2)
    assert got == [
        Event("s", "tools"),
        Event("s", "resource_updated", "demo://a/1"),
        Event("", "task", task_id="t1"),
    ]
    assert marker == Event("s", "tools")


async def test_want_changes_what_a_listener_gets() -> None:
    backend = MemoryEventBackend()
    async with backend.listen(Interest("s", lists=frozenset({"tools"}))) as events:
        events.want(Interest("s", lists=frozenset({"prompts"})))
        backend.publish(Event("s", "tools"))
        backend.publish(Event("s", "prompts"))
        assert await asyncio.wait_for(anext(events), timeout=2) == Event("s", "prompts")


async def test_a_subscribe_published_from_another_thread_routes_the_updates_published_after_it() -> None:
    backend = MemoryEventBackend()
    update = Event("s", "resource_updated", "demo://new")

    def subscribe_then_update() -> None:
        backend.publish(Event("", "subscribed", "demo://new", session="s1"))
        backend.publish(update)

    async with backend.listen(Interest("s", session="s1")) as events:
        thread = threading.Thread(target=subscribe_then_update)
        thread.start()
        thread.join(timeout=2)
        got = [await asyncio.wait_for(anext(events), timeout=2) for _ in range(2)]
    assert got == [Event("", "subscribed", "demo://new", session="s1"), update]
