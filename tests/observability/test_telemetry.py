"""OpenTelemetry spans and metrics: django_mcp/observability/telemetry.py.

Checked against the OpenTelemetry semantic conventions for MCP (GenAI
conventions, ``gen-ai/mcp.md``): span name ``{mcp.method.name} {target}``,
kind ``SERVER``, the caller's ``traceparent`` from ``params._meta`` as the
parent, the conventions' attribute names and values, and one
``mcp.server.operation.duration`` measurement (seconds, the advised
buckets) per request, on every way to serve: the plain view, ``McpASGIApp``,
``McpWSGIApp``, Django's WSGI handler, STDIO, ``McpTestClient`` and a task
run. The SDK's in-memory exporter and reader are handed over explicitly
(``conftest.py``), never set globally.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from django.test import AsyncClient
from opentelemetry import trace
from opentelemetry.trace import SpanKind, StatusCode

from django_mcp import McpRequest, McpResponse, Server, Tool, observability
from django_mcp.models import McpTask
from django_mcp.observability import telemetry
from django_mcp.observability._state import OBSERVATION
from django_mcp.protocol import jsonrpc
from django_mcp.protocol.tasks import EXTENSION
from django_mcp.tasks import run as background
from django_mcp.testing import McpTestClient
from testproject.conformance.mcp import ConformanceServer
from tests import direct_clients
from tests.observability.conftest import CALLER_SPAN_ID, CALLER_TRACE_ID, TRACEPARENT, Otel
from tests.transports.test_stdio import Peer
from tests.wire import call, modern_headers, modern_meta, tool_request

URL = "/conformance/mcp"
MODERN = "2026-07-28"
TIMEOUT = 10

#: How the conformance endpoint is served over HTTP in these tests.
HTTP_CLIENTS = {
    "view": AsyncClient,
    "fast-asgi": direct_clients.ASGIAppClient,
    "fast-wsgi": direct_clients.WSGIAppClient,
    "plain-wsgi": direct_clients.PlainWSGIClient,
}


async def post(client: Any, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(
        URL, data=json.dumps(body), content_type="application/json", headers=modern_headers(body)
    )
    assert response.status_code in (200, 400, 404), response.content
    return json.loads(response.content)  # type: ignore[no-any-return]


def traced_call(name: str, arguments: dict[str, Any] | None = None, **meta: Any) -> dict[str, Any]:
    return tool_request(name, arguments or {}, meta=modern_meta(traceparent=TRACEPARENT, **meta))


# ----------------------------------------------------------------- HTTP


@pytest.mark.parametrize("served_by", list(HTTP_CLIENTS))
async def test_a_tool_call_over_http_is_one_server_span_child_of_the_callers_traceparent(
    otel: Otel, served_by: str
) -> None:
    client = HTTP_CLIENTS[served_by]()

    reply = await post(client, traced_call("test_simple_text"))

    assert reply["result"]["isError"] is False
    [span] = otel.spans()
    assert span.name == "tools/call test_simple_text"
    assert span.kind is SpanKind.SERVER
    assert span.parent is not None and span.parent.is_remote
    assert (span.context.trace_id, span.parent.span_id) == (CALLER_TRACE_ID, CALLER_SPAN_ID)
    assert dict(span.attributes or {}) == {
        "mcp.method.name": "tools/call",
        "jsonrpc.request.id": "1",
        "mcp.protocol.version": MODERN,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "test_simple_text",
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "client.address": "127.0.0.1",
    }
    assert span.status.status_code is StatusCode.UNSET
    [point] = otel.points()
    assert point.count == 1
    assert dict(point.attributes) == {
        "mcp.method.name": "tools/call",
        "mcp.protocol.version": MODERN,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "test_simple_text",
        "network.transport": "tcp",
        "network.protocol.name": "http",
    }
    assert tuple(point.explicit_bounds) == telemetry.DURATION_BUCKETS
    assert otel.metric().unit == "s"


async def test_a_tool_error_sets_error_type_tool_error_and_the_error_status(otel: Otel) -> None:
    reply = await post(AsyncClient(), traced_call("test_error_handling"))

    assert reply["result"]["isError"] is True
    [span] = otel.spans()
    assert span.attributes is not None and span.attributes["error.type"] == "tool_error"
    assert "rpc.response.status_code" not in span.attributes
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description is None  # the tool's own text stays out
    [point] = otel.points()
    assert point.attributes["error.type"] == "tool_error"


async def test_a_json_rpc_error_sets_its_code_and_an_unknown_tool_stays_out_of_the_span_name(
    otel: Otel,
) -> None:
    reply = await post(AsyncClient(), traced_call("no_such_tool"))

    assert reply["error"]["code"] == jsonrpc.INVALID_PARAMS
    [span] = otel.spans()
    assert span.name == "tools/call"
    assert span.attributes is not None
    assert span.attributes["error.type"] == span.attributes["rpc.response.status_code"] == "-32602"
    assert span.attributes["gen_ai.tool.name"] == "no_such_tool"
    assert span.status.status_code is StatusCode.ERROR
    assert span.status.description == reply["error"]["message"]
    [point] = otel.points()
    assert "gen_ai.tool.name" not in point.attributes  # no metric series per made-up name
    assert point.attributes["error.type"] == "-32602"


async def test_without_a_traceparent_the_ambient_span_is_the_parent(otel: Otel) -> None:
    tracer = otel.tracer_provider.get_tracer("the-http-server")
    with tracer.start_as_current_span("POST /conformance/mcp", kind=SpanKind.SERVER) as http_span:
        await post(AsyncClient(), tool_request("test_simple_text", {}))

    mcp_span = next(span for span in otel.spans() if span.name.startswith("tools/call"))
    assert mcp_span.parent is not None
    assert mcp_span.parent.span_id == http_span.get_span_context().span_id
    assert mcp_span.links == ()


async def test_with_a_traceparent_the_ambient_span_is_linked(otel: Otel) -> None:
    tracer = otel.tracer_provider.get_tracer("the-http-server")
    with tracer.start_as_current_span("POST /conformance/mcp", kind=SpanKind.SERVER) as http_span:
        await post(AsyncClient(), traced_call("test_simple_text"))

    mcp_span = next(span for span in otel.spans() if span.name.startswith("tools/call"))
    assert mcp_span.parent is not None and mcp_span.parent.span_id == CALLER_SPAN_ID
    assert [link.context.span_id for link in mcp_span.links] == [http_span.get_span_context().span_id]


async def test_a_malformed_traceparent_is_ignored(otel: Otel) -> None:
    await post(AsyncClient(), tool_request("test_simple_text", {}, meta=modern_meta(traceparent="00-zz")))

    [span] = otel.spans()
    assert span.parent is None


async def test_a_prompt_span_is_named_after_the_prompt(otel: Otel) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": "p-1",
        "method": "prompts/get",
        "params": {"name": "test_simple_prompt", "_meta": modern_meta()},
    }
    await post(AsyncClient(), body)

    [span] = otel.spans()
    assert span.name == "prompts/get test_simple_prompt"
    assert span.attributes is not None
    assert span.attributes["gen_ai.prompt.name"] == "test_simple_prompt"
    assert span.attributes["jsonrpc.request.id"] == "p-1"
    assert "gen_ai.operation.name" not in span.attributes


async def test_a_resource_read_records_its_uri_on_the_span_only(otel: Otel) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "resources/read",
        "params": {"uri": "test://static-text", "_meta": modern_meta()},
    }
    await post(AsyncClient(), body)

    [span] = otel.spans()
    assert span.name == "resources/read"
    assert span.attributes is not None and span.attributes["mcp.resource.uri"] == "test://static-text"
    [point] = otel.points()
    assert "mcp.resource.uri" not in point.attributes


async def test_a_resource_uri_is_recorded_without_its_query_or_user_information(otel: Otel) -> None:
    for uri in ("test://static-text?token=abc123", "test://ada:pw-123@host/x#frag"):
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "resources/read",
            "params": {"uri": uri, "_meta": modern_meta()},
        }
        await post(AsyncClient(), body)

    assert [span.attributes["mcp.resource.uri"] for span in otel.spans() if span.attributes] == [
        "test://static-text?[redacted]",
        "test://[redacted]@host/x#[redacted]",
    ]


async def test_a_legacy_session_records_a_digest_of_its_id_and_its_version(otel: Otel) -> None:
    client = AsyncClient()
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    opened = await client.post(
        URL,
        data=json.dumps(init),
        content_type="application/json",
        headers={"Accept": "application/json, text/event-stream"},
    )
    session_id = opened["Mcp-Session-Id"]
    body = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "test_simple_text", "arguments": {}},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "Mcp-Session-Id": session_id,
        "MCP-Protocol-Version": "2025-11-25",
    }
    await client.post(URL, data=json.dumps(body), content_type="application/json", headers=headers)

    [span] = otel.spans()
    assert span.attributes is not None
    assert span.attributes["mcp.protocol.version"] == "2025-11-25"
    digest = span.attributes["mcp.session.id"]
    assert isinstance(digest, str) and len(digest) == 32 and session_id not in digest


# ------------------------------------------------------ other transports


async def test_a_tool_call_over_stdio_is_a_server_span_over_a_pipe(otel: Otel) -> None:
    peer = Peer(ConformanceServer, grace=1.0)
    try:
        reply = await peer.ask(traced_call("test_simple_text"))
    finally:
        await peer.close()

    assert reply["result"]["isError"] is False
    [span] = otel.spans()
    assert (span.name, span.kind) == ("tools/call test_simple_text", SpanKind.SERVER)
    assert span.parent is not None and span.parent.span_id == CALLER_SPAN_ID
    assert span.attributes is not None and span.attributes["network.transport"] == "pipe"
    assert "client.address" not in span.attributes
    [point] = otel.points()
    assert point.attributes["network.transport"] == "pipe"


async def test_a_test_client_call_is_traced_without_network_attributes(otel: Otel) -> None:
    (await McpTestClient(ConformanceServer).call_tool("test_simple_text")).assert_ok()

    [span] = otel.spans()
    assert span.name == "tools/call test_simple_text"
    assert span.attributes is not None
    assert not any(key.startswith(("network.", "client.")) for key in span.attributes)


async def test_progress_notifications_become_span_events(otel: Otel) -> None:
    result = await McpTestClient(ConformanceServer).call_tool("test_tool_with_progress", progress_token="t")
    result.assert_ok()

    [span] = otel.spans()
    events = [event for event in span.events if event.name == "notifications/progress"]
    assert len(events) == len(result.progress) > 0
    assert events[0].attributes is not None and "mcp.progress" in events[0].attributes


async def test_an_input_required_answer_is_a_span_event_naming_what_was_asked(otel: Otel) -> None:
    result = await McpTestClient(ConformanceServer).call_tool("test_input_required_result_elicitation")
    result.assert_input_required()

    [span] = otel.spans()
    [event] = [event for event in span.events if event.name == "mcp.input_required"]
    assert event.attributes is not None
    assert list(event.attributes["mcp.input_request.methods"]) == ["elicitation/create"]
    assert span.status.status_code is StatusCode.UNSET


# ------------------------------------------------------------------ tasks


class SlowTool(Tool):
    name = "slow"
    task = "optional"

    def handle(self, request: McpRequest) -> McpResponse:
        return McpResponse.text("done")


class FailingTool(Tool):
    name = "failing"
    task = "optional"

    def handle(self) -> McpResponse:
        return McpResponse.error("no luck")


class TaskServer(Server):
    tools = (SlowTool, FailingTool)


TASKS = {"extensions": {EXTENSION: {}}}


@pytest.fixture
def stored_tasks(settings: Any) -> None:
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    settings.MCP_TASK_BACKEND = "default"


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("stored_tasks")
@pytest.mark.parametrize(("tool", "error_type"), [("slow", None), ("failing", "tool_error")])
async def test_a_task_run_is_a_span_of_its_own_linked_to_the_creating_request(
    otel: Otel, tool: str, error_type: str | None
) -> None:
    reply = await call(
        TaskServer,
        "tools/call",
        {"name": tool, "arguments": {}},
        meta=modern_meta(TASKS, traceparent=TRACEPARENT),
    )
    task_id = reply["result"]["taskId"]
    [creating] = otel.spans()
    stored = await McpTask.objects.aget(pk=task_id)
    assert stored.call["traceparent"].split("-")[2] == format(creating.context.span_id, "016x")

    assert await asyncio.wait_for(background.run(task_id), TIMEOUT) is False

    run = otel.spans()[1]
    assert run.name == f"execute_tool {tool}"
    assert run.kind is SpanKind.INTERNAL
    assert run.parent is None and run.context.trace_id != creating.context.trace_id
    assert [link.context.span_id for link in run.links] == [creating.context.span_id]
    assert run.attributes is not None
    assert run.attributes["gen_ai.tool.name"] == tool
    assert run.attributes["gen_ai.operation.name"] == "execute_tool"
    assert run.attributes["mcp.task.status"] == "completed"
    assert run.attributes.get("error.type") == error_type
    assert "taskId" not in json.dumps(dict(run.attributes))


# ------------------------------------------------------------ switching


async def test_mcp_telemetry_false_records_nothing(otel: Otel, settings: Any) -> None:
    settings.MCP_TELEMETRY = False

    (await McpTestClient(ConformanceServer).call_tool("test_simple_text")).assert_ok()

    assert otel.spans() == []
    assert otel.points() == []


async def test_without_a_configured_provider_nothing_is_built(settings: Any) -> None:
    observability.instrument()  # the global providers: the API's proxies in this process

    assert telemetry.build() is None
    (await McpTestClient(ConformanceServer).call_tool("test_simple_text")).assert_ok()
    assert OBSERVATION.telemetry is None
    assert not OBSERVATION.active


def test_the_current_traceparent_names_the_current_span(otel: Otel) -> None:
    built = telemetry.build(otel.tracer_provider, None)
    assert built is not None
    assert built.traceparent() is None
    with otel.tracer_provider.get_tracer("t").start_as_current_span("outer") as span:
        traceparent = built.traceparent()
    context = span.get_span_context()
    assert traceparent is not None
    assert traceparent.split("-")[:3] == [
        "00",
        trace.format_trace_id(context.trace_id),
        trace.format_span_id(context.span_id),
    ]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("stored_tasks")
async def test_a_request_changing_a_task_leaves_its_own_span_alone(otel: Otel) -> None:
    reply = await call(TaskServer, "tools/call", {"name": "slow", "arguments": {}}, meta=modern_meta(TASKS))
    task_id = reply["result"]["taskId"]

    await call(TaskServer, "tasks/cancel", {"taskId": task_id}, meta=modern_meta(TASKS))

    cancelling = otel.spans()[-1]
    assert cancelling.name == "tasks/cancel"
    assert cancelling.attributes is not None and "mcp.task.status" not in cancelling.attributes
    assert cancelling.status.status_code is StatusCode.UNSET
    assert (await McpTask.objects.aget(pk=task_id)).status == McpTask.Status.CANCELLED
