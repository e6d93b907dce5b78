"""django_mcp/transports/_replies.py: the endpoint's JSON answers, refusals and SSE streams.

Each reply is built directly and checked whole: status, headers, body.
Every wait is bounded by ``WAIT``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from django_mcp.dispatcher.codec import Reply, encode_response, error_reply
from django_mcp.exceptions import InvalidParams, NotificationsUnavailable, ServerBusy
from django_mcp.protocol import jsonrpc
from django_mcp.transports._body import BodyTooLarge, ChunkedUnsupported
from django_mcp.transports._replies import (
    FINISHED,
    busy,
    client_left,
    dispatcher_reply,
    emitter,
    empty,
    json_error,
    length_required,
    message_stream,
    not_allowed,
    reply_of,
    sse_reply,
    started,
    too_large,
    with_keepalive,
)
from django_mcp.transports._sse import KEEPALIVE

WAIT = 10.0  # seconds: upper bound of every wait here
NOSNIFF = ("X-Content-Type-Options", "nosniff")
JSON = [("Content-Type", "application/json"), NOSNIFF]


@pytest.fixture(autouse=True)
def _made_up_messages(wire_schema: Any) -> None:
    """These replies carry made-up methods and ids, not a server's real messages."""
    wire_schema.ignore()


def test_a_json_error_carries_the_status_given() -> None:
    reply = json_error(3, InvalidParams("bad"), 400)

    assert (reply.status, reply.headers) == (400, JSON)
    assert json.loads(reply.body) == {
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": jsonrpc.INVALID_PARAMS, "message": "bad"},
    }


def test_busy_is_a_503_with_retry_after_in_whole_seconds() -> None:
    reply = busy(1, NotificationsUnavailable(retry_after=2.2))

    assert reply.status == 503
    assert reply.headers == [*JSON, ("Retry-After", "3")]


def test_a_dispatcher_reply_keeps_its_status_except_a_session_error_which_is_200() -> None:
    refused = error_reply(1, InvalidParams("bad"))
    answered = Reply(encode_response(1, {}))

    assert dispatcher_reply(answered, legacy=False).status == 200
    assert dispatcher_reply(Reply(refused.body, 400, refused.error), legacy=False).status == 400
    assert dispatcher_reply(Reply(refused.body, 400, refused.error), legacy=True).status == 200
    busy_reply = dispatcher_reply(error_reply(1, ServerBusy()), legacy=False)
    assert (busy_reply.status, busy_reply.headers[-1]) == (503, ("Retry-After", "1"))


def test_body_refusals_are_413_and_411_and_marked_refused_early() -> None:
    large = too_large(BodyTooLarge())
    chunked = length_required(ChunkedUnsupported())

    assert (large.status, large.refused_early) == (413, True)
    assert json.loads(large.body)["error"] == {
        "code": jsonrpc.INVALID_REQUEST,
        "message": "Request exceeds MCP_MAX_REQUEST_SIZE",
    }
    assert (chunked.status, chunked.refused_early) == (411, True)
    assert "id" not in json.loads(chunked.body)


def test_a_reply_without_a_body_has_no_content_type() -> None:
    assert (empty(202).status, empty(202).headers, empty(202).body) == (202, [NOSNIFF], b"")


def test_a_405_names_the_methods_allowed_and_may_say_why_in_plain_text() -> None:
    bare = not_allowed("POST")
    page = not_allowed("GET, POST, DELETE", text="An MCP endpoint.")

    assert (bare.status, bare.headers, bare.body) == (405, [("Allow", "POST"), NOSNIFF], b"")
    assert page.headers == [
        ("Allow", "GET, POST, DELETE"),
        NOSNIFF,
        ("Content-Type", "text/plain; charset=utf-8"),
    ]
    assert page.body == b"An MCP endpoint."


def test_an_sse_reply_is_an_unbuffered_event_stream() -> None:
    async def events() -> AsyncIterator[bytes]:
        yield b""

    reply = sse_reply(events(), long_lived=True)

    assert reply.status == 200 and reply.long_lived is True
    assert ("Content-Type", "text/event-stream") in reply.headers and NOSNIFF in reply.headers


async def test_a_message_stream_sends_the_queued_notifications_then_the_response() -> None:
    queue: asyncio.Queue[Any] = asyncio.Queue()
    emit = emitter(queue)
    task: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()

    emit("notifications/progress", {"progressToken": 1, "progress": 1})
    task.set_result(Reply(encode_response(1, {"ok": True})))
    queue.put_nowait(FINISHED)
    events = [event async for event in message_stream(b'{"first":1}', queue, task, cancel_on_close=True)]

    assert events == [
        b'data: {"first":1}\n\n',
        b'data: {"jsonrpc":"2.0","method":"notifications/progress",'
        b'"params":{"progressToken":1,"progress":1}}\n\n',
        b'data: {"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n\n',
    ]


async def test_a_client_leaving_cancels_a_modern_request_but_not_a_session_one() -> None:
    loop = asyncio.get_running_loop()
    modern: asyncio.Future[Reply] = loop.create_future()
    legacy: asyncio.Future[Reply] = loop.create_future()

    client_left(modern, cancel=True)
    client_left(legacy, cancel=False)

    assert modern.cancelled() and not legacy.done()
    assert json.loads(reply_of(modern).body)["error"] == {
        "code": jsonrpc.INTERNAL_ERROR,
        "message": "Request cancelled",
    }
    legacy.cancel()


async def test_started_waits_for_the_first_item_so_a_refusal_raises_first() -> None:
    async def refused() -> AsyncIterator[bytes]:
        raise NotificationsUnavailable
        yield b""  # pragma: no cover - makes this an async generator

    async def two() -> AsyncIterator[bytes]:
        yield b"a"
        yield b"b"

    with pytest.raises(NotificationsUnavailable):
        await started(refused())
    assert [item async for item in await started(two())] == [b"a", b"b"]


async def test_keepalive_comments_fill_the_silence_and_empty_items_become_comments() -> None:
    release = asyncio.Event()

    async def slow() -> AsyncIterator[bytes]:
        yield b""
        await release.wait()
        yield b'{"x":1}'

    stream = with_keepalive(slow(), 0.01)
    first = await asyncio.wait_for(anext(stream), WAIT)
    idle = await asyncio.wait_for(anext(stream), WAIT)
    release.set()
    rest = await asyncio.wait_for(_until_event(stream), WAIT)

    assert (first, idle) == (KEEPALIVE, KEEPALIVE)
    assert rest == b'data: {"x":1}\n\n'


async def test_keepalive_ends_when_alive_says_no_or_ended_is_set() -> None:
    async def forever() -> AsyncIterator[bytes]:
        await asyncio.Event().wait()
        yield b""  # pragma: no cover - never reached

    async def gone() -> bool:
        return False

    ended = asyncio.Event()
    ended.set()

    assert await asyncio.wait_for(_drain(with_keepalive(forever(), 0.01, alive=gone)), WAIT) == []
    assert await asyncio.wait_for(_drain(with_keepalive(forever(), WAIT, ended=ended)), WAIT) == []


async def _until_event(stream: AsyncIterator[bytes]) -> bytes:
    async for item in stream:
        if item != KEEPALIVE:
            return item
    raise AssertionError("the stream ended without an event")


async def _drain(stream: AsyncIterator[bytes]) -> list[bytes]:
    return [item async for item in stream]
