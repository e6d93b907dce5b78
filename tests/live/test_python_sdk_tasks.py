"""The tasks extension through the official MCP Python SDK client (``mcp==2.3.0``).

The SDK has no tasks extension of its own, but its public extension API has
everything one needs, so this file writes the small client SEP-2663
describes on it: ``TasksClient`` advertises ``io.modelcontextprotocol/tasks``
in every request's client capabilities, claims ``resultType: "task"`` on
``tools/call`` and resolves it by polling ``tasks/get`` (the SDK's own
``send_request``, which sets ``Mcp-Name`` to the task id), answering input
requests through the client's callbacks and ``tasks/update``. The SDK's
multi round-trip driver resolves input asked before the task exists.

The live server is the conformance fixture server with its tasks stored by
django-tasks-db and run by a ``db_worker`` process (tests/conftest.py);
without django-tasks-db these tests are skipped. Every wait is bounded.
"""

from __future__ import annotations

from typing import Any, Literal

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter

from django_mcp.protocol import jsonrpc

EXTENSION = "io.modelcontextprotocol/tasks"
#: Seconds any single test may take, connection included.
TIMEOUT = 30


@pytest.fixture
def endpoint(live_server_url: str) -> str:
    from tests.conftest import TASKS_DB

    if not TASKS_DB:
        pytest.skip(
            "django-tasks-db is not installed (the tasks extra): no worker runs the live server's tasks"
        )
    return f"{live_server_url}/conformance/mcp"


# ------------------------------------------------ a SEP-2663 client on the SDK


class TaskIdParams(types.RequestParams):
    task_id: str


class UpdateTaskParams(TaskIdParams):
    input_responses: dict[str, Any]


class GetTask(types.Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class UpdateTask(types.Request[UpdateTaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param = "taskId"


class CancelTask(types.Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


class CreatedTask(types.Result):
    """``CreateTaskResult``: the claimed ``resultType: "task"`` shape."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None
    status_message: str | None = None


class DetailedTask(types.Result):
    """``GetTaskResult``: the task and what its status carries."""

    result_type: Literal["complete"] = "complete"
    task_id: str
    status: str
    ttl_ms: int | None
    status_message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = None


class Ack(types.Result):
    result_type: Literal["complete"] = "complete"


_input_requests: TypeAdapter[dict[str, types.InputRequest]] = TypeAdapter(dict[str, types.InputRequest])


class TasksClient(ClientExtension):
    """Resolve tasks the server answers ``tools/call`` with, polling ``tasks/get``."""

    identifier = EXTENSION

    def __init__(self) -> None:
        self.created: list[CreatedTask] = []
        self.seen: list[DetailedTask] = []

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self.resolve)]

    async def resolve(self, created: CreatedTask, ctx: ClaimContext) -> types.CallToolResult:
        self.created.append(created)
        session = ctx.session
        while True:
            task = await session.send_request(
                GetTask(params=TaskIdParams(task_id=created.task_id)), DetailedTask
            )
            self.seen.append(task)
            if task.status == "completed":
                return types.CallToolResult.model_validate(task.result)
            if task.status == "failed":
                error = task.error or {}
                raise MCPError(error.get("code", 0), error.get("message", ""), error.get("data"))
            if task.status == "cancelled":
                raise RuntimeError(f"task {task.task_id} was cancelled")
            if task.status == "input_required":
                answers: dict[str, Any] = {}
                for key, request in _input_requests.validate_python(task.input_requests or {}).items():
                    context = ClientRequestContext(session=session, request_id=key, meta=None)
                    answer = await session.dispatch_input_request(context, request)
                    answers[key] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
                await session.send_request(
                    UpdateTask(params=UpdateTaskParams(task_id=task.task_id, input_responses=answers)), Ack
                )
            await anyio.sleep(0.1)


class Elicitations:
    """Answer every elicitation with ``content``, remembering the messages."""

    def __init__(self, content: dict[str, Any]) -> None:
        self.content = content
        self.messages: list[str] = []

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        self.messages.append(params.message)
        return types.ElicitResult(action="accept", content=self.content)


def connect(endpoint: str, tasks: TasksClient | None, **callbacks: Any) -> Client:
    return Client(
        endpoint,
        mode="auto",
        read_timeout_seconds=TIMEOUT,
        extensions=[tasks] if tasks is not None else [],
        **callbacks,
    )


def text_of(result: types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, types.TextContent)
    return block.text


# ------------------------------------------------------------------- tests


async def test_the_server_advertises_the_extension_to_the_sdk(endpoint: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, TasksClient()) as client:
            capabilities = client.server_capabilities

    # The fixture serves skills too (io.modelcontextprotocol/skills); both are
    # Beta extensions, which declare the revision they implement.
    assert capabilities.extensions == {
        EXTENSION: {"revision": "1"},
        "io.modelcontextprotocol/skills": {"directoryRead": True, "revision": "1"},
    }


async def test_a_task_result_reaches_the_sdk_caller_like_a_direct_one(endpoint: str) -> None:
    tasks = TasksClient()
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, tasks) as client:
            result = await client.call_tool("slow_compute", {"seconds": 0.3, "label": "sdk"})

    assert text_of(result) == "Computed sdk in 0.3 s"
    assert [created.status for created in tasks.created] == ["working"]
    assert tasks.created[0].ttl_ms == 3_600_000
    assert tasks.seen[-1].status == "completed"


async def test_a_tool_error_of_a_task_is_an_is_error_result(endpoint: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, TasksClient()) as client:
            result = await client.call_tool("failing_job", {})

    assert result.is_error is True


async def test_a_failed_task_raises_its_json_rpc_error(endpoint: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, TasksClient()) as client:
            with pytest.raises(MCPError) as failed:
                await client.call_tool("protocol_error_job", {})

    assert failed.value.error.code == jsonrpc.INTERNAL_ERROR


async def test_input_asked_by_a_running_task_goes_through_tasks_get_and_update(endpoint: str) -> None:
    tasks = TasksClient()
    answers = Elicitations({"confirm": True})
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, tasks, elicitation_callback=answers) as client:
            result = await client.call_tool("confirm_delete", {"filename": "notes.txt"})

    assert text_of(result) == "Deleted notes.txt"
    assert answers.messages == ["Delete notes.txt?"]
    assert "input_required" in [task.status for task in tasks.seen]


async def test_input_asked_before_the_task_exists_goes_through_the_sdk_mrtr_driver(endpoint: str) -> None:
    tasks = TasksClient()
    answers = Elicitations({"name": "Alice"})
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, tasks, elicitation_callback=answers) as client:
            result = await client.call_tool("test_tool_with_task", {})

    assert text_of(result) == "Hello, Alice! (greeted by a task)"
    assert answers.messages == ["What is your name?"]
    assert len(tasks.created) == 1
    assert "input_required" not in [task.status for task in tasks.seen]


async def test_an_sdk_client_without_the_extension_gets_direct_results_or_32021(endpoint: str) -> None:
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, None) as client:
            direct = await client.call_tool("slow_compute", {"seconds": 0.1, "label": "direct"})
            with pytest.raises(MCPError) as refused:
                await client.call_tool("failing_job", {})

    assert text_of(direct) == "Computed direct in 0.1 s"
    assert refused.value.error.code == jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert refused.value.error.data == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}


async def test_an_sdk_client_cancels_a_running_task(endpoint: str) -> None:
    tasks = TasksClient()
    with anyio.fail_after(TIMEOUT):
        async with connect(endpoint, tasks) as client:
            created = await client.session.call_tool(
                "slow_compute", {"seconds": 60, "label": "cancelled"}, allow_claimed=True
            )
            assert isinstance(created, CreatedTask)
            session = client.session
            task_id = TaskIdParams(task_id=created.task_id)
            while (await session.send_request(GetTask(params=task_id), DetailedTask)).status_message is None:
                await anyio.sleep(0.1)  # running: the handler reports how long it has left
            ack = await session.send_request(CancelTask(params=task_id), Ack)
            while (
                state := await session.send_request(GetTask(params=task_id), DetailedTask)
            ).status == "working":
                await anyio.sleep(0.1)

    assert ack.result_type == "complete"
    assert state.status == "cancelled"
    assert state.result is None
