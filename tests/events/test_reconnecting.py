"""The reconnect loop the Redis and PostgreSQL event backends share, with a fake broker.

The fake's connection attempts fail or succeed as each test scripts them;
its backoff is zero, so every step is a few turns of the event loop and
nothing waits on a clock.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from django_mcp.events import Event
from django_mcp.events._reconnecting import Reconnecting, close_quietly
from django_mcp.events.base import EventsLost, EventsUnavailable
from django_mcp.events.memory import MemoryEventBackend

WAIT = 5.0  # seconds: bound of every wait (each step takes a few loop turns)


class _Backend:
    def __init__(self) -> None:
        self._local = MemoryEventBackend()
        self.forgotten: list[Reconnecting] = []

    def _forget(self, subscription: Reconnecting) -> None:
        self.forgotten.append(subscription)


class _Fake(Reconnecting):
    task_name = "fake broker"
    starting = "the fake broker is starting"
    failed = "the fake broker failed ({error})"
    back = "The fake broker is back after %d attempts"
    lost = "The fake broker was lost (%s)"
    ended = "the fake broker was lost"
    retrying = "Could not reach the fake broker (%s)"

    def __init__(self, backend: _Backend, loop: asyncio.AbstractEventLoop, outcomes: list[str]) -> None:
        #: What each attempt does: "fail" to connect, else connect and wait for ``drop``.
        self.outcomes = outcomes
        self.attempts = 0
        self.closed = 0
        self.drop = asyncio.Event()
        super().__init__(backend, loop)

    def _backoff(self) -> tuple[float, float]:
        return 0.0, 0.0

    async def _connect(self, closing: contextlib.AsyncExitStack) -> Any:
        self.attempts += 1
        closing.push_async_callback(close_quietly, self._close)
        if self.outcomes.pop(0) == "fail":
            raise ConnectionRefusedError("refused")
        return "connection"

    async def _close(self) -> None:
        self.closed += 1
        raise OSError("closing a broken connection may fail too")  # ignored

    async def _receive(self, connection: Any) -> None:
        await self.drop.wait()
        self.drop.clear()
        raise ConnectionResetError("reset")


async def _turns(count: int = 20) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


async def test_a_failed_first_attempt_refuses_listeners_with_its_reason_then_the_next_one_serves() -> None:
    backend = _Backend()
    subscription = _Fake(backend, asyncio.get_running_loop(), ["fail", "ok"])

    await asyncio.wait_for(subscription.tried.wait(), WAIT)
    refused = subscription.reason
    await _turns()

    assert refused == "the fake broker failed (ConnectionRefusedError)"
    assert subscription.up.is_set()
    assert (subscription.attempts, subscription.closed, subscription.failures) == (2, 1, 0)
    subscription.require()  # connected: no error
    subscription.task.cancel()
    await asyncio.gather(subscription.task, return_exceptions=True)


async def test_a_lost_connection_ends_the_loops_listeners_and_is_restored() -> None:
    backend = _Backend()
    loop = asyncio.get_running_loop()
    subscription = _Fake(backend, loop, ["ok", "fail", "ok"])
    await _turns()
    assert subscription.up.is_set()

    async with backend._local.listen() as events:
        backend._local.deliver(Event("server", "tools"), loop=loop)
        subscription.drop.set()
        received = await asyncio.wait_for(anext(events), WAIT)
        with pytest.raises(EventsLost, match="the fake broker was lost"):
            await asyncio.wait_for(anext(events), WAIT)
    await _turns()

    assert received == Event("server", "tools")
    assert subscription.up.is_set()
    assert (subscription.attempts, subscription.closed, subscription.failures) == (3, 2, 0)
    subscription.task.cancel()
    await asyncio.gather(subscription.task, return_exceptions=True)


async def test_ending_the_loop_closes_the_connection_marks_it_down_and_forgets_it() -> None:
    backend = _Backend()
    subscription = _Fake(backend, asyncio.get_running_loop(), ["ok"])
    await _turns()

    subscription.task.cancel()
    await asyncio.gather(subscription.task, return_exceptions=True)

    assert subscription.closed == 1
    assert not subscription.up.is_set()
    assert backend.forgotten == [subscription]
    with pytest.raises(EventsUnavailable, match="starting"):
        subscription.require()
