"""The one body size rule and the lingering close (django_mcp/transports/_body.py)."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import pytest

from django_mcp.transports import _body
from django_mcp.transports._body import (
    DRAIN_BYTES,
    BodyTooLarge,
    ChunkedBody,
    ChunkedUnsupported,
    ReadyBody,
    wsgi_body,
)


async def pieces(size: int, count: int, given: list[int]) -> AsyncIterator[bytes]:
    for _ in range(count):
        given.append(size)
        yield b"x" * size


async def test_a_chunked_body_is_read_whole_within_the_limit() -> None:
    given: list[int] = []

    assert await ChunkedBody(pieces(10, 3, given), declared=None).read(30) == b"x" * 30


async def test_a_chunked_body_is_refused_as_soon_as_it_passes_the_limit() -> None:
    given: list[int] = []

    with pytest.raises(BodyTooLarge) as refused:
        await ChunkedBody(pieces(10, 100, given), declared=None).read(25)

    assert (len(given), refused.value.setting) == (3, "MCP_MAX_REQUEST_SIZE")


async def test_a_declared_length_over_the_limit_is_refused_unread() -> None:
    given: list[int] = []

    with pytest.raises(BodyTooLarge):
        await ChunkedBody(pieces(10, 100, given), declared=1000).read(25)

    assert given == []


async def test_a_chunked_drain_stops_past_its_bound_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    given: list[int] = []
    size = 1024 * 1024
    body = ChunkedBody(pieces(size, 10 * DRAIN_BYTES // size, given), declared=None)
    with pytest.raises(BodyTooLarge):
        await body.read(size)

    with caplog.at_level(logging.WARNING, "django_mcp.transports.http"):
        drained = await body.drain()

    # DRAIN_BYTES in all (what read() took included), then the chunk passing it.
    assert (drained, sum(given)) == (False, DRAIN_BYTES + size)
    assert [record.levelno for record in caplog.records] == [logging.WARNING]
    assert str(DRAIN_BYTES) in caplog.records[0].getMessage()


async def test_a_declared_body_within_the_bound_is_drained_to_its_end() -> None:
    given: list[int] = []
    body = ChunkedBody(pieces(1000, 50, given), declared=50_000)
    with pytest.raises(BodyTooLarge):
        await body.read(100)

    assert (await body.drain(), sum(given)) == (True, 50_000)
    assert await body.drain() is True  # nothing left: a second drain reads nothing
    assert sum(given) == 50_000


async def test_a_body_declared_past_the_bound_is_not_read_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    given: list[int] = []
    body = ChunkedBody(pieces(1000, 10, given), declared=DRAIN_BYTES + 1)

    with caplog.at_level(logging.WARNING, "django_mcp.transports.http"):
        drained = await body.drain()

    assert (drained, given) == (False, [])
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert f"declared {DRAIN_BYTES + 1} bytes" in record.getMessage()  # the size
    assert f"bound of {DRAIN_BYTES} bytes" in record.getMessage()  # and the bound, never the body


async def test_a_client_waiting_for_100_continue_is_not_invited_to_send() -> None:
    given: list[int] = []
    body = ChunkedBody(pieces(1000, 10, given), declared=10_000, expects_continue=True)

    assert (await body.drain(), given) == (False, [])


async def test_a_slow_body_is_waited_for_at_most_the_time_bound(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(_body, "DRAIN_SECONDS", 0.05)

    async def stalled() -> AsyncIterator[bytes]:
        yield b"x" * 10
        await asyncio.Event().wait()  # the client sends no more
        yield b""

    body = ChunkedBody(stalled(), declared=1000)
    with caplog.at_level(logging.WARNING, "django_mcp.transports.http"):
        drained = await asyncio.wait_for(body.drain(), 10)

    assert drained is False
    assert "10 bytes read" in caplog.records[0].getMessage()


def _run_without_loop(coroutine: Coroutine[Any, Any, bool]) -> bool:
    """Run a coroutine that never suspends as a WSGI request's first step runs: no loop, no task."""
    with pytest.raises(StopIteration) as stopped:
        coroutine.send(None)
    return bool(stopped.value.value)


def test_without_a_task_the_time_bound_is_checked_between_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_body, "DRAIN_SECONDS", -1.0)  # past as soon as it starts
    stream = io.BytesIO(b"x" * 500_000)
    body = wsgi_body({"wsgi.input": stream}, 500_000)

    assert _run_without_loop(body.drain()) is False
    assert stream.tell() == _body.CHUNK  # one read, then the deadline stopped it


def test_without_a_task_a_body_is_drained_to_its_end() -> None:
    stream = io.BytesIO(b"x" * 500_000)

    assert _run_without_loop(wsgi_body({"wsgi.input": stream}, 500_000).drain()) is True
    assert stream.tell() == 500_000


async def test_bytes_in_hand_follow_the_same_limit() -> None:
    assert await ReadyBody(b"abc").read(3) == b"abc"
    with pytest.raises(BodyTooLarge):
        await ReadyBody(b"abcd").read(3)


async def test_a_wsgi_body_is_read_to_its_declared_length() -> None:
    stream = io.BytesIO(b"0123456789 and more")

    body = wsgi_body({"CONTENT_LENGTH": "10", "wsgi.input": stream}, 10)

    assert await body.read(100) == b"0123456789"


class _Trickle(io.BytesIO):
    """A WSGI input that answers each read with at most three bytes (a socket may)."""

    def read(self, size: int | None = -1) -> bytes:
        return super().read(3 if size is None or size < 0 else min(size, 3))


async def test_a_wsgi_body_read_in_short_pieces_is_still_read_whole() -> None:
    body = wsgi_body({"wsgi.input": _Trickle(b"0123456789 and more")}, 10)

    assert await body.read(100) == b"0123456789"
    assert await body.drain() is True  # read to its end: nothing left to drain


async def test_a_wsgi_body_shorter_than_declared_is_what_came() -> None:
    body = wsgi_body({"wsgi.input": io.BytesIO(b"0123")}, 10)

    assert await body.read(100) == b"0123"


async def test_a_wsgi_body_declared_over_the_limit_is_refused_unread() -> None:
    stream = io.BytesIO(b"0123456789")

    with pytest.raises(BodyTooLarge):
        await wsgi_body({"wsgi.input": stream}, 10).read(9)
    assert stream.tell() == 0


async def test_a_wsgi_body_the_server_decodes_is_read_to_its_end() -> None:
    body = wsgi_body({"wsgi.input": io.BytesIO(b"chunked, decoded"), "wsgi.input_terminated": True}, None)

    assert await body.read(100) == b"chunked, decoded"


async def test_a_chunked_wsgi_body_the_server_does_not_decode_is_refused() -> None:
    body = wsgi_body({"wsgi.input": io.BytesIO(b"7\r\nchunked"), "HTTP_TRANSFER_ENCODING": "chunked"}, None)

    with pytest.raises(ChunkedUnsupported):
        await body.read(100)


async def test_a_wsgi_request_without_a_body_has_an_empty_one() -> None:
    assert await wsgi_body({"wsgi.input": io.BytesIO(b"")}, None).read(100) == b""
