"""Several uvicorn workers, one private Redis: what lives between processes.

Each test starts its own worker processes of the test project (separate
ports, ``tests/multiworker.py``) and, for the multi-worker ones, a private
``redis-server`` they share (``private_redis``: skipped without one; the
shared Redis is never touched). A change announced in one process reaches
listen streams held by the others; a Redis restart ends open streams
cleanly (a listen stream with its result) and refuses new ones with a retry
hint until Redis is back; a paused Redis never holds up a request; a
2025-11-25 session's subscribe served by one worker reaches its stream in
another (through Redis, and through PostgreSQL alone: its events and
Django's database cache); a 2025-11-25 answer or cancellation reaches the worker its request
waits in;
SIGTERM ends open listen streams with their result and the worker exits.
Every wait is bounded and every test takes well under 30 seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import httpx
import pytest

from django_mcp.protocol import jsonrpc
from tests.multiworker import (
    NO_REDIS_SERVER,
    REDIS_SERVER,
    PrivatePostgres,
    PrivateRedis,
    Worker,
    worker_env,
    workers,
)
from tests.wire import legacy_initialize, modern_headers, modern_request, tool_request

needs_redis_server = pytest.mark.skipif(REDIS_SERVER is None, reason=NO_REDIS_SERVER)

WAIT = 10.0  # seconds: upper bound of every wait on a stream
LEGACY = "2025-11-25"
META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
ACCEPT = "application/json, text/event-stream"


def _listen_body(request_id: str) -> dict[str, Any]:
    return modern_request(
        "subscriptions/listen", {"notifications": {"toolsListChanged": True}}, request_id=request_id
    )


def _tools_changed(request_id: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "notifications/tools/list_changed",
        "params": {"_meta": {META_SUBSCRIPTION_ID: request_id}},
    }


def _listen_result(request_id: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: request_id}},
    }


async def _messages(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    async for line in response.aiter_lines():
        if line.startswith("data:") and line[5:].strip():
            yield json.loads(line[5:])


async def _next(messages: AsyncIterator[dict[str, Any]]) -> dict[str, Any]:
    return await asyncio.wait_for(anext(messages), WAIT)


async def _rest(messages: AsyncIterator[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return what a stream sends until it ends (it must end within ``WAIT``)."""

    async def drain() -> list[dict[str, Any]]:
        return [message async for message in messages]

    return await asyncio.wait_for(drain(), WAIT)


@contextlib.asynccontextmanager
async def _listening(
    client: httpx.AsyncClient, worker: Worker, request_id: str, *, retry: bool = False
) -> AsyncIterator[AsyncIterator[dict[str, Any]]]:
    """Open a listen stream on ``worker``; yield its messages after the acknowledgement.

    With ``retry``, a refusal (503: change notifications are unavailable)
    is retried until it succeeds, for at most ``WAIT`` seconds.
    """
    body = _listen_body(request_id)
    deadline = time.monotonic() + WAIT
    while True:
        async with client.stream(
            "POST", worker.endpoint, json=body, headers=modern_headers(body)
        ) as response:
            if response.status_code == 200:
                messages = _messages(response)
                ack = await _next(messages)
                assert ack["method"] == "notifications/subscriptions/acknowledged"
                yield messages
                return
            assert retry and response.status_code == 503 and time.monotonic() < deadline, worker.log()
        await asyncio.sleep(0.1)


async def _trigger(client: httpx.AsyncClient, worker: Worker, request_id: int = 1) -> None:
    """Call the tool that announces a tool-list change, on ``worker``."""
    body = tool_request("test_trigger_tool_change", {}, request_id=request_id)
    response = await client.post(worker.endpoint, json=body, headers=modern_headers(body))
    assert response.status_code == 200, worker.log()
    assert response.json()["result"]["isError"] is False


# ------------------------------------------------------------ delivery


@needs_redis_server
@pytest.mark.timeout(30)
async def test_a_change_announced_in_one_worker_reaches_listeners_of_the_others(
    private_redis: PrivateRedis, tmp_path: Path
) -> None:
    with workers(3, redis_url=private_redis.url, directory=tmp_path) as (first, second, third):
        async with (
            httpx.AsyncClient(timeout=WAIT) as client,
            _listening(client, second, "on-second") as on_second,
            _listening(client, third, "on-third") as on_third,
        ):
            await _trigger(client, first)

            assert await _next(on_second) == _tools_changed("on-second")
            assert await _next(on_third) == _tools_changed("on-third")


ANNOUNCE = """
import asyncio
import django

django.setup()

import django_mcp
from testproject.conformance.mcp import ConformanceServer


async def announce():
    django_mcp.tools_changed(ConformanceServer)


django_mcp.tools_changed(ConformanceServer)  # from sync code
asyncio.run(announce())  # from a short-lived event loop, as a command or a task does
"""


@needs_redis_server
@pytest.mark.timeout(30)
async def test_changes_announced_by_another_process_reach_the_workers(
    private_redis: PrivateRedis, tmp_path: Path
) -> None:
    with workers(1, redis_url=private_redis.url, directory=tmp_path) as (worker,):
        async with httpx.AsyncClient(timeout=WAIT) as client, _listening(client, worker, "l") as messages:
            announced = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-c", ANNOUNCE],
                env=worker_env(private_redis.url, tmp_path),
                capture_output=True,
                text=True,
                timeout=20,
            )
            assert announced.returncode == 0, announced.stderr

            assert [await _next(messages), await _next(messages)] == [_tools_changed("l")] * 2


UPDATES = """
import time
import django

django.setup()

import django_mcp
from testproject.conformance.mcp import ConformanceServer

# Until the test stops it: an update of a URI nobody subscribed, then of the subscribed one.
for _ in range(100):
    django_mcp.resource_updated(ConformanceServer, "test://template/1/data")
    django_mcp.resource_updated(ConformanceServer, "test://watched-resource")
    time.sleep(0.1)
"""


@needs_redis_server
@pytest.mark.timeout(30)
async def test_a_legacy_subscribe_served_by_one_worker_reaches_the_sessions_stream_in_another(
    private_redis: PrivateRedis, tmp_path: Path
) -> None:
    with workers(2, redis_url=private_redis.url, directory=tmp_path) as (first, second):
        received = await _subscribed_on_one_updated_on_the_other(
            first, second, worker_env(private_redis.url, tmp_path)
        )

    assert received == [_UPDATED] * 2


_UPDATED = {
    "jsonrpc": "2.0",
    "method": "notifications/resources/updated",
    "params": {"uri": "test://watched-resource"},
}


async def _subscribed_on_one_updated_on_the_other(
    first: Worker, second: Worker, updates_env: dict[str, str]
) -> list[dict[str, Any]]:
    """Open a session's GET stream on ``second``, subscribe on ``first``; return two updates it gets.

    The updates come from a third process (``UPDATES``, run with ``updates_env``).
    """
    async with httpx.AsyncClient(timeout=WAIT) as client:
        headers = await _initialize(client, first)
        get_headers = {**headers, "Accept": "text/event-stream"}
        async with client.stream("GET", second.endpoint, headers=get_headers) as stream:
            assert stream.status_code == 200, second.log()
            messages = _messages(stream)
            body = {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe"}
            body["params"] = {"uri": "test://watched-resource"}
            subscribed = await client.post(first.endpoint, json=body, headers=headers)
            assert subscribed.status_code == 200, first.log()
            updates = subprocess.Popen(
                [sys.executable, "-c", UPDATES],
                env=updates_env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                return [await _next(messages) for _ in range(2)]
            finally:
                updates.kill()
                updates.wait(timeout=WAIT)


# ------------------------------------------------------------ Redis faults


@needs_redis_server
@pytest.mark.timeout(30)
async def test_a_redis_restart_ends_open_streams_cleanly_and_listening_recovers(
    private_redis: PrivateRedis, tmp_path: Path
) -> None:
    with workers(2, redis_url=private_redis.url, directory=tmp_path) as (first, second):
        async with httpx.AsyncClient(timeout=WAIT) as client:
            session = await _initialize(client, first)
            get_headers = {**session, "Accept": "text/event-stream"}
            async with (
                _listening(client, first, "a") as on_first,
                _listening(client, second, "b") as on_second,
                client.stream("GET", first.endpoint, headers=get_headers) as legacy_stream,
            ):
                assert legacy_stream.status_code == 200

                private_redis.stop()

                # Events can no longer reach them: each stream ends, a
                # listen stream with its result (the client re-lists).
                assert await _rest(on_first) == [_listen_result("a")]
                assert await _rest(on_second) == [_listen_result("b")]
                assert await _rest(_messages(legacy_stream)) == []

            body = _listen_body("c")
            refused = await client.post(second.endpoint, json=body, headers=modern_headers(body))
            assert refused.status_code == 503
            assert int(refused.headers["retry-after"]) >= 1
            assert refused.headers["content-type"] == "application/json"
            assert refused.json() == {
                "jsonrpc": "2.0",
                "id": "c",
                "error": {"code": jsonrpc.INTERNAL_ERROR, "message": ANY},
            }

            private_redis.start()  # on the same port
            async with _listening(client, second, "d", retry=True) as on_second:
                await _trigger(client, first)
                assert await _next(on_second) == _tools_changed("d")


@needs_redis_server
@pytest.mark.timeout(30)
@pytest.mark.parametrize("stall", ["CLIENT PAUSE", "DEBUG SLEEP"])
async def test_a_stalled_redis_does_not_hold_up_a_request_that_announces(
    private_redis: PrivateRedis, tmp_path: Path, stall: str
) -> None:
    with workers(1, redis_url=private_redis.url, directory=tmp_path) as (worker,):
        async with httpx.AsyncClient(timeout=WAIT) as client:
            await _trigger(client, worker)  # connections are open
            stalling = threading.Thread(target=_stall, args=(private_redis, stall), daemon=True)
            stalling.start()
            await asyncio.sleep(0.2)  # the stall has begun

            started = time.monotonic()
            await _trigger(client, worker, request_id=2)
            elapsed = time.monotonic() - started
            stalling.join(timeout=WAIT)

    assert elapsed < 1.0  # the bound: a PUBLISH waits at most 1 s, in a thread of its own


def _stall(redis: PrivateRedis, stall: str) -> None:
    client = redis.client()
    if stall == "CLIENT PAUSE":
        client.client_pause(3000)  # milliseconds, every command
    else:
        client.execute_command("DEBUG", "SLEEP", "3")  # the whole server, seconds


# ------------------------------------------------------- PostgreSQL events


def _on_postgres(server: PrivatePostgres) -> dict[str, str]:
    """Return the environment of workers using ``server`` for data and change events."""
    return {
        "DJANGO_MCP_PG_NAME": "postgres",
        "DJANGO_MCP_PG_PORT": str(server.port),
        "DJANGO_MCP_PG_EVENTS": "1",
    }


@pytest.mark.timeout(60)
async def test_over_postgresql_every_change_reaches_every_listener_of_every_worker(
    private_postgres: PrivatePostgres, tmp_path: Path
) -> None:
    env = _on_postgres(private_postgres)
    # Three processes importing Django and psycopg side by side: on a busy
    # machine the last one may need more than the usual bound to start.
    with workers(3, redis_url=None, directory=tmp_path, ready_timeout=40, **env) as started:
        async with httpx.AsyncClient(timeout=WAIT) as client, contextlib.AsyncExitStack() as stack:
            streams = {
                f"on-{index}": await stack.enter_async_context(_listening(client, worker, f"on-{index}"))
                for index, worker in enumerate(started)
            }
            for request_id, worker in enumerate(started, start=1):
                await _trigger(client, worker, request_id)

            for name, messages in streams.items():
                assert [await _next(messages) for _ in started] == [_tools_changed(name)] * 3


@pytest.mark.timeout(60)
async def test_a_postgresql_restart_ends_open_streams_cleanly_and_delivery_resumes(
    private_postgres: PrivatePostgres, tmp_path: Path
) -> None:
    env = _on_postgres(private_postgres)
    with workers(2, redis_url=None, directory=tmp_path, **env) as (first, second):
        async with httpx.AsyncClient(timeout=WAIT) as client:
            async with _listening(client, second, "a") as on_second:
                await _trigger(client, first)
                assert await _next(on_second) == _tools_changed("a")

                await asyncio.to_thread(private_postgres.restart)

                # Events sent while it was down are lost to it: the stream
                # ends with its result (the client re-lists).
                assert await _rest(on_second) == [_listen_result("a")]

            async with _listening(client, second, "b", retry=True) as on_second:
                await _trigger(client, first, request_id=2)
                assert await _next(on_second) == _tools_changed("b")


@pytest.mark.timeout(60)
async def test_over_postgresql_a_legacy_subscribe_served_by_one_worker_reaches_the_stream_in_another(
    private_postgres: PrivatePostgres, tmp_path: Path
) -> None:
    # No Redis at all: the sessions in Django's database cache, their
    # subscribe announced through LISTEN/NOTIFY, both on one PostgreSQL.
    env = {**_on_postgres(private_postgres), "DJANGO_MCP_DATABASE_CACHE": "1"}
    made = subprocess.run(
        [sys.executable, "-m", "django", "createcachetable"],
        env=worker_env(None, tmp_path, **env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert made.returncode == 0, made.stderr[-2000:]
    with workers(2, redis_url=None, directory=tmp_path, ready_timeout=40, **env) as (first, second):
        received = await _subscribed_on_one_updated_on_the_other(
            first, second, worker_env(None, tmp_path, **env)
        )

    assert received == [_UPDATED] * 2


# ------------------------------------------------ 2025-11-25 across workers


async def _initialize(client: httpx.AsyncClient, worker: Worker) -> dict[str, str]:
    """Open a 2025-11-25 session on ``worker``; return the headers of its requests."""
    body = legacy_initialize({"elicitation": {}})
    response = await client.post(
        worker.endpoint, json=body, headers={"Accept": ACCEPT, "MCP-Protocol-Version": LEGACY}
    )
    assert response.status_code == 200, worker.log()
    headers = {
        "Accept": ACCEPT,
        "Mcp-Session-Id": response.headers["mcp-session-id"],
        "MCP-Protocol-Version": LEGACY,
    }
    initialized = await client.post(
        worker.endpoint, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
    )
    assert initialized.status_code == 202
    return headers


ELICITING_CALL = {
    "jsonrpc": "2.0",
    "id": 5,
    "method": "tools/call",
    "params": {"name": "test_elicitation", "arguments": {"message": "Who are you?"}},
}


@contextlib.asynccontextmanager
async def _eliciting(
    client: httpx.AsyncClient, worker: Worker, headers: dict[str, str]
) -> AsyncIterator[tuple[AsyncIterator[dict[str, Any]], dict[str, Any]]]:
    """Call the eliciting tool on ``worker``; yield its stream once it asked the client."""
    async with client.stream("POST", worker.endpoint, json=ELICITING_CALL, headers=headers) as call:
        messages = _messages(call)
        asked = await _next(messages)
        assert asked["method"] == "elicitation/create"
        yield messages, asked


@needs_redis_server
@pytest.mark.timeout(30)
@pytest.mark.parametrize("answer_to", ["the same worker", "another worker"])
async def test_a_legacy_answer_completes_the_call_whichever_worker_it_reaches(
    private_redis: PrivateRedis, tmp_path: Path, answer_to: str
) -> None:
    with workers(2, redis_url=private_redis.url, directory=tmp_path) as (first, second):
        answered = first if answer_to == "the same worker" else second
        async with httpx.AsyncClient(timeout=WAIT) as client:
            headers = await _initialize(client, first)
            async with _eliciting(client, first, headers) as (messages, asked):
                answer = {"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}}
                reply = await client.post(
                    answered.endpoint,
                    json={"jsonrpc": "2.0", "id": asked["id"], "result": answer},
                    headers=headers,
                )
                assert reply.status_code == 202, answered.log()

                final = await _next(messages)

    assert final["id"] == 5
    assert final["result"]["content"][0]["text"].startswith("User response: action=accept")


@needs_redis_server
@pytest.mark.timeout(30)
async def test_a_legacy_cancellation_posted_to_another_worker_stops_the_call(
    private_redis: PrivateRedis, tmp_path: Path
) -> None:
    with workers(2, redis_url=private_redis.url, directory=tmp_path) as (first, second):
        async with httpx.AsyncClient(timeout=WAIT) as client:
            headers = await _initialize(client, first)
            async with _eliciting(client, first, headers) as (messages, _):
                cancelled = {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": 5},
                }
                reply = await client.post(second.endpoint, json=cancelled, headers=headers)
                assert reply.status_code == 202, second.log()

                rest = await _rest(messages)  # the call's stream ends: it no longer waits

    assert [message for message in rest if "result" in message] == []


# ------------------------------------------------------------ shutdown


@pytest.mark.timeout(30)
async def test_sigterm_ends_listen_streams_with_their_result_and_the_worker_exits(tmp_path: Path) -> None:
    with workers(1, redis_url=None, directory=tmp_path) as (worker,):
        async with httpx.AsyncClient(timeout=WAIT) as client, _listening(client, worker, "bye") as messages:
            worker.process.send_signal(signal.SIGTERM)

            assert await _rest(messages) == [_listen_result("bye")]

        exited = await asyncio.to_thread(worker.process.wait, WAIT)

    assert exited in (0, -signal.SIGTERM)
