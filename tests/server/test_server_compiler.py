"""Tests for django_mcp.server._server_compiler: a server's members assembled into one catalog."""

import importlib.util
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from django_mcp import McpResponse, Prompt, Resource, Server, Tool
from django_mcp.server.compiler import compile_server
from tests.server.declaring import (
    SomeTool,
    header_tool,
    refused,
    server_with,
    tool,
)


def test_compile_server_refuses_something_that_is_not_a_server() -> None:
    with pytest.raises(ImproperlyConfigured):
        compile_server(tool("a"))  # type: ignore[arg-type]


def test_server_members_must_be_component_classes() -> None:
    prompt = type("StrayPrompt", (Prompt,), {"handle": lambda self: McpResponse.text("x")})
    refused(server_with(tools=[prompt]), prompt)


# -- duplicates -------------------------------------------------------------------------


def test_duplicate_tool_names_are_refused_naming_both_classes() -> None:
    first = tool("same", cls_name="FirstTool")
    second = tool("same", cls_name="SecondTool")
    refused(server_with(tools=[first, second]), first, second)


def test_duplicate_prompt_names_are_refused_naming_both_classes() -> None:
    first = type("FirstPrompt", (Prompt,), {"name": "p", "handle": lambda self: McpResponse.text("x")})
    second = type("SecondPrompt", (Prompt,), {"name": "p", "handle": lambda self: McpResponse.text("x")})
    refused(server_with(prompts=[first, second]), first, second)


def test_duplicate_resource_uris_are_refused_naming_both_classes() -> None:
    first = type(
        "FirstResource", (Resource,), {"uri": "demo://x", "handle": lambda self: McpResponse.text("x")}
    )
    second = type(
        "SecondResource", (Resource,), {"uri": "demo://x", "handle": lambda self: McpResponse.text("x")}
    )
    refused(server_with(resources=[first, second]), first, second)


# -- handlers -------------------------------------------------------------------------------


@pytest.mark.parametrize("base", [Tool, Resource, Prompt])
def test_a_component_without_handle_is_refused(base: type[Any]) -> None:
    attrs = {"uri": "demo://x"} if base is Resource else {}
    bad = type("NoHandle", (base,), attrs)
    members = {Tool: "tools", Resource: "resources", Prompt: "prompts"}[base]
    refused(server_with(**{members: [bad]}), bad)


# -- resources and headers ------------------------------------------------------------------


def test_fixed_resources_and_templates_are_kept_apart() -> None:
    fixed = type(
        "FixedResource", (Resource,), {"uri": "demo://x", "handle": lambda self: McpResponse.text("x")}
    )
    templated = type(
        "UserResource",
        (Resource,),
        {"uri_template": "demo://users/{user_id}", "handle": lambda self, user_id: McpResponse.text(user_id)},
    )
    compiled = compile_server(server_with(resources=[fixed, templated]))
    assert list(compiled.resources) == ["demo://x"]
    assert list(compiled.templates) == ["demo://users/{user_id}"]


@pytest.mark.skipif(importlib.util.find_spec("jsonschema") is None, reason="needs the jsonschema extra")
def test_only_tools_mirroring_arguments_into_headers_have_header_maps() -> None:
    # A tools/call then tells at once that no header needs checking, whatever
    # the catalog's size.
    from django_mcp.server.compiler import compile_server

    schema = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}

    class HeaderServer(Server):
        tools = (header_tool(schema), SomeTool)

    class PlainServer(Server):
        tools = (SomeTool,)

    assert dict(compile_server(HeaderServer).tool_headers) == {"header": {"region": ("region", "string")}}
    assert dict(compile_server(PlainServer).tool_headers) == {}
