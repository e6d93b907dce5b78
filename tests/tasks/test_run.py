"""A task's run: django_mcp/tasks/run.py.

The jobs are stored by the dummy Tasks backend (never run by it): each test
runs ``background.run(task_id)`` itself, in the test's event loop, so it can
cancel the task while the handler works and see that the work really
stops. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connections
from django.test import override_settings

from django_mcp import McpRequest, McpResponse, Server, Tool
from django_mcp.inputs import input_required
from django_mcp.models import McpTask
from django_mcp.protocol import jsonrpc
from django_mcp.protocol.tasks import EXTENSION
from django_mcp.tasks import run as background
from django_mcp.tasks.store import claim
from tests.wire import call, modern_meta

pytestmark = pytest.mark.django_db(transaction=True)

TASKS = {"extensions": {EXTENSION: {}}}
DUMMY = "django_tasks.backends.dummy.DummyBackend"
IMMEDIATE = "django_tasks.backends.immediate.ImmediateBackend"
#: Seconds any wait in these tests may take.
BOUND = 10


class Progress:
    """What the handlers below did, shared with the test."""

    ticks = 0
    stopped: threading.Event | None = None


class AsyncWorkTool(Tool):
    name = "async_work"
    task = "optional"

    async def handle(self, request: McpRequest) -> McpResponse:
        assert Progress.stopped is not None
        try:
            while True:  # never finishes by itself
                Progress.ticks += 1
                request.task.status_message = f"tick {Progress.ticks}"
                await asyncio.sleep(0.02)
        finally:
            Progress.stopped.set()


class SyncWorkTool(Tool):
    name = "sync_work"
    task = "optional"

    def handle(self, request: McpRequest) -> McpResponse:
        assert Progress.stopped is not None
        try:
            for _ in range(BOUND * 50):
                request.task.check_cancelled()
                Progress.ticks += 1
                time.sleep(0.02)
            return McpResponse.text("ran to the end")
        finally:
            Progress.stopped.set()


class CheckpointTool(Tool):
    """Returns state only, once: the task runs again at once with it."""

    name = "checkpoint"
    task = "optional"

    def handle(self, request: McpRequest) -> Any:
        if request.request_state is None:
            return input_required(state={"step": 1})
        return McpResponse.text(f"resumed at step {request.request_state['step']}")


class BigTool(Tool):
    name = "big"
    task = "optional"

    def handle(self) -> McpResponse:
        return McpResponse.text("x" * 2048)


class StaffTool(Tool):
    name = "staff"
    task = "optional"

    def authorize(self, request: McpRequest) -> bool:
        return bool(getattr(request.user, "is_staff", False))

    def handle(self, request: McpRequest) -> McpResponse:
        return McpResponse.text(f"hello {request.user.username}")


class WorkServer(Server):
    tools = (AsyncWorkTool, SyncWorkTool, CheckpointTool, BigTool, StaffTool)


@pytest.fixture(autouse=True)
def stored_only() -> Iterator[None]:
    Progress.ticks = 0
    Progress.stopped = threading.Event()
    with override_settings(
        TASKS={"default": {"BACKEND": IMMEDIATE}, "stored": {"BACKEND": DUMMY}}, MCP_TASK_BACKEND="stored"
    ):
        yield


async def create(name: str, *, user: Any = None) -> str:
    reply = await call(
        WorkServer, "tools/call", {"name": name, "arguments": {}}, meta=modern_meta(TASKS), user=user
    )
    assert reply["result"]["resultType"] == "task", reply
    return str(reply["result"]["taskId"])


async def poll(task_id: str, *, user: Any = None) -> dict[str, Any]:
    reply = await call(WorkServer, "tasks/get", {"taskId": task_id}, meta=modern_meta(TASKS), user=user)
    return reply["result"]  # type: ignore[no-any-return]


async def until(condition: Any) -> None:
    async with asyncio.timeout(BOUND):
        while not await condition():
            await asyncio.sleep(0.02)


async def cancel_request(task_id: str) -> None:
    reply = await call(WorkServer, "tasks/cancel", {"taskId": task_id}, meta=modern_meta(TASKS))
    assert reply["result"]["resultType"] == "complete"


async def cancel_from_elsewhere(task_id: str) -> None:
    # What tasks/cancel served by another process writes. In this process a
    # sync handler holds the thread-sensitive thread the ORM's async API
    # needs, so write from a thread of its own.
    def cancel() -> None:
        McpTask.objects.filter(pk=task_id).update(cancel_requested=True)
        connections.close_all()

    await asyncio.to_thread(cancel)


async def cancel_mid_run(name: str, cancel: Any) -> tuple[dict[str, Any], int]:
    """Run task ``name``, cancel it once it works; return its final state and ticks after."""
    task_id = await create(name)
    run = asyncio.ensure_future(background.run(task_id))

    async def working() -> bool:
        return Progress.ticks > 3

    await until(working)
    await cancel(task_id)
    async with asyncio.timeout(BOUND):
        await run
    assert Progress.stopped is not None
    assert await asyncio.to_thread(Progress.stopped.wait, BOUND)
    ticks = Progress.ticks
    await asyncio.sleep(0.2)
    assert Progress.ticks == ticks  # nothing runs any more
    return await poll(task_id), ticks


async def test_cancelling_an_async_handler_stops_it_at_its_next_await() -> None:
    state, ticks = await cancel_mid_run("async_work", cancel_request)

    assert state["status"] == "cancelled"
    assert ticks < BOUND * 50


async def test_a_sync_handler_stops_when_it_checks_for_cancellation() -> None:
    state, ticks = await cancel_mid_run("sync_work", cancel_from_elsewhere)

    assert state["status"] == "cancelled"
    assert ticks < BOUND * 50
    assert "result" not in state


async def test_status_messages_are_published_while_the_handler_runs() -> None:
    task_id = await create("async_work")
    run = asyncio.ensure_future(background.run(task_id))

    async def reported() -> bool:
        return (await poll(task_id)).get("statusMessage", "").startswith("tick ")

    try:
        await until(reported)
    finally:
        await call(WorkServer, "tasks/cancel", {"taskId": task_id}, meta=modern_meta(TASKS))
        async with asyncio.timeout(BOUND):
            await run


async def test_a_task_cancelled_before_its_run_never_runs() -> None:
    task_id = await create("sync_work")
    await call(WorkServer, "tasks/cancel", {"taskId": task_id}, meta=modern_meta(TASKS))

    await background.run(task_id)

    assert Progress.ticks == 0
    assert (await poll(task_id))["status"] == "cancelled"


async def test_a_task_runs_once_whoever_else_tries() -> None:
    task_id = await create("checkpoint")
    await McpTask.objects.filter(pk=task_id).aupdate(running=True)

    # Another worker's claim, from a thread of its own that closes its connection as it ends.
    def claim_elsewhere() -> Any:
        try:
            return claim(task_id, 30)
        finally:
            connections.close_all()

    assert await asyncio.to_thread(claim_elsewhere) is None


async def test_state_only_input_asks_for_another_run_which_gets_its_state() -> None:
    task_id = await create("checkpoint")

    again = await background.run(task_id)
    assert again is True
    assert await background.run(task_id) is False

    state = await poll(task_id)
    assert state["result"]["content"] == [{"type": "text", "text": "resumed at step 1"}]


@override_settings(MCP_MAX_RESPONSE_SIZE=1024)
async def test_a_result_over_the_response_limit_fails_the_task() -> None:
    task_id = await create("big")

    await background.run(task_id)

    assert (await poll(task_id))["error"] == {
        "code": jsonrpc.INTERNAL_ERROR,
        "message": "Result exceeds MCP_MAX_RESPONSE_SIZE",
    }


async def test_the_run_sees_the_caller_and_rechecks_that_it_may_use_the_tool() -> None:
    staff = await User.objects.acreate(username="ana", is_staff=True)
    task_id = await create("staff", user=staff)
    await background.run(task_id)
    assert (await poll(task_id, user=staff))["result"]["content"] == [{"type": "text", "text": "hello ana"}]

    later = await create("staff", user=staff)
    staff.is_staff = False
    await staff.asave()
    await background.run(later)

    assert (await poll(later, user=staff))["error"] == {
        "code": jsonrpc.INVALID_PARAMS,
        "message": "Unknown tool: staff",
    }


async def test_a_task_whose_caller_was_deleted_fails() -> None:
    user = await User.objects.acreate(username="gone", is_staff=True)
    task_id = await create("staff", user=user)
    await user.adelete()

    await background.run(task_id)

    record = await McpTask.objects.aget(pk=task_id)
    assert (record.status, record.error["code"]) == ("failed", jsonrpc.INVALID_PARAMS)


async def test_a_server_this_process_has_not_compiled_is_imported_by_its_path() -> None:
    task_id = await create("checkpoint")
    await McpTask.objects.filter(pk=task_id).aupdate(server="testproject.conformance.mcp.ConformanceServer")

    found = background._dispatcher("testproject.conformance.mcp.ConformanceServer")
    assert found.compiled.key.endswith("ConformanceServer")
    with pytest.raises(Exception) as missing:
        background._dispatcher("tests.nowhere.Server")
    assert missing.value.args == ("The task's server is not available",)
