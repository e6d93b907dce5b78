"""An event as the cross-process backends send it: a small JSON array.

``[server, kind, subject]``, where the subject is a task event's task id,
else the resource URI (or null); a session's (un)subscribe event adds the
session id as a fourth item. Redis and PostgreSQL send the same bytes.
"""

from __future__ import annotations

from typing import Any

import msgspec

from django_mcp.events import Event

__all__ = ["decode_event", "encode_event"]


def encode_event(event: Event) -> bytes:
    """Return the JSON bytes that carry ``event`` to the other processes."""
    subject = event.task_id if event.kind == "task" else event.uri
    fields: list[Any] = [event.server, event.kind, subject]
    if event.session is not None:
        fields.append(event.session)
    return msgspec.json.encode(fields)


def decode_event(data: bytes | str) -> Event:
    """Return the event ``encode_event`` made ``data`` from.

    Raises:
        ValueError: ``data`` is not such an event (``msgspec.DecodeError`` is one).
    """
    try:
        server, kind, subject, *rest = msgspec.json.decode(data)
    except TypeError:  # not an array
        raise ValueError("an MCP event is a JSON array") from None
    if len(rest) > 1 or not all(isinstance(item, str) for item in (server, kind, *rest)):
        raise ValueError("malformed MCP event")
    session = rest[0] if rest else None
    if kind == "task":
        return Event(server, kind, task_id=subject, session=session)
    return Event(server, kind, subject, session=session)
