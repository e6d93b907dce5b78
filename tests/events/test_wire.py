"""Events as the Redis and PostgreSQL backends send them."""

from __future__ import annotations

import pytest

from django_mcp.events import Event
from django_mcp.events._wire import decode_event, encode_event


@pytest.mark.parametrize(
    "event",
    [
        Event("app.mcp.Server", "tools"),
        Event("app.mcp.Server", "resource_updated", "demo://x"),
        Event("", "task", task_id="t-1"),
        Event("", "subscribed", "demo://x", session="abc"),
        Event("", "unsubscribed", "demo://x", session="abc"),
    ],
)
def test_an_event_survives_the_trip(event: Event) -> None:
    assert decode_event(encode_event(event)) == event
    assert decode_event(encode_event(event).decode()) == event  # NOTIFY payloads are text


def test_an_event_without_a_session_keeps_the_three_item_form() -> None:
    assert encode_event(Event("s", "resource_updated", "demo://x")) == b'["s","resource_updated","demo://x"]'


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not json",
        b"7",
        b'["s","tools"]',
        b'["s","tools",null,"a","b"]',
        b'[1,"tools",null]',
        b'["s","tools",null,5]',
    ],
)
def test_anything_else_is_a_value_error(data: bytes) -> None:
    with pytest.raises(ValueError):
        decode_event(data)
