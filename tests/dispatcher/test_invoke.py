"""Calling handlers: django_mcp/dispatcher/invoke.py.

Sync, async and generator handlers run through a real ``Dispatcher``
(``tests.wire``); yielded progress becomes ``notifications/progress`` only
with a progress token and only while it increases, and a failure is
logged and collected, never sent.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from django_mcp import McpRequest, McpResponse, Server, Tool
from django_mcp.dispatcher.invoke import collect_failures
from tests.wire import call, modern_meta


class SyncTool(Tool):
    name = "sync"

    def handle(self) -> list[McpResponse]:
        return [McpResponse.text("one"), McpResponse.text("two")]


class AsyncTool(Tool):
    name = "async"

    async def handle(self, request: McpRequest) -> McpResponse:
        return McpResponse.text(f"asked {request.method}")


class CountTool(Tool):
    name = "count"

    def handle(self) -> Iterator[McpResponse]:
        yield McpResponse.progress(1, 3)
        yield McpResponse.progress(1, 3, "again")  # not increasing: dropped
        yield McpResponse.progress(2, 3, "half")
        yield McpResponse.text("counted")


class AsyncCountTool(Tool):
    name = "async-count"

    async def handle(self) -> AsyncIterator[McpResponse]:
        yield McpResponse.progress(5)
        yield McpResponse.text("a")
        yield McpResponse.text("b")


class FailingTool(Tool):
    name = "fail"

    def handle(self) -> McpResponse:
        raise RuntimeError("password=hunter2")


class InvokeServer(Server):
    tools = (SyncTool, AsyncTool, CountTool, AsyncCountTool, FailingTool)


async def run(name: str, *, token: Any = None) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    sent: list[tuple[str, dict[str, Any]]] = []
    meta = modern_meta() if token is None else modern_meta(progressToken=token)
    reply = await call(
        InvokeServer,
        "tools/call",
        {"name": name},
        meta=meta,
        emit=lambda method, params: sent.append((method, params)),
    )
    return reply, sent


def texts(reply: dict[str, Any]) -> list[str]:
    return [block["text"] for block in reply["result"]["content"]]


async def test_sync_and_async_handlers_give_every_response_in_order() -> None:
    assert texts((await run("sync"))[0]) == ["one", "two"]
    assert texts((await run("async"))[0]) == ["asked tools/call"]


async def test_generator_progress_is_sent_with_a_token_only_while_it_increases() -> None:
    reply, sent = await run("count", token="t-1")

    assert texts(reply) == ["counted"]
    assert sent == [
        ("notifications/progress", {"progressToken": "t-1", "progress": 1, "total": 3}),
        ("notifications/progress", {"progressToken": "t-1", "progress": 2, "total": 3, "message": "half"}),
    ]


async def test_without_a_token_progress_is_left_out_and_not_sent() -> None:
    reply, sent = await run("count")

    assert texts(reply) == ["counted"] and sent == []


async def test_an_async_generator_handler_yields_progress_and_responses() -> None:
    reply, sent = await run("async-count", token=7)

    assert texts(reply) == ["a", "b"]
    assert sent == [("notifications/progress", {"progressToken": 7, "progress": 5})]


async def test_a_failure_is_logged_and_collected_but_never_sent(caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.ERROR, logger="django_mcp.dispatcher.invoke"),
        collect_failures() as failures,
    ):
        reply, _ = await run("fail")

    assert "hunter2" not in str(reply)
    assert (texts(reply), reply["result"]["isError"]) == (["Tool execution failed"], True)
    assert [str(failure) for failure in failures] == ["password=hunter2"]
    assert any(record.exc_info and record.exc_info[1] is failures[0] for record in caplog.records)
