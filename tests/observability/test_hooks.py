"""django_mcp/observability/_hooks.py: what observers hear of requests and tasks; none can fail them.

Requests go through a real ``Dispatcher`` (``tests.wire``); observing
starts when a receiver connects or ``MCP_AUDIT`` is set (the next request
decides again).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from django_mcp import McpResponse, Server, Tool
from django_mcp.models import McpTask
from django_mcp.observability import audit
from django_mcp.observability._hooks import observe_task, task_status_changed
from django_mcp.signals import mcp_request_finished, mcp_task_status_changed
from tests.wire import call

OBSERVER = "django_mcp.observability"


class WriteTool(Tool):
    name = "write"

    def handle(self) -> McpResponse:
        return McpResponse.text("written")


class HookServer(Server):
    tools = (WriteTool,)


@pytest.fixture
def statuses() -> Iterator[list[dict[str, Any]]]:
    heard: list[dict[str, Any]] = []

    def receiver(sender: Any, **kwargs: Any) -> None:
        heard.append({"sender": sender, **kwargs})

    mcp_task_status_changed.connect(receiver)
    yield heard
    mcp_task_status_changed.disconnect(receiver)


def test_a_task_status_reaches_the_signals_receivers(statuses: list[dict[str, Any]]) -> None:
    task_status_changed("t-1", "failed", error_code=-32603)
    task_status_changed("t-1", "completed", tool_error=True)

    assert statuses == [
        {
            "sender": McpTask,
            "signal": mcp_task_status_changed,
            "task_id": "t-1",
            "status": "failed",
            "error_code": -32603,
            "tool_error": False,
        },
        {
            "sender": McpTask,
            "signal": mcp_task_status_changed,
            "task_id": "t-1",
            "status": "completed",
            "error_code": None,
            "tool_error": True,
        },
    ]


def test_a_task_status_receiver_that_raises_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    def receiver(sender: Any, **kwargs: Any) -> None:
        raise RuntimeError("broken")

    mcp_task_status_changed.connect(receiver)
    try:
        with caplog.at_level("ERROR", logger=OBSERVER):
            task_status_changed("t-2", "working")
    finally:
        mcp_task_status_changed.disconnect(receiver)

    assert [record.getMessage() for record in caplog.records if record.name == OBSERVER] == [
        f"A receiver of mcp_task_status_changed raised: {receiver!r}"
    ]


def test_without_telemetry_a_task_runs_as_it_is() -> None:
    task = McpTask(id="t-3", tool="write")
    ran: list[str] = []

    async def run(record: McpTask) -> bool:
        ran.append(record.id)
        return True

    assert asyncio.run(observe_task(task, run)) is True
    assert ran == ["t-3"]


async def test_a_finished_request_reaches_receivers_with_its_outcome() -> None:
    heard: list[dict[str, Any]] = []

    def receiver(sender: Any, **kwargs: Any) -> None:
        heard.append(kwargs)

    mcp_request_finished.connect(receiver)
    try:
        await call(HookServer, "tools/call", {"name": "write"})
        await call(HookServer, "tools/call", {"name": "missing"})
    finally:
        mcp_request_finished.disconnect(receiver)

    assert [(entry["method"], entry["component"], entry["outcome"]) for entry in heard] == [
        ("tools/call", "write", "ok"),
        ("tools/call", "missing", "error"),
    ]
    assert heard[1]["error_code"] == -32602 and heard[0]["error_code"] is None


@pytest.mark.django_db
async def test_an_audit_that_fails_is_logged_and_the_call_still_succeeds(
    settings: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(entry: Any) -> None:
        raise RuntimeError("database gone")

    settings.MCP_AUDIT = "all"
    monkeypatch.setattr(audit, "write", broken)

    with caplog.at_level("ERROR", logger=OBSERVER):
        reply = await call(HookServer, "tools/call", {"name": "write"})

    assert reply["result"]["content"] == [{"type": "text", "text": "written"}]
    assert [record.getMessage() for record in caplog.records if record.name == OBSERVER] == [
        "Could not audit tools/call write"
    ]
