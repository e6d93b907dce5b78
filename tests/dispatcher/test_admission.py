"""Admission: request slots (``InFlight``, in the dispatcher) and open streams.

Requests over ``MCP_MAX_CONCURRENT_REQUESTS`` wait for a slot up to
``MCP_QUEUE_TIMEOUT``, across threads and event loops, and a waiter that is
cancelled or times out keeps no slot. ``MCP_MAX_STREAMS`` bounds the open
streams. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest

from django_mcp import McpResponse, Server, Tool
from django_mcp.conf import Limits, McpSettings
from django_mcp.dispatcher import Dispatcher, InFlight
from django_mcp.dispatcher.admission import OpenStreams
from django_mcp.exceptions import TooManyStreams
from django_mcp.protocol import jsonrpc
from tests.wire import serve, tool_request

pytestmark = pytest.mark.timeout(30)


class NapTool(Tool):
    name = "nap"
    description = "Sleeps briefly, then answers."

    async def handle(self) -> McpResponse:
        await asyncio.sleep(0.05)
        return McpResponse.text("rested")


#: Set by a test to hold every ``hold`` call until it is released.
_held: dict[str, asyncio.Event] = {}


class HoldTool(Tool):
    name = "hold"
    description = "Answers once the test releases it."

    async def handle(self) -> McpResponse:
        await _held["release"].wait()
        return McpResponse.text("held")


class NapServer(Server):
    name = "nap"
    tools = (NapTool, HoldTool)


def nap_dispatcher(*, limit: int, queue_timeout: float) -> Dispatcher:
    settings = McpSettings(limits=Limits(max_concurrent_requests=limit), queue_timeout=queue_timeout)
    return Dispatcher(NapServer.compiled(), settings=settings, in_flight=InFlight())


async def burst(dispatcher: Dispatcher, size: int) -> list[tuple[int, dict[str, Any]]]:
    return await asyncio.gather(*(serve(dispatcher, tool_request("nap", request_id=n)) for n in range(size)))


# ------------------------------------------------------------- requests


async def test_a_burst_twice_the_limit_waits_for_slots_and_all_succeed() -> None:
    dispatcher = nap_dispatcher(limit=32, queue_timeout=10)

    answers = await burst(dispatcher, 64)

    assert Counter(status for status, _ in answers) == {200: 64}
    assert all("result" in body for _, body in answers)
    assert (dispatcher.in_flight.count, dispatcher.in_flight.waiting) == (0, 0)


async def test_requests_still_waiting_after_the_queue_timeout_get_503() -> None:
    dispatcher = nap_dispatcher(limit=32, queue_timeout=0.01)
    release = _held["release"] = asyncio.Event()
    # The first 32 calls hold their slots until released, however slowly
    # the machine starts the other 32: those time out waiting, whatever the load.
    calls = [asyncio.ensure_future(serve(dispatcher, tool_request("hold", request_id=n))) for n in range(64)]
    while sum(call.done() for call in calls) < 32:
        await asyncio.sleep(0.005)  # bounded by the module's timeout
    release.set()
    answers = await asyncio.gather(*calls)

    assert Counter(status for status, _ in answers) == {200: 32, 503: 32}
    refused = [body for status, body in answers if status == 503]
    assert {body["error"]["code"] for body in refused} == {jsonrpc.INTERNAL_ERROR}
    assert (dispatcher.in_flight.count, dispatcher.in_flight.waiting) == (0, 0)


async def test_a_queue_timeout_of_zero_refuses_at_once() -> None:
    in_flight = InFlight()
    assert await in_flight.acquire(1, 0)

    started = time.monotonic()
    admitted = await in_flight.acquire(1, 0)

    assert (admitted, in_flight.count, in_flight.waiting) == (False, 1, 0)
    assert time.monotonic() - started < 0.5


async def test_a_leaving_request_hands_its_slot_to_the_oldest_waiter() -> None:
    in_flight = InFlight()
    assert await in_flight.acquire(1, 10)
    order: list[str] = []

    async def wait(name: str) -> None:
        assert await in_flight.acquire(1, 10)
        order.append(name)

    first = asyncio.ensure_future(wait("first"))
    await asyncio.sleep(0)
    second = asyncio.ensure_future(wait("second"))
    await asyncio.sleep(0)
    assert in_flight.waiting == 2

    in_flight.leave()
    await first
    in_flight.leave()
    await second

    assert order == ["first", "second"]
    in_flight.leave()
    assert (in_flight.count, in_flight.waiting) == (0, 0)


async def test_a_cancelled_waiter_keeps_no_slot() -> None:
    in_flight = InFlight()
    assert await in_flight.acquire(1, 10)
    waiter = asyncio.ensure_future(in_flight.acquire(1, 10))
    await asyncio.sleep(0)
    assert in_flight.waiting == 1

    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    in_flight.leave()

    assert (in_flight.count, in_flight.waiting) == (0, 0)


async def test_a_waiter_cancelled_after_its_slot_arrived_passes_the_slot_on() -> None:
    in_flight = InFlight()
    assert await in_flight.acquire(1, 10)
    doomed = asyncio.ensure_future(in_flight.acquire(1, 10))
    await asyncio.sleep(0)
    heir = asyncio.ensure_future(in_flight.acquire(1, 10))
    await asyncio.sleep(0)

    in_flight.leave()  # the slot goes to ``doomed`` ...
    doomed.cancel()  # ... which is cancelled before it runs again
    with pytest.raises(asyncio.CancelledError):
        await doomed

    assert await asyncio.wait_for(heir, 5) is True
    assert (in_flight.count, in_flight.waiting) == (1, 0)
    in_flight.leave()
    assert in_flight.count == 0


def test_threads_with_loops_of_their_own_share_the_slots_and_never_exceed_them() -> None:
    in_flight = InFlight()
    limit, workers = 3, 12
    lock = threading.Lock()
    running = peak = 0
    results: list[bool] = []

    async def request() -> bool:
        nonlocal running, peak
        if not await in_flight.acquire(limit, 10):
            return False
        try:
            with lock:
                running += 1
                peak = max(peak, running)
            await asyncio.sleep(0.02)
            with lock:
                running -= 1
        finally:
            in_flight.leave()
        return True

    def worker() -> None:
        # Each thread runs its own event loop, as threaded WSGI servers do.
        outcome = asyncio.run(request())
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)

    assert results == [True] * workers
    assert peak <= limit
    assert (in_flight.count, in_flight.waiting) == (0, 0)


def test_a_burst_from_threads_with_loops_of_their_own_all_succeeds() -> None:
    # A threaded WSGI server: every request in its own thread and event loop.
    dispatcher = nap_dispatcher(limit=4, queue_timeout=10)
    statuses: list[int] = []

    def request(n: int) -> None:
        status, _ = asyncio.run(serve(dispatcher, tool_request("nap", request_id=n)))
        statuses.append(status)

    threads = [threading.Thread(target=request, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)

    assert Counter(statuses) == {200: 16}
    assert (dispatcher.in_flight.count, dispatcher.in_flight.waiting) == (0, 0)


def test_a_slot_freed_by_another_thread_wakes_a_waiting_loop() -> None:
    in_flight = InFlight()
    assert asyncio.run(in_flight.acquire(1, 10))
    timer = threading.Timer(0.05, in_flight.leave)
    timer.start()

    started = time.monotonic()
    admitted = asyncio.run(in_flight.acquire(1, 10))
    timer.join()

    assert admitted
    assert time.monotonic() - started < 5
    assert (in_flight.count, in_flight.waiting) == (1, 0)


# -------------------------------------------------------------- streams


async def idle() -> AsyncIterator[bytes]:
    yield b"ack"
    await asyncio.Event().wait()


async def test_streams_over_the_limit_are_refused() -> None:
    streams = OpenStreams()
    first = streams.open(idle(), 2)
    second = streams.open(idle(), 2)

    with pytest.raises(TooManyStreams) as refused:
        streams.open(idle(), 2)

    assert (refused.value.code, refused.value.http_status) == (jsonrpc.INTERNAL_ERROR, 503)
    assert streams.count == 2
    del first, second


async def test_a_stream_gives_its_slot_back_when_closed_finished_or_dropped() -> None:
    streams = OpenStreams()

    closed = streams.open(idle(), 10)
    assert await closed.__anext__() == b"ack"
    await closed.aclose()  # type: ignore[attr-defined]
    assert streams.count == 0

    async def one() -> AsyncIterator[bytes]:
        yield b"only"

    finished = streams.open(one(), 10)
    assert [item async for item in finished] == [b"only"]
    assert streams.count == 0

    # A response dropped before it was ever iterated (the client left first).
    streams.open(idle(), 10)
    gc.collect()
    assert streams.count == 0
