"""The signals a project hooks its own metrics or audit to: django_mcp/signals.py.

``mcp_request_finished`` is sent once per request with its documented
keyword arguments, to sync and async receivers, only while it has some; a
receiver that raises is logged and changes nothing for the client.
``mcp_task_status_changed`` follows a task from creation to its end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User

from django_mcp import McpResponse, Server, Tool
from django_mcp.models import McpTask
from django_mcp.protocol import jsonrpc
from django_mcp.protocol.tasks import EXTENSION
from django_mcp.signals import OUTCOMES, mcp_request_finished, mcp_task_status_changed
from django_mcp.tasks import run as background
from django_mcp.testing import McpTestClient
from testproject.conformance.mcp import ConformanceServer
from tests.wire import call, modern_meta

TASKS = {"extensions": {EXTENSION: {}}}


@pytest.fixture
def finished() -> Iterator[list[dict[str, Any]]]:
    received: list[dict[str, Any]] = []

    def receiver(sender: Any, **kwargs: Any) -> None:
        received.append({"sender": sender, **kwargs})

    mcp_request_finished.connect(receiver)
    yield received
    mcp_request_finished.disconnect(receiver)


async def test_a_finished_request_sends_its_server_method_component_user_outcome_and_duration(
    finished: list[dict[str, Any]],
) -> None:
    user = User(pk=7, username="ada")
    (await McpTestClient(ConformanceServer, user).call_tool("test_simple_text")).assert_ok()

    [sent] = finished
    duration = sent.pop("duration")
    assert isinstance(duration, float) and duration >= 0
    assert sent == {
        "sender": ConformanceServer,
        "signal": mcp_request_finished,
        "server": ConformanceServer.compiled().key,
        "method": "tools/call",
        "component": "test_simple_text",
        "user": user,
        "outcome": "ok",
        "error_code": None,
        "protocol_version": "2026-07-28",
        "request_id": 1,
    }


@pytest.mark.parametrize(
    ("tool", "outcome", "code"),
    [
        ("test_error_handling", "tool_error", None),
        ("no_such_tool", "error", jsonrpc.INVALID_PARAMS),
        ("test_input_required_result_elicitation", "input_required", None),
    ],
)
async def test_the_outcome_names_how_the_request_ended(
    finished: list[dict[str, Any]], tool: str, outcome: str, code: int | None
) -> None:
    await McpTestClient(ConformanceServer).call_tool(tool)

    [sent] = finished
    assert (sent["outcome"], sent["error_code"]) == (outcome, code)
    assert sent["outcome"] in OUTCOMES


async def test_async_receivers_are_awaited() -> None:
    received: list[str] = []

    async def receiver(sender: Any, **kwargs: Any) -> None:
        await asyncio.sleep(0)
        received.append(kwargs["method"])

    mcp_request_finished.connect(receiver)
    try:
        (await McpTestClient(ConformanceServer).list_tools()).assert_ok()
    finally:
        mcp_request_finished.disconnect(receiver)
    assert received == ["tools/list"]


async def test_a_receiver_that_raises_is_logged_and_the_call_still_succeeds(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def receiver(sender: Any, **kwargs: Any) -> None:
        raise RuntimeError("a broken receiver")

    mcp_request_finished.connect(receiver)
    try:
        with caplog.at_level("ERROR", logger="django_mcp.observability"):
            (await McpTestClient(ConformanceServer).call_tool("test_simple_text")).assert_ok()
    finally:
        mcp_request_finished.disconnect(receiver)
    assert [
        record.getMessage() for record in caplog.records if record.name == "django_mcp.observability"
    ] == [f"A receiver of mcp_request_finished raised: {receiver!r}"]


class QuickTool(Tool):
    name = "quick"
    task = "optional"

    def handle(self) -> McpResponse:
        return McpResponse.text("done")


class TaskServer(Server):
    tools = (QuickTool,)


@pytest.mark.django_db(transaction=True)
async def test_a_task_sends_its_status_from_creation_to_its_end(settings: Any) -> None:
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    settings.MCP_TASK_BACKEND = "default"
    changes: list[dict[str, Any]] = []

    def receiver(sender: Any, **kwargs: Any) -> None:
        changes.append({"sender": sender, **kwargs})

    mcp_task_status_changed.connect(receiver)
    try:
        reply = await call(
            TaskServer, "tools/call", {"name": "quick", "arguments": {}}, meta=modern_meta(TASKS)
        )
        task_id = reply["result"]["taskId"]
        await asyncio.wait_for(background.run(task_id), 10)
    finally:
        mcp_task_status_changed.disconnect(receiver)

    assert changes == [
        {
            "sender": McpTask,
            "signal": mcp_task_status_changed,
            "task_id": task_id,
            "status": status,
            "error_code": None,
            "tool_error": False,
        }
        for status in ("working", "completed")
    ]
