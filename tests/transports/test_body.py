"""The one body size rule and the lingering close (django_mcp/transports/_body.py)."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator

import pytest

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


async def test_the_drain_reads_what_is_left_up_to_its_bound() -> None:
    given: list[int] = []
    size = 1024 * 1024
    body = ChunkedBody(pieces(size, 10 * DRAIN_BYTES // size, given), declared=None)
    with pytest.raises(BodyTooLarge):
        await body.read(size)

    await body.drain()

    assert sum(given) == 2 * size + DRAIN_BYTES  # what read() took, then DRAIN_BYTES more


async def test_bytes_in_hand_follow_the_same_limit() -> None:
    assert await ReadyBody(b"abc").read(3) == b"abc"
    with pytest.raises(BodyTooLarge):
        await ReadyBody(b"abcd").read(3)


async def test_a_wsgi_body_is_read_to_its_declared_length() -> None:
    stream = io.BytesIO(b"0123456789 and more")

    body = wsgi_body({"CONTENT_LENGTH": "10", "wsgi.input": stream}, 10)

    assert await body.read(100) == b"0123456789"


async def test_a_wsgi_body_the_server_decodes_is_read_to_its_end() -> None:
    body = wsgi_body({"wsgi.input": io.BytesIO(b"chunked, decoded"), "wsgi.input_terminated": True}, None)

    assert await body.read(100) == b"chunked, decoded"


async def test_a_chunked_wsgi_body_the_server_does_not_decode_is_refused() -> None:
    body = wsgi_body({"wsgi.input": io.BytesIO(b"7\r\nchunked"), "HTTP_TRANSFER_ENCODING": "chunked"}, None)

    with pytest.raises(ChunkedUnsupported):
        await body.read(100)


async def test_a_wsgi_request_without_a_body_has_an_empty_one() -> None:
    assert await wsgi_body({"wsgi.input": io.BytesIO(b"")}, None).read(100) == b""
