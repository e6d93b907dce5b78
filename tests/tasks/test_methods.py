"""The tasks extension's request path: django_mcp/tasks/methods.py.

Negotiation per request, the per-call decision, MRTR before a task exists,
durable creation, ``tasks/get``/``update``/``cancel``, caller binding,
expiry and the wire shapes. Every message is validated by the wire-schema
fixture, including the extension's CreateTaskResult and GetTaskResult
(tests/wire_schema.py).
"""

from __future__ import annotations

import datetime
import json
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest
from django.test import override_settings
from django.utils import timezone

from django_mcp import Server
from django_mcp.dispatcher import Dispatcher
from django_mcp.dispatcher.codec import parse_message
from django_mcp.dispatcher.context import CallContext
from django_mcp.models import McpTask
from django_mcp.protocol import jsonrpc
from django_mcp.protocol.tasks import EXTENSION
from django_mcp.tasks.methods import TASK_ID_BYTES, declares_tasks
from tests.tasks.task_server import (
    MISSING_TASKS,
    TASKS,
    EchoTool,
    NoTaskServer,
    TaskServer,
    answer,
    ask,
    get,
    start,
)
from tests.wire import call

pytestmark = pytest.mark.django_db(transaction=True)


# ----------------------------------------------------------- negotiation


async def test_discover_advertises_the_extension_when_a_tool_supports_tasks() -> None:
    with_tasks = await call(TaskServer, "server/discover")
    without = await call(NoTaskServer, "server/discover")

    assert with_tasks["result"]["capabilities"]["extensions"] == {EXTENSION: {"revision": "1"}}
    assert "extensions" not in without["result"]["capabilities"]
    assert TaskServer.compiled().legacy_capabilities.extensions is msgspec.UNSET


def test_only_an_extension_object_declares_tasks() -> None:
    assert declares_tasks({"extensions": {EXTENSION: {}}})
    assert not declares_tasks({"extensions": {EXTENSION: True}})
    assert not declares_tasks({"extensions": {}})
    assert not declares_tasks({})


async def test_optional_tool_answers_a_flat_task_to_a_declaring_client(dispatcher: Dispatcher) -> None:
    created = await start(dispatcher, "echo", {"text": "hi"})

    assert len(created["taskId"]) == 43  # TASK_ID_BYTES of URL-safe Base64
    assert TASK_ID_BYTES == 32
    record = await McpTask.objects.aget(pk=created["taskId"])
    assert record.expires_at is not None  # run in the request: kept an hour from its end
    assert created["ttlMs"] == round((record.expires_at - record.created_at).total_seconds() * 1000)
    assert created["ttlMs"] >= 3_600_000
    assert created["pollIntervalMs"] == 1000
    assert created["createdAt"].endswith("Z")
    assert not {"result", "error", "inputRequests", "requestState", "task", "ttl", "pollInterval"} & set(
        created
    )


async def test_optional_tool_runs_in_the_request_for_a_client_without_the_extension(
    dispatcher: Dispatcher,
) -> None:
    reply = await ask(dispatcher, "tools/call", {"name": "echo", "arguments": {"text": "hi"}}, tasks=False)

    assert reply["result"]["resultType"] == "complete"
    assert reply["result"]["content"] == [{"type": "text", "text": "hi (request)"}]
    assert await McpTask.objects.acount() == 0


async def test_required_tool_without_the_extension_is_missing_capability(dispatcher: Dispatcher) -> None:
    reply = await ask(dispatcher, "tools/call", {"name": "required"}, tasks=False)

    assert reply["error"]["code"] == jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert reply["error"]["data"] == MISSING_TASKS


async def test_the_extension_does_not_exist_for_2025_11_25(dispatcher: Dispatcher) -> None:
    context = CallContext(era="legacy", protocol_version="2025-11-25", client_capabilities=TASKS)

    optional = await dispatcher.respond(
        parse_message(
            b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",'
            b'"arguments":{"text":"x"},"task":{"ttl":1000}}}'
        ),
        context,
    )
    required = await dispatcher.respond(
        parse_message(b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"required"}}'), context
    )
    get_method = await dispatcher.respond(
        parse_message(b'{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"x"}}'), context
    )

    assert json.loads(optional.body)["result"]["content"] == [{"type": "text", "text": "x (request)"}]
    assert json.loads(required.body)["error"]["code"] == jsonrpc.INVALID_PARAMS
    assert json.loads(get_method.body)["error"]["code"] == jsonrpc.METHOD_NOT_FOUND


async def test_legacy_task_param_never_makes_a_task_of_a_plain_tool(dispatcher: Dispatcher) -> None:
    reply = await ask(
        dispatcher, "tools/call", {"name": "plain", "task": {"ttl": 60000, "pollInterval": 100}}
    )

    assert reply["result"]["content"] == [{"type": "text", "text": "plain"}]


async def test_use_task_decides_per_call(dispatcher: Dispatcher) -> None:
    direct = await ask(dispatcher, "tools/call", {"name": "instant", "arguments": {"text": "now"}})
    later = await ask(dispatcher, "tools/call", {"name": "instant", "arguments": {"text": "later"}})

    assert direct["result"]["resultType"] == "complete"
    assert later["result"]["resultType"] == "task"


async def test_prepare_asks_for_input_before_any_task_exists(dispatcher: Dispatcher) -> None:
    first = await ask(dispatcher, "tools/call", {"name": "gated"})

    assert first["result"]["resultType"] == "input_required"
    assert list(first["result"]["inputRequests"]) == ["name"]
    assert await McpTask.objects.acount() == 0

    second = await ask(
        dispatcher,
        "tools/call",
        {
            "name": "gated",
            "inputResponses": {"name": answer("Ana")},
            "requestState": first["result"]["requestState"],
        },
    )

    assert second["result"]["resultType"] == "task"
    assert "requestState" not in second["result"]
    done = await get(dispatcher, second["result"]["taskId"])
    assert done["result"]["content"] == [{"type": "text", "text": "hi Ana"}]


async def test_the_task_is_stored_before_the_answer(dispatcher: Dispatcher, stored_only: None) -> None:
    created = await start(dispatcher, "echo", {"text": "hi"})

    polled = await get(dispatcher, created["taskId"])
    assert (created["status"], polled["status"]) == ("working", "working")
    assert not {"result", "error", "inputRequests"} & set(polled)


# --------------------------------------------------------------- results


async def test_tasks_get_inlines_the_result_tools_call_would_have_answered(dispatcher: Dispatcher) -> None:
    created = await start(dispatcher, "echo", {"text": "hi"})

    polled = await get(dispatcher, created["taskId"])

    assert polled["status"] == "completed"
    assert polled["resultType"] == "complete"
    assert polled["result"] == {
        "resultType": "complete",
        "_meta": {"example.com/seen": True},
        "content": [{"type": "text", "text": "hi (task)"}],
        "isError": False,
    }


async def test_a_tool_error_completes_the_task_with_is_error(dispatcher: Dispatcher) -> None:
    polled = await get(dispatcher, (await start(dispatcher, "tool_error"))["taskId"])

    assert (polled["status"], polled["result"]["isError"]) == ("completed", True)


async def test_an_mcp_error_fails_the_task_with_its_json_rpc_error(dispatcher: Dispatcher) -> None:
    polled = await get(dispatcher, (await start(dispatcher, "protocol_error"))["taskId"])

    assert polled["status"] == "failed"
    assert polled["error"] == {"code": jsonrpc.INTERNAL_ERROR, "message": "broken", "data": {"hint": "none"}}
    assert "result" not in polled


async def test_an_unexpected_exception_completes_with_a_generic_tool_error(dispatcher: Dispatcher) -> None:
    polled = await get(dispatcher, (await start(dispatcher, "crash"))["taskId"])

    assert polled["result"]["content"] == [{"type": "text", "text": "Tool execution failed"}]
    assert "secret" not in str(polled)


# ----------------------------------------------------------------- input


async def test_input_rounds_wait_and_resume_with_every_answer(dispatcher: Dispatcher) -> None:
    task_id = (await start(dispatcher, "ask"))["taskId"]

    waiting = await get(dispatcher, task_id)
    assert waiting["status"] == "input_required"
    assert set(waiting["inputRequests"]) == {"first", "second"}
    assert waiting["inputRequests"]["first"]["method"] == "elicitation/create"

    partial = await ask(
        dispatcher, "tasks/update", {"taskId": task_id, "inputResponses": {"second": answer("b")}}
    )
    assert partial == {"jsonrpc": "2.0", "id": 1, "result": partial["result"]}
    assert set(partial["result"]) == {"resultType", "_meta"}
    assert list((await get(dispatcher, task_id))["inputRequests"]) == ["first"]

    await ask(
        dispatcher,
        "tasks/update",
        {"taskId": task_id, "inputResponses": {"first": answer("a"), "second": answer("ignored")}},
    )
    again = await get(dispatcher, task_id)
    # The handler asked for "first" again: a new key, never a reused one.
    assert list(again["inputRequests"]) == ["first.2"]

    await ask(dispatcher, "tasks/update", {"taskId": task_id, "inputResponses": {"first": answer("x")}})
    assert (await get(dispatcher, task_id))["status"] == "input_required"  # an answered key is ignored
    await ask(dispatcher, "tasks/update", {"taskId": task_id, "inputResponses": {"first.2": answer("c")}})
    done = await get(dispatcher, task_id)
    assert done["result"]["content"] == [{"type": "text", "text": "c+b"}]


async def test_update_without_outstanding_requests_is_acknowledged(dispatcher: Dispatcher) -> None:
    task_id = (await start(dispatcher, "echo", {"text": "hi"}))["taskId"]

    reply = await ask(
        dispatcher, "tasks/update", {"taskId": task_id, "inputResponses": {"unknown": {"x": 1}}}
    )

    assert reply["result"]["resultType"] == "complete"


@pytest.mark.parametrize(
    "responses", [None, [], {"first": "yes"}], ids=["missing", "array", "non-object-answer"]
)
async def test_update_refuses_malformed_input_responses(dispatcher: Dispatcher, responses: Any) -> None:
    task_id = (await start(dispatcher, "ask"))["taskId"]
    params: dict[str, Any] = {"taskId": task_id}
    if responses is not None:
        params["inputResponses"] = responses

    reply = await ask(dispatcher, "tasks/update", params)

    assert reply["error"]["code"] == jsonrpc.INVALID_PARAMS
    assert (await get(dispatcher, task_id))["status"] == "input_required"


# ---------------------------------------------------------- cancellation


async def test_cancel_acks_empty_and_cancels_a_waiting_task(dispatcher: Dispatcher) -> None:
    task_id = (await start(dispatcher, "ask"))["taskId"]

    reply = await ask(dispatcher, "tasks/cancel", {"taskId": task_id})

    assert set(reply["result"]) == {"resultType", "_meta"}
    polled = await get(dispatcher, task_id)
    assert polled["status"] == "cancelled"
    assert "inputRequests" not in polled


async def test_cancel_of_a_task_not_yet_run_cancels_it_at_once(
    dispatcher: Dispatcher, stored_only: None
) -> None:
    task_id = (await start(dispatcher, "echo", {"text": "hi"}))["taskId"]

    await ask(dispatcher, "tasks/cancel", {"taskId": task_id})

    assert (await get(dispatcher, task_id))["status"] == "cancelled"


async def test_cancel_of_a_finished_task_acks_and_changes_nothing(dispatcher: Dispatcher) -> None:
    task_id = (await start(dispatcher, "echo", {"text": "hi"}))["taskId"]

    reply = await ask(dispatcher, "tasks/cancel", {"taskId": task_id})

    assert reply["result"]["resultType"] == "complete"
    assert (await get(dispatcher, task_id))["status"] == "completed"


# ----------------------------------------------------- finding a task


@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
async def test_tasks_methods_need_the_extension_declared(dispatcher: Dispatcher, method: str) -> None:
    reply = await ask(dispatcher, method, {"taskId": "x", "inputResponses": {}}, tasks=False)

    assert reply["error"]["code"] == jsonrpc.MISSING_REQUIRED_CLIENT_CAPABILITY
    assert reply["error"]["data"] == MISSING_TASKS


@pytest.mark.parametrize("method", ["tasks/list", "tasks/result"])
async def test_removed_tasks_methods_do_not_exist(dispatcher: Dispatcher, method: str) -> None:
    reply = await ask(dispatcher, method, {"taskId": "x"})

    assert reply["error"]["code"] == jsonrpc.METHOD_NOT_FOUND


async def test_tasks_methods_do_not_exist_on_a_server_without_task_tools() -> None:
    reply = await ask(NoTaskServer, "tasks/get", {"taskId": "x"})

    assert reply["error"]["code"] == jsonrpc.METHOD_NOT_FOUND


@pytest.mark.parametrize("task_id", ["tasks-conformance-nonexistent-12345", 7, None])
async def test_an_unknown_or_malformed_task_id_is_invalid_params(
    dispatcher: Dispatcher, task_id: Any
) -> None:
    reply = await ask(dispatcher, "tasks/get", {"taskId": task_id})

    assert reply["error"]["code"] == jsonrpc.INVALID_PARAMS


async def test_another_callers_task_is_unknown(dispatcher: Dispatcher, stored_only: None) -> None:
    alice = SimpleNamespace(is_authenticated=True, pk=1)
    bob = SimpleNamespace(is_authenticated=True, pk=2)
    task_id = (await start(dispatcher, "echo", {"text": "hi"}, user=alice))["taskId"]

    mine = await ask(dispatcher, "tasks/get", {"taskId": task_id}, user=alice)
    theirs = await ask(dispatcher, "tasks/get", {"taskId": task_id}, user=bob)
    cancelled = await ask(dispatcher, "tasks/cancel", {"taskId": task_id}, user=bob)
    anonymous = await ask(dispatcher, "tasks/get", {"taskId": task_id})

    assert mine["result"]["taskId"] == task_id
    assert (
        theirs["error"]
        == anonymous["error"]
        == {"code": jsonrpc.INVALID_PARAMS, "message": "Failed to retrieve task: Task not found"}
    )
    assert cancelled["error"]["code"] == jsonrpc.INVALID_PARAMS
    assert (await McpTask.objects.aget(pk=task_id)).cancel_requested is False


async def test_a_task_of_another_server_is_unknown(stored_only: None) -> None:
    class OtherServer(Server):
        tools = (EchoTool,)

    task_id = (await start(TaskServer, "echo", {"text": "hi"}))["taskId"]

    reply = await ask(OtherServer, "tasks/get", {"taskId": task_id})

    assert reply["error"]["code"] == jsonrpc.INVALID_PARAMS


async def test_an_expired_task_is_invalid_params_and_deleted(dispatcher: Dispatcher) -> None:
    task_id = (await start(dispatcher, "echo", {"text": "hi"}))["taskId"]
    past = timezone.now() - datetime.timedelta(seconds=1)
    await McpTask.objects.filter(pk=task_id).aupdate(expires_at=past)

    reply = await ask(dispatcher, "tasks/get", {"taskId": task_id})

    assert reply["error"] == {
        "code": jsonrpc.INVALID_PARAMS,
        "message": "Failed to retrieve task: Task has expired",
    }
    assert not await McpTask.objects.filter(pk=task_id).aexists()


async def test_creating_a_task_purges_expired_ones(dispatcher: Dispatcher) -> None:
    old = (await start(dispatcher, "echo", {"text": "old"}))["taskId"]
    await McpTask.objects.filter(pk=old).aupdate(expires_at=timezone.now() - datetime.timedelta(seconds=1))

    await start(dispatcher, "echo", {"text": "new"})

    assert not await McpTask.objects.filter(pk=old).aexists()


@override_settings(MCP_TASK_TTL=None, MCP_TASK_POLL_INTERVAL=None)
async def test_unlimited_ttl_is_null_and_no_poll_interval_is_omitted(dispatcher: Dispatcher) -> None:
    created = await start(dispatcher, "echo", {"text": "hi"})

    assert created["ttlMs"] is None
    assert "pollIntervalMs" not in created
    assert (await McpTask.objects.aget(pk=created["taskId"])).expires_at is None


@override_settings(MCP_TASK_BACKEND="missing")
async def test_a_task_that_cannot_be_enqueued_fails_and_answers_internal_error(
    dispatcher: Dispatcher,
) -> None:
    reply = await ask(dispatcher, "tools/call", {"name": "echo", "arguments": {"text": "hi"}})

    assert reply["error"] == {"code": jsonrpc.INTERNAL_ERROR, "message": "The task could not be started"}
    record = await McpTask.objects.aget()
    assert (record.status, record.error["code"]) == ("failed", jsonrpc.INTERNAL_ERROR)


# ---------------------------------------------------------------- shapes


@pytest.mark.parametrize(
    ("method", "result"),
    [
        (
            "tools/call",
            {
                "resultType": "task",
                "taskId": "t",
                "status": "working",
                "createdAt": "x",
                "lastUpdatedAt": "x",
                "ttlMs": 1,
            },
        ),
        (
            "tools/call",
            {
                "resultType": "task",
                "taskId": "t",
                "status": "working",
                "createdAt": "2026-01-01T00:00:00Z",
                "lastUpdatedAt": "2026-01-01T00:00:00Z",
                "ttlMs": 1,
                "result": {},
            },
        ),
        (
            "tools/call",
            {
                "resultType": "task",
                "taskId": "t",
                "status": "working",
                "createdAt": "2026-01-01T00:00:00Z",
                "lastUpdatedAt": "2026-01-01T00:00:00Z",
                "ttl": 1,
            },
        ),
        (
            "resources/read",
            {
                "resultType": "task",
                "taskId": "t",
                "status": "working",
                "createdAt": "2026-01-01T00:00:00Z",
                "lastUpdatedAt": "2026-01-01T00:00:00Z",
                "ttlMs": 1,
            },
        ),
        (
            "tasks/get",
            {
                "resultType": "complete",
                "taskId": "t",
                "status": "completed",
                "createdAt": "2026-01-01T00:00:00Z",
                "lastUpdatedAt": "2026-01-01T00:00:00Z",
                "ttlMs": None,
            },
        ),
        (
            "tasks/get",
            {
                "resultType": "complete",
                "taskId": "t",
                "status": "failed",
                "createdAt": "2026-01-01T00:00:00Z",
                "lastUpdatedAt": "2026-01-01T00:00:00Z",
                "ttlMs": None,
                "error": {"code": 1, "message": "m"},
                "result": {"content": [], "resultType": "complete"},
            },
        ),
        (
            "tasks/get",
            {
                "resultType": "complete",
                "taskId": "t",
                "status": "working",
                "createdAt": "2026-01-01T00:00:00Z",
                "lastUpdatedAt": "2026-01-01T00:00:00Z",
                "ttlMs": 0.5,
            },
        ),
    ],
    ids=[
        "bad-timestamp",
        "result-on-create",
        "v1-ttl",
        "not-tools-call",
        "completed-without-result",
        "failed-with-result",
        "fractional-ttl",
    ],
)
def test_wire_schema_rejects_malformed_task_results(
    wire_schema: Any, method: str, result: dict[str, Any]
) -> None:
    assert wire_schema.check({"jsonrpc": "2.0", "id": 1, "result": result}, era="modern", method=method)


def test_wire_schema_rejects_a_malformed_task_notification(wire_schema: Any) -> None:
    notification = {
        "jsonrpc": "2.0",
        "method": "notifications/tasks",
        "params": {"taskId": "t", "status": "done"},
    }

    assert wire_schema.check(notification, era="modern")
