"""Measure cross-worker change delivery and recovery after a Redis restart.

Run from the repository root: ``python tests/bench/multi_worker.py``
(``--events 500 --restarts 5 --outage 0`` are the defaults). Needs
``redis-server``.
Not collected by pytest.

Two uvicorn workers of the test project (separate processes and ports)
share a private ``redis-server`` (``tests/multiworker.py``). A client holds
a ``subscriptions/listen`` stream on worker B and calls the tool that
announces a tool-list change on worker A, one call at a time:

* delivery: from sending the ``tools/call`` to A until the notification
  arrives on B's stream (so it includes A's request round trip, which is
  reported on its own too); median, p99 and max over ``--events`` calls,
  after 20 warm-up calls;
* recovery, per restart (kill ``redis-server``, wait ``--outage`` seconds,
  start it on the same port): how long until B's open stream ends (its
  final result), and, once Redis answers again, until B accepts a new listen
  stream and until a change announced on A reaches it (the subscription's
  reconnection backoff grows with the outage, up to ``RECONNECT_MAX``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from tests.multiworker import PrivateRedis, Worker, workers  # noqa: E402
from tests.wire import modern_headers, modern_request, tool_request  # noqa: E402

LISTEN = modern_request(
    "subscriptions/listen", {"notifications": {"toolsListChanged": True}}, request_id="bench"
)
WAIT = 10.0  # seconds: bound of every wait


async def _messages(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    async for line in response.aiter_lines():
        if line.startswith("data:") and line[5:].strip():
            yield json.loads(line[5:])


async def _trigger(client: httpx.AsyncClient, worker: Worker, request_id: int) -> None:
    body = tool_request("test_trigger_tool_change", {}, request_id=request_id)
    response = await client.post(worker.endpoint, json=body, headers=modern_headers(body))
    response.raise_for_status()


async def delivery(client: httpx.AsyncClient, a: Worker, b: Worker, events: int) -> dict[str, float]:
    """Return delivery and round-trip figures in milliseconds."""
    latencies: list[float] = []
    round_trips: list[float] = []
    async with client.stream("POST", b.endpoint, json=LISTEN, headers=modern_headers(LISTEN)) as stream:
        messages = _messages(stream)
        await asyncio.wait_for(anext(messages), WAIT)  # the acknowledgement
        for index in range(20 + events):
            started = time.perf_counter()
            arrival = asyncio.ensure_future(anext(messages))
            await _trigger(client, a, index)
            answered = time.perf_counter()
            await asyncio.wait_for(arrival, WAIT)
            arrived = time.perf_counter()
            if index >= 20:
                latencies.append((arrived - started) * 1000)
                round_trips.append((answered - started) * 1000)
    latencies.sort()
    return {
        "delivery_median_ms": statistics.median(latencies),
        "delivery_p99_ms": latencies[int(len(latencies) * 0.99) - 1],
        "delivery_max_ms": latencies[-1],
        "tool_call_round_trip_median_ms": statistics.median(round_trips),
    }


async def _listen_when_back(client: httpx.AsyncClient, worker: Worker) -> AsyncIterator[Any]:
    """Yield (once) an open listen stream's messages, retrying 503s every 20 ms."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        async with client.stream(
            "POST", worker.endpoint, json=LISTEN, headers=modern_headers(LISTEN)
        ) as stream:
            if stream.status_code == 200:
                messages = _messages(stream)
                await asyncio.wait_for(anext(messages), WAIT)
                yield messages
                return
        await asyncio.sleep(0.02)
    raise TimeoutError("no listen stream within the bound")


async def recovery(
    client: httpx.AsyncClient, redis: PrivateRedis, a: Worker, b: Worker, outage: float
) -> dict[str, float]:
    """Restart Redis (down ``outage`` seconds) under an open stream; return milliseconds."""
    async with client.stream("POST", b.endpoint, json=LISTEN, headers=modern_headers(LISTEN)) as stream:
        messages = _messages(stream)
        await asyncio.wait_for(anext(messages), WAIT)
        killed = time.perf_counter()
        redis.stop()
        rest = await asyncio.wait_for(_drain(messages), WAIT)
        ended = time.perf_counter()
        assert rest and "result" in rest[-1], rest
    await asyncio.sleep(outage)
    redis.start()
    back = time.perf_counter()
    listening = _listen_when_back(client, b)
    messages = await anext(listening)
    listens = time.perf_counter()
    arrival = asyncio.ensure_future(anext(messages))
    await _trigger(client, a, 0)
    await asyncio.wait_for(arrival, WAIT)
    delivered = time.perf_counter()
    await listening.aclose()
    return {
        "stream_end_after_kill_ms": (ended - killed) * 1000,
        "listen_after_redis_back_ms": (listens - back) * 1000,
        "delivery_after_redis_back_ms": (delivered - back) * 1000,
    }


async def _drain(messages: AsyncIterator[dict[str, Any]]) -> list[dict[str, Any]]:
    return [message async for message in messages]


async def main(events: int, restarts: int, outage: float) -> None:
    """Start the processes, measure, print the figures."""
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        with PrivateRedis(directory) as redis, workers(2, redis_url=redis.url, directory=directory) as (a, b):
            async with httpx.AsyncClient(timeout=WAIT) as client:
                print(json.dumps({"events": events, **await delivery(client, a, b, events)}, indent=2))
                runs = [await recovery(client, redis, a, b, outage) for _ in range(restarts)]
    summary = {
        f"{key}_{name}": func([run[key] for run in runs])
        for key in runs[0]
        for name, func in (("median", statistics.median), ("max", max))
    }
    print(json.dumps({"restarts": restarts, "outage_s": outage, **summary}, indent=2))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--restarts", type=int, default=5)
    parser.add_argument("--outage", type=float, default=0.0, help="seconds Redis stays down per restart")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.events, arguments.restarts, arguments.outage))
