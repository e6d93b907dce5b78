"""Tests for django_mcp.server._tool_compiler: tool handlers, schemas and task support."""

import dataclasses
import importlib.util
from typing import Any

import msgspec
import pytest
from django.core.exceptions import ImproperlyConfigured

from django_mcp import McpRequest, McpResponse, Server, Tool
from django_mcp.protocol._base import UNSET
from django_mcp.server.compiler import compile_server
from tests.server.declaring import (
    LookupInput,
    LookupOutput,
    ReportTool,
    header_tool,
    refused,
    server_with,
    tool,
)

# -- handlers -------------------------------------------------------------------------------


def test_tool_without_input_cannot_take_a_payload_parameter() -> None:
    bad = tool("t", handle=lambda self, payload: McpResponse.text("x"))
    refused(server_with(tools=[bad]), bad)


def test_tool_with_input_takes_one_payload_parameter_only() -> None:
    def handle(self: Any, payload: LookupInput, extra: str) -> McpResponse:
        return McpResponse.text("x")

    bad = tool("t", input=LookupInput, handle=handle)
    refused(server_with(tools=[bad]), bad)


def test_handler_may_take_the_request_beside_its_payload() -> None:
    def handle(self: Any, payload: LookupInput, request: McpRequest) -> McpResponse:
        return McpResponse.text("x")

    compiled = compile_server(server_with(tools=[tool("t", input=LookupInput, handle=handle)]))
    assert dict(compiled.tools["t"].handler.sources) == {"payload": "payload", "request": "request"}


def test_handlers_may_not_spread_arguments() -> None:
    bad = tool("t", input=LookupInput, handle=lambda self, *args, **kwargs: McpResponse.text("x"))
    refused(server_with(tools=[bad]), bad)


# -- tool schemas ----------------------------------------------------------------------------


def test_tool_without_input_takes_an_empty_object() -> None:
    compiled = compile_server(server_with(tools=[tool("t")]))
    definition = compiled.tools["t"].definition
    assert definition.input_schema == {"type": "object", "additionalProperties": False}
    assert definition.output_schema is UNSET


class PlainStruct(msgspec.Struct):
    order_id: int


@dataclasses.dataclass
class PlainDataclass:
    order_id: int


@pytest.mark.parametrize(
    "input_type",
    [int, PlainStruct, PlainDataclass, {"type": "string"}, "LookupInput"],
    ids=["int", "struct", "dataclass", "non-object-dict", "str"],
)
def test_tool_input_must_be_a_schema(input_type: Any) -> None:
    bad = tool("t", input=input_type, handle=lambda self, payload: McpResponse.text("x"))
    refused(server_with(tools=[bad]), bad)


def test_single_argument_generic_declares_input_without_output() -> None:
    class FindOrderTool(Tool[LookupInput]):
        def handle(self, payload: LookupInput) -> McpResponse:
            return McpResponse.text("x")

    entry = compile_server(server_with(tools=[FindOrderTool])).tools["find-order"]
    assert (entry.input_type, entry.output_type) == (LookupInput, None)
    assert entry.definition.input_schema == LookupInput.json_schema()
    assert entry.definition.output_schema is UNSET


def test_two_argument_generic_declares_input_and_output() -> None:
    class OrderTool(Tool[LookupInput, LookupOutput]):
        def handle(self, payload: LookupInput) -> McpResponse:
            return McpResponse.text("x")

    entry = compile_server(server_with(tools=[OrderTool])).tools["order"]
    assert (entry.input_type, entry.output_type) == (LookupInput, LookupOutput)
    assert entry.definition.input_schema == LookupInput.json_schema()
    assert entry.definition.output_schema == LookupOutput.json_schema()


def test_explicit_input_and_output_attributes_equal_the_generic_form() -> None:
    class GenericTool(Tool[LookupInput, LookupOutput]):
        name = "order"

        def handle(self, payload: LookupInput) -> McpResponse:
            return McpResponse.text("x")

    class AttributeTool(Tool):
        name = "order"
        input = LookupInput
        output = LookupOutput

        def handle(self, payload: LookupInput) -> McpResponse:
            return McpResponse.text("x")

    generic = compile_server(server_with(tools=[GenericTool])).tools["order"]
    attribute = compile_server(server_with(tools=[AttributeTool])).tools["order"]
    assert attribute.definition == generic.definition
    assert (attribute.input_type, attribute.output_type) == (generic.input_type, generic.output_type)


def test_input_attribute_overrides_the_generic_argument() -> None:
    class OverrideTool(Tool[LookupOutput]):
        input = LookupInput

        def handle(self, payload: LookupInput) -> McpResponse:
            return McpResponse.text("x")

    assert compile_server(server_with(tools=[OverrideTool])).tools["override"].input_type is LookupInput


# --- x-mcp-header annotations are validated at compile time ---


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Bad Name"}}},
        {"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "Amount"}}},
        {
            "type": "object",
            "properties": {
                "a": {"type": "string", "x-mcp-header": "Region"},
                "b": {"type": "string", "x-mcp-header": "region"},
            },
        },
        {
            "type": "object",
            "properties": {
                "a": {"type": "object", "properties": {"b": {"type": "string", "x-mcp-header": "B"}}}
            },
        },
        {"type": "object", "$defs": {"x": {"type": "string", "x-mcp-header": "X"}}},
    ],
    ids=["not-a-token", "number-property", "duplicate", "nested", "under-defs"],
)
def test_invalid_x_mcp_header_annotations_are_refused_at_compile_time(schema: dict) -> None:  # type: ignore[type-arg]

    from django_mcp import Server
    from django_mcp.server.compiler import compile_server

    class HeaderServer(Server):
        tools = (header_tool(schema),)

    with pytest.raises(ImproperlyConfigured, match="x-mcp-header"):
        compile_server(HeaderServer)


@pytest.mark.skipif(importlib.util.find_spec("jsonschema") is None, reason="needs the jsonschema extra")
def test_valid_x_mcp_header_annotation_compiles() -> None:
    from django_mcp.server.compiler import compile_server

    schema = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}

    class HeaderServer(Server):
        tools = (header_tool(schema),)

    assert compile_server(HeaderServer).tools["header"].definition.input_schema == schema


# ------------------------------------------------------------ task support


def test_task_support_is_compiled_and_advertised_as_the_extension() -> None:
    compiled = compile_server(server_with(tools=[ReportTool]))

    entry = compiled.tools["report"]
    assert entry.task == "optional"
    assert (entry.prepare.name, entry.use_task.name) == ("prepare", "use_task")  # type: ignore[union-attr]
    assert compiled.capabilities.extensions == {"io.modelcontextprotocol/tasks": {"revision": "1"}}
    assert compiled.legacy_capabilities.extensions is UNSET
    assert "execution" not in msgspec.json.decode(msgspec.json.encode(entry.definition))


@pytest.mark.parametrize("value", ["always", True, "Optional"])
def test_an_unknown_task_declaration_is_refused(value: Any) -> None:
    tool = type("OddTool", (Tool,), {"task": value, "handle": lambda self: McpResponse.text("x")})

    message = refused(server_with(tools=[tool]), tool)
    assert "task must be None, 'optional' or 'required'" in message


@pytest.mark.parametrize("method", ["prepare", "use_task"])
def test_task_hooks_without_task_support_are_refused(method: str) -> None:
    tool = type(
        "HookTool", (Tool,), {method: lambda self: None, "handle": lambda self: McpResponse.text("x")}
    )

    message = refused(server_with(tools=[tool]), tool)
    assert f"defines {method}() but no task support" in message


def test_use_task_on_a_required_task_tool_is_refused() -> None:
    tool = type(
        "AlwaysTool",
        (Tool,),
        {"task": "required", "use_task": lambda self: True, "handle": lambda self: McpResponse.text("x")},
    )

    assert "use_task() is never called" in refused(server_with(tools=[tool]), tool)


def test_task_hooks_take_the_parameters_handle_may() -> None:
    tool = type(
        "GreedyTool",
        (Tool,),
        {
            "task": "optional",
            "prepare": lambda self, other: None,
            "handle": lambda self: McpResponse.text("x"),
        },
    )

    assert "prepare() parameter 'other' cannot be supplied" in refused(server_with(tools=[tool]), tool)


def test_task_retries_are_compiled_for_a_task_tool() -> None:
    tool = type(
        "RetriedTool",
        (Tool,),
        {"task": "optional", "task_retries": 2, "handle": lambda self: McpResponse.text("x")},
    )

    assert compile_server(server_with(tools=[tool])).tools["retried"].task_retries == 2
    assert compile_server(server_with(tools=[ReportTool])).tools["report"].task_retries == 0


@pytest.mark.parametrize(
    ("task", "retries", "problem"),
    [
        ("optional", -1, "task_retries must be a non-negative int"),
        ("optional", True, "task_retries must be a non-negative int"),
        ("optional", "2", "task_retries must be a non-negative int"),
        (None, 1, "task_retries is set but the tool never runs as a task"),
    ],
)
def test_bad_task_retries_are_refused(task: Any, retries: Any, problem: str) -> None:
    tool = type(
        "BadRetryTool",
        (Tool,),
        {"task": task, "task_retries": retries, "handle": lambda self: McpResponse.text("x")},
    )

    assert problem in refused(server_with(tools=[tool]), tool)


def test_idempotency_keys_are_compiled_off_unless_a_tool_opts_in() -> None:
    tool = type(
        "KeyedTool", (Tool,), {"idempotency_keys": True, "handle": lambda self: McpResponse.text("x")}
    )

    assert compile_server(server_with(tools=[tool])).tools["keyed"].idempotency_keys is True
    assert compile_server(server_with(tools=[ReportTool])).tools["report"].idempotency_keys is False


@pytest.mark.parametrize("value", [1, "yes", None])
def test_idempotency_keys_other_than_a_bool_are_refused(value: Any) -> None:
    tool = type(
        "SloppyTool", (Tool,), {"idempotency_keys": value, "handle": lambda self: McpResponse.text("x")}
    )

    assert "idempotency_keys must be True or False" in refused(server_with(tools=[tool]), tool)
