"""Server-Sent Events framing: one JSON-RPC message per ``data:`` line.

Messages are compact single-line JSON, so every event is exactly one
``data:`` line followed by a blank line; clients that read bodies line by
line see one message per line. Comments (``:``) keep idle streams alive
through proxies. No event ids: 2026-07-28 streams are not resumable.
"""

from __future__ import annotations

from typing import Final

__all__ = ["KEEPALIVE", "SSE_HEADERS", "event"]

KEEPALIVE: Final = b":\n\n"
"""A comment event that keeps an idle connection open."""

SSE_HEADERS: Final[dict[str, str]] = {
    "Cache-Control": "no-cache",
    # Tell nginx-style proxies not to buffer the stream.
    "X-Accel-Buffering": "no",
}
"""Headers every SSE response carries."""


def event(message: bytes) -> bytes:
    """Return one SSE event carrying an encoded JSON-RPC message."""
    return b"data: " + message + b"\n\n"
