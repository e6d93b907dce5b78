"""django_mcp.request: what McpRequest tells a handler, and the log messages it sends."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory

from django_mcp.dispatcher.codec import parse_message
from django_mcp.dispatcher.context import CallContext
from django_mcp.exceptions import MissingClientCapability
from django_mcp.request import LOG_LEVELS, McpRequest


def mcp_request(**given: Any) -> McpRequest:
    values: dict[str, Any] = {
        "method": "tools/call",
        "params": {},
        "meta": {},
        "protocol_version": "2026-07-28",
        "client_capabilities": {},
        **given,
    }
    return McpRequest(**values)


def test_of_takes_the_envelope_and_what_the_transport_knows_of_the_caller() -> None:
    envelope = parse_message(b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo"}}')
    ctx = CallContext(
        era="legacy",
        protocol_version="2025-11-25",
        client_capabilities={"roots": {}},
        client_info={"name": "inspector"},
        log_level="info",
    )

    request = McpRequest.of("the server", envelope, ctx)

    assert (request.method, request.params, request.request_id) == ("tools/call", {"name": "echo"}, 5)
    assert (request.protocol_version, request.client_capabilities) == ("2025-11-25", {"roots": {}})
    assert (request.client_info, request.log_level, request.server) == (
        {"name": "inspector"},
        "info",
        "the server",
    )
    assert request.http_request is None and request.client_address is None
    assert repr(request) == "McpRequest(method='tools/call', id=5)"


def test_a_django_request_given_is_the_http_request_and_gives_the_peer_address() -> None:
    django_request = RequestFactory().post("/mcp", REMOTE_ADDR="203.0.113.9")

    request = mcp_request(http_request=django_request)

    assert request.http_request is django_request and request.request is django_request
    assert request.client_address == "203.0.113.9"


@pytest.mark.parametrize(
    ("capabilities", "asked", "declared"),
    [
        ({"roots": {}}, ("roots", None), True),
        ({"roots": True}, ("roots", None), False),
        ({}, ("sampling", None), False),
        ({"elicitation": {}}, ("elicitation", "form"), True),
        ({"elicitation": {}}, ("elicitation", "url"), False),
        ({"elicitation": {"url": {}}}, ("elicitation", "url"), True),
        ({"elicitation": {"url": {}}}, ("elicitation", "form"), False),
        ({"sampling": {"tools": {}}}, ("sampling", "tools"), True),
    ],
)
def test_has_capability_reads_the_declared_capabilities(
    capabilities: dict[str, Any],
    asked: tuple[str, str | None],
    declared: bool,  # noqa: FBT001
) -> None:
    assert mcp_request(client_capabilities=capabilities).has_capability(*asked) is declared


def test_require_capability_names_what_is_missing_in_the_error_data() -> None:
    request = mcp_request(client_capabilities={"elicitation": {}})

    request.require_capability("elicitation", "form")
    with pytest.raises(MissingClientCapability) as caught:
        request.require_capability("elicitation", "url")

    assert caught.value.message == "This request needs the client capability elicitation.url"
    assert caught.value.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}


def test_log_sends_messages_at_or_above_the_level_asked_for() -> None:
    sent: list[tuple[str, dict[str, Any]]] = []
    request = mcp_request(log_level="warning", emit=lambda method, params: sent.append((method, params)))

    request.log("info", "skipped")
    request.log("warning", "careful")
    request.log("emergency", {"disk": "full"}, logger="storage")

    assert sent == [
        ("notifications/message", {"level": "warning", "data": "careful"}),
        ("notifications/message", {"level": "emergency", "data": {"disk": "full"}, "logger": "storage"}),
    ]


def test_log_sends_nothing_when_no_level_was_asked_for_and_refuses_unknown_levels() -> None:
    sent: list[Any] = []
    request = mcp_request(emit=lambda *message: sent.append(message))

    request.log("emergency", "ignored")
    with pytest.raises(ValueError, match="unknown log level 'loud'"):
        request.log("loud", "x")  # type: ignore[arg-type]

    assert sent == []
    assert LOG_LEVELS[0] == "debug" and LOG_LEVELS[-1] == "emergency"
