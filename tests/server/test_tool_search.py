"""Tool search: django_mcp/server/tool_search.py, on the wire.

500 generated tools behind ``ToolSearch``: ``tools/list`` lists the
``always`` tools and the two meta-tools; ``search_tools`` finds a tool by
words of its description, best first and the same on every call, and never
a tool the caller may not use; ``call_tool`` runs the named tool as a direct
``tools/call`` would (a hidden tool answers like an unknown one, the audit
row names the real tool); below the threshold nothing changes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.core.exceptions import ImproperlyConfigured

from django_mcp import McpResponse, Server, Tool, ToolSearch
from django_mcp.dispatcher import Dispatcher
from django_mcp.dispatcher.codec import parse_message
from django_mcp.dispatcher.context import CallContext
from django_mcp.models import McpAuditEntry
from django_mcp.protocol import jsonrpc
from django_mcp.protocol.tasks import EXTENSION as TASKS
from django_mcp.schemas import Schema
from django_mcp.server.compiler import compile_server
from django_mcp.server.tool_search import CALL_TOOL, SEARCH_TOOLS
from django_mcp.signals import mcp_request_finished
from tests.wire import call, modern_meta, serve, tool_request

WORDS = ("invoice", "shipment", "customer", "warehouse", "refund", "coupon", "ledger", "payroll")


class OrderInput(Schema):
    order_id: int


def _tool(index: int, **attributes: Any) -> type[Tool[Any, Any]]:
    word = WORDS[index % len(WORDS)]

    def handle(self: Any, payload: OrderInput) -> McpResponse:
        return McpResponse.text(f"{index}:{payload.order_id}")

    namespace = {
        "__module__": __name__,
        "name": f"tool_{index:03d}",
        "description": f"Handle the {word} records of batch{index}.",
        "input": OrderInput,
        "handle": handle,
        **attributes,
    }
    return type(f"Generated{index}Tool", (Tool,), namespace)


class SecretPayrollTool(Tool[OrderInput]):
    """Export the zeppelin payroll ledger."""

    name = "secret_payroll"
    permissions = ("auth.view_user",)

    def handle(self, payload: OrderInput) -> McpResponse:
        return McpResponse.text("exported")


class LaterTool(Tool):
    """Compile the quarterly archive in the background."""

    name = "later"
    task = "optional"

    def handle(self) -> McpResponse:
        return McpResponse.text("archived")


class BigServer(Server):
    tools = (*(_tool(index) for index in range(498)), SecretPayrollTool, LaterTool)
    tool_search = ToolSearch(threshold=40, always=("tool_007", "tool_001"))


class SmallServer(Server):
    tools = tuple(_tool(index) for index in range(5))
    tool_search = ToolSearch(threshold=40)


def _names(reply: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in reply["result"]["tools"]]


async def _search(query: str, *, user: Any = None, limit: int | None = None) -> list[str]:
    arguments: dict[str, Any] = {"query": query}
    if limit is not None:
        arguments["limit"] = limit
    reply = await call(BigServer, "tools/call", {"name": SEARCH_TOOLS, "arguments": arguments}, user=user)
    return [tool["name"] for tool in reply["result"]["structuredContent"]["tools"]]


async def test_over_the_threshold_the_list_is_the_always_tools_and_the_meta_tools() -> None:
    reply = await call(BigServer, "tools/list")

    assert _names(reply) == ["tool_007", "tool_001", SEARCH_TOOLS, CALL_TOOL]
    assert "nextCursor" not in reply["result"]
    search = reply["result"]["tools"][2]
    assert search["inputSchema"]["required"] == ["query"]
    assert set(search["inputSchema"]["properties"]) == {"query", "limit"}
    assert reply["result"]["tools"][3]["inputSchema"]["required"] == ["name"]


async def test_at_or_below_the_threshold_every_tool_is_listed_and_nothing_else() -> None:
    reply = await call(SmallServer, "tools/list")

    assert _names(reply) == [f"tool_{index:03d}" for index in range(5)]


async def test_search_finds_a_tool_by_words_of_its_description() -> None:
    found = await _search("records of batch123")

    assert found[0] == "tool_123"
    assert len(found) == 10  # the default limit: "record" matches every tool


async def test_search_answers_each_tools_definition_essentials() -> None:
    reply = await call(
        BigServer, "tools/call", {"name": SEARCH_TOOLS, "arguments": {"query": "batch42", "limit": 1}}
    )

    result = reply["result"]
    assert result["isError"] is False
    assert result["structuredContent"] == {
        "tools": [
            {
                "name": "tool_042",
                "description": "Handle the customer records of batch42.",
                "inputSchema": OrderInput.json_schema(),
            }
        ]
    }


async def test_search_orders_are_stable_between_calls() -> None:
    first = await _search("warehouse refund records", limit=50)
    again = await _search("warehouse refund records", limit=50)

    assert first == again
    assert len(first) == 50
    # Equal scores ("records" is in every description) keep the declaration order.
    assert await _search("records", limit=4) == ["tool_000", "tool_001", "tool_002", "tool_003"]


async def test_search_splits_snake_case_names() -> None:
    assert await _search("tool 250", limit=1) == ["tool_250"]


async def test_search_without_any_matching_word_finds_nothing() -> None:
    assert await _search("zzz qqq") == []


async def test_search_refuses_bad_arguments_as_field_errors() -> None:
    reply = await call(BigServer, "tools/call", {"name": SEARCH_TOOLS, "arguments": {"limit": 0}})

    result = reply["result"]
    assert result["isError"] is True
    assert set(result["structuredContent"]["errors"]) == {"query", "limit"}


@pytest.mark.django_db(transaction=True)
async def test_search_never_finds_a_tool_the_caller_may_not_use() -> None:
    user = await User.objects.acreate(username="clerk")

    assert (
        await _search("zeppelin payroll ledger", user=user)
        == [name for name in await _search("payroll ledger", user=user) if name != "secret_payroll"][:10]
    )
    assert "secret_payroll" not in await _search("zeppelin", user=user, limit=50)


@pytest.mark.django_db(transaction=True)
async def test_search_finds_a_guarded_tool_for_a_caller_holding_its_permission() -> None:
    user = await User.objects.acreate(username="boss")
    await user.user_permissions.aadd(await Permission.objects.aget(codename="view_user"))
    user = await User.objects.aget(pk=user.pk)

    assert (await _search("zeppelin", user=user))[0] == "secret_payroll"


async def test_call_tool_runs_the_named_tool_with_its_arguments() -> None:
    direct = await call(BigServer, "tools/call", {"name": "tool_321", "arguments": {"order_id": 9}})
    wrapped = await call(
        BigServer,
        "tools/call",
        {"name": CALL_TOOL, "arguments": {"name": "tool_321", "arguments": {"order_id": 9}}},
    )

    assert wrapped == direct
    assert wrapped["result"]["content"] == [{"type": "text", "text": "321:9"}]


async def test_call_tool_validates_the_named_tools_arguments() -> None:
    reply = await call(
        BigServer,
        "tools/call",
        {"name": CALL_TOOL, "arguments": {"name": "tool_321", "arguments": {"order_id": "x"}}},
    )

    assert reply["result"]["isError"] is True
    assert list(reply["result"]["structuredContent"]["errors"]) == ["order_id"]


@pytest.mark.django_db(transaction=True)
async def test_call_tool_of_a_hidden_tool_answers_exactly_like_an_unknown_tool() -> None:
    user = await User.objects.acreate(username="clerk")
    dispatcher = Dispatcher(BigServer.compiled())

    def wrapped(name: str) -> dict[str, Any]:
        return tool_request(CALL_TOOL, {"name": name, "arguments": {"order_id": 1}})

    hidden = await serve(dispatcher, wrapped("secret_payroll"), user=user)
    unknown = await serve(dispatcher, wrapped("no_such_tool"), user=user)
    direct = await serve(dispatcher, tool_request("no_such_tool", {"order_id": 1}), user=user)

    assert hidden[1]["error"]["code"] == jsonrpc.INVALID_PARAMS
    assert hidden[1]["error"]["message"] == "Unknown tool: secret_payroll"
    assert unknown == direct
    assert (hidden[0], {**hidden[1]["error"], "message": ""}) == (
        unknown[0],
        {**unknown[1]["error"], "message": ""},
    )


async def test_call_tool_with_bad_arguments_is_refused_as_field_errors() -> None:
    reply = await call(BigServer, "tools/call", {"name": CALL_TOOL, "arguments": {"arguments": []}})

    assert reply["result"]["isError"] is True
    assert set(reply["result"]["structuredContent"]["errors"]) == {"name", "arguments"}


async def test_call_tool_cannot_call_itself() -> None:
    reply = await call(
        BigServer, "tools/call", {"name": CALL_TOOL, "arguments": {"name": CALL_TOOL, "arguments": {}}}
    )

    assert reply["result"]["isError"] is True


async def test_a_direct_call_of_a_tool_left_out_of_the_list_keeps_working() -> None:
    reply = await call(BigServer, "tools/call", {"name": "tool_400", "arguments": {"order_id": 2}})

    assert reply["result"]["content"] == [{"type": "text", "text": "400:2"}]


@pytest.mark.django_db(transaction=True)
async def test_the_audit_row_of_call_tool_names_the_real_tool(settings: Any) -> None:
    settings.MCP_AUDIT = "all"
    user = await User.objects.acreate(username="ada")

    await call(
        BigServer,
        "tools/call",
        {"name": CALL_TOOL, "arguments": {"name": "tool_011", "arguments": {"order_id": 5}}},
        user=user,
    )
    await call(
        BigServer,
        "tools/call",
        {"name": CALL_TOOL, "arguments": {"name": "secret_payroll", "arguments": {"order_id": 5}}},
        user=user,
    )

    rows = [(row.method, row.component, row.arguments) async for row in McpAuditEntry.objects.order_by("pk")]
    assert rows == [("tools/call", "tool_011", {"order_id": 5}), ("tools/call", "[unknown]", None)]


async def test_the_finished_request_names_the_real_tool() -> None:
    components: list[str] = []

    def receiver(sender: Any, **kwargs: Any) -> None:
        components.append(kwargs["component"])

    mcp_request_finished.connect(receiver)
    try:
        await call(
            BigServer,
            "tools/call",
            {"name": CALL_TOOL, "arguments": {"name": "tool_099", "arguments": {"order_id": 1}}},
        )
    finally:
        mcp_request_finished.disconnect(receiver)

    assert components == ["tool_099"]


@pytest.mark.django_db(transaction=True)
async def test_call_tool_of_a_task_capable_tool_may_answer_a_task() -> None:
    params = {"name": CALL_TOOL, "arguments": {"name": "later"}}

    with_tasks = await call(BigServer, "tools/call", params, meta=modern_meta({"extensions": {TASKS: {}}}))
    without = await call(BigServer, "tools/call", params)

    assert with_tasks["result"]["resultType"] == "task"
    assert without["result"]["content"] == [{"type": "text", "text": "archived"}]


async def test_a_2025_11_25_session_lists_and_calls_through_the_meta_tools() -> None:
    dispatcher = Dispatcher(BigServer.compiled())
    context = CallContext(era="legacy", protocol_version="2025-11-25", client_capabilities={})

    listed = await dispatcher.respond(
        parse_message(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'), context
    )
    called = await dispatcher.respond(
        parse_message(
            b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"call_tool",'
            b'"arguments":{"name":"tool_005","arguments":{"order_id":3}}}}'
        ),
        context,
    )

    tools = json.loads(listed.body)["result"]["tools"]
    assert [tool["name"] for tool in tools] == ["tool_007", "tool_001", SEARCH_TOOLS, CALL_TOOL]
    assert json.loads(called.body)["result"]["content"] == [{"type": "text", "text": "5:3"}]


def _declared(**attributes: Any) -> type[Server]:
    return type("Declared", (Server,), {"__module__": __name__, "tools": (_tool(1), _tool(2)), **attributes})


@pytest.mark.parametrize(
    "tool_search",
    [
        ToolSearch(threshold=-1),
        ToolSearch(always=("tool_009",)),
        ToolSearch(always="tool_001"),  # type: ignore[arg-type]
        {"threshold": 1},
    ],
)
def test_a_bad_tool_search_declaration_is_refused(tool_search: Any) -> None:
    with pytest.raises(ImproperlyConfigured):
        compile_server(_declared(tool_search=tool_search))


def test_a_tool_named_like_a_meta_tool_is_refused_with_tool_search() -> None:
    clash = _tool(3, name=SEARCH_TOOLS)
    declared = type(
        "Clash", (Server,), {"__module__": __name__, "tools": (clash,), "tool_search": ToolSearch()}
    )

    with pytest.raises(ImproperlyConfigured, match="search_tools"):
        compile_server(declared)


def test_the_index_is_built_once_per_compiled_server() -> None:
    catalog = BigServer.compiled().tool_search
    assert catalog is not None

    assert catalog.index() is catalog.index()
    assert len(catalog.index()) == 500
