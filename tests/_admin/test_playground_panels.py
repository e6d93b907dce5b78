"""Tests for django_mcp._admin.playground_panels: what a result looks like on the page."""

from __future__ import annotations

import base64

from django_mcp._admin.outcome import Outcome
from django_mcp._admin.playground_panels import content_view, result_view

PNG = base64.b64encode(b"\x89PNG\r\n").decode()


def test_images_and_audio_become_data_uris_only_when_safe() -> None:
    image = content_view({"type": "image", "data": PNG, "mimeType": "image/png"})
    wrong_family = content_view({"type": "image", "data": PNG, "mimeType": "text/html"})
    not_base64 = content_view({"type": "audio", "data": "<script>", "mimeType": "audio/wav"})

    assert image["src"] == f"data:image/png;base64,{PNG}"
    assert wrong_family["src"] is None
    assert not_base64["src"] is None


def test_embedded_json_is_pretty_printed_and_blobs_are_sized() -> None:
    text = content_view(
        {"type": "resource", "resource": {"uri": "a://b", "mimeType": "application/json", "text": '{"a":1}'}}
    )
    blob = content_view(
        {"type": "resource", "resource": {"uri": "a://c", "mimeType": "application/pdf", "blob": PNG}}
    )

    assert text["resource"]["text"] == '{\n  "a": 1\n}'
    assert blob["resource"]["size"] == 6
    assert "src" not in blob["resource"]


def test_notifications_are_shown_in_order_before_the_result() -> None:
    outcome = Outcome(
        {"method": "tools/call", "params": {}},
        {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": True}},
        [
            {"method": "notifications/progress", "params": {"progress": 1, "total": 3, "message": "one"}},
            {
                "method": "notifications/message",
                "params": {"level": "warning", "logger": "x", "data": {"k": 1}},
            },
            {"method": "notifications/progress", "params": {"progress": 2}},
        ],
    )

    view = result_view("tool", outcome)

    assert view["events"] == [
        {"kind": "progress", "label": "1/3", "text": "one"},
        {"kind": "log", "label": "warning x", "text": '{\n  "k": 1\n}'},
        {"kind": "progress", "label": "2", "text": ""},
    ]
    assert view["is_error"] is True
    assert outcome.summary == "failed (isError)"
