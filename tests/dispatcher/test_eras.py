"""Tests for django_mcp.dispatcher.eras: finishing results per era, the tools/call answer's bytes.

``ToolReplies`` must write the very bytes the general path (``finish()``,
then one encoding of the JSON-RPC response) writes.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import msgspec
import pytest

from django_mcp import McpResponse, Server, Tool
from django_mcp.conf import get_settings
from django_mcp.dispatcher import Dispatcher, tools
from django_mcp.dispatcher.codec import encode_response, parse_message
from django_mcp.dispatcher.context import Call, modern_context
from django_mcp.dispatcher.eras import ToolReplies, finish
from django_mcp.protocol.content import TextContent
from django_mcp.protocol.results import CallToolResult
from django_mcp.schemas import Schema
from tests.wire import call, modern_request


class Total(Schema):
    total: int


class Adder(Tool[Total, Total]):
    name = "add"

    async def handle(self, payload: Total) -> McpResponse:
        return McpResponse.structured({"total": payload.total + 1})


class Liar(Tool[Total, Total]):
    name = "liar"

    def handle(self, payload: Total) -> McpResponse:
        return McpResponse.structured({"total": "many"})


class Sums(Server):
    name = "sums"
    tools = (Adder, Liar)


RESULTS = [
    CallToolResult(content=(TextContent(text="hi"),)),
    CallToolResult(content=(TextContent(text='{"a":1}'),), structuredContent={"a": [1, "é"]}),
    CallToolResult(content=(), isError=True),
]


def general(request_id: Any, result: CallToolResult, settings: Any) -> bytes:
    """Return the answer as the general path encodes it."""
    body = {**modern_request("tools/call", {"name": "add"}), "id": request_id}
    envelope = parse_message(msgspec.json.encode(body))
    ctx = modern_context(envelope)
    finished = finish(Call(Sums.compiled(), settings, envelope, envelope.params, ctx, None), result)
    return encode_response(request_id, finished)


@pytest.mark.parametrize("server_info", [True, False])
@pytest.mark.parametrize("request_id", [7, "req-é", 2**53])
@pytest.mark.parametrize("result", RESULTS)
def test_the_answer_is_the_bytes_the_general_path_writes(
    result: CallToolResult, request_id: Any, *, server_info: bool
) -> None:
    settings = dataclasses.replace(get_settings(), server_info=server_info)
    reply = ToolReplies(Sums.compiled(), settings).reply(request_id, "tools/call", result)

    assert reply is not None
    assert reply.body == general(request_id, result, settings)
    assert reply.result is result


@pytest.mark.parametrize(
    "result",
    [
        CallToolResult(content=(), meta={"x": 1}),
        CallToolResult(content=(), result_type="other"),
    ],
)
def test_a_result_with_meta_or_another_result_type_is_left_to_the_general_path(
    result: CallToolResult,
) -> None:
    assert ToolReplies(Sums.compiled(), get_settings()).reply(1, "tools/call", result) is None


def test_server_info_over_the_metadata_limit_is_left_to_the_general_path() -> None:
    settings = get_settings()
    tight = dataclasses.replace(settings, limits=dataclasses.replace(settings.limits, max_metadata_size=10))

    assert ToolReplies(Sums.compiled(), tight).reply(1, "tools/call", RESULTS[0]) is None


@pytest.mark.parametrize("limit", ["10", None, 1.5])
def test_a_metadata_limit_of_the_wrong_type_leaves_the_answer_to_the_general_path(limit: Any) -> None:
    # The system check reports such a setting (django_mcp.E001); changing it
    # must not break the dispatcher's settings reload.
    settings = get_settings()
    limits = dataclasses.replace(settings.limits, max_metadata_size=limit)
    wrong = dataclasses.replace(settings, limits=limits)

    assert ToolReplies(Sums.compiled(), wrong).reply(1, "tools/call", RESULTS[0]) is None


def test_an_answer_over_the_response_limit_is_refused_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    settings = get_settings()
    size = len(general(1, RESULTS[1], settings))
    tight = dataclasses.replace(
        settings, limits=dataclasses.replace(settings.limits, max_response_size=size - 1)
    )

    with caplog.at_level(logging.ERROR, logger="django_mcp.dispatcher"):
        reply = ToolReplies(Sums.compiled(), tight).reply(1, "tools/call", RESULTS[1])
        exact = ToolReplies(
            Sums.compiled(),
            dataclasses.replace(
                settings, limits=dataclasses.replace(settings.limits, max_response_size=size)
            ),
        ).reply(1, "tools/call", RESULTS[1])

    assert reply is not None and reply.error is not None
    assert reply.error.message == "Response exceeds MCP_MAX_RESPONSE_SIZE"
    assert [record.getMessage() for record in caplog.records] == [
        f"Response to tools/call is {size} bytes, above MCP_MAX_RESPONSE_SIZE ({size - 1})"
    ]
    assert exact is not None and exact.error is None


async def test_a_planned_call_is_served_without_the_general_invoke(monkeypatch: pytest.MonkeyPatch) -> None:
    invoked: list[Any] = []
    monkeypatch.setattr(tools, "invoke", lambda *args, **kwargs: invoked.append(args))

    reply = await call(Dispatcher(Sums.compiled()), "tools/call", {"name": "add", "arguments": {"total": 1}})

    assert reply["result"]["structuredContent"] == {"total": 2}
    assert invoked == []


async def test_structured_content_the_plan_refuses_is_refused_with_the_general_words(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR):
        reply = await call(Sums, "tools/call", {"name": "liar", "arguments": {"total": 1}})

    assert reply["result"]["isError"] is True
    assert reply["result"]["content"] == [{"type": "text", "text": "Tool execution failed"}]
    assert any(
        "tool 'liar' output does not match its output schema" in str(record.exc_info[1])
        for record in caplog.records
        if record.exc_info
    )
